import { createContext, useContext } from 'react';
import type { GuardDecision } from './guard';

export const GuardContext = createContext<GuardDecision | null>(null);

export function useGuardDecision(): GuardDecision | null {
  return useContext(GuardContext);
}

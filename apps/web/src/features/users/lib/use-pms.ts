import { useCallback } from 'react';
import { can, type Permission } from '@esource/shared';
import { useAccess } from '../../session';

/**
 * `has(...anyOf)`: whether the user holds any of the permissions (spec §6). Buttons show only with their
 * permission; the server enforces them anyway.
 */
export function usePms(): (...anyOf: Permission[]) => boolean {
  const access = useAccess();
  return useCallback((...anyOf: Permission[]) => Boolean(access && can(access.pms, { anyOf })), [access]);
}

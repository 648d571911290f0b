import { createContext } from '../detect.js';
import type { DeidSpan, DetectorContext } from '../types.js';

/** A detector context for tests. */
export function ctx(text: string): DetectorContext {
  return createContext(text);
}

/** The texts of the spans, for short assertions. */
export function texts(spans: readonly DeidSpan[]): string[] {
  return spans.map((s) => s.text);
}

import { readFileSync } from 'node:fs';
import { join } from 'node:path';

/** Reads a file from this package's test-fixtures folder (never from shared/). */
export function fixture(path: string): string {
  return readFileSync(join(import.meta.dirname, '../../test-fixtures', path), 'utf8');
}

/** Share of the characters in `gold` that `found` covers; 1 when there is nothing to cover. */
export function charCoverage(gold: readonly { start: number; end: number }[], found: readonly { start: number; end: number }[]): number {
  let total = 0;
  let covered = 0;
  for (const g of gold) {
    for (let i = g.start; i < g.end; i++) {
      total++;
      if (found.some((f) => f.start <= i && i < f.end)) covered++;
    }
  }
  return total === 0 ? 1 : covered / total;
}

import { describe, expect, it } from 'vitest';
import { detectIdentifiers } from '../detect.js';
import { CLINICAL_VALUES, MARKED_NOTE, unmark } from '../fixtures/clinical-note.js';
import { applyMask } from '../spans.js';
import { charCoverage } from './load-fixture.js';

const { text, spans: gold } = unmark(MARKED_NOTE);

describe('a bilingual clinical note (Chinese lab report, English discharge summary)', () => {
  const found = detectIdentifiers(text, {});
  const masked = applyMask(text, found);

  it('covers every identifier character', () => {
    const missed = gold.filter((g) => charCoverage([g], found) < 1).map((g) => text.slice(g.start, g.end));
    expect(missed).toEqual([]);
  });

  it('leaves every clinical value untouched', () => {
    const hit = CLINICAL_VALUES.filter((v) => {
      const at = text.indexOf(v);
      return at < 0 || masked.slice(at, at + v.length) !== v;
    });
    expect(hit).toEqual([]);
  });

  it('masks little that is not an identifier (precision by characters)', () => {
    let maskedChars = 0;
    let wrong = 0;
    for (const s of found) {
      for (let i = s.start; i < s.end; i++) {
        maskedChars++;
        if (!gold.some((g) => g.start <= i && i < g.end)) wrong++;
      }
    }
    const precision = 1 - wrong / maskedChars;
    console.log(`clinical note: ${found.length} spans, ${maskedChars} masked characters, precision ${(100 * precision).toFixed(1)} %`);
    expect(precision).toBeGreaterThanOrEqual(0.95);
  });
});

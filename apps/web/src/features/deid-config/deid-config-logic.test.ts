import { describe, expect, it } from 'vitest';
import { DEFAULT_DEID_POLICY, parseKeywordLines, type DeidTestSpan } from '@esource/shared';
import { flagsOf, highlightPieces, kindCounts, policyChanged } from './deid-config-logic';

const span = (
  start: number,
  end: number,
  text: string,
  kind: DeidTestSpan['kind'] = 'keyword',
): DeidTestSpan => ({ start, end, text, kind, reason: `${kind}.x` });

describe('try-out highlighting', () => {
  it('cuts the text into visible and hidden pieces that join back to the text', () => {
    const text = 'Seen at Ward 7 on 2024-03-05.';
    const spans = [span(18, 28, '2024-03-05', 'date'), span(8, 14, 'Ward 7')];
    const pieces = highlightPieces(text, spans);
    expect(pieces.map((p) => [p.text, p.span?.kind ?? null])).toEqual([
      ['Seen at ', null],
      ['Ward 7', 'keyword'],
      [' on ', null],
      ['2024-03-05', 'date'],
      ['.', null],
    ]);
    expect(pieces.map((p) => p.text).join('')).toBe(text);
  });

  it('shows a span at the very start or end, and never shows overlapping or outside parts twice', () => {
    expect(highlightPieces('abc', [span(0, 3, 'abc')]).map((p) => p.text)).toEqual(['abc']);
    const pieces = highlightPieces('abcdef', [
      span(0, 4, 'abcd'),
      span(2, 5, 'cde', 'date'),
      span(5, 9, 'f…'),
      span(3, 3, ''),
    ]);
    expect(pieces.map((p) => p.text)).toEqual(['abcd', 'e', 'f']);
    expect(pieces.map((p) => p.text).join('')).toBe('abcdef');
    expect(highlightPieces('', [])).toEqual([]);
    expect(highlightPieces('plain', [])).toEqual([{ text: 'plain' }]);
  });

  it('counts spans per kind in the display order', () => {
    expect(kindCounts([{ kind: 'date' }, { kind: 'keyword' }, { kind: 'date' }, { kind: 'idCard' }])).toEqual(
      [
        { kind: 'idCard', count: 1 },
        { kind: 'date', count: 2 },
        { kind: 'keyword', count: 1 },
      ],
    );
  });
});

describe('policy draft', () => {
  it('tells a changed switch from the saved policy and keeps only the switches of a view', () => {
    const view = {
      ...DEFAULT_DEID_POLICY,
      version: 3,
      updatedBy: 'Dana',
      updateTime: '2026-01-01T00:00:00Z',
    };
    expect(flagsOf(view)).toEqual(DEFAULT_DEID_POLICY);
    expect(policyChanged(DEFAULT_DEID_POLICY, { ...DEFAULT_DEID_POLICY })).toBe(false);
    expect(policyChanged(DEFAULT_DEID_POLICY, { ...DEFAULT_DEID_POLICY, maskOtherDates: true })).toBe(true);
  });
});

describe('import text (the shared reader the server uses too)', () => {
  it('skips blank lines, keeps the first of repeated keywords in any case, and names bad lines', () => {
    expect(parseKeywordLines('Ward 7\r\n\r\n  ward 7 \nHospital A\n')).toEqual({
      keywords: ['Ward 7', 'Hospital A'],
      repeated: 1,
      problems: [],
    });
    expect(parseKeywordLines(`ok\n${'x'.repeat(101)}\na\tb\n${'y'.repeat(100)}`).problems).toEqual([
      { line: 2, problem: 'tooLong' },
      { line: 3, problem: 'control' },
    ]);
  });
});

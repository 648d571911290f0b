import { describe, expect, it } from 'vitest';
import { applyMask, mergeSpans, span, uniqueSpans } from './spans.js';

const text = '张伟13812345678住北京';

describe('spans', () => {
  it('merges overlapping and touching spans, sorted, most specific kind first', () => {
    const merged = mergeSpans(text, [
      span(text, 2, 13, 'phone', 'phone.CN.mobile'),
      span(text, 0, 2, 'personName', 'name.label'),
      span(text, 3, 6, 'keyword', 'keyword.project'),
      span(text, 14, 16, 'address', 'address.zh'),
    ]);
    expect(merged.map((s) => [s.start, s.end, s.kind])).toEqual([
      [0, 13, 'phone'],
      [14, 16, 'address'],
    ]);
    expect(merged[0]?.text).toBe('张伟13812345678');
  });

  it('drops empty and repeated spans', () => {
    expect(mergeSpans(text, [span(text, 3, 3, 'date', 'x')])).toEqual([]);
    expect(uniqueSpans([span(text, 0, 2, 'personName', 'a'), span(text, 0, 2, 'doctor', 'b')])).toHaveLength(1);
  });

  it('masks in place and keeps the length', () => {
    expect(applyMask(text, [{ start: 0, end: 2 }, { start: 2, end: 13 }])).toBe('*************住北京');
    expect(applyMask('abc', [{ start: 1, end: 9 }], '█')).toBe('a██');
  });
});

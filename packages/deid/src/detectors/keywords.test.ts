import { describe, expect, it } from 'vitest';
import { detectKeywords } from './keywords.js';
import { ctx, texts } from './test-context.js';

describe('project keywords', () => {
  it('finds exact keywords, case-insensitive for Latin, longest first', () => {
    const spans = detectKeywords(ctx('PUMCH 协和医院 与 pumch 协和'), ['协和', '协和医院', 'Pumch', '  ']);
    expect(texts(spans)).toEqual(['PUMCH', '协和医院', 'pumch', '协和']);
    expect(spans[0]?.reason).toBe('keyword.project');
  });

  it('treats keywords literally', () => {
    expect(texts(detectKeywords(ctx('a.b axb (x)'), ['a.b', '(x)']))).toEqual(['a.b', '(x)']);
    expect(detectKeywords(ctx('anything'), [])).toEqual([]);
  });
});

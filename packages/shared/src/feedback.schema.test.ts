import { describe, expect, it } from 'vitest';
import { feedbackAddFields, feedbackPageRequest, feedbackPagePath } from './feedback.schema';

describe('feedback page path', () => {
  it('keeps the path of the app only, never its query or fragment', () => {
    expect(feedbackPagePath('/project/centerPtsList?keyword=H-001&ptsId=3#row')).toBe(
      '/project/centerPtsList',
    );
    expect(feedbackPagePath('/overview')).toBe('/overview');
    expect(feedbackPagePath('  /messages#x ')).toBe('/messages');
    for (const bad of [
      'https://evil.example/x',
      '//evil.example/x',
      'overview',
      '',
      '?a=1',
      42,
      null,
      undefined,
    ])
      expect(feedbackPagePath(bad), String(bad)).toBeUndefined();
    expect(feedbackPagePath(`/${'a'.repeat(600)}`)).toHaveLength(500);
  });

  it('reads the send fields: category, trimmed text of 1–2,000 characters, optional page', () => {
    expect(feedbackAddFields.parse({ category: 'bug', content: '  broken  ', pagePath: '/a?b' })).toEqual({
      category: 'bug',
      content: 'broken',
      pagePath: '/a',
    });
    expect(feedbackAddFields.safeParse({ category: 'bug', content: 'x'.repeat(2001) }).success).toBe(false);
    expect(feedbackAddFields.safeParse({ category: 'praise', content: 'x' }).success).toBe(false);
    expect(feedbackAddFields.safeParse({ category: 'other', content: '   ' }).success).toBe(false);
  });

  it('reads the list request: blank filters ignored, antd sort names, ordered days', () => {
    expect(
      feedbackPageRequest.parse({ status: '', category: '', sortOrder: 'ascend', pageSize: '100' }),
    ).toMatchObject({
      status: undefined,
      sortOrder: 'asc',
      pageSize: 100,
      pageNumber: 1,
      timeZone: 'Asia/Shanghai',
    });
    expect(feedbackPageRequest.safeParse({ from: '2026-02-02', to: '2026-02-01' }).success).toBe(false);
    expect(feedbackPageRequest.safeParse({ timeZone: 'Mars/Olympus' }).success).toBe(false);
  });
});

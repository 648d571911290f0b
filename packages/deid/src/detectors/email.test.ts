import { describe, expect, it } from 'vitest';
import { detectEmails } from './email.js';
import { ctx, texts } from './test-context.js';

describe('e-mail addresses', () => {
  it('finds addresses next to Chinese text and in English', () => {
    expect(texts(detectEmails(ctx('邮箱test@qq.com和john.smith59@example.com.')))).toEqual(['test@qq.com', 'john.smith59@example.com']);
  });

  it('refuses broken ones', () => {
    for (const t of ['test@', '@example.com', 'test@.com', 'a@b', 'x@example..com']) expect(detectEmails(ctx(t)), t).toEqual([]);
  });
});

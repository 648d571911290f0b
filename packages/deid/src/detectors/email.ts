import { span } from '../spans.js';
import type { DeidSpan, DetectorContext } from '../types.js';

// RFC 5322's everyday subset; the domain needs a dot and no empty label
const EMAIL = /(?<![\w.%+-])[A-Za-z0-9](?:[A-Za-z0-9._%+-]*[A-Za-z0-9_%+-])?@(?:[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?\.)+[A-Za-z]{2,24}(?![\w-])/g;

/** Finds e-mail addresses. */
export function detectEmails(ctx: DetectorContext): DeidSpan[] {
  return [...ctx.text.matchAll(EMAIL)].map((m) => span(ctx.text, m.index, m.index + m[0].length, 'email', 'email.pattern'));
}

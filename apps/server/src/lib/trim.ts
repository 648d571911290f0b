/**
 * The input pass every parsed body and query goes through before validation (DESIGN §3.1): strings are trimmed
 * (spec §7), and input that would only fail deeper down is refused here, naming the field:
 * - nesting deeper than MAX_INPUT_DEPTH (no request of ours nests that deep; deeper input once overflowed the stack
 *   of this very pass and answered 500);
 * - the NUL character in a string or key: PostgreSQL cannot store it in text or jsonb, and silently dropping it
 *   would change clinical data, so it is refused rather than stripped (docs/decisions.md).
 * The walk is iterative: no input, however deep, can overflow the stack here.
 */
import type { Language } from '@esource/shared';
import { fieldError } from './validate';

/** Objects and lists nested deeper than this are refused (the deepest request we take, a form definition, nests ≈ 8). */
export const MAX_INPUT_DEPTH = 32;

interface Frame {
  src: unknown;
  path: (string | number)[];
  put: (v: unknown) => void;
}

const fieldOf = (path: (string | number)[], where: string) => (path.length ? path.join('.') : where);

/**
 * Trims every string of a parsed body or query (spec §7) and returns the copy; throws a VALIDATION error naming the
 * field for nesting deeper than MAX_INPUT_DEPTH or a NUL character. `where` names the whole input ('body', 'query').
 */
export function deepTrim(input: unknown, lang: Language = 'zh_CN', where = 'body'): unknown {
  let result: unknown;
  const stack: Frame[] = [{ src: input, path: [], put: (v) => (result = v) }];
  while (stack.length) {
    const { src, path, put } = stack.pop()!;
    if (typeof src === 'string') {
      if (src.includes('\u0000')) throw fieldError(lang, fieldOf(path, where), 'validation.nul');
      put(src.trim());
    } else if (Array.isArray(src)) {
      if (path.length >= MAX_INPUT_DEPTH) throw fieldError(lang, fieldOf(path, where), 'validation.tooDeep', { max: MAX_INPUT_DEPTH });
      const out: unknown[] = new Array<unknown>(src.length);
      put(out);
      for (let i = 0; i < src.length; i++) stack.push({ src: src[i], path: [...path, i], put: (v) => (out[i] = v) });
    } else if (src !== null && typeof src === 'object' && isPlain(src)) {
      if (path.length >= MAX_INPUT_DEPTH) throw fieldError(lang, fieldOf(path, where), 'validation.tooDeep', { max: MAX_INPUT_DEPTH });
      const out: Record<string, unknown> = {};
      put(out);
      for (const [k, v] of Object.entries(src)) {
        if (k.includes('\u0000')) throw fieldError(lang, fieldOf([...path, k.replaceAll('\u0000', '\\u0000')], where), 'validation.nul');
        // defined now, in order (the walk fills them in reverse); an own '__proto__' key stays a plain data property
        // (assigning it would set the copy's prototype instead)
        const prop = (value: unknown) => Object.defineProperty(out, k, { value, enumerable: true, writable: true, configurable: true });
        prop(undefined);
        stack.push({ src: v, path: [...path, k], put: prop });
      }
    } else put(src);
  }
  return result;
}

/**
 * Plain objects: JSON's and qs's (Object.prototype), and fast-querystring's for the query (an empty prototype that
 * itself has none). Anything else (a Buffer, a Date) is left as it is.
 */
function isPlain(v: object): boolean {
  const p = Object.getPrototypeOf(v) as object | null;
  return p === Object.prototype || p === null || Object.getPrototypeOf(p) === null;
}

/**
 * The input pass every parsed body and query goes through before validation (DESIGN §3.1): strings are trimmed
 * (spec §7), and input that would only fail deeper down is refused here, naming the field:
 * - nesting deeper than MAX_INPUT_DEPTH (no request of ours nests that deep; deeper input once overflowed the stack
 *   of this very pass and answered 500);
 * - the NUL character in a string or key: PostgreSQL cannot store it in text or jsonb, and silently dropping it
 *   would change clinical data, so it is refused rather than stripped (docs/decisions.md);
 * - a lone UTF-16 surrogate (a JSON "\ud800" escape without its pair): not a character, which the driver would
 *   silently store as U+FFFD and PostgreSQL's JSON refuses; refused the same way.
 * The walk is iterative: no input, however deep, can overflow the stack here.
 */
import type { Language } from '@esource/shared';
import { fieldError } from './validate';
import { isWellFormed, wellFormed } from './well-formed';

/** Objects and lists nested deeper than this are refused (the deepest request we take, a form definition, nests ≈ 8). */
export const MAX_INPUT_DEPTH = 32;

/**
 * One value still to copy: where the copy goes (`into[key]`, or the result when `into` is null), its depth, and its
 * parent frame, from which the field's path is built only when an error names it (a body of many items then
 * allocates no path per value).
 */
interface Frame {
  src: unknown;
  into: unknown[] | Record<string, unknown> | null;
  key: string | number;
  depth: number;
  parent: Frame | null;
}

function pathOf(f: Frame | null, last?: string): (string | number)[] {
  const path: (string | number)[] = last === undefined ? [] : [last];
  for (let at = f; at && at.parent; at = at.parent) path.push(at.key);
  return path.reverse();
}

const fieldOf = (path: (string | number)[], where: string) => (path.length ? path.join('.') : where);

/**
 * Trims every string of a parsed body or query (spec §7) and returns the copy; throws a VALIDATION error naming the
 * field for nesting deeper than MAX_INPUT_DEPTH or a NUL character. `where` names the whole input ('body', 'query').
 */
export function deepTrim(input: unknown, lang: Language = 'zh_CN', where = 'body'): unknown {
  const root: { v: unknown } = { v: undefined };
  const stack: Frame[] = [{ src: input, into: null, key: '', depth: 0, parent: null }];
  while (stack.length) {
    const f = stack.pop()!;
    const { src } = f;
    let v: unknown;
    if (typeof src === 'string') {
      if (src.includes('\u0000')) throw fieldError(lang, fieldOf(pathOf(f), where), 'validation.nul');
      if (!isWellFormed(src)) throw fieldError(lang, fieldOf(pathOf(f), where), 'validation.loneSurrogate');
      v = src.trim();
    } else if (Array.isArray(src)) {
      if (f.depth >= MAX_INPUT_DEPTH) throw fieldError(lang, fieldOf(pathOf(f), where), 'validation.tooDeep', { max: MAX_INPUT_DEPTH });
      const out: unknown[] = new Array<unknown>(src.length);
      v = out;
      for (let i = 0; i < src.length; i++) stack.push({ src: src[i], into: out, key: i, depth: f.depth + 1, parent: f });
    } else if (src !== null && typeof src === 'object' && isPlain(src)) {
      if (f.depth >= MAX_INPUT_DEPTH) throw fieldError(lang, fieldOf(pathOf(f), where), 'validation.tooDeep', { max: MAX_INPUT_DEPTH });
      const out: Record<string, unknown> = {};
      v = out;
      for (const k of Object.keys(src)) {
        if (k.includes('\u0000')) throw fieldError(lang, fieldOf(pathOf(f, k.replaceAll('\u0000', '\\u0000')), where), 'validation.nul');
        if (!isWellFormed(k)) throw fieldError(lang, fieldOf(pathOf(f, wellFormed(k)), where), 'validation.loneSurrogate');
        // defined now, in order (the walk fills them in reverse); an own '__proto__' key stays a plain data property
        // (assigning it would set the copy's prototype instead)
        Object.defineProperty(out, k, { value: undefined, enumerable: true, writable: true, configurable: true });
        stack.push({ src: (src as Record<string, unknown>)[k], into: out, key: k, depth: f.depth + 1, parent: f });
      }
    } else v = src;
    if (f.into === null) root.v = v;
    else (f.into as Record<string | number, unknown>)[f.key] = v;
  }
  return root.v;
}

/**
 * Plain objects: JSON's and qs's (Object.prototype), and fast-querystring's for the query (an empty prototype that
 * itself has none). Anything else (a Buffer, a Date) is left as it is.
 */
function isPlain(v: object): boolean {
  const p = Object.getPrototypeOf(v) as object | null;
  return p === Object.prototype || p === null || Object.getPrototypeOf(p) === null;
}

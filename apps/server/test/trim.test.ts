import { describe, expect, it } from 'vitest';
import { AppError } from '../src/lib/errors';
import { deepTrim, MAX_INPUT_DEPTH } from '../src/lib/trim';

const detailOf = (fn: () => unknown): string => {
  try {
    fn();
  } catch (e) {
    return JSON.stringify((e as AppError).params ?? (e as Error).message);
  }
  throw new Error('no error');
};

describe('deepTrim (the input pass)', () => {
  it('trims every string at any depth, keeps other values and the key order, and copies', () => {
    const input = { a: ' x ', b: [' y', { c: 'z ', d: 1, e: null, f: true }], g: { h: [[' i ']] } };
    const out = deepTrim(input) as typeof input;
    expect(out).toEqual({ a: 'x', b: ['y', { c: 'z', d: 1, e: null, f: true }], g: { h: [['i']] } });
    expect(Object.keys(out)).toEqual(['a', 'b', 'g']);
    expect(out).not.toBe(input);
    expect(input.a).toBe(' x ');
    expect(deepTrim(' top ')).toBe('top');
    expect(deepTrim([])).toEqual([]);
  });

  it('keeps an own __proto__ key as data, never as the copy’s prototype', () => {
    const out = deepTrim(JSON.parse('{"__proto__": {"polluted": " yes "}, "k": 1}')) as Record<string, unknown>;
    expect(Object.getPrototypeOf(out)).toBe(Object.prototype);
    expect((out as { polluted?: unknown }).polluted).toBeUndefined();
    expect(Object.getOwnPropertyDescriptor(out, '__proto__')?.value).toEqual({ polluted: 'yes' });
  });

  it('names the field of a NUL character, in a value and in a key', () => {
    expect(detailOf(() => deepTrim({ items: [{ v: 'ok' }, { v: 'a\u0000b' }] }, 'en_US'))).toContain('items.1.v');
    expect(detailOf(() => deepTrim({ outer: { 'k\u0000': 1 } }, 'en_US'))).toContain('outer.k\\\\u0000');
    expect(detailOf(() => deepTrim('\u0000', 'en_US', 'query'))).toContain('query');
  });

  it('names the field of a lone surrogate (never stored as U+FFFD), and keeps paired ones', () => {
    const body = JSON.parse('{"items": [{"v": "ok"}, {"reason": "a\\ud800b"}], "emoji": "\\ud83d\\ude00"}') as unknown;
    expect(detailOf(() => deepTrim(body, 'en_US'))).toContain('items.1.reason');
    expect(detailOf(() => deepTrim(body, 'en_US'))).toContain('lone surrogate');
    expect(detailOf(() => deepTrim(JSON.parse('{"k\\udc00": 1}') as unknown, 'en_US'))).toContain('k\uFFFD');
    expect(deepTrim({ emoji: ' \ud83d\ude00 ' })).toEqual({ emoji: '\ud83d\ude00' });
  });

  it('refuses nesting deeper than MAX_INPUT_DEPTH, naming where', () => {
    let deep: unknown = 1;
    for (let i = 0; i < MAX_INPUT_DEPTH + 1; i++) deep = [deep];
    expect(detailOf(() => deepTrim({ d: deep }, 'en_US'))).toMatch(/d(\.0)+/);
    let ok: unknown = ' v ';
    for (let i = 0; i < MAX_INPUT_DEPTH - 1; i++) ok = [ok];
    expect(() => deepTrim(ok)).not.toThrow();
    // a very deep input does not overflow the stack
    let huge: unknown = 1;
    for (let i = 0; i < 100_000; i++) huge = [huge];
    expect(() => deepTrim(huge)).toThrow(AppError);
  });
});

/**
 * Folds full-width ASCII (U+FF01–U+FF5E) and the ideographic space to their half-width forms. Every character
 * maps to exactly one character, so offsets into the result are offsets into the input.
 */
export function foldWidth(text: string): string {
  return text.replace(/[\uFF01-\uFF5E\u3000]/g, (c) =>
    c === '\u3000' ? ' ' : String.fromCharCode(c.charCodeAt(0) - 0xfee0),
  );
}

/**
 * Folds a digit zero that OCR read inside a Latin word (D0B, Acc0unt, example.c0m) to the letter O, so that labels
 * and words are recognised. One character for one, so offsets stay the input's.
 */
export function foldOcrZero(text: string): string {
  return text.replace(/(?<=[A-Za-z])0(?=[A-Za-z])/g, 'O');
}

/** Escapes a literal for use inside a RegExp (RegExp.escape arrives with Node 24). */
export function escapeRegExp(literal: string): string {
  return literal.replace(/[.*+?^${}()|[\]\\/-]/g, '\\$&');
}

/** True for a CJK unified ideograph (the characters Chinese names and places are written in). */
export function isHan(ch: string | undefined): boolean {
  return ch !== undefined && /\p{Script=Han}/u.test(ch);
}

import {
  beginText,
  endText,
  popGraphicsState,
  pushGraphicsState,
  setCharacterSqueeze,
  setFontAndSize,
  setTextMatrix,
  setTextRenderingMode,
  showText,
  TextRenderingMode,
  type PDFFont,
  type PDFPage,
} from 'pdf-lib';
import type { KeepText } from './types.js';

/**
 * Keeps only the characters the standard font can encode (WinAnsi: Latin-1 and a few more). CJK and other scripts are
 * dropped on purpose: embedding a CJK font would add megabytes per document.
 */
export function encodable(font: PDFFont, text: string): string {
  const supported = new Set(font.getCharacterSet());
  // by code point: the character set is a list of code points
  return Array.from(text)
    .filter((ch) => supported.has(ch.codePointAt(0) ?? -1))
    .join('');
}

/**
 * Writes `keep` as invisible text (render mode 3: neither filled nor stroked, still extracted and searchable) over the
 * page image. Coordinates are pixels at `scale` from the top-left; the line is squeezed to the box's width. Returns
 * how many items were written (items with nothing encodable are skipped).
 */
export function drawInvisibleText(
  page: PDFPage,
  font: PDFFont,
  keep: readonly KeepText[],
  scale: number,
): number {
  const pageHeight = page.getHeight();
  let written = 0;
  let key: ReturnType<PDFPage['node']['newFontDictionary']> | undefined;
  for (const k of keep) {
    const text = encodable(font, k.text).trim();
    if (text === '' || !(k.width > 0) || !(k.height > 0)) continue;
    const height = k.height / scale;
    const size = height / font.heightAtSize(1, { descender: true });
    const natural = font.widthOfTextAtSize(text, size);
    const squeeze = natural > 0 ? (100 * (k.width / scale)) / natural : 100;
    // baseline: bottom of the box raised by the font's descent
    const descent =
      size * (font.heightAtSize(1, { descender: true }) - font.heightAtSize(1, { descender: false }));
    const x = k.x / scale;
    const y = pageHeight - (k.y + k.height) / scale + descent;
    key ??= page.node.newFontDictionary(font.name, font.ref);
    page.pushOperators(
      pushGraphicsState(),
      beginText(),
      setFontAndSize(key, size),
      setTextRenderingMode(TextRenderingMode.Invisible),
      setCharacterSqueeze(squeeze),
      setTextMatrix(1, 0, 0, 1, x, y),
      showText(font.encodeText(text)),
      endText(),
      popGraphicsState(),
    );
    written++;
  }
  return written;
}

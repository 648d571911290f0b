// Test images: text lines drawn with sharp from SVG (Noto CJK fonts), with the box each line's ink covers.
import sharp from 'sharp';
import type { Box } from '../types.js';

/** One line of text to draw: baseline position and size in pixels. */
export interface TextLine {
  text: string;
  x: number;
  y: number;
  size: number;
}

/** How to draw the page. */
export interface PageStyle {
  width: number;
  height: number;
  ink?: string;
  paper?: string;
  font?: string;
}

const FONT = 'Noto Sans CJK SC, Noto Sans Mono CJK SC, sans-serif';

function esc(s: string): string {
  return s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

/** The line as SVG; with `only`, every other character is drawn invisibly (same advance, no ink). */
function textElement(l: TextLine, style: PageStyle, only?: string): string {
  const attrs = `x="${l.x}" y="${l.y}" font-size="${l.size}" font-family="${style.font ?? FONT}" fill="${style.ink ?? '#000'}" xml:space="preserve"`;
  if (only === undefined) return `<text ${attrs}>${esc(l.text)}</text>`;
  const at = l.text.indexOf(only);
  if (at < 0) throw new Error(`${only} not in ${l.text}`);
  const hidden = (s: string) => (s ? `<tspan fill-opacity="0">${esc(s)}</tspan>` : '');
  return `<text ${attrs}>${hidden(l.text.slice(0, at))}<tspan>${esc(only)}</tspan>${hidden(l.text.slice(at + only.length))}</text>`;
}

function svg(lines: readonly TextLine[], style: PageStyle, only?: string): Buffer {
  const texts = lines.map((l) => textElement(l, style, only)).join('');
  return Buffer.from(`<svg xmlns="http://www.w3.org/2000/svg" width="${style.width}" height="${style.height}"><rect width="100%" height="100%" fill="${style.paper ?? '#fff'}"/>${texts}</svg>`);
}

/** PNG of the page. */
export async function drawPage(lines: readonly TextLine[], style: PageStyle): Promise<Buffer> {
  return sharp(svg(lines, style)).png().toBuffer();
}

/** The ink box of one line (or of the sub-string `only` in it) drawn alone, black on white, found with sharp's trim. */
export async function inkBox(line: TextLine, style: PageStyle, only?: string): Promise<Box> {
  const { info } = await sharp(svg([line], { ...style, ink: '#000', paper: '#fff' }, only))
    .flatten({ background: '#fff' })
    .trim({ background: '#fff', threshold: 60 })
    .toBuffer({ resolveWithObject: true });
  return { x: -(info.trimOffsetLeft ?? 0), y: -(info.trimOffsetTop ?? 0), width: info.width, height: info.height };
}

/** Intersection over union of two boxes. */
export function iou(a: Box, b: Box): number {
  const ix = Math.max(0, Math.min(a.x + a.width, b.x + b.width) - Math.max(a.x, b.x));
  const iy = Math.max(0, Math.min(a.y + a.height, b.y + b.height) - Math.max(a.y, b.y));
  const inter = ix * iy;
  return inter / (a.width * a.height + b.width * b.height - inter);
}

/** Character error rate: Levenshtein distance over the expected length (code points). */
export function cer(expected: string, actual: string): number {
  const a = Array.from(expected);
  const b = Array.from(actual);
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const cur = [i];
    for (let j = 1; j <= b.length; j++) cur[j] = Math.min(prev[j]! + 1, cur[j - 1]! + 1, prev[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
    prev = cur;
  }
  return a.length ? prev[b.length]! / a.length : 0;
}

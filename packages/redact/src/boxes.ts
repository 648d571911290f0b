import { RedactError } from './errors.js';
import type { Box } from './types.js';

/** An integer rectangle inside the image, ready to paint. */
export interface PixelRect {
  left: number;
  top: number;
  width: number;
  height: number;
}

/** Throws BAD_BOX unless every coordinate is a finite number and the page index an integer ≥ 0. */
export function assertBox(box: Box): void {
  const { page, x, y, width, height } = box;
  if (![x, y, width, height].every(Number.isFinite) || !Number.isInteger(page) || page < 0) {
    throw new RedactError('BAD_BOX', `invalid box ${JSON.stringify(box)}`);
  }
}

/**
 * Pads a box, rounds it outward to whole pixels (a fractional edge must not leave a half-covered column) and clamps it
 * to the image; null when nothing of it is inside. Negative width/height are normalised.
 */
export function toPixelRect(
  box: Box,
  imageWidth: number,
  imageHeight: number,
  padding = 0,
  scale = 1,
): PixelRect | null {
  assertBox(box);
  const x0 = Math.min(box.x, box.x + box.width) * scale - padding;
  const y0 = Math.min(box.y, box.y + box.height) * scale - padding;
  const x1 = Math.max(box.x, box.x + box.width) * scale + padding;
  const y1 = Math.max(box.y, box.y + box.height) * scale + padding;
  const left = Math.max(0, Math.floor(x0));
  const top = Math.max(0, Math.floor(y0));
  const right = Math.min(imageWidth, Math.ceil(x1));
  const bottom = Math.min(imageHeight, Math.ceil(y1));
  if (right <= left || bottom <= top) return null;
  return { left, top, width: right - left, height: bottom - top };
}

/** One SVG of solid black rectangles the size of the image (composited in one pass by sharp). */
export function rectsSvg(rects: readonly PixelRect[], imageWidth: number, imageHeight: number): Buffer {
  const body = rects
    .map((r) => `<rect x="${r.left}" y="${r.top}" width="${r.width}" height="${r.height}"/>`)
    .join('');
  return Buffer.from(
    `<svg xmlns="http://www.w3.org/2000/svg" width="${imageWidth}" height="${imageHeight}" shape-rendering="crispEdges" fill="#000">${body}</svg>`,
  );
}

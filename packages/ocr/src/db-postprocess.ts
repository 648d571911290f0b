// DB (differentiable binarisation) post-processing as PaddleOCR's DBPostProcess does it: threshold the probability
// map, take each connected component's minimum-area rectangle, score it, grow it (unclip), scale it back.
import { expandRect, inConvexQuad, minAreaRect, orderClockwise } from './geometry.js';
import type { Point, Quad } from './types.js';

/** PaddleOCR's defaults for PP-OCRv4 detection. */
export const DB_DEFAULTS = { thresh: 0.3, boxThresh: 0.6, unclipRatio: 1.5, minSize: 3, maxCandidates: 1000 };

/** The detection model's output: probabilities 0..1, one per pixel of the (resized) detection input. */
export interface ProbMap {
  data: Float32Array;
  width: number;
  height: number;
}

/** Text boxes (clockwise from top-left) in the pixel space `scaleX`/`scaleY` map to, sorted in reading order. */
export function boxesFromProbMap(map: ProbMap, scaleX: number, scaleY: number, outW: number, outH: number, opts = DB_DEFAULTS): Quad[] {
  const components = connectedComponents(map, opts.thresh).slice(0, opts.maxCandidates);
  const boxes: Quad[] = [];
  for (const rowSpans of components) {
    const rect = minAreaRect(rowSpans);
    if (Math.min(rect.width, rect.height) < opts.minSize) continue;
    if (boxScore(map, rect.corners) < opts.boxThresh) continue;
    const area = rect.width * rect.height;
    const perimeter = 2 * (rect.width + rect.height);
    const grown = expandRect(rect, (area * opts.unclipRatio) / perimeter);
    if (Math.min(grown.width, grown.height) < opts.minSize + 2) continue;
    const scaled = grown.corners.map((q) => ({
      x: clamp(Math.round(q.x * scaleX), 0, outW),
      y: clamp(Math.round(q.y * scaleY), 0, outH),
    }));
    const quad = orderClockwise(scaled);
    if (Math.hypot(quad[1].x - quad[0].x, quad[1].y - quad[0].y) <= 3) continue;
    if (Math.hypot(quad[3].x - quad[0].x, quad[3].y - quad[0].y) <= 3) continue;
    boxes.push(quad);
  }
  return sortReadingOrder(boxes);
}

/**
 * 8-connected components of `prob > thresh`, largest first; each is given as the left- and right-most pixel of
 * every row it covers, which is all a convex hull needs.
 */
export function connectedComponents(map: ProbMap, thresh: number): Point[][] {
  const { data, width: w, height: h } = map;
  const label = new Int32Array(w * h);
  const out: { extremes: Point[]; size: number }[] = [];
  const stack: number[] = [];
  for (let start = 0; start < w * h; start++) {
    if (label[start] !== 0 || !(data[start]! > thresh)) continue;
    const id = out.length + 1;
    const rowMin = new Map<number, number>();
    const rowMax = new Map<number, number>();
    let size = 0;
    label[start] = id;
    stack.push(start);
    while (stack.length) {
      const i = stack.pop()!;
      const x = i % w;
      const y = (i - x) / w;
      size++;
      const lo = rowMin.get(y);
      const hi = rowMax.get(y);
      if (lo === undefined || x < lo) rowMin.set(y, x);
      if (hi === undefined || x > hi) rowMax.set(y, x);
      for (let dy = -1; dy <= 1; dy++) {
        const ny = y + dy;
        if (ny < 0 || ny >= h) continue;
        for (let dx = -1; dx <= 1; dx++) {
          const nx = x + dx;
          if (nx < 0 || nx >= w) continue;
          const j = ny * w + nx;
          if (label[j] === 0 && data[j]! > thresh) {
            label[j] = id;
            stack.push(j);
          }
        }
      }
    }
    const extremes: Point[] = [];
    for (const [y, x] of rowMin) extremes.push({ x, y }, { x: rowMax.get(y)!, y });
    out.push({ extremes, size });
  }
  return out.sort((a, b) => b.size - a.size).map((c) => c.extremes);
}

/** Mean probability inside the quadrilateral (PaddleOCR's 'fast' box score). */
export function boxScore(map: ProbMap, q: Quad): number {
  const xs = q.map((c) => c.x);
  const ys = q.map((c) => c.y);
  const x0 = clamp(Math.floor(Math.min(...xs)), 0, map.width - 1);
  const x1 = clamp(Math.ceil(Math.max(...xs)), 0, map.width - 1);
  const y0 = clamp(Math.floor(Math.min(...ys)), 0, map.height - 1);
  const y1 = clamp(Math.ceil(Math.max(...ys)), 0, map.height - 1);
  let sum = 0;
  let n = 0;
  for (let y = y0; y <= y1; y++) {
    for (let x = x0; x <= x1; x++) {
      if (!inConvexQuad(q, x, y)) continue;
      sum += map.data[y * map.width + x]!;
      n++;
    }
  }
  return n ? sum / n : 0;
}

/** Top to bottom, then left to right within a line (boxes whose tops differ by < 10 px share a line), as PaddleOCR. */
export function sortReadingOrder(boxes: Quad[]): Quad[] {
  return sortLines(boxes.map((q) => ({ item: q, x: q[0].x, y: q[0].y, tolerance: 10 })));
}

/**
 * Items by their top (y), then left to right (x) among items whose tops differ by less than the smaller of their
 * `tolerance`s (one line): PaddleOCR's ordering, also used in a turned page's own frame (orientation.ts).
 */
export function sortLines<T>(items: { item: T; x: number; y: number; tolerance: number }[]): T[] {
  const sorted = [...items].sort((a, b) => a.y - b.y || a.x - b.x);
  for (let i = 0; i < sorted.length - 1; i++) {
    for (let j = i; j >= 0; j--) {
      const a = sorted[j]!;
      const b = sorted[j + 1]!;
      if (Math.abs(b.y - a.y) < Math.min(a.tolerance, b.tolerance) && b.x < a.x) [sorted[j], sorted[j + 1]] = [b, a];
      else break;
    }
  }
  return sorted.map((s) => s.item);
}

function clamp(v: number, lo: number, hi: number): number {
  return Math.min(hi, Math.max(lo, v));
}

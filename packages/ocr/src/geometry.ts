// Small plane geometry for the DB post-processing: convex hull, minimum-area rectangle, corner order.
import type { Point, Quad } from './types.js';

/** A rotated rectangle: its corners (any order) and side lengths. */
export interface RotatedRect {
  corners: Quad;
  width: number;
  height: number;
}

function cross(o: Point, a: Point, b: Point): number {
  return (a.x - o.x) * (b.y - o.y) - (a.y - o.y) * (b.x - o.x);
}

/** Convex hull (Andrew's monotone chain), counter-clockwise in y-down space, without collinear points. */
export function convexHull(points: readonly Point[]): Point[] {
  const pts = [...points].sort((a, b) => a.x - b.x || a.y - b.y);
  if (pts.length < 3) return pts;
  const lower: Point[] = [];
  for (const p of pts) {
    while (lower.length >= 2 && cross(lower[lower.length - 2]!, lower[lower.length - 1]!, p) <= 0) lower.pop();
    lower.push(p);
  }
  const upper: Point[] = [];
  for (let i = pts.length - 1; i >= 0; i--) {
    const p = pts[i]!;
    while (upper.length >= 2 && cross(upper[upper.length - 2]!, upper[upper.length - 1]!, p) <= 0) upper.pop();
    upper.push(p);
  }
  return [...lower.slice(0, -1), ...upper.slice(0, -1)];
}

/** Minimum-area enclosing rectangle of a point set: one side lies on a hull edge (rotating calipers, O(n²)). */
export function minAreaRect(points: readonly Point[]): RotatedRect {
  const hull = convexHull(points);
  if (hull.length === 0) return { corners: [p(0, 0), p(0, 0), p(0, 0), p(0, 0)], width: 0, height: 0 };
  let best: RotatedRect | undefined;
  let bestArea = Infinity;
  const n = hull.length;
  for (let i = 0; i < Math.max(n, 1); i++) {
    const a = hull[i]!;
    const b = hull[(i + 1) % n]!;
    let ux = b.x - a.x;
    let uy = b.y - a.y;
    const len = Math.hypot(ux, uy);
    if (len === 0) [ux, uy] = [1, 0];
    else [ux, uy] = [ux / len, uy / len];
    let minU = Infinity, maxU = -Infinity, minV = Infinity, maxV = -Infinity;
    for (const q of hull) {
      const u = q.x * ux + q.y * uy;
      const v = -q.x * uy + q.y * ux;
      minU = Math.min(minU, u); maxU = Math.max(maxU, u);
      minV = Math.min(minV, v); maxV = Math.max(maxV, v);
    }
    const area = (maxU - minU) * (maxV - minV);
    if (area < bestArea) {
      bestArea = area;
      const at = (u: number, v: number) => p(u * ux - v * uy, u * uy + v * ux);
      best = {
        corners: [at(minU, minV), at(maxU, minV), at(maxU, maxV), at(minU, maxV)],
        width: maxU - minU,
        height: maxV - minV,
      };
    }
  }
  return best!;
}

/** The rectangle grown by `d` on every side (what a round-join polygon offset followed by minAreaRect gives). */
export function expandRect(r: RotatedRect, d: number): RotatedRect {
  const cx = r.corners.reduce((s, q) => s + q.x, 0) / 4;
  const cy = r.corners.reduce((s, q) => s + q.y, 0) / 4;
  const [c0, c1, , c3] = r.corners;
  const ux = r.width > 0 ? (c1.x - c0.x) / r.width : 1;
  const uy = r.width > 0 ? (c1.y - c0.y) / r.width : 0;
  const vx = r.height > 0 ? (c3.x - c0.x) / r.height : -uy;
  const vy = r.height > 0 ? (c3.y - c0.y) / r.height : ux;
  const hw = r.width / 2 + d;
  const hh = r.height / 2 + d;
  const at = (su: number, sv: number) => p(cx + su * hw * ux + sv * hh * vx, cy + su * hw * uy + sv * hh * vy);
  return { corners: [at(-1, -1), at(1, -1), at(1, 1), at(-1, 1)], width: 2 * hw, height: 2 * hh };
}

/** Corners ordered top-left, top-right, bottom-right, bottom-left (by x+y and y−x, as PaddleOCR does). */
export function orderClockwise(q: readonly Point[]): Quad {
  const bySum = [...q].sort((a, b) => a.x + a.y - (b.x + b.y));
  const tl = bySum[0]!;
  const br = bySum[3]!;
  const rest = [bySum[1]!, bySum[2]!].sort((a, b) => a.y - a.x - (b.y - b.x));
  return [tl, rest[0]!, br, rest[1]!];
}

/** Euclidean distance. */
export function dist(a: Point, b: Point): number {
  return Math.hypot(a.x - b.x, a.y - b.y);
}

/** True when (x, y) lies inside the convex quadrilateral (either winding). */
export function inConvexQuad(q: Quad, x: number, y: number): boolean {
  let sign = 0;
  for (let i = 0; i < 4; i++) {
    const c = cross(q[i]!, q[(i + 1) % 4]!, p(x, y));
    if (c === 0) continue;
    const s = Math.sign(c);
    if (sign === 0) sign = s;
    else if (s !== sign) return false;
  }
  return true;
}

function p(x: number, y: number): Point {
  return { x, y };
}

// Cutting a text region out of the page: a (possibly rotated) quadrilateral sampled bilinearly into an upright strip.
import { dist } from './geometry.js';
import type { Quad, RgbImage } from './types.js';

/** The quad in reading order: a region at least 1.5× taller than wide is read top to bottom (PaddleOCR's rot90). */
export function readingQuad(q: Quad): Quad {
  const w = Math.max(dist(q[0], q[1]), dist(q[3], q[2]));
  const h = Math.max(dist(q[0], q[3]), dist(q[1], q[2]));
  return h / Math.max(w, 1) >= 1.5 ? [q[1], q[2], q[3], q[0]] : q;
}

/** The region as an upright RGB strip at the page's resolution: q[0] maps to top-left, q[1] to top-right. */
export function cropQuad(img: RgbImage, q: Quad): RgbImage {
  const width = Math.max(1, Math.floor(Math.max(dist(q[0], q[1]), dist(q[3], q[2]))));
  const height = Math.max(1, Math.floor(Math.max(dist(q[0], q[3]), dist(q[1], q[2]))));
  const out = new Uint8Array(width * height * 3);
  const [p0, p1, p2, p3] = q;
  for (let y = 0; y < height; y++) {
    const v = (y + 0.5) / height;
    // left and right edges at this row, then sample along the row
    const lx = p0.x + (p3.x - p0.x) * v, ly = p0.y + (p3.y - p0.y) * v;
    const rx = p1.x + (p2.x - p1.x) * v, ry = p1.y + (p2.y - p1.y) * v;
    for (let x = 0; x < width; x++) {
      const u = (x + 0.5) / width;
      sampleInto(img, lx + (rx - lx) * u - 0.5, ly + (ry - ly) * u - 0.5, out, (y * width + x) * 3);
    }
  }
  return { data: out, width, height };
}

/** Bilinear sample at (x, y) with edge replication, written as 3 bytes at out[o]. */
function sampleInto(img: RgbImage, x: number, y: number, out: Uint8Array, o: number): void {
  const { data, width: w, height: h } = img;
  const cx = Math.min(Math.max(x, 0), w - 1);
  const cy = Math.min(Math.max(y, 0), h - 1);
  const x0 = Math.floor(cx), y0 = Math.floor(cy);
  const x1 = Math.min(x0 + 1, w - 1), y1 = Math.min(y0 + 1, h - 1);
  const fx = cx - x0, fy = cy - y0;
  const a = (y0 * w + x0) * 3, b = (y0 * w + x1) * 3, c = (y1 * w + x0) * 3, d = (y1 * w + x1) * 3;
  for (let k = 0; k < 3; k++) {
    const top = data[a + k]! + (data[b + k]! - data[a + k]!) * fx;
    const bottom = data[c + k]! + (data[d + k]! - data[c + k]!) * fx;
    out[o + k] = Math.round(top + (bottom - top) * fy);
  }
}

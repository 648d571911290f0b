import { describe, expect, it } from 'vitest';
import { configFromEnv } from './config.js';
import { charExtents, ctcGreedyDecode } from './ctc.js';
import { readingQuad } from './crop.js';
import { boxesFromProbMap, connectedComponents } from './db-postprocess.js';
import { convexHull, expandRect, minAreaRect, orderClockwise } from './geometry.js';
import { detectionSize } from './paddle-det.js';
import { findChars, substringBox } from './place.js';
import type { OcrRegion, Point, Quad } from './types.js';

const pt = (x: number, y: number): Point => ({ x, y });

describe('geometry', () => {
  it('convexHull drops interior and collinear points', () => {
    const hull = convexHull([pt(0, 0), pt(2, 0), pt(4, 0), pt(4, 3), pt(0, 3), pt(2, 1), pt(1, 2)]);
    expect(hull).toHaveLength(4);
    expect(hull).toEqual(expect.arrayContaining([pt(0, 0), pt(4, 0), pt(4, 3), pt(0, 3)]));
  });

  it('minAreaRect finds a rotated rectangle', () => {
    // a 10 × 4 rectangle turned by 30°
    const a = Math.PI / 6;
    const corners = [pt(0, 0), pt(10, 0), pt(10, 4), pt(0, 4)].map((q) => pt(q.x * Math.cos(a) - q.y * Math.sin(a), q.x * Math.sin(a) + q.y * Math.cos(a)));
    const r = minAreaRect([...corners, pt(2, 2)]);
    expect(Math.max(r.width, r.height)).toBeCloseTo(10, 6);
    expect(Math.min(r.width, r.height)).toBeCloseTo(4, 6);
  });

  it('expandRect grows every side and orderClockwise starts top-left', () => {
    const r = expandRect(minAreaRect([pt(10, 10), pt(30, 10), pt(30, 20), pt(10, 20)]), 2);
    const q = orderClockwise(r.corners);
    expect(q.map((c) => [Math.round(c.x), Math.round(c.y)])).toEqual([[8, 8], [32, 8], [32, 22], [8, 22]]);
  });

  it('readingQuad turns a tall region so that it reads top to bottom', () => {
    const tall: Quad = [pt(0, 0), pt(10, 0), pt(10, 50), pt(0, 50)];
    expect(readingQuad(tall)[0]).toEqual(pt(10, 0));
    const wide: Quad = [pt(0, 0), pt(50, 0), pt(50, 10), pt(0, 10)];
    expect(readingQuad(wide)).toBe(wide);
  });
});

describe('DB post-processing', () => {
  const map = (w: number, h: number, rects: [number, number, number, number][]) => {
    const data = new Float32Array(w * h);
    for (const [x0, y0, x1, y1] of rects) for (let y = y0; y < y1; y++) for (let x = x0; x < x1; x++) data[y * w + x] = 0.9;
    return { data, width: w, height: h };
  };

  it('separates components and gives row extremes', () => {
    const comps = connectedComponents(map(40, 20, [[2, 2, 20, 8], [25, 12, 30, 15]]), 0.3);
    expect(comps).toHaveLength(2);
    expect(comps[0]).toHaveLength(12); // 6 rows × (left, right)
  });

  it('boxes are unclipped, scaled back and in reading order; specks are dropped', () => {
    const m = map(64, 32, [[30, 4, 60, 10], [2, 5, 26, 11], [4, 20, 40, 28], [50, 25, 52, 27]]);
    const boxes = boxesFromProbMap(m, 2, 2, 128, 64);
    expect(boxes).toHaveLength(3);
    expect(boxes[0]![0].x).toBeLessThan(boxes[1]![0].x); // same line, left first
    const [tl, , br] = boxes[2]!;
    // component pixel centres 4..39 × 20..27, grown by area·1.5/perimeter ≈ 3.7 px, then × 2
    expect(tl.x).toBeGreaterThanOrEqual(0);
    expect(tl.x).toBeLessThan(2);
    expect(br.x).toBeGreaterThan(84);
    expect(br.x).toBeLessThan(88);
  });

  it('detection size keeps small pages and limits large ones to multiples of 32', () => {
    expect(detectionSize(900, 260, 1920)).toEqual({ width: 896, height: 256 });
    expect(detectionSize(2480, 3508, 1920)).toEqual({ width: 1344, height: 1920 });
    expect(detectionSize(10, 10, 1920)).toEqual({ width: 32, height: 32 });
  });
});

describe('CTC decoding', () => {
  const dict = ['a', 'b', ' '];
  const probs = (seq: number[]) => {
    const out = new Float32Array(seq.length * 4);
    seq.forEach((c, t) => (out[t * 4 + c] = 0.9));
    return out;
  };

  it('collapses repeats, drops blanks, keeps a letter repeated across a blank', () => {
    const line = ctcGreedyDecode(probs([0, 1, 1, 0, 1, 2, 0, 3, 2]), 9, 4, dict);
    expect(line.chars.map((c) => c.text).join('')).toBe('aab b');
    expect(line.chars[0]).toMatchObject({ t0: 1, t1: 2 });
    expect(line.confidence).toBeCloseTo(0.9);
  });

  it('character extents tile the line in order', () => {
    const line = ctcGreedyDecode(probs([1, 0, 2, 0, 1, 0]), 6, 4, dict);
    const ext = charExtents(line.chars, 8, 48);
    expect(ext).toEqual([{ x0: 0, x1: 12 }, { x0: 12, x1: 28 }, { x0: 28, x1: 44 }]);
  });
});

describe('placing sub-strings', () => {
  const region: OcrRegion = {
    text: 'ID AB12',
    confidence: 1,
    box: { x: 100, y: 50, width: 70, height: 20 },
    polygon: [pt(100, 50), pt(170, 50), pt(170, 70), pt(100, 70)],
    chars: Array.from('ID AB12').map((text, i) => ({ text, x0: i * 10, x1: i * 10 + 10 })),
  };

  it('maps character offsets to a padded page box', () => {
    const at = findChars(region, 'AB12')!;
    expect(at).toEqual([3, 7]);
    expect(substringBox(region, ...at, 2).box).toEqual({ x: 128, y: 48, width: 44, height: 24 });
    expect(substringBox(region, ...at, 2, { width: 171, height: 200 }).box.width).toBe(43);
    expect(() => substringBox(region, 5, 5)).toThrow(RangeError);
  });

  it('hugs the rows of the characters’ ink when they are known', () => {
    const withRows: OcrRegion = {
      ...region,
      chars: region.chars.map((c, i) => (i >= 3 ? { ...c, y0: i === 4 ? 4 : 6, y1: i === 6 ? 17 : 15 } : c)),
    };
    // rows 4..17 of the 20-pixel region, padded by 2
    expect(substringBox(withRows, 3, 7, 2).box).toEqual({ x: 128, y: 52, width: 44, height: 17 });
    // characters without rows keep the region's height
    expect(substringBox(withRows, 0, 2, 0).box).toEqual({ x: 100, y: 50, width: 20, height: 20 });
  });
});

describe('configuration', () => {
  it('reads OCR_* variables and refuses unknown engines', () => {
    expect(configFromEnv({ OCR_ENGINE: 'none', OCR_QUEUE_SIZE: '3' })).toMatchObject({ engine: 'none', queueSize: 3, detMaxSide: 1920 });
    expect(configFromEnv({}).engine).toBe('paddle');
    expect(() => configFromEnv({ OCR_ENGINE: 'tesseract' })).toThrow(/paddle or none/);
    expect(() => configFromEnv({ OCR_QUEUE_SIZE: 'many' })).toThrow(/OCR_QUEUE_SIZE/);
  });
});

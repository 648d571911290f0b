import { describe, expect, it } from 'vitest';
import { flipQuad, frameBox, pageDirection, readingDirection, sortInFrame } from './orientation.js';
import type { OcrRegion, Quad } from './types.js';

const quad = (x0: number, y0: number, x1: number, y1: number): Quad => [
  { x: x0, y: y0 },
  { x: x1, y: y0 },
  { x: x1, y: y1 },
  { x: x0, y: y1 },
];
const region = (text: string, polygon: Quad): OcrRegion => ({ text, confidence: 1, box: { x: 0, y: 0, width: 0, height: 0 }, polygon, chars: [] });

describe('page orientation', () => {
  it('reads a region from its other end when flipped, and names the direction its text runs', () => {
    const q = quad(10, 20, 110, 40);
    expect(readingDirection(q)).toBe('right');
    expect(readingDirection(flipQuad(q))).toBe('left');
    expect(flipQuad(flipQuad(q))).toEqual(q);
    expect(readingDirection([{ x: 50, y: 0 }, { x: 50, y: 100 }, { x: 30, y: 100 }, { x: 30, y: 0 }])).toBe('down');
  });

  it('compares regions of a turned page in its own frame', () => {
    // on a page turned half round, the start of a line is at the right: frame x grows to the left
    const a = flipQuad(quad(300, 50, 400, 70));
    const b = flipQuad(quad(100, 50, 250, 70));
    expect(frameBox(a, 'left').x).toBeLessThan(frameBox(b, 'left').x);
    expect(frameBox(a, 'left').height).toBe(20);
  });

  it('orders the regions of an upside-down page as they read: lines top to bottom, words left to right', () => {
    const regions = [
      region('line 2 start', flipQuad(quad(300, 50, 400, 70))),
      region('line 2 end', flipQuad(quad(100, 50, 250, 70))),
      region('line 1', flipQuad(quad(100, 100, 400, 120))),
    ];
    expect(pageDirection(regions)).toBe('left');
    expect(sortInFrame(regions, 'left').map((r) => r.text)).toEqual(['line 1', 'line 2 start', 'line 2 end']);
    expect(pageDirection([])).toBe('right');
  });
});

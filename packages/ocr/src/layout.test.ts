// Placing decoded characters by a strip's ink and inferring the word spaces the model left out, on synthetic strips:
// every glyph a solid block, so the ink-free runs between them are exactly the gaps drawn.
import { describe, expect, it } from 'vitest';
import { charExtents, ctcGreedyDecode, type CtcChar } from './ctc.js';
import { inkRows, layoutLine, stripInk } from './layout.js';
import { placeLine } from './paddle-rec.js';
import type { Quad, RgbImage } from './types.js';

const H = 48;

interface Drawn {
  strip: RgbImage;
  /** the glyphs (not the spaces) with their ink columns */
  glyphs: { text: string; x0: number; x1: number }[];
}

/**
 * Draws `text` on a white strip of height 48: each character a block `width` wide (a '.' 4 wide, in the lower rows),
 * `letterGap` apart inside words, `wordGap` apart where the text has a space; ink on rows 12–35.
 */
function drawLine(text: string, opts: { width?: number; letterGap?: number; wordGap?: number; paper?: number; ink?: number } = {}): Drawn {
  const { width = 10, letterGap = 4, wordGap = 18, paper = 255, ink = 20 } = opts;
  const glyphs: Drawn['glyphs'] = [];
  let x = 12;
  let space = false;
  for (const ch of text) {
    if (ch === ' ') {
      space = true;
      continue;
    }
    if (glyphs.length) x += space ? wordGap : letterGap;
    const w = ch === '.' ? 4 : width;
    glyphs.push({ text: ch, x0: x, x1: x + w });
    x += w;
    space = false;
  }
  const W = x + 12;
  const data = new Uint8Array(W * H * 3).fill(paper);
  for (const g of glyphs) {
    const top = g.text === '.' ? 30 : 12;
    for (let y = top; y < 36; y++) for (let c = g.x0; c < g.x1; c++) data.fill(ink, (y * W + c) * 3, (y * W + c) * 3 + 3);
  }
  return { strip: { data, width: W, height: H }, glyphs };
}

/** What greedy CTC decoding gives for the glyphs: each emitted at the 8-pixel time step of its centre. */
function ctcChars(glyphs: Drawn['glyphs']): CtcChar[] {
  return glyphs.map((g) => {
    const t = Math.floor((g.x0 + g.x1) / 2 / 8);
    return { text: g.text, prob: 0.9, t0: t, t1: t };
  });
}

const text = (placed: { text: string }[]) => placed.map((c) => c.text).join('');

describe('word spaces from the ink', () => {
  it('puts a space into the wide gaps between Latin words and none between letters', () => {
    const { strip, glyphs } = drawLine('Dr. Mark Wong');
    const ink = stripInk(strip)!;
    const placed = layoutLine(ctcChars(glyphs), 8, strip.width, ink.columns, H);
    expect(text(placed)).toBe('Dr. Mark Wong');
    // the space spans the gap; the letters around it end and start at their ink
    const k = placed.findIndex((c) => c.text === 'k');
    const [gk, gW] = [glyphs.find((g) => g.text === 'k')!, glyphs.find((g) => g.text === 'W')!];
    expect(placed[k]!.x1).toBe(gk.x1);
    expect(placed[k + 1]).toEqual({ text: ' ', x0: gk.x1, x1: gW.x0 });
    expect(placed[k + 2]!.x0).toBe(gW.x0);
  });

  it('keeps digits and dates apart the same way, and the first and last characters end at their ink', () => {
    const { strip, glyphs } = drawLine('DOB 24 November 1972');
    const placed = layoutLine(ctcChars(glyphs), 8, strip.width, stripInk(strip)!.columns, H);
    expect(text(placed)).toBe('DOB 24 November 1972');
    expect(placed[0]!.x0).toBe(glyphs[0]!.x0);
    expect(placed.at(-1)!.x1).toBe(glyphs.at(-1)!.x1);
  });

  it('measures the gaps against the line: evenly wide letter gaps (a monospaced font) are not spaces', () => {
    const { strip, glyphs } = drawLine('Name Lee Ann', { letterGap: 14, wordGap: 30 });
    const placed = layoutLine(ctcChars(glyphs), 8, strip.width, stripInk(strip)!.columns, H);
    expect(text(placed)).toBe('Name Lee Ann');
  });

  it('never puts a space between Han characters, and keeps the spaces the model emitted', () => {
    const han = drawLine('患者 张伟');
    expect(text(layoutLine(ctcChars(han.glyphs), 8, han.strip.width, stripInk(han.strip)!.columns, H))).toBe('患者张伟');
    const emitted = drawLine('ab cd', { wordGap: 8 });
    const chars = ctcChars(emitted.glyphs);
    chars.splice(2, 0, { text: ' ', prob: 0.9, t0: chars[1]!.t1 + 1, t1: chars[1]!.t1 + 1 });
    const placed = layoutLine(chars, 8, emitted.strip.width, stripInk(emitted.strip)!.columns, H);
    expect(text(placed)).toBe('ab cd');
    expect(placed[2]).toEqual({ text: ' ', x0: emitted.glyphs[1]!.x1, x1: emitted.glyphs[2]!.x0 });
  });

  it('falls back to the CTC steps alone when paper and ink cannot be told apart', () => {
    const { strip, glyphs } = drawLine('Mark Wong', { paper: 120, ink: 100 });
    expect(stripInk(strip)).toBeUndefined();
    const chars = ctcChars(glyphs);
    const placed = layoutLine(chars, 8, strip.width, undefined, H);
    expect(text(placed)).toBe('MarkWong');
    expect(placed.map(({ x0, x1 }) => ({ x0, x1 }))).toEqual(charExtents(chars, 8, strip.width));
  });

  it('finds the rows of a character’s ink', () => {
    const { strip, glyphs } = drawLine('A.');
    const ink = stripInk(strip)!;
    expect(inkRows(strip, glyphs[0]!.x0, glyphs[0]!.x1, ink.threshold)).toEqual({ y0: 12, y1: 36 });
    expect(inkRows(strip, glyphs[1]!.x0, glyphs[1]!.x1, ink.threshold)).toEqual({ y0: 30, y1: 36 });
    expect(inkRows(strip, 0, 10, ink.threshold)).toBeUndefined();
  });
});

describe('decoding a line onto the page', () => {
  it('from a logits matrix: text with its word spaces, characters placed along and across the region', () => {
    const { strip, glyphs } = drawLine('Dr. Mark Wong');
    const dict = Array.from(new Set(glyphs.map((g) => g.text)));
    const steps = Math.ceil(strip.width / 8);
    const classes = dict.length + 2; // blank, the characters, the space class
    const probs = new Float32Array(steps * classes);
    for (let t = 0; t < steps; t++) probs[t * classes] = 0.6;
    for (const c of ctcChars(glyphs)) probs[c.t0 * classes + 1 + dict.indexOf(c.text)] = 0.95;
    const line = ctcGreedyDecode(probs, steps, classes, [...dict, ' ']);
    expect(line.chars.map((c) => c.text).join('')).toBe('Dr.MarkWong');
    // the region on the page: twice the strip's size, at (100, 200)
    const quad: Quad = [
      { x: 100, y: 200 },
      { x: 100 + 2 * strip.width, y: 200 },
      { x: 100 + 2 * strip.width, y: 200 + 2 * H },
      { x: 100, y: 200 + 2 * H },
    ];
    const placed = placeLine(line, strip, 8, quad);
    expect(placed.text).toBe('Dr. Mark Wong');
    const M = placed.chars.find((c) => c.text === 'M')!;
    expect(M).toEqual({ text: 'M', x0: 2 * glyphs[3]!.x0, x1: 2 * glyphs[3]!.x1, y0: 24, y1: 72 });
    expect(placed.chars.find((c) => c.text === ' ')).not.toHaveProperty('y0');
  });
});

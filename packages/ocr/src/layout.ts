// Where each decoded character lies along a recognised strip, and where the spaces the model did not emit are: from
// the strip's ink (which columns hold a glyph's pixels) together with the CTC time steps.
//
// The PP-OCRv4 Chinese model emits few spaces between Latin words ("PatientName:RachelSmith"), and CTC time steps
// (8 strip pixels each) place characters only roughly. The strip itself shows both: a word space is a run of
// ink-free columns much wider than the runs between the letters of a word, and a glyph's edges are where its ink
// starts and stops. Measured on the 40 generated pages of bench/deid-quality (10 769 pairs of Latin characters, 1 374
// of them with a space between): the widest ink-free run between two characters' centres is ≤ 12 strip pixels (at a
// strip height of 48) inside words, but for a few capitals of a serif title, and ≥ 12 between words, but for a few
// digit–unit gaps ("0.5 g") in a CJK font's narrow space; the CTC blank steps between them overlap widely (3–6 steps
// both ways). Between digits the ink centres lie ≤ 7 px off the line's digit pitch inside numbers, ≥ 9 px across a
// space. See docs/benchmarks.md (deid-quality, 2026-11-26).
import { charExtents, type CtcChar } from './ctc.js';
import type { RgbImage } from './types.js';

/** One character placed along the strip, in strip pixels. */
export interface PlacedChar {
  text: string;
  x0: number;
  x1: number;
}

/** a column is ink when its darkest pixels are nearer the ink's grey than the paper's; below this contrast, no ink is trusted */
const MIN_CONTRAST = 40;
/** an inferred word space: an ink-free run at least this share of the strip height … */
const SPACE_MIN = 0.26;
/** … and at least this share of the height wider than the line's lower-quartile run between characters (the runs inside
 * words, even on a short line that is mostly spaces; what keeps a monospaced font's wide letter gaps from counting) */
const SPACE_OVER_LETTERS = 0.1;
/** on a line whose letters sit tight (small print: gaps of a few pixels), a narrower run is a space when it is this
 * share of the height and this many times the line's lower-quartile run */
const SPACE_MIN_TIGHT = 0.21;
const SPACE_TIMES_LETTERS = 2.5;
/** the quartile needs this many pairs to mean anything */
const QUARTILE_MIN_PAIRS = 3;
/** between two digits, their ink centres at least this share of the height further apart than the line's digit pitch … */
const DIGIT_SPACE_OVER_PITCH = 0.16;
/** … when the line has this many pairs of digits to measure the pitch on */
const DIGIT_MIN_PAIRS = 2;

/** Per column of a strip, the mean grey of its three darkest pixels (low where the column crosses a glyph). */
export function columnDarkness(strip: RgbImage): Float32Array {
  const { data, width, height } = strip;
  const dark = new Float32Array(width);
  for (let x = 0; x < width; x++) {
    let a = 255;
    let b = 255;
    let c = 255;
    for (let y = 0; y < height; y++) {
      const s = (y * width + x) * 3;
      const g = (data[s]! + data[s + 1]! + data[s + 2]!) / 3;
      if (g < a) {
        c = b;
        b = a;
        a = g;
      } else if (g < b) {
        c = b;
        b = g;
      } else if (g < c) c = g;
    }
    dark[x] = height >= 3 ? (a + b + c) / 3 : a;
  }
  return dark;
}

/** The grey levels of a strip's paper and ink, and the threshold between them (a pixel at or below it is ink). */
export interface InkLevels {
  paper: number;
  ink: number;
  threshold: number;
}

/**
 * Paper and ink from `columnDarkness`: the paper is its 95th percentile, the ink its 5th, the threshold their
 * midpoint. Undefined when the two are too close to tell apart (a blank strip, light text on a dark band) or the
 * strip is too narrow.
 */
export function inkLevels(dark: ArrayLike<number>): InkLevels | undefined {
  const width = dark.length;
  if (width < 4) return undefined;
  const sorted = Float32Array.from(dark).sort();
  const paper = sorted[Math.floor(0.95 * (width - 1))]!;
  const ink = sorted[Math.floor(0.05 * (width - 1))]!;
  if (paper - ink < MIN_CONTRAST) return undefined;
  return { paper, ink, threshold: (paper + ink) / 2 };
}

/** Ink columns from `columnDarkness`: 1 where a column holds ink (darker than the threshold of `inkLevels`). */
export function inkFromDarkness(dark: ArrayLike<number>): Uint8Array | undefined {
  const levels = inkLevels(dark);
  if (!levels) return undefined;
  const out = new Uint8Array(dark.length);
  for (let x = 0; x < dark.length; x++) out[x] = dark[x]! <= levels.threshold ? 1 : 0;
  return out;
}

/** A strip's ink: which columns hold ink, and the grey threshold of ink pixels. */
export interface StripInk {
  columns: Uint8Array;
  threshold: number;
}

/** The ink of a strip, or undefined when paper and ink cannot be told apart. */
export function stripInk(strip: RgbImage): StripInk | undefined {
  const dark = columnDarkness(strip);
  const levels = inkLevels(dark);
  const columns = inkFromDarkness(dark);
  return levels && columns ? { columns, threshold: levels.threshold } : undefined;
}

/**
 * The rows a character's ink spans in the strip: among the columns [x0, x1), the first and last row (y1 exclusive)
 * whose two darkest pixels average at or below the ink threshold; undefined for a character without ink (a space).
 */
export function inkRows(strip: RgbImage, x0: number, x1: number, threshold: number): { y0: number; y1: number } | undefined {
  const { data, width, height } = strip;
  const a = Math.max(0, Math.floor(x0));
  const b = Math.min(width, Math.ceil(x1));
  if (b <= a) return undefined;
  let first = -1;
  let last = -1;
  for (let y = 0; y < height; y++) {
    let d1 = 255;
    let d2 = 255;
    for (let x = a; x < b; x++) {
      const s = (y * width + x) * 3;
      const g = (data[s]! + data[s + 1]! + data[s + 2]!) / 3;
      if (g < d1) {
        d2 = d1;
        d1 = g;
      } else if (g < d2) d2 = g;
    }
    const dark = b - a >= 2 ? (d1 + d2) / 2 : d1;
    if (dark <= threshold) {
      if (first < 0) first = y;
      last = y;
    }
  }
  return first < 0 ? undefined : { y0: first, y1: last + 1 };
}

interface Run {
  start: number;
  end: number;
}

/** Ink-free runs inside [from, to) (clipped to it). */
function blankRuns(ink: Uint8Array, from: number, to: number): Run[] {
  const runs: Run[] = [];
  const a = Math.max(0, Math.floor(from));
  const b = Math.min(ink.length, Math.ceil(to));
  let start = -1;
  for (let x = a; x <= b; x++) {
    const blank = x < b && !ink[x];
    if (blank && start < 0) start = x;
    else if (!blank && start >= 0) {
      runs.push({ start, end: x });
      start = -1;
    }
  }
  return runs;
}

const LATIN = /^[A-Za-z0-9]$/;
const LATIN_LETTER = /^[A-Za-z]$/;
const DIGIT = /^[0-9]$/;
const HAN = /\p{Script=Han}/u;
const WORD_END_PUNCT = /^[.,:;)\]]$/;

/** Whether a space may be inferred between a and b: Latin letters and digits, or punctuation that ends a word before a letter. */
function spaceable(a: string, b: string): boolean {
  if (!LATIN.test(b)) return false;
  return LATIN.test(a) || (WORD_END_PUNCT.test(a) && LATIN_LETTER.test(b));
}

/**
 * The characters of a line with their extents in strip pixels, and the word spaces the model left out.
 *
 * Without `ink` (or with too little contrast) this is `charExtents` and the emitted characters as they are. With it:
 * - the boundary between two neighbours is the ink-free run between their centres nearest to the midpoint (within a
 *   share of their distance: a third for Latin, less when a Han character is involved, whose strokes can leave gaps
 *   inside the glyph), the left one ending where the run starts and the right one starting where it ends; touching
 *   glyphs split at the midpoint as before;
 * - the first and last characters end at the ink: shrunk over blank columns, grown over ink that goes on past the
 *   half pitch the CTC steps give them (at most another half pitch);
 * - a space goes between two Latin characters (or after . , : ; before a letter) when the ink-free run between
 *   them is wide for the strip's height and for this line's runs (SPACE_MIN, SPACE_OVER_MEDIAN), and wherever the
 *   model emitted one; it spans the run.
 */
export function layoutLine(chars: readonly CtcChar[], stepWidth: number, contentWidth: number, ink?: Uint8Array, height = 48): PlacedChar[] {
  if (!ink || chars.length === 0) {
    const ext = charExtents(chars, stepWidth, contentWidth);
    return chars.map((c, i) => ({ text: c.text, ...ext[i]! }));
  }
  // emitted spaces are kept as marks between their neighbours and placed like the inferred ones
  const glyphs: CtcChar[] = [];
  const spaceBefore: boolean[] = [];
  let pending = false;
  for (const c of chars) {
    if (c.text.trim() === '') {
      pending = glyphs.length > 0;
      continue;
    }
    glyphs.push(c);
    spaceBefore.push(pending);
    pending = false;
  }
  if (glyphs.length === 0) return [];
  const base = charExtents(glyphs, stepWidth, contentWidth);
  const centres = glyphs.map((c) => ((c.t0 + c.t1 + 1) / 2) * stepWidth);
  const placed: PlacedChar[] = glyphs.map((c, i) => ({ text: c.text, ...base[i]! }));
  const widest: number[] = [0];
  for (let i = 1; i < glyphs.length; i++) {
    const a = centres[i - 1]!;
    const b = centres[i]!;
    const runs = blankRuns(ink, a, b);
    widest.push(runs.reduce((m, r) => Math.max(m, r.end - r.start), 0));
    const mid = (a + b) / 2;
    const han = HAN.test(glyphs[i - 1]!.text) || HAN.test(glyphs[i]!.text);
    const reach = (b - a) * (han ? 0.15 : 0.34);
    let best: Run | undefined;
    let bestDist = Infinity;
    for (const r of runs) {
      const d = mid < r.start ? r.start - mid : mid > r.end ? mid - r.end : 0;
      if (d > reach) continue;
      if (d < bestDist || (d === bestDist && best && r.end - r.start > best.end - best.start)) {
        best = r;
        bestDist = d;
      }
    }
    if (best) {
      placed[i - 1]!.x1 = best.start;
      placed[i]!.x0 = best.end;
    }
  }
  // the line's ends: from the half pitch to the ink
  const pitches = centres.slice(1).map((c, i) => c - centres[i]!).sort((p, q) => p - q);
  const half = Math.max(stepWidth, pitches.length ? pitches[Math.floor(pitches.length / 2)]! / 2 : stepWidth);
  const first = placed[0]!;
  first.x0 = inkEdge(ink, first.x0, centres[0]!, half, -1);
  const last = placed[placed.length - 1]!;
  last.x1 = inkEdge(ink, last.x1, centres[centres.length - 1]!, half, 1);
  // word spaces
  const eligible: number[] = [];
  for (let i = 1; i < glyphs.length; i++) if (spaceable(glyphs[i - 1]!.text, glyphs[i]!.text)) eligible.push(widest[i]!);
  eligible.sort((p, q) => p - q);
  const letters = eligible.length >= QUARTILE_MIN_PAIRS ? eligible[Math.floor((eligible.length - 1) / 4)]! : 0;
  // digits are as wide as each other in nearly every font, so a narrow one (1) leaves wide blanks on both sides: between
  // two digits a space also needs the distance of their ink centres to exceed the line's digit pitch
  const centre = (c: PlacedChar) => (c.x0 + c.x1) / 2;
  const isDigits = (i: number) => DIGIT.test(glyphs[i - 1]!.text) && DIGIT.test(glyphs[i]!.text);
  const digitPitches: number[] = [];
  for (let i = 1; i < glyphs.length; i++) if (isDigits(i)) digitPitches.push(centre(placed[i]!) - centre(placed[i - 1]!));
  digitPitches.sort((p, q) => p - q);
  const digitPitch = digitPitches.length >= DIGIT_MIN_PAIRS ? digitPitches[Math.floor((digitPitches.length - 1) / 2)]! : 0;
  const out: PlacedChar[] = [placed[0]!];
  for (let i = 1; i < glyphs.length; i++) {
    const w = widest[i]!;
    const digitSpace = !isDigits(i) || !digitPitch || centre(placed[i]!) - centre(placed[i - 1]!) >= digitPitch + DIGIT_SPACE_OVER_PITCH * height;
    const inferred =
      spaceable(glyphs[i - 1]!.text, glyphs[i]!.text) &&
      w >= letters + SPACE_OVER_LETTERS * height &&
      (w >= SPACE_MIN * height || (letters > 0 && w >= SPACE_MIN_TIGHT * height && w >= SPACE_TIMES_LETTERS * letters)) &&
      digitSpace;
    if (spaceBefore[i] || inferred) out.push({ text: ' ', x0: placed[i - 1]!.x1, x1: Math.max(placed[i - 1]!.x1, placed[i]!.x0) });
    out.push(placed[i]!);
  }
  return out.map((c) => ({ text: c.text, x0: Math.max(0, Math.min(contentWidth, c.x0)), x1: Math.max(0, Math.min(contentWidth, c.x1)) }));
}

/**
 * An end character's outer edge: `edge` moved to where the ink starts (dir −1, the left edge) or stops (dir +1):
 * outwards over ink that continues (at most `reach` further), else inwards over blank columns (not past the centre).
 */
function inkEdge(ink: Uint8Array, edge: number, centre: number, reach: number, dir: -1 | 1): number {
  const n = ink.length;
  // the column just inside the edge
  let x = dir < 0 ? Math.floor(edge) : Math.ceil(edge) - 1;
  x = Math.max(0, Math.min(n - 1, x));
  if (ink[x]) {
    const limit = dir < 0 ? Math.max(0, Math.floor(edge - reach)) : Math.min(n - 1, Math.ceil(edge + reach) - 1);
    while ((dir < 0 ? x > limit : x < limit) && ink[x + dir]) x += dir;
    return dir < 0 ? x : x + 1;
  }
  const stop = Math.max(0, Math.min(n - 1, dir < 0 ? Math.floor(centre) : Math.ceil(centre) - 1));
  while ((dir < 0 ? x < stop : x > stop) && !ink[x]) x -= dir;
  if (!ink[x]) return edge;
  return dir < 0 ? x : x + 1;
}

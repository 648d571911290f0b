// PP-OCRv4 text recognition of one region: upright crop, height 48, CTC decoding with character positions.
import { type InferenceSession, Tensor } from 'onnxruntime-node';
import { ctcGreedyDecode, type CtcLine } from './ctc.js';
import { cropQuad } from './crop.js';
import { dist } from './geometry.js';
import { resizeRgb } from './image.js';
import { inkRows, layoutLine, stripInk } from './layout.js';
import type { OcrChar, Quad, RgbImage } from './types.js';

const REC_H = 48;
const REC_MIN_W = 320;
/** a strip wider than this (a 100:1 line) is squeezed rather than fed at full width */
const REC_MAX_W = 4800;

/** A recognised region before filtering: text, confidence and character offsets along the quad's top edge. */
export interface RecognisedLine {
  text: string;
  confidence: number;
  chars: OcrChar[];
}

/** Recognises the text in `quad` (reading order: q[0] start-top, q[1] end-top). */
export async function recognizeQuad(session: InferenceSession, dictionary: readonly string[], img: RgbImage, quad: Quad): Promise<RecognisedLine> {
  const crop = cropQuad(img, quad);
  const contentW = Math.min(REC_MAX_W, Math.max(1, Math.ceil((REC_H * crop.width) / crop.height)));
  const strip = await resizeRgb(crop, contentW, REC_H);
  const tensorW = Math.max(REC_MIN_W, Math.ceil(contentW / 8) * 8);
  const plane = REC_H * tensorW;
  // (v / 255 − 0.5) / 0.5 in BGR order; the padding on the right stays 0 (mid-grey), as PaddleOCR pads
  const tensor = new Float32Array(3 * plane);
  for (let y = 0; y < REC_H; y++) {
    for (let x = 0; x < contentW; x++) {
      const s = (y * contentW + x) * 3;
      for (let k = 0; k < 3; k++) tensor[k * plane + y * tensorW + x] = strip.data[s + (2 - k)]! / 127.5 - 1;
    }
  }
  const feeds = { [session.inputNames[0]!]: new Tensor('float32', tensor, [1, 3, REC_H, tensorW]) };
  const out = (await session.run(feeds))[session.outputNames[0]!]!;
  const [, steps, classes] = out.dims;
  const line = ctcGreedyDecode(out.data as Float32Array, steps!, classes!, dictionary);
  return placeLine(line, strip, tensorW / steps!, quad);
}

/**
 * The decoded line on the page: characters placed by the strip's ink (`layoutLine`), with the word spaces the model
 * left out and the rows of each character's ink, in page pixels along and across the region (`strip` is the region
 * at height REC_H; `stepWidth` strip pixels per CTC time step).
 */
export function placeLine(line: CtcLine, strip: RgbImage, stepWidth: number, quad: Quad): RecognisedLine {
  const contentW = strip.width;
  // strip pixels → page pixels along the region's top edge and down its side
  const toPage = dist(quad[0], quad[1]) / contentW;
  const rowToPage = dist(quad[0], quad[3]) / strip.height;
  const ink = stripInk(strip);
  const placed = layoutLine(line.chars, stepWidth, contentW, ink?.columns, strip.height);
  let chars: OcrChar[] = placed.map((c) => {
    const rows = ink && c.text.trim() !== '' ? inkRows(strip, c.x0, c.x1, ink.threshold) : undefined;
    const at: OcrChar = { text: c.text, x0: c.x0 * toPage, x1: c.x1 * toPage };
    return rows ? { ...at, y0: rows.y0 * rowToPage, y1: rows.y1 * rowToPage } : at;
  });
  // leading and trailing spaces carry no text
  while (chars.length && chars[0]!.text.trim() === '') chars = chars.slice(1);
  while (chars.length && chars[chars.length - 1]!.text.trim() === '') chars = chars.slice(0, -1);
  chars = chars.map((c) => ({
    text: c.text,
    x0: round1(c.x0),
    x1: round1(c.x1),
    ...(c.y0 !== undefined && c.y1 !== undefined ? { y0: round1(c.y0), y1: round1(c.y1) } : {}),
  }));
  return { text: chars.map((c) => c.text).join(''), confidence: line.confidence, chars };
}

function round1(v: number): number {
  return Math.round(v * 10) / 10;
}

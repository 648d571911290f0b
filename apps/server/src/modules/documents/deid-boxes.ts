/**
 * From text read on a page (OCR regions with per-character offsets, or a PDF's own text items) to padded redaction
 * boxes: the page's pieces are joined into one text (a tab between pieces of one line, a line break after the last)
 * so that detectors see their context across pieces (a label in one region, the value in the next), every span is
 * cut back to the pieces it covers and placed inside each by character offset (packages/ocr substringBox), padded so
 * that a glyph's edge never survives.
 */
import { detectIdentifiers, type DeidOptions } from '@esource/deid';
import { frameBox, readingDirection, substringBox, type OcrRegion } from '@esource/ocr';
import type { SourceFileBox } from '@esource/shared';

type Rect = { x: number; y: number; width: number; height: number };

/** A piece of a page's text and how to place a stretch [start, end) of it (UTF-16 offsets into `text`). */
export interface TextPiece {
  text: string;
  box: Rect;
  /** the box in the reading frame of the piece's text (the page turned so that it reads left to right) */
  lineBox: Rect;
  place(start: number, end: number, pad: number): Rect;
}

/** Padding around an identifier: a fifth of the line's height, at least 2 px. */
export const padOf = (lineHeight: number) => Math.max(2, Math.round(lineHeight * 0.2));

/** An OCR region as a piece: placed by its characters' offsets (the whole region when they do not line up). */
export function ocrPiece(region: OcrRegion, limits: { width: number; height: number }): TextPiece {
  // UTF-16 offset of each recognised character in the region's text
  const starts: number[] = [];
  let off = 0;
  for (const c of region.chars) {
    starts.push(off);
    off += c.text.length;
  }
  const aligned = region.chars.length > 0 && region.chars.map((c) => c.text).join('') === region.text;
  return {
    text: region.text,
    box: region.box,
    // an upside-down or sideways page: its lines compared as they read
    lineBox: frameBox(region.polygon, readingDirection(region.polygon)),
    place(start, end, pad) {
      if (!aligned) return grow(region.box, pad, limits);
      let s = starts.findIndex((o, i) => o + region.chars[i]!.text.length > start);
      let e = starts.findIndex((o) => o >= end);
      if (s < 0) s = region.chars.length - 1;
      if (e < 0) e = region.chars.length;
      if (e <= s) e = s + 1;
      return substringBox(region, s, e, pad, limits).box;
    },
  };
}

/** A PDF text item as a piece: a stretch placed in proportion to its characters (no glyph widths in the item). */
export function textItemPiece(item: { text: string; x: number; y: number; width: number; height: number }, limits: { width: number; height: number }): TextPiece {
  const box = { x: item.x, y: item.y, width: item.width, height: item.height };
  return {
    text: item.text,
    box,
    lineBox: box,
    place(start, end, pad) {
      const n = Math.max(1, item.text.length);
      // one character's width of slack on each side: proportional placement is approximate
      const cw = item.width / n;
      const x0 = item.x + cw * start - cw;
      const x1 = item.x + cw * end + cw;
      return grow({ x: x0, y: item.y, width: x1 - x0, height: item.height }, pad, limits);
    },
  };
}

function grow(r: Rect, pad: number, limits: { width: number; height: number }): Rect {
  const x = Math.max(0, Math.floor(r.x - pad));
  const y = Math.max(0, Math.floor(r.y - pad));
  const x2 = Math.min(limits.width, Math.ceil(r.x + r.width + pad));
  const y2 = Math.min(limits.height, Math.ceil(r.y + r.height + pad));
  return { x, y, width: Math.max(0, x2 - x), height: Math.max(0, y2 - y) };
}

/**
 * Whether `b` continues `a`'s line to the right (detection splits a line at wide gaps: "Riverside Community" |
 * "Hospital"): joined with a tab, which detectors read as a wide gap within a line, not as a line break.
 */
function sameLine(a: Rect, b: Rect | undefined): boolean {
  if (!b) return false;
  const overlap = Math.min(a.y + a.height, b.y + b.height) - Math.max(a.y, b.y);
  return overlap >= 0.5 * Math.min(a.height, b.height) && b.x >= a.x + a.width - 0.5 * Math.min(a.height, b.height);
}

/** Redaction boxes (with kind and reason) for one page's pieces. */
export function pageBoxes(page: number, pieces: readonly TextPiece[], opts: DeidOptions): SourceFileBox[] {
  if (pieces.length === 0) return [];
  const offsets: number[] = [];
  let text = '';
  pieces.forEach((p, i) => {
    offsets.push(text.length);
    text += p.text + (sameLine(p.lineBox, pieces[i + 1]?.lineBox) ? '\t' : '\n');
  });
  const out: SourceFileBox[] = [];
  for (const span of detectIdentifiers(text, opts)) {
    pieces.forEach((p, i) => {
      const s = Math.max(span.start, offsets[i]!) - offsets[i]!;
      const e = Math.min(span.end, offsets[i]! + p.text.length) - offsets[i]!;
      if (e <= s) return;
      const r = p.place(s, e, padOf(p.box.height));
      if (r.width > 0 && r.height > 0) out.push({ page, ...r, kind: span.kind, reason: span.reason });
    });
  }
  return out;
}

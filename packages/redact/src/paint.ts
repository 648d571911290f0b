import type { Sharp } from 'sharp';
import { rectsSvg, type PixelRect } from './boxes.js';

/** How a redacted page or image is encoded. */
export interface EncodeOptions {
  /** JPEG quality 1–100 (default 80: text stays legible, a scanned A4 page at 150 dpi stays ≈ 150–400 kB). */
  quality?: number;
  /** Grayscale output (default true: a third of the size of colour, and documents rarely need colour). */
  grayscale?: boolean;
}

/**
 * Paints `rects` solid black onto an already oriented sharp pipeline and encodes it as JPEG. sharp writes no input
 * metadata (EXIF, GPS, XMP, ICC, comments) unless asked, so the output carries none.
 */
export async function paintAndEncode(
  pipeline: Sharp,
  rects: readonly PixelRect[],
  width: number,
  height: number,
  options: EncodeOptions = {},
): Promise<Buffer> {
  // transparent areas would turn black in a JPEG and hide the page: flatten onto white first
  let out = pipeline.flatten({ background: '#ffffff' });
  if (rects.length > 0) out = out.composite([{ input: rectsSvg(rects, width, height), top: 0, left: 0 }]);
  // toColourspace: the composite above is sRGB, so grayscale() alone would still write three channels
  if (options.grayscale ?? true) out = out.grayscale().toColourspace('b-w');
  // plain libjpeg-turbo: mozjpeg saves ≈ 15 % but takes ≈ 2.5× the time
  return out.jpeg({ quality: options.quality ?? 80 }).toBuffer();
}

import sharp from 'sharp';
import { toPixelRect, type PixelRect } from './boxes.js';
import { RedactError } from './errors.js';
import { imageError, inspectImage, sharpInputOptions, type ImageLimits } from './image-inspect.js';
import { paintAndEncode, type EncodeOptions } from './paint.js';
import { DEFAULT_MAX_PIXELS, type Box } from './types.js';

/** Options of redactImage. */
export interface RedactImageOptions extends ImageLimits, EncodeOptions {
  /** Pixels added on every side of each box (default 0). */
  padding?: number;
}

/** A redacted image: a fresh JPEG with no metadata, in the oriented pixel space of the input. */
export interface RedactedImage {
  bytes: Buffer;
  width: number;
  height: number;
  format: 'jpeg';
}

/**
 * Re-renders the image with every box painted solid black (after EXIF orientation, so boxes are in the pixels the user
 * saw), clamped to the image and padded; output is a metadata-free JPEG (grayscale by default). Boxes must be on page 0.
 */
export async function redactImage(
  bytes: Uint8Array,
  boxes: readonly Box[],
  options: RedactImageOptions = {},
): Promise<RedactedImage> {
  // header checks only: the decode below fails on truncated data itself (failOn), no need to decode twice
  const info = await inspectImage(bytes, { ...options, decode: false });
  const rects: PixelRect[] = [];
  for (const box of boxes) {
    if (box.page !== 0) throw new RedactError('BAD_BOX', `an image has one page; box on page ${box.page}`);
    const rect = toPixelRect(box, info.width, info.height, options.padding ?? 0);
    if (rect) rects.push(rect);
  }
  try {
    const pipeline = sharp(bytes, sharpInputOptions(options.maxPixels ?? DEFAULT_MAX_PIXELS)).rotate();
    const out = await paintAndEncode(pipeline, rects, info.width, info.height, options);
    return { bytes: out, width: info.width, height: info.height, format: 'jpeg' };
  } catch (err) {
    throw imageError(err);
  }
}

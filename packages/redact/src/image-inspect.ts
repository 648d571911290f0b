import sharp, { type SharpOptions } from 'sharp';
import { RedactError } from './errors.js';
import { DEFAULT_MAX_PIXELS, type ImageFormat } from './types.js';

/** Limits for untrusted images. */
export interface ImageLimits {
  /** Largest width × height accepted (default 50 megapixels); refuses decompression bombs before decoding. */
  maxPixels?: number;
  /** Formats accepted, detected from the content (default jpeg, png, webp). */
  formats?: readonly ImageFormat[];
}

/** What inspectImage found: the real format and the size after EXIF orientation (the space boxes are given in). */
export interface ImageInfo {
  format: ImageFormat;
  width: number;
  height: number;
}

const DEFAULT_FORMATS: readonly ImageFormat[] = ['jpeg', 'png', 'webp'];

/** sharp constructor options for untrusted input: pixel limit, and abort on truncated or broken pixel data. */
export function sharpInputOptions(maxPixels: number): SharpOptions {
  return { limitInputPixels: maxPixels, failOn: 'error' };
}

/** Maps a sharp/libvips failure to a typed error. */
export function imageError(err: unknown): RedactError {
  if (err instanceof RedactError) return err;
  const message = err instanceof Error ? err.message : String(err);
  if (/unsupported image format|not a known file format|is not in a known format/i.test(message)) {
    return new RedactError('UNSUPPORTED_TYPE', message, { cause: err });
  }
  if (/pixel limit/i.test(message)) return new RedactError('TOO_MANY_PIXELS', message, { cause: err });
  if (/premature end|truncat|unexpected end|end of (file|stream)|read error|incomplete/i.test(message)) {
    return new RedactError('TRUNCATED', message, { cause: err });
  }
  return new RedactError('BAD_IMAGE', message, { cause: err });
}

/**
 * Reads the header (type from the content, never a name) and refuses empty files, unsupported types and pixel bombs;
 * with `decode` (default true) also decodes every pixel once, streaming, so a truncated or corrupt file is refused here
 * rather than half-rendered later. Throws RedactError.
 */
export async function inspectImage(
  bytes: Uint8Array,
  limits: ImageLimits & { decode?: boolean } = {},
): Promise<ImageInfo> {
  if (bytes.length === 0) throw new RedactError('EMPTY', 'empty image');
  const maxPixels = limits.maxPixels ?? DEFAULT_MAX_PIXELS;
  const formats = limits.formats ?? DEFAULT_FORMATS;
  try {
    const meta = await sharp(bytes, sharpInputOptions(maxPixels)).metadata();
    const format = meta.format as ImageFormat;
    if (!formats.includes(format))
      throw new RedactError('UNSUPPORTED_TYPE', `format ${meta.format} is not accepted`);
    // metadata() only reads the header; check the declared size before anything decodes it
    if (meta.width * meta.height > maxPixels) {
      throw new RedactError('TOO_MANY_PIXELS', `${meta.width}×${meta.height} exceeds ${maxPixels} pixels`);
    }
    // a raw decode of every pixel (about a third of the CPU of .stats(), which also sums every channel)
    if (limits.decode ?? true) await sharp(bytes, sharpInputOptions(maxPixels)).raw().toBuffer();
    return { format, width: meta.autoOrient.width, height: meta.autoOrient.height };
  } catch (err) {
    throw imageError(err);
  }
}

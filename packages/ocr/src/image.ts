// Decoding uploaded bytes to RGB pixels with sharp (EXIF orientation applied, alpha flattened onto white).
import sharp from 'sharp';
import { OcrError } from './errors.js';
import type { RgbImage } from './types.js';

/** Decodes any image sharp reads to upright 3-channel RGB; refuses corrupt input and decompression bombs. */
export async function decodeImage(bytes: Uint8Array, maxPixels: number): Promise<RgbImage> {
  if (bytes.byteLength === 0) throw new OcrError('OCR_BAD_IMAGE', 'empty input');
  try {
    const { data, info } = await sharp(bytes, { limitInputPixels: maxPixels, failOn: 'error' })
      .rotate()
      .flatten({ background: '#ffffff' })
      .toColourspace('srgb')
      .raw()
      .toBuffer({ resolveWithObject: true });
    if (info.channels !== 3) throw new Error(`unexpected ${info.channels} channels`);
    return { data: new Uint8Array(data.buffer, data.byteOffset, data.byteLength), width: info.width, height: info.height };
  } catch (err) {
    const message = err instanceof Error ? err.message : String(err);
    const code = /pixel limit/i.test(message) ? 'OCR_TOO_MANY_PIXELS' : 'OCR_BAD_IMAGE';
    throw new OcrError(code, `cannot decode image: ${message}`, { cause: err });
  }
}

/** The image resized to exactly width × height (no aspect kept), as raw RGB. */
export async function resizeRgb(img: RgbImage, width: number, height: number): Promise<RgbImage> {
  if (img.width === width && img.height === height) return img;
  const data = await sharp(img.data, { raw: { width: img.width, height: img.height, channels: 3 } })
    .resize(width, height, { fit: 'fill', kernel: 'linear' })
    .raw()
    .toBuffer();
  return { data: new Uint8Array(data.buffer, data.byteOffset, data.byteLength), width, height };
}

/**
 * Images users upload for the product to keep and show again (avatars, feedback screenshots): PNG or JPEG of at most
 * LIMITS.imageMaxBytes, checked by their content (never the name) with packages/redact — type, pixel bombs — then
 * decoded once by sharp (failOn 'error': a truncated or damaged file fails there) and written anew, which drops every
 * metadata block (EXIF with GPS and camera, XMP, comments) and anything appended after the image data. Source
 * documents keep their own bytes and have their own check (modules/documents/upload-check.ts).
 */
import type { FastifyRequest } from 'fastify';
import sharp, { type Sharp } from 'sharp';
import { LIMITS, type Language } from '@esource/shared';
import { DEFAULT_MAX_PIXELS, inspectImage, isRedactError } from '@esource/redact';
import { AppError } from './errors';
import { translator } from './i18n';

const FORMATS = ['jpeg', 'png'] as const;
/** like packages/redact's untrusted input: the pixel limit, and a failure on broken pixel data */
const INPUT = { limitInputPixels: DEFAULT_MAX_PIXELS, failOn: 'error' } as const;
const PROBLEMS = ['EMPTY', 'UNSUPPORTED_TYPE', 'TRUNCATED', 'BAD_IMAGE', 'TOO_MANY_PIXELS'] as const;

/** Why an upload is not an acceptable image (each a `<namespace>.problem.*` catalogue key). */
export type ImageProblem = (typeof PROBLEMS)[number];

/** The refusals of one kind of upload, as translated AppErrors naming its field. */
export interface ImageRefusals {
  tooLarge: () => AppError;
  invalid: (problem: ImageProblem) => AppError;
}

/** An upload is read up to this size, so that an oversized non-image is still told apart from a large image. */
export const IMAGE_READ_MAX = 4 * LIMITS.imageMaxBytes;

/**
 * Checks an uploaded image and hands `encode` a sharp pipeline over it, turned upright by its EXIF orientation, with
 * its format; what `encode` writes is new bytes without metadata. The size is checked first (no decoding needed), but
 * only for an image at all: a large executable is "not an image". Every refusal is one of `refuse`'s AppErrors.
 */
export async function rewriteImageUpload<T>(
  bytes: Buffer,
  refuse: ImageRefusals,
  encode: (image: Sharp, format: (typeof FORMATS)[number]) => Promise<T>,
): Promise<T> {
  try {
    if (bytes.length > LIMITS.imageMaxBytes) {
      await inspectImage(bytes, { formats: FORMATS, decode: false });
      throw refuse.tooLarge();
    }
    // type and pixel count from the header; the pixels are decoded once, by `encode`
    const { format } = await inspectImage(bytes, { formats: FORMATS, decode: false });
    return await encode(sharp(bytes, INPUT).autoOrient(), format as (typeof FORMATS)[number]);
  } catch (err) {
    if (err instanceof AppError) throw err;
    if (isRedactError(err)) {
      throw refuse.invalid(
        (PROBLEMS as readonly string[]).includes(err.code) ? (err.code as ImageProblem) : 'BAD_IMAGE',
      );
    }
    // (libvips' words for cut-off data, as packages/redact reads them)
    const truncated = /premature end|truncat|unexpected end|end of (file|stream)|read error|incomplete/i.test(
      err instanceof Error ? err.message : String(err),
    );
    throw refuse.invalid(truncated ? 'TRUNCATED' : 'BAD_IMAGE');
  }
}

/** The text of an image problem in `lang`, from the `<namespace>.problem.*` keys of the catalogue. */
export function imageProblemText(
  lang: Language,
  namespace: 'profile' | 'feedback',
  problem: ImageProblem,
): string {
  return translator(lang)(
    `${namespace}.problem.${problem}`,
    problem === 'TOO_MANY_PIXELS' ? { max: DEFAULT_MAX_PIXELS / 1_000_000 } : {},
  );
}

const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

/** The type of image bytes written by rewriteImageUpload's callers (PNG or JPEG), from their first bytes. */
export function rewrittenImageMime(bytes: Buffer): 'image/png' | 'image/jpeg' {
  return bytes.subarray(0, 8).equals(PNG_SIGNATURE) ? 'image/png' : 'image/jpeg';
}

/**
 * The fields and the one image file of a request (read up to IMAGE_READ_MAX, `tooLarge` beyond); a plain form is
 * read as fields only. A file input left empty sends a part without a name and without bytes: no file.
 */
export async function readImageUpload(
  req: FastifyRequest,
  tooLarge: () => AppError,
): Promise<{ fields: Record<string, unknown>; bytes: Buffer | null }> {
  if (!req.isMultipart()) return { fields: (req.body ?? {}) as Record<string, unknown>, bytes: null };
  let bytes: Buffer | null = null;
  const fields: Record<string, string> = {};
  for await (const part of req.parts({ limits: { fileSize: IMAGE_READ_MAX, files: 1 } })) {
    if (part.type === 'file') {
      try {
        bytes = await part.toBuffer();
      } catch (err) {
        if ((err as { code?: string }).code === 'FST_REQ_FILE_TOO_LARGE') throw tooLarge();
        throw err;
      }
      if (bytes.length === 0 && !part.filename) bytes = null;
    } else fields[part.fieldname] = String(part.value);
  }
  return { fields, bytes };
}

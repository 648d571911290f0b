/**
 * Feedback screenshots (issue 15 item 5): PNG or JPEG of at most 2 MB, checked by their content (never the name) with
 * packages/redact — type, pixel bombs, truncated or damaged data — like the eCRF file uploads, then written anew by
 * sharp at the same size and type, which drops every metadata block (EXIF with GPS and camera, XMP, comments) and
 * anything appended after the image data. A screenshot may show patient data: only its sender and the feedback
 * administrators read it (feedback.routes.ts).
 */
import sharp from 'sharp';
import { LIMITS, type Language } from '@esource/shared';
import { DEFAULT_MAX_PIXELS, inspectImage, isRedactError } from '@esource/redact';
import { AppError } from '../../lib/errors';
import { translator } from '../../lib/i18n';

const MB = 1024 * 1024;
/** like packages/redact's untrusted input: the pixel limit, and a failure on broken pixel data */
const INPUT = { limitInputPixels: DEFAULT_MAX_PIXELS, failOn: 'error' } as const;
const PROBLEMS = ['EMPTY', 'UNSUPPORTED_TYPE', 'TRUNCATED', 'BAD_IMAGE', 'TOO_MANY_PIXELS'];

export interface Screenshot {
  bytes: Buffer;
  mime: 'image/png' | 'image/jpeg';
}

function invalid(lang: Language, code: string): AppError {
  const t = translator(lang);
  const known = PROBLEMS.includes(code) ? code : 'BAD_IMAGE';
  const problem = t(
    `feedback.problem.${known}`,
    known === 'TOO_MANY_PIXELS' ? { max: DEFAULT_MAX_PIXELS / 1_000_000 } : {},
  );
  return new AppError('FEEDBACK_SCREENSHOT_INVALID', { problem }, [
    { field: 'screenshot', message: t('errors.FEEDBACK_SCREENSHOT_INVALID', { problem }) },
  ]);
}

export function screenshotTooLarge(lang: Language): AppError {
  const mb = LIMITS.imageMaxBytes / MB;
  return new AppError('FEEDBACK_SCREENSHOT_TOO_LARGE', { mb }, [
    { field: 'screenshot', message: translator(lang)('errors.FEEDBACK_SCREENSHOT_TOO_LARGE', { mb }) },
  ]);
}

/** Checks an uploaded screenshot and writes it anew without metadata; refusals are translated AppErrors. */
export async function prepareScreenshot(lang: Language, bytes: Buffer): Promise<Screenshot> {
  try {
    // the size first (no decoding needed), but only for an image at all: a large executable is "not an image"
    if (bytes.length > LIMITS.imageMaxBytes) {
      await inspectImage(bytes, { formats: ['jpeg', 'png'], decode: false });
      throw screenshotTooLarge(lang);
    }
    const info = await inspectImage(bytes, { formats: ['jpeg', 'png'] });
    // (sharp writes no metadata unless asked to: keepMetadata/withMetadata are not used)
    const img = sharp(bytes, INPUT).autoOrient();
    return info.format === 'png'
      ? { bytes: await img.png({ compressionLevel: 9 }).toBuffer(), mime: 'image/png' }
      : { bytes: await img.jpeg({ quality: 90, mozjpeg: true }).toBuffer(), mime: 'image/jpeg' };
  } catch (err) {
    if (err instanceof AppError) throw err;
    if (isRedactError(err)) throw invalid(lang, err.code);
    throw invalid(lang, 'BAD_IMAGE');
  }
}

/** The type of stored screenshot bytes, from their first bytes (both kinds were written by prepareScreenshot). */
export function screenshotMime(bytes: Buffer): Screenshot['mime'] {
  return bytes.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]))
    ? 'image/png'
    : 'image/jpeg';
}

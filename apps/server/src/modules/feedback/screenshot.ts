/**
 * Feedback screenshots (issue 15 item 5): PNG or JPEG of at most 2 MB, checked by their content and written anew at
 * the same size and type without metadata (lib/image-upload.ts). A screenshot may show patient data: only its sender
 * and the feedback administrators read it (feedback.routes.ts).
 */
import { LIMITS, type Language } from '@esource/shared';
import { AppError } from '../../lib/errors';
import { translator } from '../../lib/i18n';
import {
  imageProblemText,
  rewriteImageUpload,
  rewrittenImageMime,
  type ImageProblem,
} from '../../lib/image-upload';

export interface Screenshot {
  bytes: Buffer;
  mime: 'image/png' | 'image/jpeg';
}

function invalid(lang: Language, code: ImageProblem): AppError {
  const problem = imageProblemText(lang, 'feedback', code);
  return new AppError('FEEDBACK_SCREENSHOT_INVALID', { problem }, [
    { field: 'screenshot', message: translator(lang)('errors.FEEDBACK_SCREENSHOT_INVALID', { problem }) },
  ]);
}

export function screenshotTooLarge(lang: Language): AppError {
  const mb = LIMITS.imageMaxBytes / (1024 * 1024);
  return new AppError('FEEDBACK_SCREENSHOT_TOO_LARGE', { mb }, [
    { field: 'screenshot', message: translator(lang)('errors.FEEDBACK_SCREENSHOT_TOO_LARGE', { mb }) },
  ]);
}

/** Checks an uploaded screenshot and writes it anew without metadata; refusals are translated AppErrors. */
export function prepareScreenshot(lang: Language, bytes: Buffer): Promise<Screenshot> {
  const refuse = {
    tooLarge: () => screenshotTooLarge(lang),
    invalid: (code: ImageProblem) => invalid(lang, code),
  };
  return rewriteImageUpload(bytes, refuse, async (image, format): Promise<Screenshot> =>
    format === 'png'
      ? { bytes: await image.png({ compressionLevel: 9 }).toBuffer(), mime: 'image/png' }
      : { bytes: await image.jpeg({ quality: 90, mozjpeg: true }).toBuffer(), mime: 'image/jpeg' },
  );
}

/** The type of stored screenshot bytes, from their first bytes (both kinds were written by prepareScreenshot). */
export const screenshotMime = (bytes: Buffer): Screenshot['mime'] => rewrittenImageMime(bytes);

/**
 * Avatars (issue 15 item 1; spec §5, §9: PNG or JPG, at most 2 MB). The upload is checked by its content and written
 * anew without metadata (lib/image-upload.ts): turned upright by its EXIF orientation and cropped to an AVATAR_SIZE
 * square. Opaque images become JPEG, images with transparency PNG.
 */
import sharp from 'sharp';
import { AVATAR_SIZE, LIMITS, type Language } from '@esource/shared';
import { AppError } from '../../lib/errors';
import { translator } from '../../lib/i18n';
import {
  imageProblemText,
  rewriteImageUpload,
  rewrittenImageMime,
  type ImageProblem,
} from '../../lib/image-upload';

export interface Avatar {
  bytes: Buffer;
  mime: 'image/jpeg' | 'image/png';
}

function invalid(lang: Language, code: ImageProblem): AppError {
  const problem = imageProblemText(lang, 'profile', code);
  return new AppError('AVATAR_INVALID', { problem }, [
    { field: 'file', message: translator(lang)('errors.AVATAR_INVALID', { problem }) },
  ]);
}

export function avatarTooLarge(lang: Language): AppError {
  const mb = LIMITS.imageMaxBytes / (1024 * 1024);
  return new AppError('AVATAR_TOO_LARGE', { mb }, [
    { field: 'file', message: translator(lang)('errors.AVATAR_TOO_LARGE', { mb }) },
  ]);
}

/** Checks an uploaded avatar and re-encodes it (see the file comment); refusals are translated AppErrors. */
export function prepareAvatar(lang: Language, bytes: Buffer): Promise<Avatar> {
  const refuse = {
    tooLarge: () => avatarTooLarge(lang),
    invalid: (code: ImageProblem) => invalid(lang, code),
  };
  return rewriteImageUpload(bytes, refuse, async (image): Promise<Avatar> => {
    // transparency that is really used (an alpha channel of a screenshot is often all opaque), judged on the square
    const { data, info } = await image
      .resize(AVATAR_SIZE, AVATAR_SIZE, { fit: 'cover' })
      .raw()
      .toBuffer({ resolveWithObject: true });
    let isOpaque = true;
    if (info.channels === 2 || info.channels === 4) {
      for (let k = info.channels - 1; k < data.length; k += info.channels) {
        if (data[k] !== 255) {
          isOpaque = false;
          break;
        }
      }
    }
    // encoded from the square's pixels (decoded once); sharp writes no metadata unless asked to
    const square = sharp(data, { raw: { width: info.width, height: info.height, channels: info.channels } });
    return isOpaque
      ? {
          bytes: await square
            .flatten({ background: '#ffffff' })
            .jpeg({ quality: 85, mozjpeg: true })
            .toBuffer(),
          mime: 'image/jpeg',
        }
      : { bytes: await square.png({ compressionLevel: 9 }).toBuffer(), mime: 'image/png' };
  });
}

/** The type of stored avatar bytes, from their first bytes (both kinds were written by prepareAvatar). */
export const avatarMime = (bytes: Buffer): Avatar['mime'] => rewrittenImageMime(bytes);

/**
 * Avatars (issue 15 item 1; spec §5, §9: PNG or JPG, at most 2 MB). The upload is checked by its content (never its
 * name) with packages/redact — type, pixel bombs, truncated or damaged data — then re-encoded by sharp: turned upright
 * by its EXIF orientation, cropped to a AVATAR_SIZE square and written anew, which drops every metadata block (EXIF
 * with GPS and camera, XMP, comments) and anything appended after the image data. Opaque images become JPEG, images
 * with transparency PNG.
 */
import sharp from 'sharp';
import { AVATAR_SIZE, LIMITS, type Language } from '@esource/shared';
import { DEFAULT_MAX_PIXELS, inspectImage, isRedactError } from '@esource/redact';
import { AppError } from '../../lib/errors';
import { translator } from '../../lib/i18n';

const MB = 1024 * 1024;
/** like packages/redact's untrusted input: the pixel limit, and a failure on broken pixel data */
const INPUT = { limitInputPixels: DEFAULT_MAX_PIXELS, failOn: 'error' } as const;

export interface Avatar {
  bytes: Buffer;
  mime: 'image/jpeg' | 'image/png';
}

function invalid(lang: Language, code: string): AppError {
  const params = code === 'TOO_MANY_PIXELS' ? { max: DEFAULT_MAX_PIXELS / 1_000_000 } : {};
  const t = translator(lang);
  const known = ['EMPTY', 'UNSUPPORTED_TYPE', 'TRUNCATED', 'BAD_IMAGE', 'TOO_MANY_PIXELS'].includes(code)
    ? code
    : 'BAD_IMAGE';
  const problem = t(`profile.problem.${known}`, params);
  return new AppError('AVATAR_INVALID', { problem }, [
    { field: 'file', message: t('errors.AVATAR_INVALID', { problem }) },
  ]);
}

export function avatarTooLarge(lang: Language): AppError {
  const mb = LIMITS.imageMaxBytes / MB;
  return new AppError('AVATAR_TOO_LARGE', { mb }, [
    { field: 'file', message: translator(lang)('errors.AVATAR_TOO_LARGE', { mb }) },
  ]);
}

/** Checks an uploaded avatar and re-encodes it (see the file comment); refusals are translated AppErrors. */
export async function prepareAvatar(lang: Language, bytes: Buffer): Promise<Avatar> {
  try {
    // the size first (no decoding needed), but only for an image at all: a large executable is "not an image"
    if (bytes.length > LIMITS.imageMaxBytes) {
      await inspectImage(bytes, { formats: ['jpeg', 'png'], decode: false });
      throw avatarTooLarge(lang);
    }
    // type and pixel count from the header; the pixels are decoded once, below (a truncated or broken file fails there)
    await inspectImage(bytes, { formats: ['jpeg', 'png'], decode: false });
    const img = sharp(bytes, INPUT).autoOrient().resize(AVATAR_SIZE, AVATAR_SIZE, { fit: 'cover' });
    // transparency that is really used (an alpha channel of a screenshot is often all opaque), judged on the square
    const { data, info } = await img.raw().toBuffer({ resolveWithObject: true });
    let isOpaque = true;
    if (info.channels === 2 || info.channels === 4) {
      for (let k = info.channels - 1; k < data.length; k += info.channels) {
        if (data[k] !== 255) {
          isOpaque = false;
          break;
        }
      }
    }
    // encoded from the square's pixels (decoded once); sharp writes no metadata unless asked to (withMetadata is not used)
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
  } catch (err) {
    if (err instanceof AppError) throw err;
    if (isRedactError(err)) throw invalid(lang, err.code);
    // (libvips' words for cut-off data, as packages/redact reads them)
    const truncated = /premature end|truncat|unexpected end|end of (file|stream)|read error|incomplete/i.test(
      err instanceof Error ? err.message : String(err),
    );
    throw invalid(lang, truncated ? 'TRUNCATED' : 'BAD_IMAGE');
  }
}

/** The type of stored avatar bytes, from their first bytes (both were written by prepareAvatar). */
export function avatarMime(bytes: Buffer): Avatar['mime'] {
  return bytes.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]))
    ? 'image/png'
    : 'image/jpeg';
}

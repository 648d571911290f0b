/**
 * Checks an uploaded source document by its content (never its name) with packages/redact, before anything is stored:
 * PNG/JPEG ≤ 2 MB, PDF ≤ 50 MB (spec §9), no empty, truncated, damaged or pixel-bomb images, no encrypted PDFs, no PDF
 * over DOCUMENT_MAX_PAGES pages. A refusal is an AppError naming the file and the problem, translated.
 */
import { LIMITS } from '@esource/shared';
import { DEFAULT_MAX_PIXELS, inspectImage, inspectPdf, isRedactError } from '@esource/redact';
import { AppError } from '../../lib/errors';
import { translator } from '../../lib/i18n';
import type { Language } from '@esource/shared';

/** Most pages of an uploaded PDF (packages/redact's default limit). */
export const DOCUMENT_MAX_PAGES = 500;
const MB = 1024 * 1024;

export interface CheckedFile {
  name: string;
  bytes: Buffer;
  kind: 'image' | 'pdf';
  pages: number;
}

/** A PDF starts with its header (pdf.js, like every reader, also accepts a little junk before it: not here). */
const isPdf = (b: Buffer) => b.subarray(0, 5).toString('latin1') === '%PDF-';

function problem(lang: Language, name: string, key: string, params: Record<string, string | number> = {}, code: 'DOCUMENT_FILE_INVALID' | 'DOCUMENT_FILE_TOO_LARGE' = 'DOCUMENT_FILE_INVALID'): AppError {
  const t = translator(lang);
  const message = t(`documents.problem.${key}`, params);
  return new AppError(code, { name, problem: message }, [{ field: 'files', message: `${name}: ${message}` }]);
}

/** The upload's message for a file larger than its type allows. */
export function tooLarge(lang: Language, name: string, pdf: boolean): AppError {
  return pdf
    ? problem(lang, name, 'pdfTooLarge', { mb: LIMITS.pdfMaxBytes / MB }, 'DOCUMENT_FILE_TOO_LARGE')
    : problem(lang, name, 'imageTooLarge', { mb: LIMITS.imageMaxBytes / MB }, 'DOCUMENT_FILE_TOO_LARGE');
}

export async function checkFile(lang: Language, name: string, bytes: Buffer): Promise<CheckedFile> {
  try {
    if (bytes.length > 0 && isPdf(bytes)) {
      if (bytes.length > LIMITS.pdfMaxBytes) throw tooLarge(lang, name, true);
      const info = await inspectPdf(bytes, { maxPages: DOCUMENT_MAX_PAGES });
      return { name, bytes, kind: 'pdf', pages: info.numPages };
    }
    // the size first: a 2 MB limit needs no decoding to be applied
    if (bytes.length > LIMITS.imageMaxBytes) {
      // (only when it is an image at all: a large executable is 'not a PNG/JPG/PDF')
      await inspectImage(bytes, { formats: ['jpeg', 'png'], decode: false });
      throw tooLarge(lang, name, false);
    }
    await inspectImage(bytes, { formats: ['jpeg', 'png'] });
    return { name, bytes, kind: 'image', pages: 1 };
  } catch (err) {
    if (err instanceof AppError) throw err;
    // a parser's own failure on a malformed file is that file's problem, never a 500
    if (!isRedactError(err)) {
      console.warn(`[documents] ${name}: ${(err as Error).message}`);
      throw problem(lang, name, bytes.length > 0 && isPdf(bytes) ? 'BAD_PDF' : 'BAD_IMAGE', {});
    }
    const params: Record<string, string | number> = {};
    if (err.code === 'TOO_MANY_PIXELS') params.max = DEFAULT_MAX_PIXELS / 1_000_000;
    if (err.code === 'TOO_MANY_PAGES') params.max = DOCUMENT_MAX_PAGES;
    throw problem(lang, name, err.code, params);
  }
}

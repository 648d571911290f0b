/** Excel helpers shared by the modules that import or export .xlsx files (users, subjects). */
import type ExcelJS from 'exceljs';
import type { FastifyRequest } from 'fastify';
import type { Language } from '@esource/shared';
import { AppError } from './errors';
import { translator } from './i18n';

export const XLSX_MIME = 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet';

/** `attachment` with an ASCII fallback and the UTF-8 name (RFC 6266 / 5987), so Chinese names survive. */
export function contentDisposition(fileName: string, asciiFallback: string): string {
  const ascii = asciiFallback.replace(/[^\x20-\x7e]|["\\]/g, '_');
  return `attachment; filename="${ascii}"; filename*=UTF-8''${encodeURIComponent(fileName)}`;
}

/** The text of a cell: trimmed strings, rich text and hyperlinks flattened, formulas by their result. */
export function cellText(v: ExcelJS.CellValue): string {
  if (v === null || v === undefined) return '';
  if (typeof v === 'string') return v.trim();
  if (typeof v === 'number' || typeof v === 'boolean') return String(v);
  if (v instanceof Date) return v.toISOString();
  if ('richText' in v) return v.richText.map((r) => r.text).join('').trim();
  if ('hyperlink' in v) {
    const text = v.text as unknown;
    if (typeof text === 'string') return text.trim();
    if (text && typeof text === 'object' && 'richText' in text) return cellText(text as ExcelJS.CellRichTextValue);
    return '';
  }
  if ('formula' in v || 'sharedFormula' in v) return cellText((v as { result?: unknown }).result as ExcelJS.CellValue);
  return '';
}

/** A header cell reduced for matching: '*' marks and spacing ignored, case folded. */
export function normHeader(s: string): string {
  return s.replace(/[*＊\s]/g, '').toLowerCase();
}

/** yyyymmdd-hhmm in UTC, for download names. */
export function downloadStamp(d = new Date()): string {
  return d.toISOString().slice(0, 16).replace(/[-:]/g, '').replace('T', '-');
}

/** 'YYYY-MM-DD HH:mm:ss' in the given time zone. */
export function formatTime(d: Date | null, timeZone: string): string {
  if (!d) return '';
  return new Intl.DateTimeFormat('sv-SE', {
    timeZone,
    year: 'numeric',
    month: '2-digit',
    day: '2-digit',
    hour: '2-digit',
    minute: '2-digit',
    second: '2-digit',
    hourCycle: 'h23',
  }).format(d);
}

/**
 * The one .xlsx of a multipart upload as a buffer: 415 when the request is not multipart, a translated 'file
 * required' when there is none or it is empty, 413 when it is larger than maxBytes (checked while streaming and
 * again on the result, so that a limit the stream did not apply still holds).
 */
export async function readUpload(req: FastifyRequest, language: Language, maxBytes: number): Promise<Buffer> {
  if (!req.isMultipart()) throw new AppError('UNSUPPORTED_MEDIA_TYPE', { type: req.headers['content-type'] ?? '' });
  const t = translator(language);
  const required = () =>
    new AppError('VALIDATION', { detail: t('validation.field', { field: 'file', message: t('validation.importFileRequired') }) }, [
      { field: 'file', message: t('validation.importFileRequired') },
    ]);
  const part = await req.file({ limits: { fileSize: maxBytes, files: 1 }, throwFileSizeLimit: true });
  if (!part) throw required();
  let buf: Buffer;
  try {
    buf = await part.toBuffer();
  } catch (err) {
    if ((err as { code?: string }).code === 'FST_REQ_FILE_TOO_LARGE') throw new AppError('PAYLOAD_TOO_LARGE');
    throw err;
  }
  if (part.file.truncated || buf.length > maxBytes) throw new AppError('PAYLOAD_TOO_LARGE');
  if (buf.length === 0) throw required();
  return buf;
}

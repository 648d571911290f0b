/** Excel helpers shared by the modules that import or export .xlsx files (users, subjects). */
import type ExcelJS from 'exceljs';

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

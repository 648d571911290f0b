/** Excel helpers shared by the modules that import or export .xlsx files (users, subjects). */
import { createRequire } from 'node:module';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';
import type ExcelJS from 'exceljs';
import type { FastifyRequest } from 'fastify';
import type { Language } from '@esource/shared';
import { AppError } from './errors';
import { translator } from './i18n';
import { ArchiveError, checkArchive, XLSX_ARCHIVE_LIMITS, type ZipEntry } from './xlsx-archive';
import type { XlsxReadRequest, XlsxReadResult, XlsxRow } from './xlsx-read.worker';

export type { XlsxRow } from './xlsx-read.worker';

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

/** A 'file' validation error with a catalogue message, as the import screens show it. */
export function importFileProblem(lang: Language, message: string, params: Record<string, string | number> = {}): AppError {
  const t = translator(lang);
  const m = t(message, params);
  return new AppError('VALIDATION', { detail: t('validation.field', { field: 'file', message: m }) }, [{ field: 'file', message: m }]);
}

const READ_WORKER = new URL('./xlsx-read.worker.ts', import.meta.url);
/**
 * A worker starts without tsx's hooks (the server runs its TypeScript sources, in tests too): this small script
 * registers tsx in the worker and then loads the TypeScript entry.
 */
const TSX_ESM_API = pathToFileURL(path.join(path.dirname(createRequire(import.meta.url).resolve('tsx/package.json')), 'dist/esm/api/index.mjs'));
const WORKER_BOOT = `import(${JSON.stringify(TSX_ESM_API.href)})
  .then((tsx) => { tsx.register(); return import(require('node:worker_threads').workerData.entry); })`;

/**
 * Import workers: at most IMPORT_WORKERS_MAX threads, each reading one file at a time, started on the first
 * import and ended after IMPORT_WORKER_IDLE_MS without work (a cold start costs about a second: tsx and exceljs
 * load in the new isolate). Beyond IMPORT_QUEUE_MAX waiting imports, further ones are refused (429).
 */
const IMPORT_WORKERS_MAX = 2;
const IMPORT_QUEUE_MAX = 8;
const IMPORT_WORKER_IDLE_MS = 60_000;
/** A worker that has not answered by then is ended (a 1,000-row sheet reads in well under a second). */
const IMPORT_WORKER_TIMEOUT_MS = 20_000;

interface PooledWorker {
  worker: Worker;
  idleTimer?: NodeJS.Timeout;
}
const idleWorkers: PooledWorker[] = [];
let workersBusy = 0;
const importQueue: (() => void)[] = [];

async function importSlot(): Promise<() => void> {
  if (workersBusy >= IMPORT_WORKERS_MAX) {
    if (importQueue.length >= IMPORT_QUEUE_MAX) throw new AppError('RATE_LIMITED');
    await new Promise<void>((resolve) => importQueue.push(resolve));
  } else workersBusy += 1;
  return () => {
    const next = importQueue.shift();
    if (next) next();
    else workersBusy -= 1;
  };
}

function startWorker(): PooledWorker {
  const worker = new Worker(WORKER_BOOT, {
    eval: true,
    workerData: { entry: READ_WORKER.href },
    // a parser that runs away dies alone, and never takes the API's heap with it
    resourceLimits: { maxOldGenerationSizeMb: 256, maxYoungGenerationSizeMb: 32 },
  });
  worker.unref();
  return { worker };
}

function park(w: PooledWorker) {
  w.idleTimer = setTimeout(() => {
    const i = idleWorkers.indexOf(w);
    if (i >= 0) idleWorkers.splice(i, 1);
    void w.worker.terminate();
  }, IMPORT_WORKER_IDLE_MS);
  w.idleTimer.unref();
  idleWorkers.push(w);
}

/** Sends one request to a warm (or new) worker; a worker that fails or times out is ended, never reused. */
async function runReadWorker(request: XlsxReadRequest): Promise<XlsxReadResult> {
  const release = await importSlot();
  const w = idleWorkers.pop() ?? startWorker();
  clearTimeout(w.idleTimer);
  try {
    const { result, reusable } = await new Promise<{ result: XlsxReadResult; reusable: boolean }>((resolve, reject) => {
      const done = () => {
        clearTimeout(timer);
        w.worker.off('message', onMessage);
        w.worker.off('error', onError);
        w.worker.off('exit', onExit);
      };
      const onMessage = (m: XlsxReadResult) => {
        done();
        resolve({ result: m, reusable: true });
      };
      const onError = (err: Error & { code?: string }) => {
        done();
        if (err.code === 'ERR_WORKER_OUT_OF_MEMORY') resolve({ result: { ok: false, problem: 'tooLarge', message: err.message }, reusable: false });
        else reject(err);
      };
      const onExit = (code: number) => {
        done();
        reject(new Error(`xlsx worker exited with ${code}`));
      };
      const timer = setTimeout(() => {
        done();
        resolve({ result: { ok: false, problem: 'tooLarge', message: 'timed out' }, reusable: false });
      }, IMPORT_WORKER_TIMEOUT_MS);
      w.worker.on('message', onMessage);
      w.worker.on('error', onError);
      w.worker.on('exit', onExit);
      w.worker.postMessage(request);
    });
    if (reusable) park(w);
    else void w.worker.terminate();
    return result;
  } catch (err) {
    void w.worker.terminate();
    throw err;
  } finally {
    release();
  }
}

/**
 * The non-empty rows of the first worksheet of an uploaded .xlsx (header row included, as `rowNo` 1), for the
 * imports. Limits hold before any parsing: the zip's central directory is checked on declared sizes (entries,
 * each entry, total, ratio), then a worker thread verifies the declarations while inflating and streams the rows,
 * stopping at the first data row over `maxRows`. The API's event loop never parses XML. Problems are 'file'
 * validation errors in the request's language: not an .xlsx, unpacks too large, too many rows.
 */
export async function readXlsxRows(buffer: Buffer, lang: Language, maxRows: number, maxColumns = 64): Promise<XlsxRow[]> {
  const tooLarge = () => importFileProblem(lang, 'validation.importUnpackedTooLarge', { max: XLSX_ARCHIVE_LIMITS.maxTotalBytes / 1024 / 1024 });
  let entries: ZipEntry[];
  try {
    entries = checkArchive(buffer);
  } catch (err) {
    if (err instanceof ArchiveError && err.problem === 'tooLarge') throw tooLarge();
    throw importFileProblem(lang, 'validation.importNotXlsx');
  }
  const result = await runReadWorker({ buffer: new Uint8Array(buffer), entries, maxRows, maxColumns });
  if (result.ok) return result.rows;
  switch (result.problem) {
    case 'tooManyRows':
      throw importFileProblem(lang, 'validation.importTooManyRows', { max: maxRows });
    case 'tooLarge':
      throw tooLarge();
    case 'notXlsx':
      throw importFileProblem(lang, 'validation.importNotXlsx');
  }
}

/**
 * A text cell that a spreadsheet would run as a formula (= + - @, or a leading tab / carriage return) gets a
 * leading apostrophe, as OWASP advises against CSV/formula injection: a subject's initials of
 * '=HYPERLINK("http://evil","x")' must export as text, never as a live link or a DDE call. Numbers, dates and
 * other values pass unchanged. Every export row goes through `safeRow`.
 */
export function neutraliseFormula<T>(value: T): T | string {
  return typeof value === 'string' && /^[=+\-@\t\r]/.test(value) ? `'${value}` : value;
}

/** The row with each text cell neutralised (see neutraliseFormula); for every `addRow` of an export. */
export function safeRow<T extends Record<string, unknown> | unknown[]>(row: T): T {
  if (Array.isArray(row)) return row.map((v: unknown) => neutraliseFormula(v)) as T;
  return Object.fromEntries(Object.entries(row).map(([k, v]) => [k, neutraliseFormula(v)])) as T;
}

import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { getDocument, type PDFDocumentProxy } from './pdfjs.js';
import { RedactError } from './errors.js';
import { DEFAULT_MAX_PAGES } from './types.js';

/** Limits for untrusted PDFs. */
export interface PdfLimits {
  /** Most pages accepted (default 500); checked from the page tree before any page is parsed. */
  maxPages?: number;
}

/** An opened PDF (pdf.js document); pass it to several calls to parse the file once. Close it when done. */
export interface PdfDoc {
  readonly pdf: PDFDocumentProxy;
  readonly numPages: number;
  close(): Promise<void>;
}

/** Page size in PDF points (1/72 in) as displayed, i.e. with the page's /Rotate applied. */
export interface PdfPageSize {
  width: number;
  height: number;
}

/** What inspectPdf found. */
export interface PdfInfo {
  numPages: number;
  pages: PdfPageSize[];
}

// the font data, CMaps and decoders ship in pdfjs-dist; pdf.js in Node reads them from disk (paths end with '/')
const PDFJS_DIR = dirname(createRequire(import.meta.url).resolve('pdfjs-dist/package.json'));
const dataDir = (name: string): string => `${join(PDFJS_DIR, name)}/`;

/** Maps a pdf.js failure to a typed error. */
function pdfError(err: unknown): RedactError {
  if (err instanceof RedactError) return err;
  const name = err instanceof Error ? err.name : '';
  const message = err instanceof Error ? err.message : String(err);
  if (name === 'PasswordException')
    return new RedactError('ENCRYPTED', `password-protected PDF: ${message}`, { cause: err });
  return new RedactError('BAD_PDF', message, { cause: err });
}

/**
 * Opens a PDF with pdf.js (legacy build, no eval, no system fonts), refusing empty, damaged and encrypted files (also
 * those that open with an empty password: a copy must not inherit restrictions, and the policy is to refuse them) and
 * files over the page limit. Throws RedactError.
 */
export async function openPdf(bytes: Uint8Array, limits: PdfLimits = {}): Promise<PdfDoc> {
  if (bytes.length === 0) throw new RedactError('EMPTY', 'empty PDF');
  const maxPages = limits.maxPages ?? DEFAULT_MAX_PAGES;
  const task = getDocument({
    data: new Uint8Array(bytes), // pdf.js may take ownership of the buffer: give it a copy
    isEvalSupported: false,
    useSystemFonts: false,
    disableFontFace: true,
    standardFontDataUrl: dataDir('standard_fonts'),
    cMapUrl: dataDir('cmaps'),
    cMapPacked: true,
    wasmUrl: dataDir('wasm'),
    iccUrl: dataDir('iccs'),
    verbosity: 0,
  });
  let pdf: PDFDocumentProxy;
  try {
    pdf = await task.promise;
  } catch (err) {
    await task.destroy();
    throw pdfError(err);
  }
  const close = (): Promise<void> => pdf.destroy();
  try {
    // getPermissions() reads the trailer's /Encrypt dictionary: non-null means the file is encrypted
    if ((await pdf.getPermissions()) !== null) throw new RedactError('ENCRYPTED', 'encrypted PDF');
    if (pdf.numPages > maxPages)
      throw new RedactError('TOO_MANY_PAGES', `${pdf.numPages} pages, limit ${maxPages}`);
    if (pdf.numPages < 1) throw new RedactError('BAD_PDF', 'PDF without pages');
  } catch (err) {
    await close();
    throw pdfError(err);
  }
  return { pdf, numPages: pdf.numPages, close };
}

/** Runs `fn` with an opened document: the caller's own (left open) or one opened from bytes (closed afterwards). */
export async function withPdf<T>(
  source: Uint8Array | PdfDoc,
  limits: PdfLimits,
  fn: (doc: PdfDoc) => Promise<T>,
): Promise<T> {
  if (!(source instanceof Uint8Array)) return fn(source);
  const doc = await openPdf(source, limits);
  try {
    return await fn(doc);
  } finally {
    await doc.close();
  }
}

/** Size of one page (0-based) in points as displayed; throws BAD_BOX for a page that does not exist. */
export async function pageSize(doc: PdfDoc, pageIndex: number): Promise<PdfPageSize> {
  const page = await getPage(doc, pageIndex);
  const { width, height } = page.getViewport({ scale: 1 });
  page.cleanup();
  return { width, height };
}

/** The pdf.js page for a 0-based index, with typed errors. */
export async function getPage(doc: PdfDoc, pageIndex: number): ReturnType<PDFDocumentProxy['getPage']> {
  if (!Number.isInteger(pageIndex) || pageIndex < 0 || pageIndex >= doc.numPages) {
    throw new RedactError('BAD_BOX', `page ${pageIndex} does not exist (${doc.numPages} pages)`);
  }
  try {
    return await doc.pdf.getPage(pageIndex + 1);
  } catch (err) {
    throw pdfError(err);
  }
}

/** Page count and page sizes (points, as displayed), refusing encrypted, damaged and over-long PDFs. Throws RedactError. */
export async function inspectPdf(bytes: Uint8Array, limits: PdfLimits = {}): Promise<PdfInfo> {
  return withPdf(bytes, limits, async (doc) => {
    const pages: PdfPageSize[] = [];
    for (let i = 0; i < doc.numPages; i++) pages.push(await pageSize(doc, i));
    return { numPages: doc.numPages, pages };
  });
}

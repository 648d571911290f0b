import { PDFDocument, StandardFonts } from 'pdf-lib';
import sharp from 'sharp';
import { toPixelRect, type PixelRect } from './boxes.js';
import { RedactError } from './errors.js';
import { paintAndEncode, type EncodeOptions } from './paint.js';
import { getPage, withPdf, type PdfDoc, type PdfLimits } from './pdf-open.js';
import { DEFAULT_SCALE, renderToCanvas } from './pdf-render.js';
import { drawInvisibleText } from './pdf-text-layer.js';
import { DEFAULT_MAX_PIXELS, type Box, type KeepText } from './types.js';

/** Options of redactPdf. */
export interface RedactPdfOptions extends PdfLimits, EncodeOptions {
  /** Rendering scale of the copy (default 150 dpi = 150/72). */
  scale?: number;
  /** Scale the boxes and keepText were measured at (default `scale`), e.g. 300/72 when OCR ran at 300 dpi. */
  boxScale?: number;
  /** Pixels (at `boxScale`) added on every side of each box (default 0). */
  padding?: number;
  /** Largest rendered page in pixels (default 50 megapixels). */
  maxPixels?: number;
  /** Text to keep as an invisible, searchable layer; only this text is in the copy (Latin only, see pdf-text-layer). */
  keepText?: readonly KeepText[];
}

/** A redacted PDF: image-only pages at the original page sizes, plus the invisible kept text. */
export interface RedactedPdf {
  bytes: Uint8Array;
  numPages: number;
  /** keepText items written (items with no character the standard font can encode are skipped). */
  keptTextItems: number;
}

/** Groups items by 0-based page, refusing pages that do not exist. */
function byPage<T extends Box>(items: readonly T[], numPages: number): Map<number, T[]> {
  const map = new Map<number, T[]>();
  for (const item of items) {
    if (!Number.isInteger(item.page) || item.page < 0 || item.page >= numPages) {
      throw new RedactError('BAD_BOX', `page ${item.page} does not exist (${numPages} pages)`);
    }
    map.set(item.page, [...(map.get(item.page) ?? []), item]);
  }
  return map;
}

/**
 * Real redaction of a PDF: every page is rendered (pdf.js), the boxes painted black, and a new PDF built (pdf-lib) from
 * one JPEG per page at the original page size. Nothing of the original's content streams, text, fonts, annotations,
 * attachments or metadata is copied: only pixels, and the `keepText` the caller chose. One page is in memory at a time.
 */
export async function redactPdf(
  source: Uint8Array | PdfDoc,
  boxes: readonly Box[],
  options: RedactPdfOptions = {},
): Promise<RedactedPdf> {
  const scale = options.scale ?? DEFAULT_SCALE;
  const boxScale = options.boxScale ?? scale;
  return withPdf(source, options, async (doc) => {
    const boxesByPage = byPage(boxes, doc.numPages);
    const keepByPage = byPage(options.keepText ?? [], doc.numPages);
    const out = await PDFDocument.create({ updateMetadata: false });
    const font = await out.embedFont(StandardFonts.Helvetica);
    let keptTextItems = 0;
    for (let i = 0; i < doc.numPages; i++) {
      const page = await getPage(doc, i);
      try {
        const canvas = await renderToCanvas(page, scale, options.maxPixels ?? DEFAULT_MAX_PIXELS);
        const { width, height } = canvas;
        const rects = (boxesByPage.get(i) ?? [])
          .map((b) =>
            toPixelRect(b, width, height, (options.padding ?? 0) * (scale / boxScale), scale / boxScale),
          )
          .filter((r): r is PixelRect => r !== null);
        const raw = sharp(canvas.data(), { raw: { width, height, channels: 4 } });
        const jpeg = await paintAndEncode(raw, rects, width, height, options);
        canvas.width = 0; // release the bitmap now rather than at the next GC
        const size = page.getViewport({ scale: 1 });
        const outPage = out.addPage([size.width, size.height]);
        outPage.drawImage(await out.embedJpg(jpeg), { x: 0, y: 0, width: size.width, height: size.height });
        keptTextItems += drawInvisibleText(outPage, font, keepByPage.get(i) ?? [], boxScale);
      } finally {
        page.cleanup();
      }
    }
    return { bytes: await out.save({ useObjectStreams: true }), numPages: doc.numPages, keptTextItems };
  });
}

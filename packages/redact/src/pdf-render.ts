import { createCanvas, type Canvas } from '@napi-rs/canvas';
import { AnnotationMode, type PDFPageProxy } from './pdfjs.js';
import type { RenderParameters, TextItem } from 'pdfjs-dist/types/src/display/api.js';
import { RedactError } from './errors.js';
import { getPage, withPdf, type PdfDoc, type PdfLimits } from './pdf-open.js';
import { DEFAULT_MAX_PIXELS } from './types.js';

/** Default rendering scale: 150 dpi (PDF user space is 72 units per inch). */
export const DEFAULT_SCALE = 150 / 72;

/** Rendering options. */
export interface RenderOptions extends PdfLimits {
  /** Largest rendered page in pixels (default 50 megapixels); a huge page at a normal scale is refused, not rendered. */
  maxPixels?: number;
  /** 'png' (default) or raw 'rgba' (width × height × 4 bytes, no encoding cost). */
  format?: 'png' | 'rgba';
}

/** A rendered page. Pixel (0,0) is the top-left of the page as displayed. */
export interface RenderedPage {
  width: number;
  height: number;
  scale: number;
  format: 'png' | 'rgba';
  bytes: Buffer;
}

/** A run of text from the PDF's own text layer with its box in the pixel space of the page rendered at `scale`. */
export interface PdfTextItem {
  text: string;
  x: number;
  y: number;
  width: number;
  height: number;
}

/** Pixel size of a page at `scale` (rounded up: the last partial row/column is rendered too). */
export function pagePixels(page: PDFPageProxy, scale: number): { width: number; height: number } {
  const vp = page.getViewport({ scale });
  return { width: Math.ceil(vp.width), height: Math.ceil(vp.height) };
}

/** Renders a pdf.js page onto a new canvas (white background, annotations and form appearances included). */
export async function renderToCanvas(
  page: PDFPageProxy,
  scale: number,
  maxPixels = DEFAULT_MAX_PIXELS,
): Promise<Canvas> {
  if (!(scale > 0) || !Number.isFinite(scale)) throw new RedactError('BAD_BOX', `invalid scale ${scale}`);
  const { width, height } = pagePixels(page, scale);
  if (width * height > maxPixels) {
    throw new RedactError(
      'TOO_MANY_PIXELS',
      `page ${page.pageNumber} would be ${width}×${height} pixels at scale ${scale}`,
    );
  }
  const canvas = createCanvas(width, height);
  // @napi-rs/canvas is the canvas pdf.js itself uses in Node, but it is not typed as the DOM's HTMLCanvasElement (and
  // this package has no DOM lib, so that type does not resolve): `never` fits the parameter without an unsafe any
  const params = {
    canvas: canvas as unknown as never,
    viewport: page.getViewport({ scale }),
    annotationMode: AnnotationMode.ENABLE,
    background: '#ffffff',
  } satisfies RenderParameters;
  await page.render(params).promise;
  return canvas;
}

/** Rasterises one page (0-based) at `scale` (default 150 dpi) to PNG or raw RGBA. Throws RedactError. */
export async function renderPdfPage(
  source: Uint8Array | PdfDoc,
  pageIndex: number,
  scale = DEFAULT_SCALE,
  options: RenderOptions = {},
): Promise<RenderedPage> {
  return withPdf(source, options, async (doc) => {
    const page = await getPage(doc, pageIndex);
    try {
      const canvas = await renderToCanvas(page, scale, options.maxPixels);
      const format = options.format ?? 'png';
      const bytes = format === 'png' ? await canvas.encode('png') : Buffer.from(canvas.data());
      return { width: canvas.width, height: canvas.height, scale, format, bytes };
    } finally {
      page.cleanup();
    }
  });
}

/**
 * Pixel size of one page (0-based) rendered at `scale` (default 150 dpi): the size renderPdfPage and redactPdf produce
 * and the space boxes are given in, without rendering anything. Throws RedactError.
 */
export async function pdfPagePixels(
  source: Uint8Array | PdfDoc,
  pageIndex: number,
  scale = DEFAULT_SCALE,
  limits: PdfLimits = {},
): Promise<{ width: number; height: number }> {
  return withPdf(source, limits, async (doc) => {
    const page = await getPage(doc, pageIndex);
    try {
      return pagePixels(page, scale);
    } finally {
      page.cleanup();
    }
  });
}

/** Applies a PDF matrix [a b c d e f] to a point. */
function applyMatrix(m: number[], [x, y]: [number, number]): [number, number] {
  const [a = 1, b = 0, c = 0, d = 1, e = 0, f = 0] = m;
  return [a * x + c * y + e, b * x + d * y + f];
}

/** Text items of a pdf.js page with pixel boxes at `scale` (axis-aligned hull of each run, ascent to descent). */
export async function pageTextItems(page: PDFPageProxy, scale: number): Promise<PdfTextItem[]> {
  const viewport = page.getViewport({ scale });
  const content = await page.getTextContent();
  const items: PdfTextItem[] = [];
  for (const raw of content.items) {
    if (!('str' in raw) || raw.str.trim() === '') continue;
    const item: TextItem = raw;
    const style = content.styles[item.fontName];
    const [a, b, c, d, e, f] = item.transform as [number, number, number, number, number, number];
    // unit vectors along the baseline and up the glyphs, in PDF user space
    const along = Math.hypot(a, b) || 1;
    const up = Math.hypot(c, d) || 1;
    const size = item.height || up;
    const ascent = (style?.ascent ?? 0.9) * size;
    const descent = (style?.descent ?? -0.25) * size;
    const corners = [0, item.width].flatMap((s) =>
      [descent, ascent].map((t): [number, number] => [
        e + (a / along) * s + (c / up) * t,
        f + (b / along) * s + (d / up) * t,
      ]),
    );
    const px = corners.map((p) => applyMatrix(viewport.transform, p));
    const xs = px.map((p) => p[0]);
    const ys = px.map((p) => p[1]);
    const x = Math.min(...xs);
    const y = Math.min(...ys);
    items.push({ text: item.str, x, y, width: Math.max(...xs) - x, height: Math.max(...ys) - y });
  }
  return items;
}

/**
 * The PDF's own text on one page (0-based) with boxes in the pixel space of renderPdfPage at the same `scale`, so a
 * caller can place redaction boxes from a born-digital PDF without OCR. Scanned pages return no items.
 */
export async function pdfPageText(
  source: Uint8Array | PdfDoc,
  pageIndex: number,
  scale = DEFAULT_SCALE,
  limits: PdfLimits = {},
): Promise<PdfTextItem[]> {
  return withPdf(source, limits, async (doc) => {
    const page = await getPage(doc, pageIndex);
    try {
      return await pageTextItems(page, scale);
    } finally {
      page.cleanup();
    }
  });
}

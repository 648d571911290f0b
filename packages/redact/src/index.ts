// @esource/redact: real redaction of document images and PDFs given boxes, pure (no database, no HTTP, no OCR).
export { RedactError, isRedactError } from './errors.js';
export type { RedactErrorCode } from './errors.js';
export { DEFAULT_MAX_PAGES, DEFAULT_MAX_PIXELS } from './types.js';
export type { Box, ImageFormat, KeepText } from './types.js';
export { inspectImage } from './image-inspect.js';
export type { ImageInfo, ImageLimits } from './image-inspect.js';
export { redactImage } from './image-redact.js';
export type { RedactImageOptions, RedactedImage } from './image-redact.js';
export type { EncodeOptions } from './paint.js';
export { inspectPdf, openPdf } from './pdf-open.js';
export type { PdfDoc, PdfInfo, PdfLimits, PdfPageSize } from './pdf-open.js';
export { DEFAULT_SCALE, pdfPagePixels, pdfPageText, renderPdfPage } from './pdf-render.js';
export type { PdfTextItem, RenderOptions, RenderedPage } from './pdf-render.js';
export { redactPdf } from './pdf-redact.js';
export type { RedactPdfOptions, RedactedPdf } from './pdf-redact.js';

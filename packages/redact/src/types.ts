/**
 * A rectangle to paint black, in pixels of the page image as rendered: for images the image's own pixels after EXIF
 * orientation, for PDFs the page rendered at the call's `scale` (page rotation applied). `page` is 0-based (0 for images).
 */
export interface Box {
  page: number;
  x: number;
  y: number;
  width: number;
  height: number;
}

/** Text to keep searchable in a redacted PDF: an invisible line placed over `x, y, width, height` (pixels, like Box). */
export interface KeepText extends Box {
  text: string;
}

/** Image formats accepted by default (content-detected; the upload spec allows PNG and JPEG, WebP is harmless). */
export type ImageFormat = 'jpeg' | 'png' | 'webp' | 'tiff' | 'gif' | 'avif' | 'heif';

/** Default pixel limit for decoded inputs (images and rendered PDF pages): 50 megapixels ≈ 200 MB of RGBA. */
export const DEFAULT_MAX_PIXELS = 50_000_000;

/** Default page limit for PDFs. */
export const DEFAULT_MAX_PAGES = 500;

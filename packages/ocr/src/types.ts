/** A point in image pixels (origin top-left). */
export interface Point {
  x: number;
  y: number;
}

/** An axis-aligned box in image pixels (origin top-left). */
export interface Box {
  x: number;
  y: number;
  width: number;
  height: number;
}

/** Four corners in reading order: start-top, end-top, end-bottom, start-bottom. */
export type Quad = [Point, Point, Point, Point];

/**
 * One recognised character: x0/x1 are pixel offsets along the region's reading direction from polygon[0]; y0/y1,
 * when the character's ink was found, are pixel offsets from the region's top edge towards its bottom edge (polygon[0]
 * → polygon[3]) of the rows its ink spans.
 */
export interface OcrChar {
  text: string;
  x0: number;
  x1: number;
  y0?: number;
  y1?: number;
}

/** One detected text region (a piece of a line, as the detection model separated it). */
export interface OcrRegion {
  text: string;
  /** mean CTC probability of the emitted characters, 0..1 */
  confidence: number;
  box: Box;
  polygon: Quad;
  chars: OcrChar[];
}

/** What OCR found on one image, in the pixel space of the image after EXIF orientation. */
export interface OcrResult {
  width: number;
  height: number;
  regions: OcrRegion[];
}

/** Decoded pixels: 3 channels (RGB), 8 bits, row-major. */
export interface RgbImage {
  data: Uint8Array;
  width: number;
  height: number;
}

/** Per-call options. */
export interface OcrImageOptions {
  /** longest side the detection model sees (PaddleOCR's limit_side_len, 'max' mode); default from config */
  detMaxSide?: number;
  /** regions whose recognition confidence is lower are dropped (PaddleOCR's drop_score); default 0.5 */
  minConfidence?: number;
}

/** An OCR engine: one instance holds its models; `recognize` runs one image at a time. */
export interface OcrEngine {
  recognize(image: RgbImage, opts?: OcrImageOptions): Promise<OcrResult>;
  close(): Promise<void>;
}

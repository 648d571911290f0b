// @esource/ocr: Chinese + English OCR with per-region boxes and character offsets, pure (no database, no HTTP).
import { configFromEnv } from './config.js';
import { OcrService } from './service.js';
import type { OcrImageOptions, OcrResult } from './types.js';

export { configFromEnv, DEFAULT_CONFIG } from './config.js';
export type { EngineKind, OcrConfig } from './config.js';
export { OcrError, isOcrError } from './errors.js';
export type { OcrErrorCode } from './errors.js';
export { NoneEngine } from './none-engine.js';
export { findChars, substringBox } from './place.js';
export { frameBox, readingDirection, type ReadingDirection } from './orientation.js';
export type { OcrRunStats } from './protocol.js';
export { OcrService } from './service.js';
export type { OcrServiceStats } from './service.js';
export type { Box, OcrChar, OcrEngine, OcrImageOptions, OcrRegion, OcrResult, Point, Quad, RgbImage } from './types.js';

let shared: OcrService | undefined;

/** The process-wide OCR service (one engine per process), configured from OCR_* variables on first use. */
export function ocrService(): OcrService {
  shared ??= new OcrService(configFromEnv());
  return shared;
}

/** Reads one image with the process-wide service; OCR_BUSY when its queue is full. */
export function ocrImage(bytes: Uint8Array, opts?: OcrImageOptions): Promise<OcrResult> {
  return ocrService().ocrImage(bytes, opts);
}

/** Closes the process-wide service (its engine and worker); the next call starts a new one. */
export async function close(): Promise<void> {
  const s = shared;
  shared = undefined;
  await s?.close();
}

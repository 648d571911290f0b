// Messages between the OCR service (main thread) and its worker thread.
import type { EngineKind } from './config.js';
import type { OcrErrorCode } from './errors.js';
import type { OcrImageOptions, OcrResult } from './types.js';

/** What the worker is started with. */
export interface WorkerInit {
  engine: EngineKind;
  detMaxSide: number;
  maxPixels: number;
  threads: number;
}

/** One image to read. */
export interface OcrRequest {
  id: number;
  bytes: Uint8Array;
  opts: OcrImageOptions;
}

/** Measurements of one request inside the worker. */
export interface OcrRunStats {
  decodeMs: number;
  /** includes loading the models on the first request */
  engineMs: number;
  rssMb: number;
}

/** The worker's answer to one request. */
export type OcrReply =
  | { id: number; ok: true; result: OcrResult; stats: OcrRunStats }
  | { id: number; ok: false; code: OcrErrorCode; message: string };

// OCR configuration from the environment: which engine, how many waiting requests, size and pixel limits.

/** The engines that can be chosen by configuration. */
export type EngineKind = 'paddle' | 'none';

/** Everything the OCR service needs to start its worker. */
export interface OcrConfig {
  /** OCR_ENGINE: 'paddle' (default) or 'none' */
  engine: EngineKind;
  /** OCR_QUEUE_SIZE: requests waiting behind the running one before new ones are refused with OCR_BUSY */
  queueSize: number;
  /** OCR_DET_MAX_SIDE: longest side the detection model sees; larger pages are scaled down (boxes mapped back) */
  detMaxSide: number;
  /** OCR_MAX_PIXELS: decoded width × height above this is refused (decompression bombs) */
  maxPixels: number;
  /** OCR_THREADS: onnxruntime intra-op threads; 0 = its default (one per core) */
  threads: number;
}

/** Defaults: PaddleOCR, 8 waiting, 1920 px detection side, 50 MP, onnxruntime's thread default. */
export const DEFAULT_CONFIG: OcrConfig = { engine: 'paddle', queueSize: 8, detMaxSide: 1920, maxPixels: 50_000_000, threads: 0 };

/** Reads OCR_* variables over the defaults; an unknown engine name or a non-numeric size throws. */
export function configFromEnv(env: NodeJS.ProcessEnv = process.env): OcrConfig {
  const engine = env.OCR_ENGINE?.trim() || DEFAULT_CONFIG.engine;
  if (engine !== 'paddle' && engine !== 'none') throw new Error(`OCR_ENGINE must be paddle or none, not ${engine}`);
  return {
    engine,
    queueSize: int(env, 'OCR_QUEUE_SIZE', DEFAULT_CONFIG.queueSize, 0),
    detMaxSide: int(env, 'OCR_DET_MAX_SIDE', DEFAULT_CONFIG.detMaxSide, 32),
    maxPixels: int(env, 'OCR_MAX_PIXELS', DEFAULT_CONFIG.maxPixels, 1),
    threads: int(env, 'OCR_THREADS', DEFAULT_CONFIG.threads, 0),
  };
}

function int(env: NodeJS.ProcessEnv, name: string, fallback: number, min: number): number {
  const raw = env[name]?.trim();
  if (!raw) return fallback;
  const v = Number(raw);
  if (!Number.isInteger(v) || v < min) throw new Error(`${name} must be an integer ≥ ${min}, not ${raw}`);
  return v;
}

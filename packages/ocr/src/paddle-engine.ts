// The PaddleOCR PP-OCRv4 engine on onnxruntime-node (CPU): detection, then recognition of every region.
import { InferenceSession } from 'onnxruntime-node';
import { readingQuad } from './crop.js';
import { bundledModelPaths, loadDictionary, type ModelPaths } from './models.js';
import { detectText } from './paddle-det.js';
import { recognizeQuad } from './paddle-rec.js';
import type { Box, OcrEngine, OcrImageOptions, OcrRegion, OcrResult, Quad, RgbImage } from './types.js';

/** Engine settings: model files, detection size limit, CPU threads (0 = onnxruntime's default). */
export interface PaddleOptions {
  models?: ModelPaths;
  detMaxSide: number;
  threads: number;
}

/** Timings of the last `recognize` call, in milliseconds. */
export interface PaddleTimings {
  detMs: number;
  recMs: number;
}

/** PP-OCRv4 detection + recognition; holds both ONNX sessions (≈ 1.3–2.5 GB RSS while working on pages). */
export class PaddleEngine implements OcrEngine {
  lastTimings: PaddleTimings = { detMs: 0, recMs: 0 };

  private constructor(
    private readonly det: InferenceSession,
    private readonly rec: InferenceSession,
    private readonly dictionary: string[],
    private readonly options: PaddleOptions,
  ) {}

  /** Loads the models from disk (never from the network). */
  static async create(options: PaddleOptions): Promise<PaddleEngine> {
    const models = options.models ?? bundledModelPaths();
    const session: InferenceSession.SessionOptions = {
      executionProviders: ['cpu'],
      graphOptimizationLevel: 'all',
      interOpNumThreads: 1,
      ...(options.threads > 0 ? { intraOpNumThreads: options.threads } : {}),
    };
    const [det, rec, dictionary] = await Promise.all([
      InferenceSession.create(models.detection, session),
      InferenceSession.create(models.recognition, session),
      loadDictionary(models.dictionary),
    ]);
    return new PaddleEngine(det, rec, dictionary, options);
  }

  /** Text regions of one decoded image, in reading order. */
  async recognize(image: RgbImage, opts: OcrImageOptions = {}): Promise<OcrResult> {
    const t0 = performance.now();
    const quads = await detectText(this.det, image, opts.detMaxSide ?? this.options.detMaxSide);
    const t1 = performance.now();
    const minConfidence = opts.minConfidence ?? 0.5;
    const regions: OcrRegion[] = [];
    for (const detected of quads) {
      const polygon = readingQuad(detected);
      const line = await recognizeQuad(this.rec, this.dictionary, image, polygon);
      if (!line.text || line.confidence < minConfidence) continue;
      regions.push({ ...line, confidence: Math.round(line.confidence * 1000) / 1000, box: boundingBox(polygon), polygon });
    }
    this.lastTimings = { detMs: t1 - t0, recMs: performance.now() - t1 };
    return { width: image.width, height: image.height, regions };
  }

  /** Releases both sessions. */
  async close(): Promise<void> {
    await Promise.all([this.det.release(), this.rec.release()]);
  }
}

/** The axis-aligned box around a quad, in whole pixels. */
export function boundingBox(q: Quad): Box {
  const xs = q.map((p) => p.x);
  const ys = q.map((p) => p.y);
  const x = Math.floor(Math.min(...xs));
  const y = Math.floor(Math.min(...ys));
  return { x, y, width: Math.ceil(Math.max(...xs)) - x, height: Math.ceil(Math.max(...ys)) - y };
}

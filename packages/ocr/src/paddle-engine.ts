// The PaddleOCR PP-OCRv4 engine on onnxruntime-node (CPU): detection, then recognition of every region.
import { InferenceSession } from 'onnxruntime-node';
import { readingQuad } from './crop.js';
import { bundledModelPaths, loadDictionary, type ModelPaths } from './models.js';
import { detectText } from './paddle-det.js';
import { flipQuad, pageDirection, sortInFrame } from './orientation.js';
import { recognizeQuad, type RecognisedLine } from './paddle-rec.js';
import type { Box, OcrEngine, OcrImageOptions, OcrRegion, OcrResult, Quad, RgbImage } from './types.js';

/** A line read at least this confidently is taken without trying it the other way round. */
const SURE = 0.9;
/** A line decides the page's way round when one reading beats the other by this much. */
const DECISIVE = 0.2;

/** One reading of a detected region: which way round it was read, and what was read. */
interface Reading {
  polygon: Quad;
  flipped: boolean;
  line: RecognisedLine;
}

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
    let regions: OcrRegion[] = [];
    // which way round the page's lines read: learnt from the lines that decide it (an upside-down scan, a photo
    // taken the other way), tried first on the next lines; a line not read surely is also tried the other way
    let votes = 0;
    const read = async (upright: Quad, flipped: boolean): Promise<Reading> => {
      const polygon = flipped ? flipQuad(upright) : upright;
      return { polygon, flipped, line: await recognizeQuad(this.rec, this.dictionary, image, polygon) };
    };
    for (const detected of quads) {
      const upright = readingQuad(detected);
      // votes > 0: lines so far read upright; < 0: turned half round
      let best = await read(upright, votes < 0);
      if (best.line.confidence < SURE) {
        const other = await read(upright, !best.flipped);
        const winner = other.line.confidence > best.line.confidence ? other : best;
        if (Math.abs(other.line.confidence - best.line.confidence) >= DECISIVE) votes += winner.flipped ? -1 : 1;
        best = winner;
      }
      const { line, polygon } = best;
      if (!line.text || line.confidence < minConfidence) continue;
      regions.push({ ...line, confidence: Math.round(line.confidence * 1000) / 1000, box: boundingBox(polygon), polygon });
    }
    // reading order in the page's own frame when it is not upright (detection orders by the image's top-left)
    const direction = pageDirection(regions);
    if (direction !== 'right') regions = sortInFrame(regions, direction);
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

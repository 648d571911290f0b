// The OCR worker thread: owns the one engine instance (created on the first request), reads one image at a time.
import { parentPort, workerData } from 'node:worker_threads';
import { isOcrError } from './errors.js';
import { decodeImage } from './image.js';
import { NoneEngine } from './none-engine.js';
import type { OcrReply, OcrRequest, WorkerInit } from './protocol.js';
import type { OcrEngine } from './types.js';

const init = workerData as WorkerInit;
let engine: Promise<OcrEngine> | undefined;

async function createEngine(): Promise<OcrEngine> {
  if (init.engine === 'none') return new NoneEngine();
  const { PaddleEngine } = await import('./paddle-engine.js');
  return PaddleEngine.create({ detMaxSide: init.detMaxSide, threads: init.threads });
}

/** The engine, loaded once; a failed load is retried on the next request. */
async function loadedEngine(): Promise<OcrEngine> {
  engine ??= createEngine();
  try {
    return await engine;
  } catch (err) {
    engine = undefined;
    throw err;
  }
}

async function handle(req: OcrRequest): Promise<OcrReply> {
  try {
    const t0 = performance.now();
    const image = await decodeImage(req.bytes, init.maxPixels);
    const t1 = performance.now();
    const result = await (await loadedEngine()).recognize(image, req.opts);
    const stats = { decodeMs: t1 - t0, engineMs: performance.now() - t1, rssMb: process.memoryUsage.rss() / 2 ** 20 };
    return { id: req.id, ok: true, result, stats };
  } catch (err) {
    if (isOcrError(err)) return { id: req.id, ok: false, code: err.code, message: err.message };
    return { id: req.id, ok: false, code: 'OCR_ENGINE', message: err instanceof Error ? err.message : String(err) };
  }
}

parentPort!.on('message', (msg: OcrRequest | 'close') => {
  if (msg === 'close') {
    void (engine ?? Promise.resolve(undefined))
      .then((e) => e?.close())
      .catch(() => undefined)
      .finally(() => parentPort!.postMessage('closed'));
    return;
  }
  void handle(msg).then((reply) => parentPort!.postMessage(reply));
});

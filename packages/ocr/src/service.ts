// The OCR service on the main thread: one worker thread (started on first use), one request in it at a time,
// a bounded queue of waiting requests, typed errors.
import { createRequire } from 'node:module';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';
import { DEFAULT_CONFIG, type OcrConfig } from './config.js';
import { OcrError } from './errors.js';
import type { OcrReply, OcrRunStats, WorkerInit } from './protocol.js';
import type { OcrImageOptions, OcrResult } from './types.js';

interface Job {
  id: number;
  bytes: Uint8Array;
  opts: OcrImageOptions;
  resolve: (r: OcrResult) => void;
  reject: (e: OcrError) => void;
}

/** Counters for logs and tests. */
export interface OcrServiceStats {
  workerStarts: number;
  running: boolean;
  waiting: number;
  last?: OcrRunStats;
}

/** Reads images in a worker thread: at most one running, `queueSize` waiting, the rest refused with OCR_BUSY. */
export class OcrService {
  readonly config: OcrConfig;
  #worker: Worker | undefined;
  #running: Job | undefined;
  #waiting: Job[] = [];
  #nextId = 1;
  #closed = false;
  #starts = 0;
  #last: OcrRunStats | undefined;

  constructor(config: Partial<OcrConfig> = {}) {
    this.config = { ...DEFAULT_CONFIG, ...config };
  }

  /** Text regions of one image (PNG, JPEG, WebP, TIFF…; EXIF orientation applied). */
  ocrImage(bytes: Uint8Array, opts: OcrImageOptions = {}): Promise<OcrResult> {
    if (this.#closed) return Promise.reject(new OcrError('OCR_CLOSED', 'the OCR service is closed'));
    if (this.#running && this.#waiting.length >= this.config.queueSize) {
      return Promise.reject(new OcrError('OCR_BUSY', `OCR queue full (${this.config.queueSize} waiting)`));
    }
    return new Promise<OcrResult>((resolve, reject) => {
      this.#waiting.push({ id: this.#nextId++, bytes, opts, resolve, reject });
      this.#pump();
    });
  }

  /** Counters: worker starts, whether a request runs, how many wait, the last run's timings and RSS. */
  stats(): OcrServiceStats {
    return { workerStarts: this.#starts, running: !!this.#running, waiting: this.#waiting.length, last: this.#last };
  }

  /** Refuses waiting requests with OCR_CLOSED, lets the engine release its models, ends the worker. */
  async close(): Promise<void> {
    this.#closed = true;
    for (const job of this.#waiting.splice(0)) job.reject(new OcrError('OCR_CLOSED', 'the OCR service was closed'));
    const worker = this.#worker;
    this.#worker = undefined;
    if (!worker) return;
    worker.ref();
    const released = new Promise<void>((resolve) => {
      worker.on('message', (m) => m === 'closed' && resolve());
      worker.once('exit', () => resolve());
      setTimeout(resolve, 5000).unref();
    });
    worker.postMessage('close');
    await released;
    await worker.terminate();
    this.#running?.reject(new OcrError('OCR_CLOSED', 'the OCR service was closed'));
    this.#running = undefined;
  }

  #pump(): void {
    if (this.#running || this.#closed) return;
    const job = this.#waiting.shift();
    if (!job) {
      this.#worker?.unref(); // an idle worker does not keep the process alive
      return;
    }
    this.#running = job;
    const worker = this.#ensureWorker();
    worker.ref();
    worker.postMessage({ id: job.id, bytes: job.bytes, opts: job.opts });
  }

  #ensureWorker(): Worker {
    if (this.#worker) return this.#worker;
    const init: WorkerInit = {
      engine: this.config.engine,
      detMaxSide: this.config.detMaxSide,
      maxPixels: this.config.maxPixels,
      threads: this.config.threads,
    };
    const worker = startWorker(init);
    this.#starts++;
    worker.on('message', (reply: OcrReply | 'closed') => {
      if (reply === 'closed' || worker !== this.#worker) return;
      const job = this.#running;
      if (!job || job.id !== reply.id) return;
      this.#running = undefined;
      if (reply.ok) {
        this.#last = reply.stats;
        job.resolve(reply.result);
      } else job.reject(new OcrError(reply.code, reply.message));
      this.#pump();
    });
    const died = (why: string) => {
      if (worker !== this.#worker) return;
      this.#worker = undefined; // the next request starts a new worker
      const job = this.#running;
      this.#running = undefined;
      job?.reject(new OcrError('OCR_ENGINE', `OCR worker ${why}`));
      this.#pump();
    };
    worker.on('error', (err) => died(`failed: ${err.message}`));
    worker.on('exit', (code) => died(`exited with code ${code}`));
    this.#worker = worker;
    return worker;
  }
}

const WORKER_TS = new URL('./worker.ts', import.meta.url);

/**
 * Starts the worker. From TypeScript sources (server and tests run them with tsx/vite) the new thread has no
 * TypeScript loader, so a small script registers tsx there first, as apps/server's import workers do.
 */
function startWorker(init: WorkerInit): Worker {
  if (!import.meta.url.endsWith('.ts')) return new Worker(new URL('./worker.js', import.meta.url), { workerData: init });
  const tsxApi = pathToFileURL(path.join(path.dirname(createRequire(import.meta.url).resolve('tsx/package.json')), 'dist/esm/api/index.mjs'));
  const boot = `import(${JSON.stringify(tsxApi.href)})
    .then((tsx) => { tsx.register(); return import(${JSON.stringify(WORKER_TS.href)}); })`;
  return new Worker(boot, { eval: true, workerData: init });
}

/**
 * Benchmark (issue 12): what de-identification adds to OCR, and how fast an upload is accepted.
 *
 * 1. Per page (generated A4 pages of bench/deid-docs.ts, zh and en), in the same run on the same pages: raw OCR
 *    (`ocrImage`) against the de-identification job's work for an image (`ocrImage` → `ocrPiece` → `pageBoxes` with
 *    the subject's known identifiers → `redactImage`), the two in alternating order (even pages OCR first, odd pages
 *    the job first) so that neither always runs on a warmer or quieter machine. Printed per page: wall time and CPU
 *    seconds of this process (the OCR worker thread and onnxruntime's threads included), and what deid and redaction
 *    took inside the job's run. Goal: job / OCR ≤ 1.15.
 * 2. Upload: the real server (embedded database, jobs in the same process) with OCR_ENGINE=none, so that the
 *    background de-identification of the uploaded files does not compete with the upload for the 2 cores (with the
 *    none engine the job still decodes and re-encodes each image); crc1 uploads 20 noise JPEGs of ≈ 2 MB each
 *    (incompressible, so they really are that size) to a new subject in one `POST /api/source/file/uploadImgNew`:
 *    time until the answer (all files checked, stored, recorded and queued). Goal: < 3 s.
 *
 *   npm run bench -- deid-speed
 *   node --import tsx bench/deid-speed.bench.ts --pages 10 --uploads 3
 */
process.env.OCR_ENGINE = 'paddle';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import sharp from 'sharp';
import { close as closeOcr, ocrImage, ocrService } from '@esource/ocr';
import { redactImage } from '@esource/redact';
import { LocalFileStore } from '../apps/server/src/modules/documents/file-store';
import { checkFile } from '../apps/server/src/modules/documents/upload-check';
import { startServer } from '../apps/server/src/server';
import { DEMO_PASSWORD, sha256Hex } from '../apps/server/src/seed/seed';
import { argOf, generatePage, rng, type GeneratedPage } from './deid-docs';
import { jobBoxes, jobOptions } from './deid-pipeline';

const PAGES = Number(argOf('pages', '10'));
const UPLOADS = Number(argOf('uploads', '3'));
const SEED = Number(argOf('seed', '12'));

const cpuS = (c: NodeJS.CpuUsage) => (c.user + c.system) / 1e6;

async function ocrOnly(p: GeneratedPage) {
  const t = performance.now();
  const c = process.cpuUsage();
  const r = await ocrImage(new Uint8Array(p.bytes));
  return { wall: (performance.now() - t) / 1000, cpu: cpuS(process.cpuUsage(c)), regions: r.regions.length };
}

async function job(p: GeneratedPage) {
  const t = performance.now();
  const c = process.cpuUsage();
  const bytes = new Uint8Array(p.bytes);
  const r = await ocrImage(bytes);
  const t1 = performance.now();
  const boxes = jobBoxes(r, jobOptions(p.subject));
  const t2 = performance.now();
  await redactImage(bytes, boxes);
  const t3 = performance.now();
  return {
    wall: (t3 - t) / 1000,
    cpu: cpuS(process.cpuUsage(c)),
    ocr: (t1 - t) / 1000,
    deid: (t2 - t1) / 1000,
    redact: (t3 - t2) / 1000,
    boxes: boxes.length,
  };
}

// ── 1. OCR against OCR + deid + redaction ──
console.log(
  `OCR: ${JSON.stringify(ocrService().config)}; ${os.cpus().length} cores, load average ${os
    .loadavg()
    .map((x) => x.toFixed(1))
    .join(' ')}`,
);
if (PAGES > 0) {
  const pages: GeneratedPage[] = [];
  for (let i = 0; i < PAGES; i++) pages.push(await generatePage(i, SEED));
  {
    // warm-up (not counted): models into the worker, the segmenter's dictionary, compromise, sharp
    const t = performance.now();
    for (const p of pages.slice(0, 2)) await job(p);
    console.log(`warm-up (model load, jieba dictionary): ${((performance.now() - t) / 1000).toFixed(1)} s`);
  }
  console.log(
    '| page | OCR only: wall / CPU | job: wall / CPU | in the job: OCR / deid / redact | boxes | ratio (wall) |',
  );
  console.log('|---|---|---|---|---|---|');
  const sum = { ow: 0, oc: 0, jw: 0, jc: 0, jo: 0, deid: 0, redact: 0 };
  for (const [i, p] of pages.entries()) {
    let o: Awaited<ReturnType<typeof ocrOnly>>;
    let j: Awaited<ReturnType<typeof job>>;
    if (i % 2 === 0) {
      o = await ocrOnly(p);
      j = await job(p);
    } else {
      j = await job(p);
      o = await ocrOnly(p);
    }
    sum.ow += o.wall;
    sum.oc += o.cpu;
    sum.jw += j.wall;
    sum.jc += j.cpu;
    sum.jo += j.ocr;
    sum.deid += j.deid;
    sum.redact += j.redact;
    console.log(
      `| ${p.id} (${o.regions} regions) | ${o.wall.toFixed(2)} s / ${o.cpu.toFixed(2)} CPU-s | ${j.wall.toFixed(2)} s / ${j.cpu.toFixed(2)} CPU-s | ${j.ocr.toFixed(2)} / ${(j.deid * 1000).toFixed(0)} ms / ${(j.redact * 1000).toFixed(0)} ms | ${j.boxes} | ${(j.wall / o.wall).toFixed(3)} |`,
    );
  }
  const n = pages.length;
  console.log(
    `\n${n} pages: OCR only ${(sum.ow / n).toFixed(2)} s and ${(sum.oc / n).toFixed(2)} CPU-s per page; job ${(sum.jw / n).toFixed(2)} s and ${(sum.jc / n).toFixed(2)} CPU-s per page ` +
      `(deid ${((sum.deid / n) * 1000).toFixed(0)} ms, redaction ${((sum.redact / n) * 1000).toFixed(0)} ms per page)`,
  );
  console.log(
    `ratio job / OCR: wall ${(sum.jw / sum.ow).toFixed(3)}, CPU ${(sum.jc / sum.oc).toFixed(3)}; ` +
      `added work over the mean OCR time of both runs: 1 + (deid + redaction) / OCR = ${(1 + (sum.deid + sum.redact) / ((sum.ow + sum.jo) / 2)).toFixed(3)} (goal ≤ 1.15)`,
  );
}
await closeOcr();

// ── 2. upload throughput ──
process.env.OCR_ENGINE = 'none';
const LIMIT = 2 * 1024 * 1024;
/** Incompressible JPEG just under the 2 MB image limit (seeded noise). */
async function noiseJpeg(seed: number): Promise<Buffer> {
  const next = rng(seed);
  for (let h = 1250; ; h -= 20) {
    const w = 1600;
    const px = Buffer.alloc(w * h * 3);
    for (let i = 0; i < px.length; i++) px[i] = Math.floor(next() * 256);
    const b = await sharp(px, { raw: { width: w, height: h, channels: 3 } })
      .jpeg({ quality: 95 })
      .toBuffer();
    if (b.length <= LIMIT) return b;
  }
}
/** 20 fresh images per upload: the store keeps content by hash, so repeating bytes would skip its writes. */
async function batch(u: number): Promise<Buffer[]> {
  const files: Buffer[] = [];
  for (let i = 0; i < 20; i++) files.push(await noiseJpeg(SEED * 100_000 + u * 100 + i));
  return files;
}
const sizes = (await batch(0)).map((b) => b.length);
const total = sizes.reduce((a, b) => a + b, 0);

const H = { proId: '1', proType: 'PRO', language: 'en_US' };
let files: Buffer[] = [];
let batchNo = 0;

/** UPLOADS uploads of 20 fresh images, each to a new subject, on a server of the given role (embedded database). */
async function uploads(role: 'all' | 'api'): Promise<void> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'esource-bench-deid-speed-'));
  const server = await startServer({
    logger: false,
    config: {
      port: 0,
      host: '127.0.0.1',
      dataDir,
      logLevel: 'warn',
      role,
      databaseUrl: process.env.DATABASE_URL || undefined,
    },
  });
  const base = `${server.url}/api`;
  const login = async (account: string, loginType: number): Promise<string> => {
    const r = await fetch(`${base}/passport/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({
        account,
        password: sha256Hex(DEMO_PASSWORD),
        loginType: String(loginType),
      }).toString(),
    });
    return ((await r.json()) as { data: { token: string } }).data.token;
  };
  const post = async <T>(token: string, url: string, body: unknown): Promise<T> => {
    const r = await fetch(`${base}${url}`, {
      method: 'POST',
      headers: { ...H, token, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    const j = (await r.json()) as { data: T; message?: string };
    if (r.status !== 200) throw new Error(`${url}: ${r.status} ${j.message}`);
    return j.data;
  };
  const crc1 = await login('crc1', 3);
  const site = (
    await server.database.executeSql(
      `select id from sites where project_id = 1 and env = 'PRO' and site_no = '01'`,
    )
  ).rows[0] as { id: number };
  console.log(
    role === 'all'
      ? '\nupload, all-in-one server (HTTP and the de-identification jobs in this process, as `npm start` runs it):'
      : '\nfor comparison, an API-only server (role api: the jobs are queued, no worker in this process):',
  );
  const times: number[] = [];
  for (let u = 0; u < UPLOADS; u++) {
    files = await batch(batchNo++);
    const { ptsId } = await post<{ ptsId: number }>(crc1, '/project/managePts/add', {
      siteId: site.id,
      firstVisitDate: new Date().toISOString().slice(0, 10),
    });
    const fd = new FormData();
    fd.append('ptsId', String(ptsId));
    fd.append('docType', '3');
    for (const [i, f] of files.entries())
      fd.append('files', new Blob([new Uint8Array(f)], { type: 'image/jpeg' }), `scan-${i + 1}.jpg`);
    const t = performance.now();
    const c = process.cpuUsage();
    const r = await fetch(`${base}/source/file/uploadImgNew`, {
      method: 'POST',
      headers: { ...H, token: crc1 },
      body: fd,
    });
    const j = (await r.json()) as { data: { files: { id: number; status: number }[] }; message?: string };
    const ms = performance.now() - t;
    const cpu = cpuS(process.cpuUsage(c));
    if (r.status !== 200) throw new Error(`upload: ${r.status} ${j.message}`);
    // Server-Timing: from the request's arrival to the answer inside the server (the multipart body is read as it arrives)
    const inServer = Number(/app;dur=([\d.]+)/.exec(r.headers.get('server-timing') ?? '')?.[1] ?? NaN);
    const queued = j.data.files.filter((f) => f.status === 0).length;
    times.push(ms);
    let after = '';
    if (role === 'all') {
      // the background jobs of this upload finish before the next upload starts
      const t2 = performance.now();
      for (;;) {
        const l = await post<{ content: { status: number }[] }>(crc1, '/source/file/list', {
          ptsId,
          pageSize: 50,
        });
        if (l.content.every((f) => f.status !== 0)) break;
        await new Promise((res) => setTimeout(res, 200));
      }
      after = `; their background jobs (OCR none) done ${((performance.now() - t2) / 1000).toFixed(1)} s later`;
    }
    console.log(
      `  upload ${u + 1}: ${(ms / 1000).toFixed(2)} s (server ${(inServer / 1000).toFixed(2)} s; ${cpu.toFixed(2)} CPU-s in this process: client, server, database) for ${j.data.files.length} files, ${queued} accepted and queued at status 0${after}`,
    );
  }
  times.sort((a, b) => a - b);
  console.log(
    `  20 × 2 MB: median ${(times[Math.floor(times.length / 2)]! / 1000).toFixed(2)} s, best ${(times[0]! / 1000).toFixed(2)} s, worst ${(times.at(-1)! / 1000).toFixed(2)} s${role === 'all' ? ' (goal < 3 s)' : ''}`,
  );
  await server.close();
  fs.rmSync(dataDir, { recursive: true, force: true });
}

console.log(
  `\nupload: OCR_ENGINE=none, so that the background OCR does not compete with the upload (the de-identification job then reads no text and only re-encodes each image); ` +
    `20 noise JPEGs 1600 px wide, ${(total / 20 / 1e6).toFixed(2)} MB each (${(total / 1e6).toFixed(1)} MB; new ones for every upload), crc1, embedded database; load average ${os
      .loadavg()
      .map((x) => x.toFixed(1))
      .join(' ')}`,
);
await uploads('all');
await uploads('api');

// what the request does per file, measured alone on the last upload's files: the content check (header + full
// decode, upload-check.ts checkFile), and the store's work (sha256, write, fsync: LocalFileStore.put)
{
  const t = performance.now();
  for (const [i, f] of files.entries()) await checkFile('en_US', `scan-${i + 1}.jpg`, f);
  const check = performance.now() - t;
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'esource-bench-deid-store-'));
  const store = new LocalFileStore(dir);
  const t2 = performance.now();
  for (const f of files) await store.put(f);
  const put = performance.now() - t2;
  fs.rmSync(dir, { recursive: true, force: true });
  console.log(
    `in the request, alone: content check of the 20 files ${(check / 1000).toFixed(2)} s (full decode each), store put ${(put / 1000).toFixed(2)} s (sha256 + write + fsync)`,
  );
}

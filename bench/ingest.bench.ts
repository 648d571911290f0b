/**
 * Benchmark (issue 11): FHIR file ingest into source records — the product's file job (ExtractService.run: the
 * file reader, conversion, the source store in batches, one transaction each), resources/s and memory.
 *
 * 1. the 15 Synthea bundles of packages/interop/test-fixtures, each its own file task (new records), then the same
 *    files again (every record unchanged: the idempotent path);
 * 2. one large Bundle (default 50 MB: the 15 bundles' entries repeated with fresh ids, BIG_MB) as one file task,
 *    with the process's RSS sampled every 20 ms (before, peak, after).
 *
 *   npm run bench -- ingest                                  (embedded database, in a temp folder)
 *   DATABASE_URL=postgres://postgres@127.0.0.1:5432/scratch npm run bench -- ingest
 *
 * Goal: ≥ 5,000 resources/s; memory flat for a 50 MB bundle (streamed, not parsed whole).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import zlib from 'node:zlib';
import { sql } from 'drizzle-orm';
import { startServer } from '../apps/server/src/server';
import { ExtractService } from '../apps/server/src/modules/sources/extract.service';
import { sourceExtractTasks } from '../apps/server/src/db/schema';

const BIG_MB = Number(process.env.BIG_MB ?? 50);
const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'esource-bench-ingest-'));
const server = await startServer({ logger: false, listen: false, config: { port: 0, host: '127.0.0.1', dataDir, logLevel: 'warn', databaseUrl: process.env.DATABASE_URL || undefined } });
const db = server.database.db;
const service = new ExtractService(server.database, server.jobs);
const job = { jobId: 'bench', attempt: 0, report: async () => {} };

const root = path.resolve(import.meta.dirname, '../packages/interop/test-fixtures/fhir-synthea');
const bundles = fs
  .readdirSync(root)
  .filter((f) => f.endsWith('.json.gz'))
  .map((f) => zlib.gunzipSync(fs.readFileSync(path.join(root, f))).toString('utf8'));
const files = bundles.map((b, i) => {
  const f = path.join(dataDir, `bundle-${i}.json`);
  fs.writeFileSync(f, b);
  return f;
});
const resourcesPerRound = bundles.reduce((n, b) => n + (JSON.parse(b) as { entry: unknown[] }).entry.length, 0);

const site = (await server.database.executeSql(`select id from sites where project_id = 1 and env = 'PRO' and site_no = '01'`)).rows[0] as { id: number };
const conn = (
  await server.database.executeSql(`insert into source_connections (env, project_id, site_id, kind, name) values ('PRO', 1, ${site.id}, 'fhir_file', 'bench-ingest') returning id`)
).rows[0] as { id: number };

async function runFile(file: string): Promise<void> {
  const [t] = await db
    .insert(sourceExtractTasks)
    .values({ env: 'PRO', projectId: 1, siteId: site.id, connectionId: conn.id, trigger: 'file', jobId: job.jobId, stats: { fileName: path.basename(file) } })
    .returning();
  await service.run({ taskId: t!.id, language: 'en_US', file }, job);
  const [done] = await db.select().from(sourceExtractTasks).where(sql`id = ${t!.id}`);
  if (done?.status !== 2) throw new Error(`task ${t!.id} ended with status ${done?.status}: ${done?.errorCode} ${done?.errorDetail}`);
}

/** the job deletes its file when done: each task gets a copy, made before the clock starts */
function copyOf(file: string): string {
  const c = `${file}.${Math.random().toString(36).slice(2)}`;
  fs.copyFileSync(file, c);
  return c;
}

async function round(label: string): Promise<void> {
  const copies = files.map(copyOf);
  const t0 = performance.now();
  for (const f of copies) await runFile(f);
  const s = (performance.now() - t0) / 1000;
  console.log(`${label.padEnd(48)} ${Math.round(resourcesPerRound / s).toLocaleString('en-US').padStart(7)} resources/s (${resourcesPerRound} in ${s.toFixed(2)} s)`);
}

console.log(`database: ${process.env.DATABASE_URL ? 'PostgreSQL server' : 'PGlite (embedded)'}; ${files.length} Synthea bundles, ${resourcesPerRound} resources, ${(bundles.reduce((n, b) => n + b.length, 0) / 1e6).toFixed(1)} MB`);
await round('15 bundles, first ingest (all new)');
await round('15 bundles again (all unchanged)');

// the large bundle: the bundles' entries again and again with fresh ids (so every record is new), written entry by entry
const big = path.join(dataDir, 'big.json');
const out = fs.openSync(big, 'w');
fs.writeSync(out, '{"resourceType":"Bundle","type":"collection","entry":[\n');
let bytes = 0;
let bigResources = 0;
let first = true;
for (let copy = 1; bytes < BIG_MB * 1e6; copy++) {
  for (const b of bundles) {
    const entries = (JSON.parse(b.replaceAll('urn:uuid:', `urn:uuid:c${copy}-`).replaceAll('"id": "', `"id": "c${copy}-`)) as { entry: unknown[] }).entry;
    for (const e of entries) {
      const s = `${first ? '' : ',\n'}${JSON.stringify(e, null, 1)}`;
      first = false;
      fs.writeSync(out, s);
      bytes += s.length;
      bigResources++;
    }
  }
}
fs.writeSync(out, '\n]}\n');
fs.closeSync(out);
const mb = (n: number) => `${Math.round(n / 1048576)} MB`;
global.gc?.();
const before = process.memoryUsage().rss;
let peak = before;
const sampler = setInterval(() => {
  peak = Math.max(peak, process.memoryUsage().rss);
}, 20);
const bigCopy = copyOf(big);
const t0 = performance.now();
await runFile(bigCopy);
const s = (performance.now() - t0) / 1000;
clearInterval(sampler);
global.gc?.();
const after = process.memoryUsage().rss;
console.log(
  `${`one ${(fs.statSync(big).size / 1e6).toFixed(0)} MB Bundle (${bigResources} resources)`.padEnd(48)} ${Math.round(bigResources / s).toLocaleString('en-US').padStart(7)} resources/s (${s.toFixed(2)} s); RSS before ${mb(before)}, peak ${mb(peak)}, after ${mb(after)}`,
);
const n = (await server.database.executeSql(`select count(*)::int as n from source_records where connection_id = ${conn.id}`)).rows[0] as { n: number };
console.log(`source records stored: ${n.n}`);
await server.close();
fs.rmSync(dataDir, { recursive: true, force: true });

#!/usr/bin/env node
// `npm run bench [-- name …]`: runs the benchmarks in bench/ (each prints its own figures): every *.bench.ts / *.bench.mjs
// and web-bundle.mjs. Other modules here are their helpers (deid-docs.ts generates the deid benchmarks' pages,
// deid-pipeline.ts mirrors the de-identification job); options reach a benchmark as environment variables (PAGES=8 …).
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const dir = path.dirname(fileURLToPath(import.meta.url));
const wanted = process.argv.slice(2);
const all = fs.readdirSync(dir).filter((f) => /\.bench\.(ts|mjs)$/.test(f) || f === 'web-bundle.mjs');
const chosen = wanted.length ? all.filter((f) => wanted.some((w) => f.startsWith(w))) : all;
let failed = 0;
for (const f of chosen) {
  console.log(`\n### ${f}`);
  const args = f.endsWith('.ts') ? ['--import', 'tsx', path.join(dir, f)] : [path.join(dir, f)];
  const r = spawnSync(process.execPath, args, { stdio: 'inherit', env: process.env });
  if (r.status !== 0) failed++;
}
process.exit(failed ? 1 : 0);

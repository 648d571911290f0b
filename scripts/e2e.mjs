#!/usr/bin/env node
// The browser journeys in shards: the web app is built once, then E2E_SHARDS Playwright runs (default 2, at most one
// per core) each start their own server with their own embedded database, ports and output folder, and take a share
// of the spec files (`--shard=i/n`). Measured on the 2-core machine: one run 63 min, two shards 29 min, and
// 23 min with reduced motion and no screenshots (E2E_SCREENSHOTS=0), all 150 journeys passing; on 2026-11-27, idle
// machine, 151 journeys: two shards 18.9 min, three shards slower (CPU-bound: shard 2 of 3 alone took 16.9 min). Without
// traces (E2E_TRACE=0, as CI runs) a journey takes ~30 % less CPU and ~17 % less time. Within a shard the spec files run in order on one server, as the config says. Extra arguments go
// to every Playwright run, e.g. `npm run test:e2e -- e2e/profile.spec.ts` (one file: one shard).
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const args = process.argv.slice(2);
const files = args.filter((a) => !a.startsWith('-'));
const shards = files.length === 1 ? 1 : Math.max(1, Number(process.env.E2E_SHARDS ?? Math.min(2, availableParallelism())));

const run = (cmd, argv) =>
  spawnSync(cmd, argv, { cwd: root, stdio: 'inherit', env: process.env }).status === 0;
if (!run('node', ['scripts/ensure-chromium.mjs'])) process.exit(1);

const webDist = process.env.E2E_WEB_DIST ?? mkdtempSync(`${tmpdir()}/esource-e2e-web-`);
console.log(`building the web app into ${webDist}`);
if (!run('npm', ['run', 'build', '-w', 'apps/web', '--silent', '--', '--outDir', webDist, '--emptyOutDir']))
  process.exit(1);

const started = Date.now();
const runs = Array.from({ length: shards }, (_, i) => {
  const label = shards > 1 ? `[shard ${i + 1}/${shards}] ` : '';
  const child = spawn(
    'npx',
    ['playwright', 'test', ...(shards > 1 ? [`--shard=${i + 1}/${shards}`] : []), ...args],
    {
      cwd: root,
      // each run chooses its own ports, data folder and output folder (playwright.config.ts)
      env: { ...process.env, E2E_SKIP_BUILD: '1', WEB_DIST: webDist, E2E_WEB_DIST: webDist },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  for (const stream of [child.stdout, child.stderr]) {
    let rest = '';
    stream.on('data', (chunk) => {
      const lines = (rest + chunk.toString()).split('\n');
      rest = lines.pop() ?? '';
      for (const l of lines) process.stdout.write(`${label}${l}\n`);
    });
    stream.on('end', () => rest && process.stdout.write(`${label}${rest}\n`));
  }
  return new Promise((resolve) => child.on('close', (code) => resolve({ shard: i + 1, code })));
});

const results = await Promise.all(runs);
const failed = results.filter((r) => r.code !== 0);
console.log(
  `\njourneys: ${shards} shard(s) in ${((Date.now() - started) / 1000).toFixed(0)} s; ` +
    (failed.length ? `failed: ${failed.map((r) => `shard ${r.shard}`).join(', ')}` : 'all passed'),
);
process.exit(failed.length ? 1 : 0);

#!/usr/bin/env node
// `npm test`: every check a change must pass, in order: types and lint (side by side: each keeps one core busy),
// unit + API integration tests (vitest), then the browser journeys (Playwright in Debian's chromium, installed when
// missing). `npm test -- types lint` runs only the named steps (first word of a step's name).
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const only = process.argv.slice(2);
// each inner list runs at once; the lists run in order and stop at the first failure
const groups = [
  // package-lock.json in step with every package.json (what `npm ci` on a clean checkout needs)
  [['lockfile', 'npm', ['ci', '--dry-run', '--no-audit', '--no-fund', '--loglevel=error']]],
  [
    ['types', 'npm', ['run', 'typecheck']],
    ['lint', 'npx', ['eslint', '.', '--max-warnings=0']],
  ],
  // Debian packages the tests use, installed when missing: a CJK font (OCR test pages), xmllint (ODM against the
  // XSD), poppler-utils (casebook PDFs read back)
  [['system packages', 'node', ['scripts/ensure-system-packages.mjs']]],
  [['unit and API integration', 'npx', ['vitest', 'run']]],
];
if (fs.existsSync(path.join(root, 'playwright.config.ts'))) groups.push([['browser journeys', 'npm', ['run', 'test:e2e']]]);

/** Runs one step; alone it prints as it goes, beside another its output is held and printed when it ends. */
function runStep([name, cmd, args], alone) {
  const t = Date.now();
  return new Promise((resolve) => {
    const child = spawn(cmd, args, { cwd: root, stdio: alone ? 'inherit' : ['ignore', 'pipe', 'pipe'], env: process.env });
    const held = [];
    if (!alone) for (const s of [child.stdout, child.stderr]) s.on('data', (c) => held.push(c));
    // a command that cannot start at all (not installed) fails its step instead of leaving the run waiting
    child.on('error', (err) => {
      console.error(`${name}: ${err.message}`);
      resolve({ name, ok: false, s: ((Date.now() - t) / 1000).toFixed(1) });
    });
    child.on('close', (code) => {
      if (!alone) {
        console.log(`\n=== ${name} (output) ===`);
        process.stdout.write(Buffer.concat(held));
      }
      resolve({ name, ok: code === 0, s: ((Date.now() - t) / 1000).toFixed(1) });
    });
  });
}

const results = [];
for (const group of groups) {
  const steps = group.filter(([name]) => !only.length || only.includes(name.split(' ')[0]));
  if (!steps.length) continue;
  console.log(`\n=== ${steps.map(([name]) => name).join(' + ')} ===`);
  const done = await Promise.all(steps.map((s) => runStep(s, steps.length === 1)));
  results.push(...done);
  if (done.some((r) => !r.ok)) break;
}
console.log('\n=== summary ===');
for (const r of results) console.log(`${r.ok ? 'PASS' : 'FAIL'}  ${r.name} (${r.s} s)`);
const failed = results.filter((r) => !r.ok).length;
process.exit(failed || results.length === 0 ? 1 : 0);

#!/usr/bin/env node
// `npm test`: every check a change must pass, in order: types, lint, unit + API integration tests (vitest),
// then the browser journeys (Playwright in Debian's chromium, installed when missing).
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const only = process.argv.slice(2);
const steps = [
  // package-lock.json in step with every package.json (what `npm ci` on a clean checkout needs)
  ['lockfile', 'npm', ['ci', '--dry-run', '--no-audit', '--no-fund', '--loglevel=error']],
  ['types', 'npm', ['run', 'typecheck']],
  ['lint', 'npx', ['eslint', '.', '--max-warnings=0']],
  // Debian packages the tests use, installed when missing: a CJK font (OCR test pages), xmllint (ODM against the
  // XSD), poppler-utils (casebook PDFs read back)
  ['system packages', 'node', ['scripts/ensure-system-packages.mjs']],
  ['unit and API integration', 'npx', ['vitest', 'run']],
];
if (fs.existsSync(path.join(root, 'playwright.config.ts'))) steps.push(['browser journeys', 'npm', ['run', 'test:e2e']]);

const results = [];
for (const [name, cmd, args] of steps) {
  if (only.length && !only.includes(name.split(' ')[0])) continue;
  console.log(`\n=== ${name} ===`);
  const t = Date.now();
  const r = spawnSync(cmd, args, { cwd: root, stdio: 'inherit', env: process.env });
  results.push({ name, ok: r.status === 0, s: ((Date.now() - t) / 1000).toFixed(1) });
  if (r.status !== 0) break;
}
console.log('\n=== summary ===');
for (const r of results) console.log(`${r.ok ? 'PASS' : 'FAIL'}  ${r.name} (${r.s} s)`);
const failed = results.filter((r) => !r.ok).length;
process.exit(failed || results.length === 0 ? 1 : 0);

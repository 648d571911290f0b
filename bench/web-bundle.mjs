#!/usr/bin/env node
/**
 * Web bundle budget (DESIGN §9; issue 3: the login route's JavaScript < 250 KB gzip).
 * Reads the Vite manifest of apps/web/dist, follows static imports, and prints the gzip size of the JS a
 * browser loads for the login route (entry + login page), and the heaviest page (entry + layout + page).
 * Builds the web app first unless --no-build. Exits 1 when the login budget is exceeded.
 */
import { execSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const dist = path.join(root, 'apps/web/dist');
const BUDGET_KB = 250;

if (!process.argv.includes('--no-build') || !existsSync(path.join(dist, '.vite/manifest.json'))) {
  execSync('npm run build -w apps/web --silent', { cwd: root, stdio: ['ignore', 'ignore', 'inherit'] });
}
const manifest = JSON.parse(readFileSync(path.join(dist, '.vite/manifest.json'), 'utf8'));

const gz = new Map();
function gzipKb(file) {
  if (!gz.has(file)) gz.set(file, gzipSync(readFileSync(path.join(dist, file)), { level: 9 }).length / 1024);
  return gz.get(file);
}

/** Files (JS, and CSS separately) loaded by a manifest key through static imports. */
function closure(keys) {
  const js = new Set();
  const css = new Set();
  const seen = new Set();
  const visit = (k) => {
    if (seen.has(k)) return;
    seen.add(k);
    const e = manifest[k];
    if (!e) throw new Error(`not in the manifest: ${k}`);
    if (e.file.endsWith('.js')) js.add(e.file);
    for (const c of e.css ?? []) css.add(c);
    for (const i of e.imports ?? []) visit(i);
  };
  keys.forEach(visit);
  return { js, css };
}
const sum = (files) => [...files].reduce((n, f) => n + gzipKb(f), 0);
const kb = (n) => `${n.toFixed(1)} KB`;

const entryKey = Object.keys(manifest).find((k) => manifest[k].isEntry);
const layoutKey = Object.keys(manifest).find((k) => k.endsWith('features/layout/app-layout.tsx'));
const loginKey = Object.keys(manifest).find((k) => k.endsWith('features/auth/pages/login-page.tsx'));
if (!entryKey || !layoutKey || !loginKey)
  throw new Error('entry, layout or login page missing from the manifest');

const STANDALONE = /auth\/pages|legal\/pages|not-found-page/;
const pages = Object.keys(manifest).filter((k) => manifest[k].isDynamicEntry && /\/pages\//.test(k));

const login = closure([entryKey, loginKey]);
const loginJs = sum(login.js);
const rows = pages.map((k) => {
  const c = closure(STANDALONE.test(k) ? [entryKey, k] : [entryKey, layoutKey, k]);
  return { page: k.replace(/^src\//, ''), js: sum(c.js), css: sum(c.css), files: c.js.size };
});
rows.sort((a, b) => b.js - a.js);
const entry = closure([entryKey]);
const tracing = Object.keys(manifest).find((k) => k.endsWith('features/tracing/tracing.ts'));

console.log('Web bundle (gzip -9):');
console.log(`  entry (shell bootstrap):            ${kb(sum(entry.js))} JS in ${entry.js.size} files`);
console.log(
  `  login route (entry + login page):   ${kb(loginJs)} JS, ${kb(sum(login.css))} CSS — budget ${BUDGET_KB} KB: ${loginJs < BUDGET_KB ? 'OK' : 'OVER'}`,
);
console.log(`  heaviest page: ${rows[0].page} — ${kb(rows[0].js)} JS (entry + layout + page)`);
if (tracing) console.log(`  tracing SDK (lazy, after idle):     ${kb(sum(closure([tracing]).js))} JS`);
console.log('  per page (JS):');
for (const r of rows) console.log(`    ${kb(r.js).padStart(9)}  ${r.page}`);
if (loginJs >= BUDGET_KB) process.exit(1);

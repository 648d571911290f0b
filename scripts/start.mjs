#!/usr/bin/env node
// `npm start`: builds the web app when its sources changed, then runs the server (migrations, demo seed,
// API + workers + the built web app on one port: PORT, default 8080).
import { spawnSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const web = path.join(root, 'apps/web');
const dist = path.join(web, 'dist/index.html');

function newestMtime(dir) {
  let newest = 0;
  if (!fs.existsSync(dir)) return 0;
  for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
    if (e.name === 'node_modules' || e.name === 'dist') continue;
    const p = path.join(dir, e.name);
    newest = Math.max(newest, e.isDirectory() ? newestMtime(p) : fs.statSync(p).mtimeMs);
  }
  return newest;
}

const hasWebApp = fs.existsSync(path.join(web, 'index.html'));
if (hasWebApp && process.env.SKIP_WEB_BUILD !== '1') {
  const builtAt = fs.existsSync(dist) ? fs.statSync(dist).mtimeMs : 0;
  const changedAt = Math.max(newestMtime(path.join(web, 'src')), newestMtime(path.join(root, 'packages/shared/src')), fs.statSync(path.join(web, 'index.html')).mtimeMs);
  if (changedAt > builtAt) {
    console.log('Building the web app …');
    const r = spawnSync('npm', ['run', 'build', '-w', 'apps/web'], { cwd: root, stdio: 'inherit' });
    if (r.status !== 0) process.exit(r.status ?? 1);
  }
}

const child = spawn(process.execPath, ['--import', 'tsx', path.join(root, 'apps/server/src/main.ts'), ...process.argv.slice(2)], {
  cwd: root,
  stdio: 'inherit',
  env: process.env,
});
for (const sig of ['SIGINT', 'SIGTERM']) process.on(sig, () => child.kill(sig));
child.on('exit', (code, signal) => process.exit(code ?? (signal ? 0 : 1)));

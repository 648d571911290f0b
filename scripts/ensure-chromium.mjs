#!/usr/bin/env node
// Makes sure Debian's Chromium is installed at /usr/bin/chromium for the Playwright journeys, with a CJK font
// so that zh_CN screenshots show characters rather than boxes. We never let Playwright download its own
// browser (this machine's network refuses it); we use the distribution's packages.
import { existsSync } from 'node:fs';
import { execFileSync } from 'node:child_process';

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

function hasCjkFont() {
  try {
    return execFileSync('fc-list', [':lang=zh'], { encoding: 'utf8' }).trim() !== '';
  } catch {
    return false;
  }
}

const wanted = [];
if (!existsSync(CHROMIUM)) wanted.push('chromium');
if (!hasCjkFont()) wanted.push('fonts-noto-cjk');
if (wanted.length === 0) {
  console.log(`chromium present: ${CHROMIUM}; CJK font present`);
  process.exit(0);
}

const asRoot = typeof process.getuid === 'function' && process.getuid() === 0;
const sudo = asRoot ? [] : ['sudo'];
function run(cmd, args) {
  const full = [...sudo, cmd, ...args];
  console.log(`$ ${full.join(' ')}`);
  execFileSync(full[0], full.slice(1), {
    stdio: 'inherit',
    env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' },
  });
}

try {
  run('apt-get', ['update']);
  run('apt-get', ['install', '-y', '--no-install-recommends', ...wanted]);
} catch (err) {
  console.error(
    `could not install ${wanted.join(', ')}: ${err instanceof Error ? err.message : String(err)}`,
  );
  process.exit(1);
}
if (!existsSync(CHROMIUM)) {
  console.error(`apt-get finished but ${CHROMIUM} is still missing`);
  process.exit(1);
}
console.log(`installed: ${wanted.join(', ')}`);

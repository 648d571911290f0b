#!/usr/bin/env node
// Makes sure a CJK font is installed (Debian's fonts-noto-cjk) before the unit tests: packages/ocr draws its Chinese
// test pages from SVG text, and without a CJK font they would show boxes instead of characters.
import { execFileSync } from 'node:child_process';

function hasCjkFont() {
  try {
    return execFileSync('fc-list', [':lang=zh'], { encoding: 'utf8' }).trim() !== '';
  } catch {
    return false;
  }
}

if (hasCjkFont()) {
  console.log('CJK font present');
  process.exit(0);
}

const asRoot = typeof process.getuid === 'function' && process.getuid() === 0;
const sudo = asRoot ? [] : ['sudo'];
function run(cmd, args) {
  const full = [...sudo, cmd, ...args];
  console.log(`$ ${full.join(' ')}`);
  execFileSync(full[0], full.slice(1), { stdio: 'inherit', env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' } });
}

try {
  run('apt-get', ['update']);
  run('apt-get', ['install', '-y', '--no-install-recommends', 'fonts-noto-cjk', 'fontconfig']);
} catch (err) {
  console.error(`could not install fonts-noto-cjk: ${err instanceof Error ? err.message : String(err)}`);
  process.exit(1);
}
if (!hasCjkFont()) {
  console.error('apt-get finished but fc-list still shows no CJK font');
  process.exit(1);
}
console.log('installed: fonts-noto-cjk');

#!/usr/bin/env node
// Makes sure Debian's Chromium is installed at /usr/bin/chromium for the Playwright journeys.
// We never let Playwright download its own browser (this machine's network refuses it); we use the distro's.
import { existsSync } from 'node:fs';
import { execFileSync } from 'node:child_process';

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

if (existsSync(CHROMIUM)) {
  console.log(`chromium present: ${CHROMIUM}`);
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
  run('apt-get', ['install', '-y', '--no-install-recommends', 'chromium']);
} catch (err) {
  console.error(`could not install chromium: ${err instanceof Error ? err.message : String(err)}`);
  process.exit(1);
}
if (!existsSync(CHROMIUM)) {
  console.error(`apt-get finished but ${CHROMIUM} is still missing`);
  process.exit(1);
}
console.log(`chromium installed: ${CHROMIUM}`);

#!/usr/bin/env node
// Makes sure the Debian packages the unit and integration tests use are installed, installing what is missing:
// - fonts-noto-cjk: packages/ocr draws its Chinese test pages from SVG text (without a CJK font: boxes);
// - libxml2-utils (xmllint): every ODM document we write is checked against the official ODM 1.3.2 XSD with the
//   real xmllint (issue 14);
// - poppler-utils (pdftotext, pdftoppm): the casebook tests read the PDFs back.
import { existsSync } from 'node:fs';
import { execFileSync } from 'node:child_process';

function hasCjkFont() {
  try {
    return execFileSync('fc-list', [':lang=zh'], { encoding: 'utf8' }).trim() !== '';
  } catch {
    return false;
  }
}

const wanted = [];
if (!hasCjkFont()) wanted.push('fonts-noto-cjk', 'fontconfig');
if (!existsSync('/usr/bin/xmllint')) wanted.push('libxml2-utils');
if (!existsSync('/usr/bin/pdftotext') || !existsSync('/usr/bin/pdftoppm')) wanted.push('poppler-utils');
if (wanted.length === 0) {
  console.log('system packages present: CJK font, xmllint, poppler-utils');
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
  run('apt-get', ['install', '-y', '--no-install-recommends', ...wanted]);
} catch (err) {
  console.error(`could not install ${wanted.join(', ')}: ${err instanceof Error ? err.message : String(err)}`);
  process.exit(1);
}
if (!hasCjkFont() || !existsSync('/usr/bin/xmllint') || !existsSync('/usr/bin/pdftotext')) {
  console.error(`apt-get finished but something is still missing (${wanted.join(', ')})`);
  process.exit(1);
}
console.log(`installed: ${wanted.join(', ')}`);

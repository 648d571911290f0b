/**
 * Benchmark: checking and re-encoding an avatar upload (apps/server/src/modules/profile/avatar.ts — content check
 * with a full decode, auto-orientation, a 256-pixel square crop, JPEG/PNG without metadata), the CPU part of
 * POST /api/user/updateAvatar. Prints the median and p95 time per avatar and the output size for typical uploads.
 *
 *   npm run bench -- avatar            (ROUNDS=30)
 */
import os from 'node:os';
import sharp from 'sharp';
import { prepareAvatar } from '../apps/server/src/modules/profile/avatar';
import '../apps/server/src/lib/i18n';

const rounds = Number(process.env.ROUNDS ?? 30);

/** A photo-like image: smooth gradients plus mild noise (compresses like a camera picture, not like a flat fill). */
async function photo(width: number, height: number, format: 'jpeg' | 'png', quality = 82): Promise<Buffer> {
  const svg = `<svg width="${width}" height="${height}"><defs><linearGradient id="g" x1="0" y1="0" x2="1" y2="1"><stop offset="0" stop-color="#2f6fd6"/><stop offset="1" stop-color="#f5d0a9"/></linearGradient></defs><rect width="100%" height="100%" fill="url(#g)"/><circle cx="${width / 2}" cy="${height / 2.4}" r="${height / 4}" fill="#f1c27d"/></svg>`;
  const base = sharp(Buffer.from(svg)).composite([
    {
      input: await sharp({ create: { width, height, channels: 3, background: '#000', noise: { type: 'gaussian', mean: 0, sigma: 12 } } })
        .png()
        .toBuffer(),
      blend: 'add',
    },
  ]);
  return format === 'jpeg'
    ? base.jpeg({ quality }).withExif({ IFD0: { Make: 'BenchCam', Orientation: '6' } }).toBuffer()
    : base.png({ compressionLevel: 6 }).toBuffer();
}

const cases: [string, Buffer][] = [
  ['phone photo 1600×1200 JPEG', await photo(1600, 1200, 'jpeg', 80)],
  ['screenshot 800×800 PNG', await photo(800, 800, 'png')],
  ['small 400×400 JPEG', await photo(400, 400, 'jpeg')],
];

const pct = (xs: number[], p: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor((p / 100) * xs.length))]!;
console.log(`\navatar check + re-encode — ${rounds} rounds each, ${os.cpus().length} cores, libvips ${sharp.versions.vips}`);
for (const [name, bytes] of cases) {
  if (bytes.length > 2 * 1024 * 1024) throw new Error(`${name} is ${bytes.length} bytes: over the 2 MB limit`);
  await prepareAvatar('en_US', bytes); // warm up
  const times: number[] = [];
  let out = 0;
  for (let i = 0; i < rounds; i++) {
    const t0 = performance.now();
    const a = await prepareAvatar('en_US', bytes);
    times.push(performance.now() - t0);
    out = a.bytes.length;
  }
  console.log(
    `${name.padEnd(28)} in ${(bytes.length / 1024).toFixed(0).padStart(5)} KB   median ${pct(times, 50).toFixed(1).padStart(6)} ms   p95 ${pct(times, 95).toFixed(1).padStart(6)} ms   out ${(out / 1024).toFixed(1)} KB`,
  );
}

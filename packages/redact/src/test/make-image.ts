// Test inputs generated with sharp: a document-like PNG with identifiers in known boxes, plus bad inputs.
import { crc32 } from 'node:zlib';
import sharp from 'sharp';
import type { Box } from '../types.js';

export const IMAGE_WIDTH = 900;
export const IMAGE_HEIGHT = 500;

/** Identifier boxes of the generated document image (page 0). */
export const IMAGE_BOXES: Box[] = [
  { page: 0, x: 100, y: 60, width: 520, height: 50 },
  { page: 0, x: 100, y: 160, width: 260, height: 50 },
];

/**
 * A white page with "ID 110101199003078515" and "Zhang San" inside IMAGE_BOXES (text and a stripe pattern, so the test
 * does not depend on the machine's fonts), a grey band far from the boxes, and a clinical line left alone.
 */
export async function documentPng(): Promise<Buffer> {
  const stripes = IMAGE_BOXES.map(
    (b) => `<rect x="${b.x + 4}" y="${b.y + 40}" width="${b.width - 8}" height="6" fill="#202020"/>`,
  ).join('');
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="${IMAGE_WIDTH}" height="${IMAGE_HEIGHT}">
    <rect width="100%" height="100%" fill="#ffffff"/>
    <text x="104" y="96" font-family="DejaVu Sans, sans-serif" font-size="34" fill="#000">ID 110101199003078515</text>
    <text x="104" y="196" font-family="DejaVu Sans, sans-serif" font-size="34" fill="#000">Zhang San</text>
    <text x="104" y="330" font-family="DejaVu Sans, sans-serif" font-size="30" fill="#000">Hemoglobin 13.8 g/dL</text>
    <rect x="700" y="380" width="150" height="80" fill="#808080"/>
    ${stripes}
  </svg>`;
  return sharp(Buffer.from(svg)).png().toBuffer();
}

/** The same page as a JPEG with EXIF (camera, GPS) and orientation 6: stored sideways, displayed upright. */
export async function sidewaysJpegWithExif(): Promise<Buffer> {
  const upright = await documentPng();
  // store it rotated 90° counter-clockwise; orientation 6 tells viewers to turn it back clockwise
  return sharp(upright)
    .rotate(-90)
    .jpeg({ quality: 90 })
    .withMetadata({ orientation: 6 })
    .withExif({ IFD0: { Make: 'PhoneCam', Model: 'X1', ImageDescription: 'Zhang San lab report' } })
    .toBuffer();
}

/**
 * A real decompression bomb made with sharp: a valid 8000×8000 PNG (64 megapixels, over the 50 MP default) of one
 * colour, ≈ 80 kB. Bigger ones take sharp many seconds to encode, see declaredHugePng for 30000×30000.
 */
export async function bombPng(): Promise<Buffer> {
  return sharp({
    create: { width: 8000, height: 8000, channels: 3, background: '#ffffff' },
    limitInputPixels: false,
  })
    .toColourspace('b-w')
    .png({ compressionLevel: 6, adaptiveFiltering: false })
    .toBuffer();
}

/** A 1×1 PNG from sharp whose header then declares 30000×30000 (IHDR fields and CRC rewritten): 900 MP in < 100 bytes. */
export async function declaredHugePng(): Promise<Buffer> {
  const png = Buffer.from(
    await sharp({ create: { width: 1, height: 1, channels: 3, background: '#fff' } })
      .png()
      .toBuffer(),
  );
  // 8-byte signature, then the IHDR chunk: length(4) 'IHDR'(4) width(4) height(4) ... CRC over type + data (13 bytes)
  png.writeUInt32BE(30000, 16);
  png.writeUInt32BE(30000, 20);
  png.writeUInt32BE(crc32(png.subarray(12, 29)), 29);
  return png;
}

/** A ~2 MB-class photo-like JPEG (noise compresses badly), 2400×1800. */
export async function largeJpeg(): Promise<Buffer> {
  const width = 2400;
  const height = 1800;
  const raw = Buffer.alloc(width * height * 3);
  let seed = 12345;
  for (let i = 0; i < raw.length; i++) {
    seed = (seed * 1103515245 + 12345) & 0x7fffffff;
    raw[i] = 128 + ((seed >> 16) % 96) - 48;
  }
  return sharp(raw, { raw: { width, height, channels: 3 } })
    .jpeg({ quality: 92 })
    .toBuffer();
}

/** Mean grey value (0–255) of the pixels of `box` (inset by `inset`) in a decoded single-channel image. */
export function pixelsIn(gray: Buffer, width: number, box: Box, inset = 0): number[] {
  const values: number[] = [];
  for (let y = Math.ceil(box.y + inset); y < Math.floor(box.y + box.height - inset); y++) {
    for (let x = Math.ceil(box.x + inset); x < Math.floor(box.x + box.width - inset); x++)
      values.push(gray[y * width + x]!);
  }
  return values;
}

/** Decodes any image to one grey channel. */
export async function toGray(bytes: Uint8Array): Promise<{ data: Buffer; width: number; height: number }> {
  const { data, info } = await sharp(bytes).grayscale().raw().toBuffer({ resolveWithObject: true });
  return { data, width: info.width, height: info.height };
}

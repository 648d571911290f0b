import { readFileSync } from 'node:fs';
import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import { inspectImage, redactImage, type RedactError } from './index.js';
import {
  bombPng,
  declaredHugePng,
  documentPng,
  IMAGE_BOXES,
  IMAGE_HEIGHT,
  IMAGE_WIDTH,
  pixelsIn,
  sidewaysJpegWithExif,
  toGray,
} from './test/make-image.js';

/** The RedactError code a promise rejects with. */
async function codeOf(p: Promise<unknown>): Promise<string> {
  const err = (await p.then(
    () => null,
    (e: unknown) => e,
  )) as RedactError | null;
  return err?.code ?? 'resolved';
}

// JPEG ringing near a painted edge stays small; pixels "inside" are checked with an inset of 2 for the same reason
const BLACK = 24;

describe('inspectImage', () => {
  it('reads the real format and the oriented size', async () => {
    expect(await inspectImage(await documentPng())).toEqual({
      format: 'png',
      width: IMAGE_WIDTH,
      height: IMAGE_HEIGHT,
    });
    // stored 500×900 sideways with EXIF orientation 6: the user sees 900×500
    expect(await inspectImage(await sidewaysJpegWithExif())).toEqual({
      format: 'jpeg',
      width: IMAGE_WIDTH,
      height: IMAGE_HEIGHT,
    });
  });

  it('refuses a renamed .exe, a 0-byte file, text and a PDF by content', async () => {
    const exe = Buffer.concat([
      Buffer.from('MZ\x90\x00\x03\x00\x00\x00\x04\x00\x00\x00\xff\xff', 'latin1'),
      Buffer.alloc(512, 0),
    ]);
    expect(await codeOf(inspectImage(exe))).toBe('UNSUPPORTED_TYPE');
    expect(await codeOf(inspectImage(new Uint8Array(0)))).toBe('EMPTY');
    expect(await codeOf(inspectImage(Buffer.from('Patient: John Smith\n')))).toBe('UNSUPPORTED_TYPE');
    expect(await codeOf(inspectImage(Buffer.from('%PDF-1.7\n%âãÏÓ\n1 0 obj\n<<>>\nendobj\n')))).toBe(
      'UNSUPPORTED_TYPE',
    );
  });

  it('refuses a truncated JPEG and a truncated PNG', async () => {
    const jpeg = await sidewaysJpegWithExif();
    expect(await codeOf(inspectImage(jpeg.subarray(0, Math.floor(jpeg.length * 0.6))))).toBe('TRUNCATED');
    expect(await codeOf(redactImage(jpeg.subarray(0, Math.floor(jpeg.length * 0.6)), []))).toBe('TRUNCATED');
    const png = await documentPng();
    expect(await codeOf(inspectImage(png.subarray(0, Math.floor(png.length * 0.6))))).toBe('TRUNCATED');
  });

  it('refuses decompression bombs from their header, quickly', async () => {
    const bombs = [await bombPng(), await declaredHugePng()];
    expect(bombs.map((b) => b.length < 200_000)).toEqual([true, true]);
    const started = performance.now();
    for (const bomb of bombs) {
      expect(await codeOf(inspectImage(bomb))).toBe('TOO_MANY_PIXELS');
      expect(await codeOf(redactImage(bomb, []))).toBe('TOO_MANY_PIXELS');
    }
    expect(performance.now() - started).toBeLessThan(1000);
    // the limit is configurable
    expect(await codeOf(inspectImage(await documentPng(), { maxPixels: 1000 }))).toBe('TOO_MANY_PIXELS');
  });

  it('accepts only the configured formats', async () => {
    const webp = await sharp(await documentPng())
      .webp()
      .toBuffer();
    expect((await inspectImage(webp)).format).toBe('webp');
    expect(await codeOf(inspectImage(webp, { formats: ['png', 'jpeg'] }))).toBe('UNSUPPORTED_TYPE');
  });
});

describe('redactImage', () => {
  it('paints every box black and leaves the rest of the page as it was', async () => {
    const input = await documentPng();
    const before = await toGray(input);
    // the boxes really hold content before redaction
    for (const box of IMAGE_BOXES)
      expect(Math.min(...pixelsIn(before.data, before.width, box))).toBeLessThan(64);

    const out = await redactImage(input, IMAGE_BOXES, { quality: 85 });
    expect(out).toMatchObject({ format: 'jpeg', width: IMAGE_WIDTH, height: IMAGE_HEIGHT });
    const after = await toGray(out.bytes);
    expect(after.width).toBe(IMAGE_WIDTH);
    for (const box of IMAGE_BOXES)
      expect(Math.max(...pixelsIn(after.data, after.width, box, 2))).toBeLessThanOrEqual(BLACK);

    // well outside the boxes: white stays white, the grey band stays grey, the clinical line is still there
    const white = pixelsIn(after.data, after.width, { page: 0, x: 650, y: 40, width: 200, height: 200 });
    expect(Math.min(...white)).toBeGreaterThan(235);
    const grey = pixelsIn(after.data, after.width, { page: 0, x: 710, y: 390, width: 130, height: 60 });
    expect(grey.every((v) => Math.abs(v - 128) <= 8)).toBe(true);
    const clinical = { page: 0, x: 100, y: 300, width: 340, height: 40 };
    expect(Math.min(...pixelsIn(after.data, after.width, clinical))).toBeLessThan(100);
  });

  it('writes no metadata (EXIF, GPS, ICC, comments) and works in the oriented pixel space', async () => {
    const input = await sidewaysJpegWithExif();
    expect((await sharp(input).metadata()).exif).toBeDefined();
    const out = await redactImage(input, IMAGE_BOXES);
    const meta = await sharp(out.bytes).metadata();
    expect(meta).toMatchObject({ format: 'jpeg', width: IMAGE_WIDTH, height: IMAGE_HEIGHT, channels: 1 });
    expect(meta.exif).toBeUndefined();
    expect(meta.icc).toBeUndefined();
    expect(meta.xmp).toBeUndefined();
    expect(meta.comments).toBeUndefined();
    expect(meta.orientation).toBeUndefined();
    expect(out.bytes.includes(Buffer.from('PhoneCam'))).toBe(false);
    expect(out.bytes.includes(Buffer.from('Zhang San'))).toBe(false);
    const after = await toGray(out.bytes);
    for (const box of IMAGE_BOXES)
      expect(Math.max(...pixelsIn(after.data, after.width, box, 2))).toBeLessThanOrEqual(BLACK);
    // the grey band is where the upright page has it
    const grey = pixelsIn(after.data, after.width, { page: 0, x: 710, y: 390, width: 130, height: 60 });
    expect(grey.every((v) => Math.abs(v - 128) <= 10)).toBe(true);
  });

  it('clamps boxes to the image, pads them, and refuses bad boxes', async () => {
    const input = await documentPng();
    const out = await redactImage(
      input,
      [
        { page: 0, x: -50, y: -50, width: 100, height: 100 }, // top-left corner, half outside
        { page: 0, x: 5000, y: 5000, width: 10, height: 10 }, // wholly outside: ignored
        { page: 0, x: 400, y: 400, width: 10, height: 10 },
      ],
      { padding: 10 },
    );
    const after = await toGray(out.bytes);
    expect(
      Math.max(...pixelsIn(after.data, after.width, { page: 0, x: 0, y: 0, width: 60, height: 60 }, 2)),
    ).toBeLessThanOrEqual(BLACK);
    // padding: 10 px around the 10×10 box
    expect(
      Math.max(...pixelsIn(after.data, after.width, { page: 0, x: 390, y: 390, width: 30, height: 30 }, 2)),
    ).toBeLessThanOrEqual(BLACK);
    expect(
      Math.min(...pixelsIn(after.data, after.width, { page: 0, x: 424, y: 424, width: 20, height: 20 })),
    ).toBeGreaterThan(235);

    expect(await codeOf(redactImage(input, [{ page: 1, x: 0, y: 0, width: 1, height: 1 }]))).toBe('BAD_BOX');
    expect(await codeOf(redactImage(input, [{ page: 0, x: Number.NaN, y: 0, width: 1, height: 1 }]))).toBe(
      'BAD_BOX',
    );
  });

  it('redacts a real camera-style JPEG (Presidio sample) and refuses it cut in half', async () => {
    const jpeg = readFileSync(new URL('../test-fixtures/kwargs_test.jpg', import.meta.url));
    expect(await inspectImage(jpeg)).toEqual({ format: 'jpeg', width: 884, height: 110 });
    expect(await codeOf(inspectImage(jpeg.subarray(0, jpeg.length >> 1)))).toBe('TRUNCATED');
    const box = { page: 0, x: 0, y: 0, width: 442, height: 110 };
    const before = await toGray(jpeg);
    expect(Math.min(...pixelsIn(before.data, before.width, box))).toBeLessThan(160); // grey text on white
    const after = await toGray((await redactImage(jpeg, [box])).bytes);
    expect(Math.max(...pixelsIn(after.data, after.width, box, 2))).toBeLessThanOrEqual(BLACK);
  });

  it('flattens transparency onto white (a transparent PNG must not turn into a black page)', async () => {
    const svg =
      '<svg xmlns="http://www.w3.org/2000/svg" width="200" height="100"><rect x="150" y="10" width="40" height="40"/></svg>';
    const png = await sharp(Buffer.from(svg)).png().toBuffer();
    expect((await sharp(png).metadata()).hasAlpha).toBe(true);
    const after = await toGray(
      (await redactImage(png, [{ page: 0, x: 10, y: 10, width: 40, height: 40 }])).bytes,
    );
    expect(
      Math.min(...pixelsIn(after.data, after.width, { page: 0, x: 60, y: 60, width: 80, height: 30 })),
    ).toBeGreaterThan(235);
    expect(
      Math.max(...pixelsIn(after.data, after.width, { page: 0, x: 10, y: 10, width: 40, height: 40 }, 2)),
    ).toBeLessThanOrEqual(BLACK);
  });

  it('keeps colour when asked', async () => {
    const out = await redactImage(await documentPng(), IMAGE_BOXES, { grayscale: false });
    expect((await sharp(out.bytes).metadata()).channels).toBe(3);
  });
});

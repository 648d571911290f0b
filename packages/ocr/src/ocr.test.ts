// End-to-end PaddleOCR checks on generated pages: text (CER), region boxes (IoU with the drawn ink), character
// offsets (sub-string boxes), EXIF and 90° rotation, a noisy low-contrast scan, a corrupt file. One engine for the
// file and six recognitions: each costs about a second of CPU here.
import sharp from 'sharp';
import { afterAll, describe, expect, it } from 'vitest';
import { findChars, substringBox } from './place.js';
import { OcrService } from './service.js';
import { cer, drawPage, inkBox, iou, type PageStyle, type TextLine } from './test/make-image.js';
import type { Box, OcrRegion, OcrResult } from './types.js';

const service = new OcrService({ engine: 'paddle', queueSize: 4 });
afterAll(() => service.close());

const norm = (s: string) => s.replace(/\s+/g, '');

async function read(name: string, bytes: Uint8Array): Promise<OcrResult> {
  const t = performance.now();
  const result = await service.ocrImage(bytes);
  const last = service.stats().last!;
  console.log(
    `[ocr] ${name}: ${(performance.now() - t).toFixed(0)} ms (decode ${last.decodeMs.toFixed(0)}, engine ${last.engineMs.toFixed(0)}), ` +
      `worker RSS ${last.rssMb.toFixed(0)} MB, ${result.regions.length} regions: ${result.regions.map((r) => JSON.stringify(r.text)).join(' ')}`,
  );
  return result;
}

/** Regions whose centre lies in the (vertically padded) ink box of one line, left to right. */
function regionsOn(result: OcrResult, ink: Box): OcrRegion[] {
  const pad = ink.height / 2;
  return result.regions
    .filter((r) => {
      const cx = r.box.x + r.box.width / 2;
      const cy = r.box.y + r.box.height / 2;
      return cx >= ink.x - pad && cx <= ink.x + ink.width + pad && cy >= ink.y - pad && cy <= ink.y + ink.height + pad;
    })
    .sort((a, b) => a.box.x - b.box.x || a.box.y - b.box.y);
}

function union(boxes: Box[]): Box {
  const x = Math.min(...boxes.map((b) => b.x));
  const y = Math.min(...boxes.map((b) => b.y));
  return { x, y, width: Math.max(...boxes.map((b) => b.x + b.width)) - x, height: Math.max(...boxes.map((b) => b.y + b.height)) - y };
}

/** Checks one drawn line: its text within `maxCer`, its boxes over the ink with IoU ≥ `minIou`; returns the regions. */
function checkLine(name: string, result: OcrResult, line: TextLine, ink: Box, maxCer: number, minIou = 0.6): OcrRegion[] {
  const regions = regionsOn(result, ink);
  expect(regions.length, `${name}: no region on "${line.text}"`).toBeGreaterThan(0);
  const text = regions.map((r) => r.text).join(' ');
  const rate = cer(norm(line.text), norm(text));
  const overlap = iou(union(regions.map((r) => r.box)), ink);
  console.log(`[ocr] ${name}: "${line.text}" → "${text}"  CER ${(rate * 100).toFixed(1)} %  IoU ${overlap.toFixed(2)}`);
  expect(rate).toBeLessThanOrEqual(maxCer);
  expect(overlap).toBeGreaterThanOrEqual(minIou);
  return regions;
}

/** Places `needle` by character offsets and compares with where it was drawn. */
function checkSubstring(name: string, regions: OcrRegion[], needle: string, ink: Box, size: { width: number; height: number }): void {
  const region = regions.find((r) => findChars(r, needle));
  expect(region, `${name}: "${needle}" not read exactly`).toBeDefined();
  const { box } = substringBox(region!, ...findChars(region!, needle)!, 2, size);
  const overlap = iou(box, ink);
  console.log(`[ocr] ${name}: "${needle}" placed at ${JSON.stringify(box)}, drawn at ${JSON.stringify(ink)}, IoU ${overlap.toFixed(2)}`);
  expect(overlap).toBeGreaterThanOrEqual(0.6);
  expect(box.x).toBeGreaterThanOrEqual(region!.box.x - 3);
  expect(box.x + box.width).toBeLessThanOrEqual(region!.box.x + region!.box.width + 3);
}

describe('PaddleOCR PP-OCRv4 (worker thread)', () => {
  it('reads English lines with boxes and character offsets', async () => {
    const style: PageStyle = { width: 760, height: 220 };
    const lines = [
      { text: 'Hemoglobin 13.8 g/dL', x: 40, y: 80, size: 34 },
      { text: 'Patient: John Smith', x: 40, y: 160, size: 34 },
    ];
    const result = await read('english', await drawPage(lines, style));
    expect(result).toMatchObject({ width: 760, height: 220 });
    for (const line of lines) checkLine('english', result, line, await inkBox(line, style), 0.05);
    const on = regionsOn(result, await inkBox(lines[1]!, style));
    checkSubstring('english', on, 'John Smith', await inkBox(lines[1]!, style, 'John Smith'), style);
    expect(result.regions.map((r) => r.text).join('\n')).toContain('13.8');
  });

  it('refuses a corrupt image with OCR_BAD_IMAGE and the worker keeps running', async () => {
    const good = await drawPage([{ text: 'x', x: 5, y: 20, size: 16 }], { width: 40, height: 30 });
    await expect(service.ocrImage(good.subarray(0, good.length / 2))).rejects.toMatchObject({ name: 'OcrError', code: 'OCR_BAD_IMAGE' });
    await expect(service.ocrImage(Buffer.from('%PDF-1.7 not an image'))).rejects.toMatchObject({ code: 'OCR_BAD_IMAGE' });
    expect(service.stats().workerStarts).toBe(1);
  });

  it('reads a Chinese line and places the identifiers in it', async () => {
    const style: PageStyle = { width: 760, height: 120 };
    const line = { text: '姓名：张伟 住院号：ZY2024001', x: 40, y: 75, size: 38 };
    const result = await read('chinese', await drawPage([line], style));
    const regions = checkLine('chinese', result, line, await inkBox(line, style), 0.05);
    expect(norm(regions.map((r) => r.text).join(''))).toContain('张伟');
    checkSubstring('chinese', regions, 'ZY2024001', await inkBox(line, style, 'ZY2024001'), style);
    checkSubstring('chinese', regions, '张伟', await inkBox(line, style, '张伟'), style);
  });

  it('reads a mixed Chinese/English two-line page', async () => {
    const style: PageStyle = { width: 900, height: 200 };
    const lines = [
      { text: '出院诊断：2型糖尿病 Type 2 diabetes', x: 40, y: 70, size: 32 },
      { text: '检验日期 2024-03-15 血糖 7.2 mmol/L', x: 40, y: 150, size: 32 },
    ];
    const result = await read('mixed', await drawPage(lines, style));
    for (const line of lines) checkLine('mixed', result, line, await inkBox(line, style), 0.08);
    expect(norm(result.regions.map((r) => r.text).join(''))).toContain('2024-03-15');
  });

  it('applies EXIF orientation: boxes are in the upright image', async () => {
    const style: PageStyle = { width: 720, height: 200 };
    const lines = [
      { text: 'Patient: John Smith', x: 40, y: 75, size: 34 },
      { text: '住院号：ZY2024001', x: 40, y: 150, size: 34 },
    ];
    // stored turned 90° anticlockwise with orientation 6 ("rotate 90° clockwise to display")
    const upright = await drawPage(lines, style);
    const stored = await sharp(upright).rotate(270).jpeg({ quality: 90 }).withMetadata({ orientation: 6 }).toBuffer();
    expect((await sharp(stored).metadata()).width).toBe(200);
    const result = await read('exif-6', stored);
    expect(result).toMatchObject({ width: 720, height: 200 });
    for (const line of lines) checkLine('exif-6', result, line, await inkBox(line, style), 0.05);
  });

  it('reads a page turned 90° clockwise (no EXIF) as vertical regions', async () => {
    const style: PageStyle = { width: 640, height: 120 };
    const line = { text: 'Hemoglobin 13.8 g/dL', x: 30, y: 75, size: 34 };
    const turned = await sharp(await drawPage([line], style)).rotate(90).png().toBuffer();
    const result = await read('turned-90', turned);
    expect(result).toMatchObject({ width: 120, height: 640 });
    const ink = await inkBox(line, style);
    // (x, y) → (H − y, x) for a clockwise quarter turn
    const turnedInk = { x: style.height - ink.y - ink.height, y: ink.x, width: ink.height, height: ink.width };
    const regions = checkLine('turned-90', result, line, turnedInk, 0.1);
    expect(regions[0]!.polygon[0].x).toBeGreaterThan(regions[0]!.polygon[3].x); // reading starts at the top right
  });

  it('reads an upside-down scan and a page turned 90° anticlockwise, in their own reading order, and places within them', async () => {
    const style: PageStyle = { width: 720, height: 200 };
    const lines = [
      { text: 'Patient: John Smith', x: 40, y: 75, size: 34 },
      { text: '住院号：ZY2024001', x: 40, y: 150, size: 34 },
    ];
    const upright = await drawPage(lines, style);
    const half = await read('turned-180', await sharp(upright).rotate(180).png().toBuffer());
    expect(half.regions.map((r) => norm(r.text))).toEqual(lines.map((l) => norm(l.text)));
    for (const [i, line] of lines.entries()) {
      const ink = await inkBox(line, style);
      // (x, y) → (W − x, H − y) for a half turn
      const turnedInk = { x: style.width - ink.x - ink.width, y: style.height - ink.y - ink.height, width: ink.width, height: ink.height };
      checkLine('turned-180', half, line, turnedInk, 0.05);
      expect(half.regions[i]!.polygon[0].x).toBeGreaterThan(half.regions[i]!.polygon[1].x); // reading runs right to left
    }
    const id = half.regions.find((r) => findChars(r, 'ZY2024001'))!;
    const { box } = substringBox(id, ...findChars(id, 'ZY2024001')!, 2, style);
    expect(box.x + box.width).toBeLessThanOrEqual(id.box.x + id.box.width + 3);
    expect(box.x).toBeLessThan(id.box.x + id.box.width / 2); // the number ends the line: on the left of a page turned half round
    const quarter = await read('turned-270', await sharp(upright).rotate(270).png().toBuffer());
    expect(quarter.regions.map((r) => norm(r.text))).toEqual(lines.map((l) => norm(l.text)));
  });

  it('reads a noisy low-contrast JPEG scan', async () => {
    const style: PageStyle = { width: 760, height: 200, ink: '#5a5a5a', paper: '#b4b4b4' };
    const lines = [
      { text: 'Creatinine 88 umol/L', x: 40, y: 75, size: 32 },
      { text: '联系电话 13812345678', x: 40, y: 150, size: 32 },
    ];
    const noise = await sharp({ create: { width: style.width, height: style.height, channels: 3, background: '#808080', noise: { type: 'gaussian', mean: 128, sigma: 40 } } })
      .png()
      .toBuffer();
    const scan = await sharp(await drawPage(lines, style))
      .composite([{ input: noise, blend: 'soft-light' }])
      .blur(0.7)
      .jpeg({ quality: 35 })
      .toBuffer();
    const result = await read('noisy', scan);
    for (const line of lines) checkLine('noisy', result, line, await inkBox(line, style), 0.12, 0.5);
    expect(norm(result.regions.map((r) => r.text).join(''))).toContain('13812345678');
    expect(service.stats().workerStarts).toBe(1);
  });
});

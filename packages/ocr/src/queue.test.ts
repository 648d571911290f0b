import sharp from 'sharp';
import { afterAll, describe, expect, it } from 'vitest';
import { isOcrError } from './errors.js';
import { OcrService } from './service.js';

// the 'none' engine answers at once, so these checks cost no model time
const service = new OcrService({ engine: 'none', queueSize: 2 });
afterAll(() => service.close());

const png = () => sharp({ create: { width: 40, height: 30, channels: 3, background: '#fff' } }).png().toBuffer();

describe('OCR service queue (engine none)', () => {
  it('runs one, queues queueSize, refuses the rest with OCR_BUSY', async () => {
    const bytes = await png();
    const calls = [1, 2, 3, 4, 5].map(() => service.ocrImage(bytes));
    const settled = await Promise.allSettled(calls);
    expect(settled.map((s) => s.status)).toEqual(['fulfilled', 'fulfilled', 'fulfilled', 'rejected', 'rejected']);
    const refused = settled[3] as PromiseRejectedResult;
    expect(isOcrError(refused.reason, 'OCR_BUSY')).toBe(true);
    expect((settled[0] as PromiseFulfilledResult<unknown>).value).toEqual({ width: 40, height: 30, regions: [] });
    // the queue drained: new requests are accepted again
    await expect(service.ocrImage(bytes)).resolves.toMatchObject({ regions: [] });
  });

  it('refuses corrupt and empty input with OCR_BAD_IMAGE, and the same worker keeps serving', async () => {
    const bytes = await png();
    const truncated = bytes.subarray(0, bytes.length - 30);
    await expect(service.ocrImage(Buffer.from('MZ this is no image'))).rejects.toMatchObject({ code: 'OCR_BAD_IMAGE' });
    await expect(service.ocrImage(truncated)).rejects.toMatchObject({ code: 'OCR_BAD_IMAGE' });
    await expect(service.ocrImage(new Uint8Array(0))).rejects.toMatchObject({ code: 'OCR_BAD_IMAGE' });
    await expect(service.ocrImage(bytes)).resolves.toMatchObject({ width: 40 });
    expect(service.stats().workerStarts).toBe(1);
  });

  it('refuses a decompression bomb with OCR_TOO_MANY_PIXELS', async () => {
    const small = new OcrService({ engine: 'none', maxPixels: 1000 });
    try {
      await expect(small.ocrImage(await png())).rejects.toMatchObject({ code: 'OCR_TOO_MANY_PIXELS' });
    } finally {
      await small.close();
    }
  });

  it('after close, requests are refused with OCR_CLOSED', async () => {
    const other = new OcrService({ engine: 'none' });
    await other.ocrImage(await png());
    await other.close();
    await expect(other.ocrImage(await png())).rejects.toMatchObject({ code: 'OCR_CLOSED' });
  });
});

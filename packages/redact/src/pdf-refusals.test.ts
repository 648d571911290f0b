import { describe, expect, it } from 'vitest';
import { inspectPdf, openPdf, pdfPageText, redactPdf, renderPdfPage } from './index.js';
import { blankPdf, encryptedPdf, textPdf } from './test/make-pdf.js';

describe('PDF refusals', () => {
  it('refuses an encrypted PDF that needs a password', async () => {
    const pdf = await encryptedPdf(true);
    await expect(inspectPdf(pdf)).rejects.toMatchObject({
      code: 'ENCRYPTED',
      message: expect.stringMatching(/^password-protected/),
    });
    await expect(redactPdf(pdf, [])).rejects.toMatchObject({ code: 'ENCRYPTED' });
  });

  it('refuses an encrypted PDF that opens with the empty password (owner restrictions only)', async () => {
    const pdf = await encryptedPdf(false);
    // pdf.js opens this one; the /Encrypt dictionary is what refuses it
    await expect(inspectPdf(pdf)).rejects.toMatchObject({ code: 'ENCRYPTED', message: 'encrypted PDF' });
    await expect(pdfPageText(pdf, 0)).rejects.toMatchObject({ code: 'ENCRYPTED' });
  });

  it('refuses garbage, an image, a 0-byte file and a truncated PDF', async () => {
    const garbage = Buffer.from(Array.from({ length: 4096 }, (_, i) => (i * 7919) % 251));
    await expect(inspectPdf(garbage)).rejects.toMatchObject({ code: 'BAD_PDF' });
    const png = Buffer.from('89504e470d0a1a0a0000000d49484452000000010000000108020000009077', 'hex');
    await expect(inspectPdf(png)).rejects.toMatchObject({ code: 'BAD_PDF' });
    await expect(inspectPdf(new Uint8Array(0))).rejects.toMatchObject({ code: 'EMPTY' });
    const pdf = await textPdf();
    await expect(inspectPdf(pdf.subarray(0, 200))).rejects.toMatchObject({ code: 'BAD_PDF' });
  });

  it('refuses more pages than the limit quickly, without rendering', async () => {
    const pdf = await blankPdf(2000);
    const started = performance.now();
    await expect(inspectPdf(pdf)).rejects.toMatchObject({ code: 'TOO_MANY_PAGES' });
    await expect(redactPdf(pdf, [])).rejects.toMatchObject({ code: 'TOO_MANY_PAGES' });
    expect(performance.now() - started).toBeLessThan(3000);
    // configurable
    await expect(inspectPdf(await blankPdf(3), { maxPages: 2 })).rejects.toMatchObject({
      code: 'TOO_MANY_PAGES',
    });
    expect((await inspectPdf(await blankPdf(3), { maxPages: 3 })).numPages).toBe(3);
  });

  it('refuses a page that would render to too many pixels, and a page index out of range', async () => {
    const pdf = await textPdf();
    await expect(renderPdfPage(pdf, 0, 20)).rejects.toMatchObject({ code: 'TOO_MANY_PIXELS' });
    await expect(renderPdfPage(pdf, 1)).rejects.toMatchObject({ code: 'BAD_BOX' });
    const doc = await openPdf(pdf);
    try {
      // an opened document is reused across calls and left open
      expect((await pdfPageText(doc, 0)).length).toBeGreaterThan(2);
      expect((await renderPdfPage(doc, 0, 1, { format: 'rgba' })).bytes.length).toBe(596 * 842 * 4);
    } finally {
      await doc.close();
    }
  });
});

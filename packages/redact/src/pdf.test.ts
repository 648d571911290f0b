import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { DEFAULT_SCALE, inspectPdf, pdfPageText, redactPdf, renderPdfPage, type Box } from './index.js';
import { extractEverything, renderedGrey } from './test/pdf-check.js';
import { CLINICAL_LINE, IDENTIFIER_LINE, textPdf } from './test/make-pdf.js';

const IDENTIFIERS = ['John', 'Smith', '12345678', 'Patient'];

/** The item whose text contains `needle`, as a box on `page`. */
function boxOf(
  items: Awaited<ReturnType<typeof pdfPageText>>,
  needle: string,
  page: number,
): Box & { text: string } {
  const item = items.find((i) => i.text.includes(needle));
  if (!item) throw new Error(`no text item with ${needle}`);
  return { ...item, page };
}

describe('PDF text and rendering', () => {
  it('reports page count and sizes, and renders a page to PNG', async () => {
    const pdf = await textPdf(2);
    expect(await inspectPdf(pdf)).toEqual({
      numPages: 2,
      pages: [
        { width: 595.28, height: 841.89 },
        { width: 595.28, height: 841.89 },
      ],
    });
    const page = await renderPdfPage(pdf, 1);
    expect(page).toMatchObject({ width: 1241, height: 1754, format: 'png' });
    expect(page.bytes.subarray(1, 4).toString()).toBe('PNG');
  });

  it('gives text boxes in the rendered pixel space: the box holds the glyph pixels', async () => {
    const pdf = await textPdf();
    const items = await pdfPageText(pdf, 0);
    const id = boxOf(items, 'John Smith', 0);
    expect(id.text).toBe(IDENTIFIER_LINE);
    // drawn at x = 72 pt, baseline 760 pt, 14 pt Helvetica; at 150 dpi: x = 150 px, baseline at (841.89 - 760) × 150/72
    expect(id.x).toBeCloseTo(150, 0);
    const baseline = (841.89 - 760) * DEFAULT_SCALE;
    expect(id.y).toBeLessThan(baseline - 14 * DEFAULT_SCALE * 0.6);
    expect(id.y + id.height).toBeGreaterThan(baseline);
    const dark = (await renderedGrey(pdf, id, DEFAULT_SCALE, 0)).filter((v) => v < 128).length;
    expect(dark).toBeGreaterThan(500); // glyphs are there before redaction
  });
});

describe('redactPdf', () => {
  it('removes the identifier text and pixels, keeps the chosen clinical text invisible but extractable', async () => {
    const pdf = await textPdf();
    expect(await extractEverything(pdf)).toContain('John Smith'); // the source does contain it (text and metadata)
    const items = await pdfPageText(pdf, 0);
    const id = boxOf(items, 'John Smith', 0);
    const clinical = boxOf(items, CLINICAL_LINE, 0);

    const out = await redactPdf(pdf, [id], { keepText: [clinical], padding: 2 });
    expect(out.numPages).toBe(1);
    expect(out.keptTextItems).toBe(1);

    const text = await extractEverything(out.bytes);
    for (const s of IDENTIFIERS) expect(text).not.toContain(s);
    expect(text).not.toContain('Line 1'); // text not chosen to keep is gone too
    expect(text).toContain(CLINICAL_LINE);
    // raw bytes too (pdf-lib writes the kept text's content stream uncompressed; the identifiers are nowhere)
    const raw = Buffer.from(out.bytes).toString('latin1');
    for (const s of IDENTIFIERS) expect(raw).not.toContain(s);

    // the page of the copy: the identifier's place is black, the clinical line still shows as pixels
    const grey = await renderedGrey(out.bytes, id, DEFAULT_SCALE);
    expect(Math.max(...grey)).toBeLessThanOrEqual(24);
    expect(
      (await renderedGrey(out.bytes, clinical, DEFAULT_SCALE)).filter((v) => v < 128).length,
    ).toBeGreaterThan(300);
    expect(await inspectPdf(out.bytes)).toEqual({ numPages: 1, pages: [{ width: 595.28, height: 841.89 }] });
  });

  it('takes boxes measured at another scale (boxScale) and redacts every page', async () => {
    const pdf = await textPdf(2);
    const ocrScale = 300 / 72;
    const boxes = [0, 1].map((p) => ({ ...IDENTIFIER_BOX_AT(ocrScale), page: p }));
    const out = await redactPdf(pdf, boxes, { scale: 100 / 72, boxScale: ocrScale });
    const text = await extractEverything(out.bytes);
    for (const s of IDENTIFIERS) expect(text).not.toContain(s);
    for (const page of [0, 1]) {
      const box = { ...IDENTIFIER_BOX_AT(DEFAULT_SCALE), page };
      expect(Math.max(...(await renderedGrey(out.bytes, box, DEFAULT_SCALE, 4)))).toBeLessThanOrEqual(24);
    }
  });

  it('refuses boxes on pages that do not exist', async () => {
    const pdf = await textPdf();
    await expect(redactPdf(pdf, [{ page: 3, x: 0, y: 0, width: 10, height: 10 }])).rejects.toMatchObject({
      code: 'BAD_BOX',
    });
  });

  it('redacts a real Word-made PDF with embedded fonts (Presidio sample)', async () => {
    const pdf = readFileSync(new URL('../test-fixtures/sample.pdf', import.meta.url));
    const items = await pdfPageText(pdf, 0);
    const secrets = ['Charles', 'Darwin', 'cdarwin', 'hmsbeagle', '567890'];
    const boxes = items
      .filter((i) => secrets.some((s) => i.text.includes(s)))
      .map((i) => ({ ...i, page: 0 }));
    expect(boxes.length).toBe(3);
    const keep = items.filter((i) => i.text.startsWith('This is a test PDF')).map((i) => ({ ...i, page: 0 }));
    const out = await redactPdf(pdf, boxes, { keepText: keep, padding: 3 });
    const text = await extractEverything(out.bytes);
    for (const s of secrets) expect(text).not.toContain(s);
    expect(text).toContain('This is a test PDF, created by Microsoft Word.');
    for (const box of boxes)
      expect(Math.max(...(await renderedGrey(out.bytes, box, DEFAULT_SCALE)))).toBeLessThanOrEqual(24);
  });
});

/** Where textPdf draws the identifier line, in pixels at `scale` (from its drawing coordinates, with margins). */
function IDENTIFIER_BOX_AT(scale: number): Omit<Box, 'page'> {
  // 14 pt Helvetica at x = 72 pt, baseline 760 pt; the line is < 240 pt wide
  return { x: 70 * scale, y: (841.89 - 760 - 14) * scale, width: 245 * scale, height: 18 * scale };
}

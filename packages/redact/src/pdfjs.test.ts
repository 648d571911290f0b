import { describe, expect, it } from 'vitest';
import { PDFDocument } from 'pdf-lib';
import { inspectPdf } from './index.js';

const isNative = (f: unknown) => typeof f === 'function' && /\{\s*\[native code\]\s*\}/.test(Function.prototype.toString.call(f));

describe('loading pdf.js', () => {
  // pdf.js's legacy build polyfills JSON and Array.prototype.push with core-js: every JSON response of the server
  // became ≈ 14× slower to serialise. src/pdfjs.ts puts the built-ins back.
  it('leaves the engine’s JSON and Array.prototype.push in place, also after a document was opened', async () => {
    const doc = await PDFDocument.create();
    doc.addPage([200, 100]);
    const info = await inspectPdf(await doc.save());
    expect(info.numPages).toBe(1);
    expect(isNative(JSON.stringify)).toBe(true);
    expect(isNative(JSON.parse)).toBe(true);
    expect(isNative(Array.prototype.push)).toBe(true);
  });
});

import { expect, it } from 'vitest';
import { redactImage, redactPdf } from './index.js';
import { largeJpeg } from './test/make-image.js';
import { textPdf } from './test/make-pdf.js';

/** Milliseconds `fn` takes, and its result. */
async function timed<T>(fn: () => Promise<T>): Promise<[number, T]> {
  const started = performance.now();
  const result = await fn();
  return [Math.round(performance.now() - started), result];
}

// timings are printed, not asserted: the machine is shared. "cold" includes loading pdf.js's worker code in-process.
it('prints the time of a 2-page A4 PDF at 150 dpi and of a 2 MB-class image', async () => {
  const pdf = await textPdf(2);
  const box = { x: 140, y: 140, width: 500, height: 40 };
  const boxes = [
    { page: 0, ...box },
    { page: 1, ...box },
  ];
  const [coldMs] = await timed(() => redactPdf(pdf, boxes));
  const [pdfMs, outPdf] = await timed(() => redactPdf(pdf, boxes));

  const jpeg = await largeJpeg();
  const [imageMs, outImage] = await timed(() => redactImage(jpeg, [{ page: 0, ...box }]));

  console.log(
    `redactPdf 2-page A4 at 150 dpi: ${pdfMs} ms warm, ${coldMs} ms cold (${pdf.length} → ${outPdf.bytes.length} bytes); ` +
      `redactImage ${outImage.width}×${outImage.height} JPEG: ${imageMs} ms (${jpeg.length} → ${outImage.bytes.length} bytes)`,
  );
  expect(jpeg.length).toBeGreaterThan(1_500_000);
});

// Reading a redacted PDF back the way an attacker would: pdf.js text extraction, metadata, and pixels.
import sharp from 'sharp';
import { openPdf, renderPdfPage, type Box } from '../index.js';

/** All text pdf.js extracts from every page, joined with newlines, plus the document's Info and XMP metadata. */
export async function extractEverything(pdf: Uint8Array): Promise<string> {
  const doc = await openPdf(pdf);
  try {
    const parts: string[] = [];
    for (let i = 1; i <= doc.numPages; i++) {
      const page = await doc.pdf.getPage(i);
      const content = await page.getTextContent();
      for (const item of content.items) if ('str' in item) parts.push(item.str);
      page.cleanup();
    }
    const meta = await doc.pdf.getMetadata();
    parts.push(JSON.stringify(meta.info), meta.metadata ? JSON.stringify([...meta.metadata]) : '');
    return parts.join('\n');
  } finally {
    await doc.close();
  }
}

/** Grey values (0–255) of one rendered page inside `box` shrunk by `inset` pixels. */
export async function renderedGrey(pdf: Uint8Array, box: Box, scale: number, inset = 2): Promise<number[]> {
  const page = await renderPdfPage(pdf, box.page, scale, { format: 'rgba' });
  const { data } = await sharp(page.bytes, { raw: { width: page.width, height: page.height, channels: 4 } })
    .grayscale()
    .raw()
    .toBuffer({ resolveWithObject: true });
  const values: number[] = [];
  for (let y = Math.ceil(box.y + inset); y < Math.floor(box.y + box.height - inset); y++) {
    for (let x = Math.ceil(box.x + inset); x < Math.floor(box.x + box.width - inset); x++)
      values.push(data[y * page.width + x]!);
  }
  return values;
}

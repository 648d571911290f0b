/** Source documents generated for the documents tests (sharp, pdf-lib) and the upload helper. */
import { createHash, randomBytes } from 'node:crypto';
import zlib from 'node:zlib';
import sharp from 'sharp';
import { PDFDocument, PDFHexString, StandardFonts } from 'pdf-lib';
import type { ApiClient } from './harness';

export const ID_CARD = '11010519491231002X';

export const png = (w = 120, h = 80) => sharp({ create: { width: w, height: h, channels: 3, background: '#f4f4f4' } }).png().toBuffer();
export const jpeg = (w = 120, h = 80) => sharp({ create: { width: w, height: h, channels: 3, background: '#e0e0e0' } }).jpeg().toBuffer();

/** Random pixels: incompressible, so size follows the dimensions. */
export function noise(w: number, h: number, format: 'png' | 'jpeg'): Promise<Buffer> {
  const img = sharp(randomBytes(w * h * 3), { raw: { width: w, height: h, channels: 3 } });
  return (format === 'png' ? img.png({ compressionLevel: 0 }) : img.jpeg({ quality: 95 })).toBuffer();
}

/** A PNG whose header declares 60000 × 60000 pixels (a decompression bomb's header on a tiny file). */
export async function pixelBomb(): Promise<Buffer> {
  const b = Buffer.from(await png(1, 1));
  // IHDR data starts at 16 (8 signature + 4 length + 4 type); its CRC covers type + data (17 bytes) at 29
  b.writeUInt32BE(60_000, 16);
  b.writeUInt32BE(60_000, 20);
  b.writeUInt32BE(zlib.crc32(b.subarray(12, 29)), 29);
  return b;
}

/** A born-digital PDF with a name, the ID number and a lab value as real text. */
export async function labPdf(): Promise<Buffer> {
  const doc = await PDFDocument.create();
  const font = await doc.embedFont(StandardFonts.Helvetica);
  const page = doc.addPage([595.28, 841.89]);
  page.drawText(`ID card: ${ID_CARD}`, { x: 72, y: 760, size: 14, font });
  page.drawText('Glucose 5.6 mmol/L', { x: 72, y: 700, size: 14, font });
  return Buffer.from(await doc.save());
}

export async function blankPdf(pages: number): Promise<Buffer> {
  const doc = await PDFDocument.create();
  for (let i = 0; i < pages; i++) doc.addPage([200, 200]);
  return Buffer.from(await doc.save());
}

/** A PDF whose trailer names an /Encrypt dictionary (opens with the empty password: owner restrictions only). */
export async function encryptedPdf(): Promise<Buffer> {
  const doc = await PDFDocument.create();
  const font = await doc.embedFont(StandardFonts.Helvetica);
  doc.addPage([595.28, 841.89]).drawText('Patient: John Smith', { x: 72, y: 760, size: 14, font });
  const salt = randomBytes(8);
  const hex = (b: Buffer) => PDFHexString.of(b.toString('hex'));
  const encrypt = doc.context.obj({
    Filter: 'Standard',
    V: 5,
    R: 5,
    Length: 256,
    P: -3904,
    O: hex(randomBytes(48)),
    U: hex(Buffer.concat([createHash('sha256').update(salt).digest(), salt, randomBytes(8)])),
    OE: hex(randomBytes(32)),
    UE: hex(randomBytes(32)),
    Perms: hex(randomBytes(16)),
    CF: { StdCF: { CFM: 'AESV3', AuthEvent: 'DocOpen', Length: 32 } },
    StmF: 'Identity',
    StrF: 'Identity',
  });
  doc.context.trailerInfo.Encrypt = doc.context.register(encrypt);
  doc.context.trailerInfo.ID = doc.context.obj([hex(randomBytes(16)), hex(randomBytes(16))]);
  return Buffer.from(await doc.save({ useObjectStreams: false }));
}

export interface UploadFile {
  name: string;
  bytes: Buffer;
}

/** POST /source/file/uploadImgNew as the browser sends it (multipart). */
export function upload(api: ApiClient, token: string, headers: Record<string, string | number>, fields: Record<string, string | number>, files: UploadFile[]) {
  const fd = new FormData();
  for (const [k, v] of Object.entries(fields)) fd.append(k, String(v));
  for (const f of files) fd.append('files', new Blob([new Uint8Array(f.bytes)]), f.name);
  return api.post<{ files: { id: number; status: number; version: number }[] }>('/source/file/uploadImgNew', { token, headers, raw: { body: fd } });
}

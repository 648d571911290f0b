// Test PDFs generated with pdf-lib: a text page, blank long documents, and encrypted variants.
import { createHash, randomBytes } from 'node:crypto';
import { PDFDocument, PDFHexString, StandardFonts } from 'pdf-lib';

const A4: [number, number] = [595.28, 841.89];

export const IDENTIFIER_LINE = 'Patient: John Smith MRN 12345678';
export const CLINICAL_LINE = 'Hemoglobin 13.8 g/dL';

/** An A4 PDF whose pages hold the identifier line, the clinical line and some filler text (real text operators). */
export async function textPdf(pages = 1): Promise<Uint8Array> {
  const doc = await PDFDocument.create();
  doc.setTitle('Lab report of John Smith'); // metadata that must not reach the copy
  doc.setAuthor('John Smith');
  const font = await doc.embedFont(StandardFonts.Helvetica);
  for (let p = 0; p < pages; p++) {
    const page = doc.addPage(A4);
    page.drawText(IDENTIFIER_LINE, { x: 72, y: 760, size: 14, font });
    page.drawText(CLINICAL_LINE, { x: 72, y: 700, size: 14, font });
    for (let i = 0; i < 20; i++)
      page.drawText(`Line ${i + 1}: result within reference range`, {
        x: 72,
        y: 640 - i * 24,
        size: 11,
        font,
      });
  }
  return doc.save();
}

/** A PDF with `count` blank pages (cheap: one shared page size, no content). */
export async function blankPdf(count: number): Promise<Uint8Array> {
  const doc = await PDFDocument.create();
  for (let i = 0; i < count; i++) doc.addPage([200, 200]);
  return doc.save({ useObjectStreams: true });
}

/**
 * A PDF whose trailer names a Standard-handler /Encrypt dictionary (V5 R5, AES-256, identity crypt filters so nothing
 * else needs encrypting). `needsPassword`: /U does not match the empty password, so readers ask for one; otherwise /U
 * is SHA-256 of the empty password and the validation salt, so the file opens without a password (owner-only
 * restrictions), the case that must be refused too.
 */
export async function encryptedPdf(needsPassword: boolean): Promise<Uint8Array> {
  const doc = await PDFDocument.create();
  const font = await doc.embedFont(StandardFonts.Helvetica);
  doc.addPage(A4).drawText(IDENTIFIER_LINE, { x: 72, y: 760, size: 14, font });
  const validationSalt = randomBytes(8);
  const keySalt = randomBytes(8);
  const hash = needsPassword ? randomBytes(32) : createHash('sha256').update(validationSalt).digest();
  const hex = (b: Buffer): PDFHexString => PDFHexString.of(b.toString('hex'));
  const encrypt = doc.context.obj({
    Filter: 'Standard',
    V: 5,
    R: 5,
    Length: 256,
    P: -3904,
    O: hex(randomBytes(48)),
    U: hex(Buffer.concat([hash, validationSalt, keySalt])),
    OE: hex(randomBytes(32)),
    UE: hex(randomBytes(32)),
    Perms: hex(randomBytes(16)),
    CF: { StdCF: { CFM: 'AESV3', AuthEvent: 'DocOpen', Length: 32 } },
    StmF: 'Identity',
    StrF: 'Identity',
  });
  doc.context.trailerInfo.Encrypt = doc.context.register(encrypt);
  doc.context.trailerInfo.ID = doc.context.obj([hex(randomBytes(16)), hex(randomBytes(16))]);
  return doc.save({ useObjectStreams: false });
}

/**
 * The de-identification job's pipeline for one image, for the deid benchmarks (not a benchmark itself): the options
 * DeidJob.options() builds from a subject record (private there; kept identical here) and ocrPiece → pageBoxes as
 * DeidJob.deidentify() runs them, recording which text each box was placed for.
 */
import type { DeidOptions } from '@esource/deid';
import type { OcrResult } from '@esource/ocr';
import type { SourceFileBox } from '@esource/shared';
import { ocrPiece, pageBoxes, type TextPiece } from '../apps/server/src/modules/documents/deid-boxes';
import type { Rect, SubjectRecord } from './deid-docs';

/**
 * What DeidJob.options() passes for a subject record in a project whose de-identification settings were never saved:
 * initials as the name (≥ 2 characters), the record numbers and ID number it holds, no keywords, the default policy.
 */
export function jobOptions(s: SubjectRecord): DeidOptions {
  const v = (x: string | null | undefined) => (x && x.trim() ? x.trim() : undefined);
  const subject = {
    name: s.initials && s.initials.trim().length >= 2 ? s.initials.trim() : undefined,
    medicalRecordNo: v(s.medicalRecordId),
    inpatientNo: v(s.inpatientId),
    outpatientNo: v(s.outpatientId),
    idCard: v(s.idCard),
  };
  return {
    subject: Object.fromEntries(Object.entries(subject).filter(([, x]) => x !== undefined)),
    keywords: [],
  };
}

/** The job's boxes for one OCR result (exactly `pageBoxes(0, regions.map(ocrPiece), opts)`). */
export function jobBoxes(r: OcrResult, opts: DeidOptions): SourceFileBox[] {
  const limits = { width: r.width, height: r.height };
  return pageBoxes(
    0,
    r.regions.map((g) => ocrPiece(g, limits)),
    opts,
  );
}

/** A produced box with the text it was placed for and the padding it got. */
export interface Placed extends SourceFileBox {
  text: string;
  pad: number;
}

/** The job's boxes, each with the stretch of text it was placed for (recorded from the pieces' place()). */
export function placedBoxes(r: OcrResult, opts: DeidOptions): Placed[] {
  const limits = { width: r.width, height: r.height };
  const calls: { text: string; rect: Rect; pad: number }[] = [];
  const pieces: TextPiece[] = r.regions.map((g) => {
    const p = ocrPiece(g, limits);
    return {
      text: p.text,
      box: p.box,
      lineBox: p.lineBox,
      place(s, e, pad) {
        const rect = p.place(s, e, pad);
        calls.push({ text: p.text.slice(s, e), rect, pad });
        return rect;
      },
    };
  });
  const boxes = pageBoxes(0, pieces, opts);
  // pageBoxes keeps the placed rectangles that have an area, in order
  const kept = calls.filter((c) => c.rect.width > 0 && c.rect.height > 0);
  if (kept.length !== boxes.length)
    throw new Error(`placed ${kept.length} boxes, pageBoxes returned ${boxes.length}`);
  return boxes.map((b, i) => ({ ...b, text: kept[i]!.text, pad: kept[i]!.pad }));
}

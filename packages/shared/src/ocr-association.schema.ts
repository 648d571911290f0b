/**
 * OCR association (issue 12 item 6; spec §7 /kbms/ai/kbmsCrfRules): the lab results read from a source document's
 * OCR text, matched to eCRF items through the project's mapping rules and synonyms, become source records (raw format
 * 'ocr') that the pre-fill review offers like the hospital's data; accepted, they are saved with entry mode KBMS 4.
 *
 * Provenance: an accepted value's source_ref is the usual 'source:<recordId>:v<version>'; the record names its file
 * and page region (sourceFileId, region) and its external id is fileRegionRef(...) + '#' + the item's code.
 */
import { z } from 'zod';
import { idSchema } from './common.schema';
import { PREFILL_PROBLEMS, unitConversion } from './mapping.schema';

export const pageRegion = z.object({
  /** 0-based page of the file */
  page: z.number().int(),
  x: z.number(),
  y: z.number(),
  width: z.number(),
  height: z.number(),
});
export type PageRegion = z.infer<typeof pageRegion>;

/** 'file:<fileId>:p<page>:<x>,<y>,<w>,<h>' (page pixels, rounded): a region of a source document as text. */
export function fileRegionRef(fileId: number, r: PageRegion): string {
  return `file:${fileId}:p${r.page}:${[r.x, r.y, r.width, r.height].map((n) => Math.round(n)).join(',')}`;
}
export function parseFileRegionRef(ref: string | null | undefined): ({ fileId: number } & PageRegion) | null {
  const m = ref ? /^file:(\d+):p(\d+):(-?\d+),(-?\d+),(\d+),(\d+)(#.*)?$/.exec(ref) : null;
  return m
    ? {
        fileId: Number(m[1]),
        page: Number(m[2]),
        x: Number(m[3]),
        y: Number(m[4]),
        width: Number(m[5]),
        height: Number(m[6]),
      }
    : null;
}

/** POST /kbms/ai/kbmsCrfRules (form): run the association of one source file; `visitId` when the file names none. */
export const ocrAssociationRequest = z.object({
  fileId: idSchema,
  /** a scheduled visit of the subject, for a file that has no visit and no readable report date */
  visitId: idSchema.optional(),
});

export const ocrProposal = z.object({
  /** the source record the result is kept as, at its current version */
  recordId: z.number().int(),
  recordVersion: z.number().int(),
  formId: z.number().int(),
  formCode: z.string(),
  formName: z.string(),
  formNameEn: z.string().nullable(),
  variable: z.string(),
  label: z.string(),
  labelEn: z.string().nullable(),
  /** the test name and value as read */
  name: z.string(),
  sourceValue: z.string(),
  sourceUnit: z.string().nullable(),
  range: z.string().nullable(),
  flag: z.enum(['H', 'L', 'A']).nullable(),
  /** the value the item would take (converted to its unit), or null with a problem */
  value: z.unknown(),
  unit: z.string().nullable(),
  conversion: unitConversion.nullable(),
  problem: z.enum(PREFILL_PROBLEMS).nullable(),
  problemMessage: z.string().nullable(),
  region: pageRegion,
});
export type OcrProposal = z.infer<typeof ocrProposal>;

export const ocrAssociationResult = z.object({
  fileId: z.number().int(),
  ptsId: z.number().int(),
  /** the date the report gives (collection, else report date), when one is labelled */
  reportDate: z.string().nullable(),
  /** the visit the values are for (the file's, the one chosen, or the one whose window holds the report date) */
  visit: z
    .object({
      visitId: z.number().int(),
      code: z.string(),
      name: z.string(),
      nameEn: z.string().nullable(),
      planned: z.string().nullable(),
    })
    .nullable(),
  /** the date the records carry (null: no visit and no report date — the review offers them to no visit window) */
  effectiveDate: z.string().nullable(),
  /** proposals: one per result and eCRF item */
  count: z.number().int(),
  created: z.number().int(),
  updated: z.number().int(),
  unchanged: z.number().int(),
  /** records of this file from an earlier run that this run no longer proposes (soft-deleted) */
  withdrawn: z.number().int(),
  proposals: z.array(ocrProposal),
  /** results read that no item's rule or synonym names (add a synonym to propose them) */
  unmatched: z.array(
    z.object({
      name: z.string(),
      sourceValue: z.string(),
      sourceUnit: z.string().nullable(),
      region: pageRegion,
    }),
  ),
});
export type OcrAssociationResult = z.infer<typeof ocrAssociationResult>;

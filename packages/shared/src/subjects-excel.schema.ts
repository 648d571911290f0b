/**
 * Subject Excel import, template and export (issue 5). The spec names only POST /project/managePts/importPts
 * (multipart); the template and export URLs are ours (docs/decisions.md). Column headers are translated
 * (subjectsExcel.columns.<key>); an uploaded sheet may use either language's headers or the keys themselves.
 */
import { z } from 'zod';
import { subjectListRequest } from './subjects.schema';

/** Columns of the import template, in order. */
export const SUBJECT_IMPORT_COLUMNS = [
  'ptsNo',
  'siteNo',
  'firstVisitDate',
  'initials',
  'medicalRecordId',
  'inpatientId',
  'outpatientId',
  'idCard',
  'status',
] as const;
export type SubjectImportColumn = (typeof SUBJECT_IMPORT_COLUMNS)[number];

/** Columns of the export, in order. */
export const SUBJECT_EXPORT_COLUMNS = [
  'ptsNo',
  'siteNo',
  'siteName',
  'status',
  'initials',
  'firstVisitDate',
  'medicalRecordId',
  'inpatientId',
  'outpatientId',
  'idCard',
  'currentVisit',
  'formProgress',
  'createTime',
] as const;
export type SubjectExportColumn = (typeof SUBJECT_EXPORT_COLUMNS)[number];

/** Largest import file (bytes) and number of data rows. */
export const SUBJECT_IMPORT_LIMITS = { maxBytes: 5 * 1024 * 1024, maxRows: 1000 } as const;

export const subjectImportResponse = z.object({
  imported: z.number().int(),
  subjects: z.array(z.object({ rowNo: z.number().int(), ptsId: z.number().int(), ptsNo: z.string() })),
});
export type SubjectImportResponse = z.infer<typeof subjectImportResponse>;

function validTimeZone(tz: string): boolean {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: tz });
    return true;
  } catch {
    return false;
  }
}

/** The list's filters and sort (no paging) plus the viewer's time zone for the creation time. */
export const subjectExportQuery = subjectListRequest.omit({ pageNumber: true, pageSize: true }).extend({
  timeZone: z.preprocess(
    (v) => (v === '' ? undefined : v),
    z.string().max(64).refine(validTimeZone, { message: 'validation.timezone' }).default('Asia/Shanghai'),
  ),
});
export type SubjectExportQuery = z.output<typeof subjectExportQuery>;

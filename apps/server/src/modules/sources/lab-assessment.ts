/**
 * A lab result's assessment, made once when its source record is written and stored with it (source_records lab,
 * lab_graded; migration 0053). Safety candidate generation (issue 13) reads it instead of grading every result of a
 * subject on each run. Graded from the values as stored (the columns' lengths), so that grading the stored row
 * again gives the same answer.
 */
import { sql } from 'drizzle-orm';
import { DOC_TYPE, gradeLab, LAB_GRADER_VERSION, type LabAssessment, type LabRecordInput } from '@esource/interop';
import type { Db, Tx } from '../../db/client';
import { sourceRecords } from '../../db/schema';
import { rowsOf } from '../../lib/sql';

/** lab results graded per statement when their stored assessments are made again */
const REGRADE_BATCH = 1000;

export interface LabColumns {
  lab: LabAssessment | null;
  labAnalyte: string | null;
  labOut: boolean | null;
  labGraded: number;
}

const NOT_GRADED: LabColumns = { lab: null, labAnalyte: null, labOut: null, labGraded: LAB_GRADER_VERSION };

/** What a record is graded from, as it is (or will be) stored. */
export type GradableRecord = LabRecordInput & { docType: number };

/** The record's lab columns: its assessment (null when it is not a lab result with a value) and the grader's version. */
export function labColumns(r: GradableRecord): LabColumns {
  if (r.docType !== DOC_TYPE.test) return NOT_GRADED;
  const lab = gradeLab({
    docType: r.docType,
    rawFormat: r.rawFormat,
    raw: r.raw,
    externalId: r.externalId ?? null,
    code: r.code?.slice(0, 100) ?? null,
    codeSystem: r.codeSystem?.slice(0, 200) ?? null,
    display: r.display?.slice(0, 500) ?? null,
    valueNum: r.valueNum ?? null,
    valueText: r.valueText ?? null,
    unit: r.unit?.slice(0, 60) ?? null,
  });
  return lab ? { lab, labAnalyte: lab.analyteId, labOut: lab.outOfRange, labGraded: LAB_GRADER_VERSION } : NOT_GRADED;
}

/** the columns as statement parameters: one array per column, for an unnest */
export function labParams(list: readonly LabColumns[]) {
  return {
    lab: list.map((l) => (l.lab ? JSON.stringify(l.lab) : null)),
    analyte: list.map((l) => l.labAnalyte),
    out: list.map((l) => l.labOut),
    graded: list.map((l) => l.labGraded),
  };
}

/** the stored assessment when the current grader made it, else a fresh one */
export function storedOrGraded(r: GradableRecord & { lab: LabAssessment | null; labGraded: number | null }): LabAssessment | null {
  return r.labGraded === LAB_GRADER_VERSION ? r.lab : labColumns(r).lab;
}

/**
 * A subject's live lab results stored without an assessment from the current grader (stored before migration 0053,
 * written by a path that does not grade, or graded by an older grader version): graded now and stored. The same
 * records the generation's fingerprint counts as stale (a subject's records are all of its environment).
 */
export async function regradeLabs(tx: Db | Tx, subject: { id: number }): Promise<number> {
  const rows = rowsOf<GradableRecord & { id: number }>(
    await tx.execute(sql`select r.id::float8 as "id", r.doc_type::int as "docType", r.raw_format as "rawFormat", r.raw,
        r.external_id as "externalId", r.code, r.code_system as "codeSystem", r.display, r.value_num as "valueNum",
        r.value_text as "valueText", r.unit
      from ${sourceRecords} r
      where r.subject_id = ${subject.id} and r.deleted_at is null and r.doc_type = 3
        and r.lab_graded is distinct from ${LAB_GRADER_VERSION}::smallint`),
  );
  for (let i = 0; i < rows.length; i += REGRADE_BATCH) {
    const part = rows.slice(i, i + REGRADE_BATCH);
    const labs = labParams(part.map((r) => labColumns(r)));
    await tx.execute(sql`update ${sourceRecords} r
      set lab = u.lab::jsonb, lab_analyte = u.analyte, lab_out = u.out, lab_graded = ${LAB_GRADER_VERSION}::smallint
      from unnest(${sql.param(part.map((r) => r.id))}::bigint[], ${sql.param(labs.lab)}::text[], ${sql.param(labs.analyte)}::text[],
        ${sql.param(labs.out)}::boolean[]) as u(id, lab, analyte, out)
      where r.id = u.id`);
  }
  return rows.length;
}

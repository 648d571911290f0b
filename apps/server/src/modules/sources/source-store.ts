/**
 * Stores what a hospital source produced (packages/interop's ExtractedPatient / ExtractedRecord) as source patients
 * and source records, in the caller's transaction, whatever the source (FHIR REST, files, HL7 v2, SQL views).
 *
 * What must always hold:
 * - Idempotent: (connection, externalId) is unique; a record whose content hash has not changed is left alone, so
 *   running an extraction again stores nothing new.
 * - Versioned: a changed record bumps `version` and its new state is appended to source_record_versions (the first
 *   state is version 1 there too), so the change lists can say what changed at the hospital and when we saw it.
 * - Matched by identifier: a source patient is matched to a live subject of the connection's project, environment and
 *   site when exactly one subject carries one of its identifiers (medical record, inpatient, outpatient ID, ID card).
 *   No match or several → it waits in the matching queue (status 0) and its records are kept with no subject until a
 *   site user resolves it (then they follow the patient: `assignPatient`).
 * - Batched: every step is one statement per batch (unnest arrays), so a large bundle costs a few round trips per
 *   thousand resources, not a few per resource.
 */
import { and, eq, inArray, sql } from 'drizzle-orm';
import type { ExtractedPatient, ExtractedRecord, SourceIdentifier } from '@esource/interop';
import type { Tx } from '../../db/client';
import { sourcePatients, sourceRecords, sourceRecordVersions } from '../../db/schema';
import { rowsOf, unnestRows } from '../../lib/sql';
import { labColumns, labParams } from './lab-assessment';

export interface StoreConnection {
  id: number;
  env: string;
  projectId: number;
  siteId: number;
}

export interface IngestInput {
  connection: StoreConnection;
  patients: readonly ExtractedPatient[];
  records: readonly ExtractedRecord[];
  taskId?: number | null;
}

export interface IngestResult {
  created: number;
  updated: number;
  unchanged: number;
  /** records stored or kept for a patient with no subject yet (waiting in the matching queue) */
  unmatchedRecords: number;
  patientsMatched: number;
  patientsQueued: number;
  /** new or changed records by document type (1..8) */
  byDocType: Record<string, number>;
  /** subjects whose records were created or changed (for pre-fill and reports) */
  subjectIds: number[];
}

const SUBJECT_COLUMN: Record<Exclude<SourceIdentifier['type'], 'other'>, 'medicalRecordId' | 'inpatientId' | 'outpatientId' | 'idCard'> = {
  medicalRecordId: 'medicalRecordId',
  inpatientId: 'inpatientId',
  outpatientId: 'outpatientId',
  idCard: 'idCard',
};

/** Rows per statement: large enough to amortise round trips, small enough to keep parameters modest. */
const CHUNK = 1000;

function chunks<T>(list: readonly T[], n = CHUNK): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < list.length; i += n) out.push(list.slice(i, i + n));
  return out;
}

/** Upper-cased, trimmed identifier value: how hospital systems and our subject list compare identifiers. */
export function normaliseIdentifier(v: string): string {
  return v.trim().toUpperCase();
}

/**
 * For each patient (by index), the live subject of the connection's project × env × site carrying one of its
 * identifiers, when exactly one does; absent when none or several do (several: a human must decide). One statement
 * for the whole batch, whatever the number of patients.
 */
async function matchSubjects(tx: Tx, c: StoreConnection, patients: readonly ExtractedPatient[]): Promise<Map<number, number>> {
  const idx: number[] = [];
  const types: string[] = [];
  const values: string[] = [];
  patients.forEach((p, i) => {
    for (const id of p.identifiers) {
      if (id.type === 'other' || !id.value || !(id.type in SUBJECT_COLUMN)) continue;
      idx.push(i);
      types.push(id.type);
      values.push(normaliseIdentifier(id.value));
    }
  });
  const out = new Map<number, number>();
  if (idx.length === 0) return out;
  const rows = rowsOf<{ i: number | string; subject_id: number | string; n: number | string }>(
    await tx.execute(sql`
      select u.i, min(s.id) as subject_id, count(distinct s.id) as n
      from unnest(${sql.param(idx)}::int[], ${sql.param(types)}::text[], ${sql.param(values)}::text[]) as u(i, t, v)
      join subjects s on s.project_id = ${c.projectId} and s.env = ${c.env} and s.site_id = ${c.siteId}
        and s.status <> 0 and s.deleted_at is null
        and upper(trim(case u.t when 'medicalRecordId' then s.medical_record_id when 'inpatientId' then s.inpatient_id
                                when 'outpatientId' then s.outpatient_id else s.id_card end)) = u.v
      group by u.i`),
  );
  for (const r of rows) if (Number(r.n) === 1) out.set(Number(r.i), Number(r.subject_id));
  return out;
}

interface PatientRow {
  id: number;
  subjectId: number | null;
  status: number;
}

/** Upserts the source patients and matches the unmatched ones; returns them by patient key. */
async function upsertPatients(tx: Tx, c: StoreConnection, patients: readonly ExtractedPatient[], result: IngestResult): Promise<Map<string, PatientRow>> {
  const byKey = new Map<string, PatientRow>();
  const unique = [...new Map(patients.map((p) => [p.patientKey, p])).values()];
  for (const part of chunks(unique)) {
    const rows = rowsOf<{ id: number | string; patient_key: string; subject_id: number | string | null; status: number | string }>(
      await tx.execute(sql`
      insert into source_patients ${unnestRows(
        [
          [sourcePatients.env, 'varchar'],
          [sourcePatients.projectId, 'int'],
          [sourcePatients.siteId, 'int'],
          [sourcePatients.connectionId, 'int'],
          [sourcePatients.patientKey, 'varchar'],
          [sourcePatients.identifiers, 'jsonb'],
          [sourcePatients.name, 'varchar'],
          [sourcePatients.birthDate, 'date'],
          [sourcePatients.gender, 'varchar'],
        ],
        part.map((p) => [
          c.env,
          c.projectId,
          c.siteId,
          c.id,
          p.patientKey,
          JSON.stringify(p.identifiers),
          p.name?.slice(0, 200) ?? null,
          p.birthDate ?? null,
          p.gender?.slice(0, 20) ?? null,
        ]),
      )}
      on conflict (connection_id, patient_key) do update set
        identifiers = excluded.identifiers,
        name = coalesce(excluded.name, source_patients.name),
        birth_date = coalesce(excluded.birth_date, source_patients.birth_date),
        gender = coalesce(excluded.gender, source_patients.gender),
        updated_at = now()
      returning id, patient_key, subject_id, status`),
    );
    for (const r of rows) byKey.set(r.patient_key, { id: Number(r.id), subjectId: r.subject_id == null ? null : Number(r.subject_id), status: Number(r.status) });
  }
  // matched (1, 2) or dismissed (3): a human's decision or an earlier match stands; the rest are matched in one query
  const open = unique.filter((p) => byKey.get(p.patientKey)!.status === 0);
  const matched = await matchSubjects(tx, c, open);
  result.patientsQueued += open.length - matched.size;
  for (const [i, subjectId] of matched) {
    const row = byKey.get(open[i]!.patientKey)!;
    await tx.update(sourcePatients).set({ subjectId, status: 1, matchedAt: new Date(), updatedAt: new Date() }).where(eq(sourcePatients.id, row.id));
    await tx.update(sourceRecords).set({ subjectId }).where(eq(sourceRecords.sourcePatientId, row.id));
    row.subjectId = subjectId;
    row.status = 1;
    result.patientsMatched++;
  }
  return byKey;
}

/** Source patients of the connection known by key (for records whose Patient came in an earlier batch or file). */
async function knownPatients(tx: Tx, c: StoreConnection, keys: readonly string[]): Promise<Map<string, PatientRow>> {
  const out = new Map<string, PatientRow>();
  for (const part of chunks(keys)) {
    const rows = await tx
      .select({ id: sourcePatients.id, key: sourcePatients.patientKey, subjectId: sourcePatients.subjectId, status: sourcePatients.status })
      .from(sourcePatients)
      .where(and(eq(sourcePatients.connectionId, c.id), inArray(sourcePatients.patientKey, part)));
    for (const r of rows) out.set(r.key, { id: r.id, subjectId: r.subjectId, status: r.status });
  }
  return out;
}

function emptyResult(): IngestResult {
  return { created: 0, updated: 0, unchanged: 0, unmatchedRecords: 0, patientsMatched: 0, patientsQueued: 0, byDocType: {}, subjectIds: [] };
}

/**
 * Stores one batch in the caller's transaction (call it per batch of a streamed source so that memory stays flat;
 * a failed batch rolls back with its transaction). Records of a patient never seen get a placeholder source patient
 * with no identifiers, which waits in the matching queue.
 */
export async function ingest(tx: Tx, input: IngestInput): Promise<IngestResult> {
  const c = input.connection;
  const result = emptyResult();
  const patients = await upsertPatients(tx, c, input.patients, result);
  const missing = [...new Set(input.records.map((r) => r.patientKey))].filter((k) => !patients.has(k));
  if (missing.length > 0) {
    for (const [k, v] of await knownPatients(tx, c, missing)) patients.set(k, v);
    const placeholders = missing.filter((k) => !patients.has(k)).map((k): ExtractedPatient => ({ patientKey: k, identifiers: [] }));
    if (placeholders.length > 0) for (const [k, v] of await upsertPatients(tx, c, placeholders, result)) patients.set(k, v);
  }
  const subjectsTouched = new Set<number>();
  // the last occurrence of an external id in a batch wins (a bundle may carry a resource twice)
  const records = [...new Map(input.records.map((r) => [r.externalId, r])).values()];
  const patientOf = (r: ExtractedRecord) => patients.get(r.patientKey)!;
  const count = (r: ExtractedRecord) => {
    const p = patientOf(r);
    if (p.subjectId == null) result.unmatchedRecords++;
    else subjectsTouched.add(p.subjectId);
    result.byDocType[r.docType] = (result.byDocType[r.docType] ?? 0) + 1;
  };
  for (const part of chunks(records)) {
    // One statement inserts the records not stored yet with their first versions (a record already stored is
    // skipped before it draws an id); only the others are then looked up, to compare their content hashes.
    const inserted = await insertFresh(tx, c, part, patientOf, input.taskId);
    const fresh = part.filter((r) => inserted.has(r.externalId));
    const rest = part.filter((r) => !inserted.has(r.externalId));
    const changed: { rec: ExtractedRecord; id: number; version: number }[] = [];
    if (rest.length > 0) {
      const existing = new Map<string, { id: number; hash: string; version: number }>();
      const found = rowsOf<{ id: number | string; external_id: string; content_hash: string; version: number | string }>(
        await tx.execute(sql`
          select id, external_id, content_hash, version from source_records
          where connection_id = ${c.id} and external_id = any(${sql.param(rest.map((r) => r.externalId))}::varchar[])`),
      );
      for (const f of found) existing.set(f.external_id, { id: Number(f.id), hash: f.content_hash, version: Number(f.version) });
      for (const r of rest) {
        const e = existing.get(r.externalId);
        // not inserted and not found: another transaction is storing it at this moment; we left it to that one
        if (!e || e.hash === r.contentHash) result.unchanged++;
        else changed.push({ rec: r, id: e.id, version: e.version + 1 });
      }
    }
    for (const r of fresh) count(r);
    for (const x of changed) count(x.rec);
    result.created += fresh.length;
    if (changed.length > 0) {
      const labs = labParams(changed.map((x) => labColumns(x.rec)));
      await tx.execute(sql`
        update source_records s set
          doc_type = u.doc_type, resource_type = u.resource_type, code_system = u.code_system, code = u.code,
          display = u.display, value_num = u.value_num, value_text = u.value_text, unit = u.unit,
          effective_at = u.effective_at, effective_date = u.effective_date, status = u.status,
          content_hash = u.content_hash, raw = u.raw, lab = u.lab::jsonb, lab_analyte = u.lab_analyte, lab_out = u.lab_out,
          lab_graded = u.lab_graded, version = u.version, task_id = u.task_id, deleted_at = null, updated_at = now()
        from unnest(
          ${sql.param(changed.map((x) => x.id))}::bigint[], ${sql.param(changed.map((x) => x.rec.docType))}::smallint[],
          ${sql.param(changed.map((x) => x.rec.resourceType.slice(0, 60)))}::varchar[],
          ${sql.param(changed.map((x) => x.rec.codeSystem?.slice(0, 200) ?? null))}::varchar[],
          ${sql.param(changed.map((x) => x.rec.code?.slice(0, 100) ?? null))}::varchar[],
          ${sql.param(changed.map((x) => x.rec.display?.slice(0, 500) ?? null))}::varchar[],
          ${sql.param(changed.map((x) => x.rec.valueNum ?? null))}::float8[],
          ${sql.param(changed.map((x) => x.rec.valueText ?? null))}::text[],
          ${sql.param(changed.map((x) => x.rec.unit?.slice(0, 60) ?? null))}::varchar[],
          ${sql.param(changed.map((x) => x.rec.effectiveAt ?? null))}::timestamptz[],
          ${sql.param(changed.map((x) => x.rec.effectiveDate ?? null))}::date[],
          ${sql.param(changed.map((x) => x.rec.status?.slice(0, 30) ?? null))}::varchar[],
          ${sql.param(changed.map((x) => x.rec.contentHash))}::varchar[],
          ${sql.param(changed.map((x) => x.rec.raw))}::text[],
          ${sql.param(labs.lab)}::text[], ${sql.param(labs.analyte)}::text[], ${sql.param(labs.out)}::boolean[],
          ${sql.param(labs.graded)}::smallint[],
          ${sql.param(changed.map((x) => x.version))}::int[],
          ${sql.param(changed.map(() => input.taskId ?? null))}::int[]
        ) as u(id, doc_type, resource_type, code_system, code, display, value_num, value_text, unit, effective_at,
               effective_date, status, content_hash, raw, lab, lab_analyte, lab_out, lab_graded, version, task_id)
        where s.id = u.id`);
      await insertVersions(tx, changed, 'updated', input.taskId);
      result.updated += changed.length;
    }
  }
  result.subjectIds = [...subjectsTouched];
  return result;
}

/**
 * Inserts the records of the batch that the connection does not hold yet, and their first versions, in one
 * statement; returns the external ids it inserted.
 */
async function insertFresh(
  tx: Tx,
  c: StoreConnection,
  part: readonly ExtractedRecord[],
  patientOf: (r: ExtractedRecord) => PatientRow,
  taskId: number | null | undefined,
): Promise<Set<string>> {
  const col = <T>(f: (r: ExtractedRecord) => T) => sql.param(part.map((r) => f(r) ?? null));
  const labs = labParams(part.map((r) => labColumns(r)));
  const rows = rowsOf<{ external_id: string }>(
    await tx.execute(sql`
      with u as (
        select * from unnest(
          ${col((r) => patientOf(r).subjectId)}::int[], ${col((r) => patientOf(r).id)}::int[],
          ${col((r) => r.externalId)}::varchar[], ${col((r) => r.docType)}::smallint[],
          ${col((r) => r.resourceType.slice(0, 60))}::varchar[], ${col((r) => r.codeSystem?.slice(0, 200))}::varchar[],
          ${col((r) => r.code?.slice(0, 100))}::varchar[], ${col((r) => r.display?.slice(0, 500))}::varchar[],
          ${col((r) => r.valueNum)}::float8[], ${col((r) => r.valueText)}::text[], ${col((r) => r.unit?.slice(0, 60))}::varchar[],
          ${col((r) => r.effectiveAt)}::timestamptz[], ${col((r) => r.effectiveDate)}::date[],
          ${col((r) => r.status?.slice(0, 30))}::varchar[], ${col((r) => r.contentHash)}::varchar[],
          ${col((r) => r.rawFormat)}::varchar[], ${col((r) => r.raw)}::text[],
          ${sql.param(labs.lab)}::text[], ${sql.param(labs.analyte)}::text[], ${sql.param(labs.out)}::boolean[],
          ${sql.param(labs.graded)}::smallint[]
        ) as u(subject_id, source_patient_id, external_id, doc_type, resource_type, code_system, code, display, value_num,
               value_text, unit, effective_at, effective_date, status, content_hash, raw_format, raw, lab, lab_analyte,
               lab_out, lab_graded)
      ),
      ins as (
        insert into source_records (env, project_id, site_id, subject_id, source_patient_id, connection_id, external_id,
          doc_type, resource_type, code_system, code, display, value_num, value_text, unit, effective_at, effective_date,
          status, content_hash, raw_format, raw, lab, lab_analyte, lab_out, lab_graded, task_id)
        select ${c.env}, ${c.projectId}::int, ${c.siteId}::int, u.subject_id, u.source_patient_id, ${c.id}::int, u.external_id,
          u.doc_type, u.resource_type, u.code_system, u.code, u.display, u.value_num, u.value_text, u.unit, u.effective_at,
          u.effective_date, u.status, u.content_hash, u.raw_format, u.raw, u.lab::jsonb, u.lab_analyte, u.lab_out, u.lab_graded,
          ${taskId ?? null}::int
        from u
        where not exists (select 1 from source_records s where s.connection_id = ${c.id} and s.external_id = u.external_id)
        on conflict (connection_id, external_id) do nothing
        returning id, external_id, content_hash, value_num, value_text, unit, effective_at, raw
      ),
      v as (
        insert into source_record_versions (record_id, version, change_kind, content_hash, value_num, value_text, unit, effective_at, raw, task_id)
        select id, 1, 'created', content_hash, value_num, value_text, unit, effective_at, raw, ${taskId ?? null}::int from ins
      )
      select external_id from ins`),
  );
  return new Set(rows.map((r) => r.external_id));
}

async function insertVersions(tx: Tx, list: { rec: ExtractedRecord; id: number; version: number }[], kind: 'created' | 'updated', taskId: number | null | undefined) {
  if (list.length === 0) return;
  await tx.execute(sql`
    insert into source_record_versions ${unnestRows(
      [
        [sourceRecordVersions.recordId, 'bigint'],
        [sourceRecordVersions.version, 'int'],
        [sourceRecordVersions.changeKind, 'varchar'],
        [sourceRecordVersions.contentHash, 'varchar'],
        [sourceRecordVersions.valueNum, 'float8'],
        [sourceRecordVersions.valueText, 'text'],
        [sourceRecordVersions.unit, 'varchar'],
        [sourceRecordVersions.effectiveAt, 'timestamptz'],
        [sourceRecordVersions.raw, 'text'],
        [sourceRecordVersions.taskId, 'int'],
      ],
      list.map((x) => [
        x.id,
        x.version,
        kind,
        x.rec.contentHash,
        x.rec.valueNum,
        x.rec.valueText,
        x.rec.unit?.slice(0, 60),
        x.rec.effectiveAt,
        x.rec.raw,
        taskId ?? null,
      ]),
    )}`);
}

/**
 * A site user's decision in the matching queue: the source patient is this subject (status 2), or not in the study
 * (status 3, subjectId null). Its records follow. The caller checks that the subject is at the patient's site and
 * audits the decision.
 */
export async function assignPatient(tx: Tx, patientId: number, subjectId: number | null, userId: number): Promise<void> {
  await tx
    .update(sourcePatients)
    .set({ subjectId, status: subjectId == null ? 3 : 2, matchedBy: userId, matchedAt: new Date(), updatedAt: new Date() })
    .where(eq(sourcePatients.id, patientId));
  await tx.update(sourceRecords).set({ subjectId }).where(eq(sourceRecords.sourcePatientId, patientId));
}

/**
 * The source store (issue 11 item 2): idempotent by (connection, external id), versioned on change, patients matched
 * to subjects by identifier or queued, records following a patient matched later.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { and, eq } from 'drizzle-orm';
import type { ExtractedPatient, ExtractedRecord } from '@esource/interop';
import { sites, sourceConnections, sourcePatients, sourceRecords, sourceRecordVersions, subjects } from '../src/db/schema';
import { assignPatient, ingest, type StoreConnection } from '../src/modules/sources/source-store';
import { startTestServer, type TestServer } from './harness';

let s: TestServer;
let conn: StoreConnection;
let subjectId: number;

const rec = (id: string, patientKey: string, value: number, hash = `h-${id}-${value}`): ExtractedRecord => ({
  patientKey,
  externalId: `Observation/${id}`,
  docType: 3,
  resourceType: 'Observation',
  codeSystem: 'http://loinc.org',
  code: '718-7',
  display: 'Hemoglobin',
  valueNum: value,
  unit: 'g/dL',
  effectiveAt: '2026-11-02T08:00:00Z',
  effectiveDate: '2026-11-02',
  rawFormat: 'fhir',
  raw: JSON.stringify({ resourceType: 'Observation', id, valueQuantity: { value, unit: 'g/dL' } }),
  contentHash: hash,
});

beforeAll(async () => {
  s = await startTestServer();
  const db = s.database.db;
  const [site] = await db.select().from(sites).where(and(eq(sites.projectId, 1), eq(sites.env, 'PRO'), eq(sites.siteNo, '01')));
  const crc1 = await s.api.login('crc1');
  const added = await s.api.post<{ ptsId: number }>('/project/managePts/add', {
    token: crc1,
    headers: { proId: 1, proType: 'PRO' },
    form: { siteId: site!.id, firstVisitDate: '2026-11-01' },
  });
  subjectId = added.body.data.ptsId;
  await db.update(subjects).set({ medicalRecordId: 'MRN-STORE-1' }).where(eq(subjects.id, subjectId));
  const [c] = await db.insert(sourceConnections).values({ env: 'PRO', projectId: 1, siteId: site!.id, kind: 'fhir_file', name: 'store test' }).returning();
  conn = { id: c!.id, env: 'PRO', projectId: 1, siteId: site!.id };
});
afterAll(async () => {
  await s?.stop();
});

describe('source store', () => {
  const matched: ExtractedPatient = { patientKey: 'p1', identifiers: [{ type: 'medicalRecordId', value: ' mrn-store-1 ' }], name: 'Test Patient' };
  const unknown: ExtractedPatient = { patientKey: 'p2', identifiers: [{ type: 'medicalRecordId', value: 'NOBODY' }] };

  it('stores records once, matches by identifier and queues the unknown patient', async () => {
    const db = s.database.db;
    const first = await db.transaction((tx) => ingest(tx, { connection: conn, patients: [matched, unknown], records: [rec('a', 'p1', 13.1), rec('b', 'p2', 12)] }));
    expect(first).toMatchObject({ created: 2, updated: 0, unchanged: 0, patientsMatched: 1, patientsQueued: 1, unmatchedRecords: 1, subjectIds: [subjectId] });
    const again = await db.transaction((tx) => ingest(tx, { connection: conn, patients: [matched, unknown], records: [rec('a', 'p1', 13.1), rec('b', 'p2', 12)] }));
    expect(again).toMatchObject({ created: 0, updated: 0, unchanged: 2 });
    const rows = await db.select().from(sourceRecords).where(eq(sourceRecords.connectionId, conn.id));
    expect(rows).toHaveLength(2);
    expect(rows.find((r) => r.externalId === 'Observation/a')?.subjectId).toBe(subjectId);
    expect(rows.find((r) => r.externalId === 'Observation/b')?.subjectId).toBeNull();
  });

  it('keeps every version when the hospital changes a record', async () => {
    const db = s.database.db;
    const r = await db.transaction((tx) => ingest(tx, { connection: conn, patients: [], records: [rec('a', 'p1', 13.4)] }));
    expect(r).toMatchObject({ created: 0, updated: 1 });
    const [row] = await db.select().from(sourceRecords).where(and(eq(sourceRecords.connectionId, conn.id), eq(sourceRecords.externalId, 'Observation/a')));
    expect(row).toMatchObject({ version: 2, valueNum: 13.4 });
    const versions = await db.select().from(sourceRecordVersions).where(eq(sourceRecordVersions.recordId, row!.id));
    expect(versions.map((v) => [v.version, v.changeKind, v.valueNum]).sort()).toEqual([
      [1, 'created', 13.1],
      [2, 'updated', 13.4],
    ]);
  });

  it('gives records of a never-seen patient a queued placeholder, and records follow a manual match', async () => {
    const db = s.database.db;
    const r = await db.transaction((tx) => ingest(tx, { connection: conn, patients: [], records: [rec('c', 'p3', 11)] }));
    expect(r).toMatchObject({ created: 1, patientsQueued: 1, unmatchedRecords: 1 });
    const [p3] = await db.select().from(sourcePatients).where(and(eq(sourcePatients.connectionId, conn.id), eq(sourcePatients.patientKey, 'p3')));
    expect(p3).toMatchObject({ status: 0, subjectId: null });
    await db.transaction((tx) => assignPatient(tx, p3!.id, subjectId, 1));
    const [c] = await db.select().from(sourceRecords).where(and(eq(sourceRecords.connectionId, conn.id), eq(sourceRecords.externalId, 'Observation/c')));
    expect(c?.subjectId).toBe(subjectId);
    // a manual decision stands: the next ingest does not re-match or unmatch it
    await db.transaction((tx) => ingest(tx, { connection: conn, patients: [{ patientKey: 'p3', identifiers: [] }], records: [] }));
    const [again] = await db.select().from(sourcePatients).where(eq(sourcePatients.id, p3!.id));
    expect(again).toMatchObject({ status: 2, subjectId });
  });
});

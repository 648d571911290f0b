/**
 * Source data end to end (issue 11 items 1, 2, 5, 7) against a real FHIR server implementation: the demo hospital
 * (@medplum/fhir-router over its in-memory repository, on its own port). A data manager configures a connection
 * (secret never returned), a coordinator extracts a subject (progress type 2), re-running stores nothing new, a
 * changed resource makes version 2 and shows in the change reports; failures (500, malformed JSON, endless next,
 * slow) end the task 'failed' with a translated reason and can be retried; a coordinator of another site sees none
 * of it.
 */
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import zlib from 'node:zlib';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { and, eq } from 'drizzle-orm';
import { FhirBatchConverter } from '@esource/interop';
import type { ChangeRow, ConnectionView, SourceRecordDetail, TaskView } from '@esource/shared';
import { sites, sourceConnections, sourceExtractTasks, sourceRecords, subjects } from '../src/db/schema';
import { DEMO_BUNDLES, DEMO_MRN_SYSTEM, SYNTHEA_DIR, demoMrnOf, startDemoFhirServer, type DemoFhirServer } from '../src/modules/sources/demo-fhir-server';
import { startTestServer, type TestServer } from './harness';

let s: TestServer;
let fhir: DemoFhirServer;
let stub: http.Server;
let stubUrl = '';
let siteA = 0;
let ptsId = 0;
let dm = '';
let crc1 = '';
let crc2 = '';
const H = { proId: 1, proType: 'PRO', language: 'en_US' };
const MRN = demoMrnOf(DEMO_BUNDLES[0]);

async function waitFor<T>(fn: () => Promise<T>, ok: (v: T) => boolean, ms = 60_000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = await fn();
    if (ok(v)) return v;
    if (Date.now() > end) throw new Error(`timed out; last value ${JSON.stringify(v).slice(0, 2000)}`);
    await new Promise((r) => setTimeout(r, 300));
  }
}

const fhirConfig = (baseUrl: string, extra: Record<string, unknown> = {}) => ({
  baseUrl,
  auth: 'none',
  identifierSystems: [{ system: DEMO_MRN_SYSTEM, type: 'medicalRecordId' }],
  timeoutMs: 3000,
  pageSize: 50,
  ...extra,
});

async function taskDone(id: number): Promise<TaskView> {
  return waitFor(
    async () => (await s.api.post<{ content: TaskView[] }>('/pts/extract/report/listByPage', { token: dm, headers: H, form: { pageSize: 200 } })).body.data.content.find((t) => t.id === id)!,
    (t) => !!t && t.status >= 2,
  );
}

beforeAll(async () => {
  fhir = await startDemoFhirServer({ bundles: [DEMO_BUNDLES[0]] });
  // failure modes a real server does not produce on demand
  stub = http.createServer((req, res) => {
    const u = req.url ?? '/';
    if (u.startsWith('/e500/')) {
      res.writeHead(500, { 'content-type': 'application/fhir+json' });
      res.end(JSON.stringify({ resourceType: 'OperationOutcome', issue: [{ severity: 'error', code: 'exception', diagnostics: 'database is down for maintenance' }] }));
    } else if (u.startsWith('/bad/')) {
      res.writeHead(200, { 'content-type': 'application/fhir+json' });
      res.end('{"resourceType":"Bundle","entry":[{"resource":');
    } else if (u.startsWith('/loop/')) {
      res.writeHead(200, { 'content-type': 'application/fhir+json' });
      const n = Number(new URL(u, 'http://x').searchParams.get('n') ?? 0);
      const isPatient = u.startsWith('/loop/Patient');
      res.end(
        JSON.stringify({
          resourceType: 'Bundle',
          type: 'searchset',
          entry: isPatient ? [{ resource: { resourceType: 'Patient', id: 'p1', identifier: [{ system: DEMO_MRN_SYSTEM, value: MRN }] } }] : [],
          link: isPatient ? [] : [{ relation: 'next', url: `${stubUrl}/loop/Observation?n=${n + 1}` }],
        }),
      );
    } else if (u.startsWith('/slow/')) {
      setTimeout(() => {
        res.writeHead(200);
        res.end('{}');
      }, 5000).unref();
    } else {
      res.writeHead(404);
      res.end();
    }
  });
  await new Promise<void>((r) => stub.listen(0, '127.0.0.1', () => r()));
  stubUrl = `http://127.0.0.1:${(stub.address() as AddressInfo).port}`;

  s = await startTestServer();
  const db = s.database.db;
  const [site] = await db.select().from(sites).where(and(eq(sites.projectId, 1), eq(sites.env, 'PRO'), eq(sites.siteNo, '01')));
  siteA = site!.id;
  dm = await s.api.login('dm');
  crc1 = await s.api.login('crc1');
  crc2 = await s.api.login('crc2');
  const added = await s.api.post<{ ptsId: number }>('/project/managePts/add', { token: crc1, headers: H, form: { siteId: siteA, firstVisitDate: '2026-11-01' } });
  ptsId = added.body.data.ptsId;
  await db.update(subjects).set({ medicalRecordId: MRN }).where(eq(subjects.id, ptsId));
}, 120_000);

afterAll(async () => {
  await s?.stop();
  await fhir?.close();
  stub?.closeAllConnections();
  await new Promise<void>((r) => (stub ? stub.close(() => r()) : r()));
});

let connId = 0;

describe('connections', () => {
  it('a data manager adds a FHIR connection; the secret is stored encrypted and never returned', async () => {
    const r = await s.api.post<ConnectionView>('/project/source/connection/add', {
      token: dm,
      headers: H,
      json: { siteId: siteA, kind: 'fhir', name: 'Demo hospital', config: fhirConfig(fhir.url, { auth: 'bearer' }), secret: 'TOKEN-SECRET-123' },
    });
    expect(r.body.code).toBe(200);
    expect(r.body.data).toMatchObject({ kind: 'fhir', hasSecret: true, version: 1 });
    expect(JSON.stringify(r.body.data)).not.toContain('TOKEN-SECRET-123');
    connId = r.body.data.id;
    const [row] = await s.database.db.select().from(sourceConnections).where(eq(sourceConnections.id, connId));
    expect(row!.secretEnc).toMatch(/^v1:/);
    expect(row!.secretEnc).not.toContain('TOKEN-SECRET-123');
    // back to no auth for the demo server (which ignores the header anyway), secret removed
    const u = await s.api.post<ConnectionView>('/project/source/connection/update', {
      token: dm,
      headers: H,
      json: { id: connId, version: 1, siteId: siteA, kind: 'fhir', name: 'Demo hospital', config: fhirConfig(fhir.url), clearSecret: true },
    });
    expect(u.body.data).toMatchObject({ hasSecret: false, version: 2 });
  });

  it('refuses a non-http base URL and a write from a coordinator', async () => {
    const bad = await s.api.post('/project/source/connection/add', { token: dm, headers: H, json: { siteId: siteA, kind: 'fhir', name: 'x', config: fhirConfig('file:///etc/passwd') } });
    expect(bad.body.code).toBe(400);
    expect(JSON.stringify(bad.body)).toContain('config.baseUrl');
    // a kind's config problems come in the caller's language, naming each field
    const zh = await s.api.post<null>('/project/source/connection/add', { token: dm, headers: { ...H, language: 'zh_CN' }, json: { siteId: siteA, kind: 'sql', name: 'x', config: {} } });
    expect(zh.body.code).toBe(400);
    expect((zh.body as unknown as { detail: { field: string; message: string }[] }).detail.map((d) => d.field)).toContain('config.dialect');
    expect(JSON.stringify(zh.body)).not.toMatch(/Invalid (option|input)/);
    const crc = await s.api.post('/project/source/connection/add', { token: crc1, headers: H, json: { siteId: siteA, kind: 'fhir', name: 'x', config: fhirConfig(fhir.url) } });
    expect(crc.body.code).toBe(403);
    // a connection's kind is fixed once saved, said in the caller's language
    const kind = await s.api.post('/project/source/connection/update', {
      token: dm,
      headers: { ...H, language: 'zh_CN' },
      json: { id: connId, version: 2, siteId: siteA, kind: 'fhir_file', name: 'Demo hospital', config: {} },
    });
    expect(kind.body.code).toBe(400);
    expect(kind.body.message).toContain('连接类型不可更改');
  });

  it('test connection reports the server and what it holds for the subject, storing nothing', async () => {
    const r = await s.api.post<{ ok: boolean; fhirVersion: string; patientsMatched: number; counts: { type: string; count: number }[] }>('/project/source/connection/test', {
      token: dm,
      headers: H,
      json: { id: connId, identifierValue: MRN, identifierSystem: DEMO_MRN_SYSTEM },
    });
    expect(r.body.data).toMatchObject({ ok: true, fhirVersion: '4.0.1', patientsMatched: 1 });
    expect(r.body.data.counts.find((c) => c.type === 'Observation')!.count).toBeGreaterThan(0);
    const list = await s.api.post<{ content: unknown[] }>('/project/source/records/list', { token: dm, headers: H, form: { ptsId } });
    expect(list.body.data.content).toHaveLength(0);
  });
});

describe('extraction from the demo hospital', () => {
  let first: TaskView;
  it('a coordinator extracts a subject: records by type, progress type 2, and a second run is refused while live', async () => {
    const r = await s.api.post<{ tasks: TaskView[] }>('/project/managePts/addPtsTask', { token: crc1, headers: H, form: { ptsId } });
    expect(r.body.code).toBe(200);
    const again = await s.api.post('/project/managePts/addPtsTask', { token: crc1, headers: H, form: { ptsId } });
    // either still live (refused with the translated message) or already finished
    if (again.body.code !== 200) expect(again.body.message).toMatch(/already has an extraction/);
    first = await taskDone(r.body.data.tasks[0]!.id);
    if (again.body.code === 200) await taskDone((again.body.data as { tasks: TaskView[] }).tasks[0]!.id);
    expect(first.status).toBe(2);
    expect(first.stats.created).toBeGreaterThan(50);
    expect(first.stats.pages).toBeGreaterThan(3); // _count 50: paging through next links
    const types = await s.api.post<{ docType: number; count: number }[]>('/project/managePts/queryTypeList', { token: crc1, headers: H, form: { ptsId } });
    expect(types.body.data.find((t) => t.docType === 3)!.count).toBeGreaterThan(0);
    const progress = await s.api.post<{ type: number; status: number; displayInformation: string; extraInfoMap: Record<string, { done: number; total: number }> }[]>('/proProgressDisplay/list', { token: crc1, headers: H, json: { type: 2 } });
    const item = progress.body.data.find((p) => p.status === 2)!;
    expect(item.displayInformation).toContain('Source data extraction');
    expect(item.extraInfoMap.units!.done).toBe(item.extraInfoMap.units!.total);
  }, 120_000);

  it('re-running stores nothing new', async () => {
    const r = await s.api.post<{ tasks: TaskView[] }>('/project/managePts/addPtsTask', { token: crc1, headers: H, form: { ptsId } });
    const t = await taskDone(r.body.data.tasks[0]!.id);
    expect(t.status).toBe(2);
    expect(t.stats).toMatchObject({ created: 0, updated: 0 });
    expect(t.stats.unchanged).toBeGreaterThan(50);
  }, 120_000);

  it('a resource changed at the hospital becomes version 2 and shows in the change lists and the record detail', async () => {
    const list = await s.api.post<{ content: { id: number; resourceType: string; valueNum: number | null; externalId?: string }[] }>('/project/source/records/list', {
      token: crc1,
      headers: H,
      form: { ptsId, docType: 3, pageSize: 50 },
    });
    const rec = list.body.data.content.find((x) => x.resourceType === 'Observation' && x.valueNum !== null)!;
    const detail = await s.api.get<SourceRecordDetail>(`/project/source/record/detail?id=${rec.id}`, { token: crc1, headers: H });
    const obs = JSON.parse(detail.body.data.raw) as { id: string; valueQuantity: { value: number } };
    obs.valueQuantity.value = Math.round((obs.valueQuantity.value + 1.5) * 100) / 100;
    const put = await fhir.request('PUT', `/Observation/${obs.id}`, obs);
    expect(put.status).toBeLessThan(300);
    const r = await s.api.post<{ tasks: TaskView[] }>('/project/managePts/addPtsTask', { token: crc1, headers: H, form: { ptsId } });
    const t = await taskDone(r.body.data.tasks[0]!.id);
    expect(t.stats.updated).toBe(1);
    const d2 = await s.api.get<SourceRecordDetail>(`/project/source/record/detail?id=${rec.id}`, { token: crc1, headers: H });
    expect(d2.body.data.version).toBe(2);
    expect(d2.body.data.versions.map((v) => v.version)).toEqual([2, 1]);
    const changes = await s.api.post<{ content: ChangeRow[] }>('/pts/extract/report/syncChangeListByPage', { token: dm, headers: H, form: {} });
    const c = changes.body.data.content.find((x) => x.recordId === rec.id)!;
    expect(c).toMatchObject({ version: 2, changed: ['value'], newValue: String(obs.valueQuantity.value) });
    const mine = await s.api.post<ChangeRow[]>('/pts/extract/report/getPatientDataChangeDTOList', { token: dm, headers: H, form: { ptsId } });
    expect(mine.body.data.map((x) => x.recordId)).toContain(rec.id);
    const res = await fetch(`${s.api.base}/api/dataChangeReport/export`, { headers: { token: dm, proId: '1', proType: 'PRO', language: 'en_US' } });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toContain('spreadsheetml');
  }, 120_000);

  it("a prescription that names a Medication resource is stored with that medication's code (read from the server)", async () => {
    const list = await s.api.post<{ content: { id: number }[] }>('/project/source/records/list', { token: crc1, headers: H, form: { ptsId, pageSize: 50 } });
    const any = await s.api.get<SourceRecordDetail>(`/project/source/record/detail?id=${list.body.data.content[0]!.id}`, { token: crc1, headers: H });
    const subject = (JSON.parse(any.body.data.raw) as { subject?: { reference: string }; patient?: { reference: string } });
    const patientRef = (subject.subject ?? subject.patient)!.reference;
    const med = await fhir.request('PUT', '/Medication/med-include-1', {
      resourceType: 'Medication',
      id: 'med-include-1',
      code: { coding: [{ system: 'http://www.nlm.nih.gov/research/umls/rxnorm', code: '1049630', display: 'diphenhydrAMINE Hydrochloride 25 MG Oral Tablet' }] },
    });
    expect(med.status).toBeLessThan(300);
    const prescribe = (id: string, medicationReference: Record<string, string>) =>
      fhir.request('PUT', `/MedicationRequest/${id}`, {
        resourceType: 'MedicationRequest',
        id,
        status: 'active',
        intent: 'order',
        subject: { reference: patientRef },
        medicationReference,
        authoredOn: '2020-01-02T03:04:05Z',
      });
    expect((await prescribe('mr-include-1', { reference: 'Medication/med-include-1' })).status).toBeLessThan(300);
    // a Medication the server does not have: the record keeps the reference's display
    expect((await prescribe('mr-include-2', { reference: 'Medication/not-on-the-server', display: 'As the order names it' })).status).toBeLessThan(300);
    const r = await s.api.post<{ tasks: TaskView[] }>('/project/managePts/addPtsTask', { token: crc1, headers: H, form: { ptsId } });
    const t = await taskDone(r.body.data.tasks[0]!.id);
    expect(t.status).toBe(2);
    const rows = await s.database.db.select().from(sourceRecords).where(eq(sourceRecords.code, '1049630'));
    expect(rows.map((x) => ({ type: x.resourceType, display: x.display, docType: x.docType }))).toContainEqual({
      type: 'MedicationRequest',
      display: 'diphenhydrAMINE Hydrochloride 25 MG Oral Tablet',
      docType: 4,
    });
    const [kept] = await s.database.db.select().from(sourceRecords).where(eq(sourceRecords.externalId, 'MedicationRequest/mr-include-2'));
    expect(kept).toMatchObject({ code: null, display: 'As the order names it' });
  }, 120_000);

  it('a coordinator of another site sees none of it', async () => {
    const list = await s.api.post('/project/source/records/list', { token: crc2, headers: H, form: { ptsId } });
    expect(list.body.code).toBe(404);
    const conns = await s.api.post<ConnectionView[]>('/project/source/connection/list', { token: crc2, headers: H, form: {} });
    expect(conns.body.code === 403 || (conns.body.data ?? []).length === 0).toBe(true);
    const rep = await s.api.post<{ content: TaskView[] }>('/pts/extract/report/listByPage', { token: crc2, headers: H, form: {} });
    expect(rep.body.code === 403 || rep.body.data.content.length === 0).toBe(true);
    // nor extracts it, alone or in a list with a subject of their own
    const before = await s.database.db.select().from(sourceExtractTasks).where(eq(sourceExtractTasks.subjectId, ptsId));
    expect((await s.api.post('/project/managePts/addPtsTask', { token: crc2, headers: H, form: { ptsId } })).body.code).toBe(404);
    expect((await s.api.post('/project/managePts/addPtsTask', { token: crc2, headers: H, form: { ptsIds: [ptsId] } })).body.code).toBe(404);
    expect(await s.database.db.select().from(sourceExtractTasks).where(eq(sourceExtractTasks.subjectId, ptsId))).toHaveLength(before.length);
  });
});

describe('failures end the task with a translated reason, and it can be retried', () => {
  const cases: [string, string, RegExp][] = [
    ['500 with an OperationOutcome', 'e500', /HTTP 500: database is down for maintenance/],
    ['malformed JSON', 'bad', /malformed JSON/],
    ['an endless next chain', 'loop', /keeps sending next links/],
    ['a slow server', 'slow', /did not answer within 1000 ms/],
  ];
  for (const [name, path, message] of cases) {
    it(name, async () => {
      const db = s.database.db;
      await db.update(sourceConnections).set({ enabled: false }).where(eq(sourceConnections.projectId, 1));
      const [c] = await db
        .insert(sourceConnections)
        .values({ env: 'PRO', projectId: 1, siteId: siteA, kind: 'fhir', name: path, config: { ...fhirConfig(`${stubUrl}/${path}`), timeoutMs: 1000, pageLimit: 5, resourceTypes: ['Observation'] } })
        .returning();
      const r = await s.api.post<{ tasks: TaskView[] }>('/project/managePts/addPtsTask', { token: crc1, headers: H, form: { ptsId, connectionId: c!.id } });
      expect(r.body.code).toBe(200);
      const t = await taskDone(r.body.data.tasks[0]!.id);
      expect(t.status).toBe(3);
      expect(t.errorMessage).toMatch(message);
      const retry = await s.api.post<TaskView>('/project/managePts/update/ptsTask', { token: crc1, headers: H, form: { taskId: t.id, action: 'retry' } });
      expect(retry.body.code).toBe(200);
      expect((await taskDone(t.id)).status).toBe(3);
      await db.update(sourceConnections).set({ enabled: false }).where(eq(sourceConnections.id, c!.id));
    }, 60_000);
  }

  it('a retry while another extraction of the subject is live is refused with the translated reason, not an internal error', async () => {
    const db = s.database.db;
    const [failed] = await db.select().from(sourceExtractTasks).where(and(eq(sourceExtractTasks.subjectId, ptsId), eq(sourceExtractTasks.status, 3))).limit(1);
    const [live] = await db.insert(sourceExtractTasks).values({ env: 'PRO', projectId: 1, siteId: siteA, subjectId: ptsId, trigger: 'manual', status: 0 }).returning();
    try {
      const retry = await s.api.post('/project/managePts/update/ptsTask', { token: crc1, headers: H, form: { taskId: failed!.id, action: 'retry' } });
      expect(retry.body.code).toBe(409);
      expect(retry.body.message).toMatch(/Subject \S+ already has an extraction/);
    } finally {
      await db.delete(sourceExtractTasks).where(eq(sourceExtractTasks.id, live!.id));
    }
  });
});

describe('file ingestion and the matching queue', () => {
  type QueueRow = { id: number; name: string | null; records: number; siteId: number; status: number; patientKey: string };
  let fileConn = 0;
  let siteB = 0;
  let ptsB = 0;
  const fixture = (file: string) => zlib.gunzipSync(fs.readFileSync(path.join(SYNTHEA_DIR, file)));
  /** what interop's converter makes of the same resources: the oracle for "every resource accounted for" */
  const oracle = (resources: unknown[]) => {
    const conv = new FhirBatchConverter({ identifierRules: { systems: {} } });
    for (const r of resources) conv.add(r);
    conv.finish();
    return conv.summary;
  };
  async function upload(bytes: Buffer, name: string, token = dm) {
    const fd = new FormData();
    fd.append('id', String(fileConn));
    fd.append('file', new Blob([bytes]), name);
    return s.api.post<{ taskId: number }>('/project/source/connection/upload', { token, headers: H, raw: { body: fd } });
  }
  const queue = async (token: string, status = 0) =>
    (await s.api.post<{ content: QueueRow[] }>('/project/source/match/list', { token, headers: H, form: { status, pageSize: 100 } })).body;

  beforeAll(async () => {
    const db = s.database.db;
    const [c] = await db.insert(sourceConnections).values({ env: 'PRO', projectId: 1, siteId: siteA, kind: 'fhir_file', name: 'Files', config: {} }).returning();
    fileConn = c!.id;
    const [b] = await db.select().from(sites).where(and(eq(sites.projectId, 1), eq(sites.env, 'PRO'), eq(sites.siteNo, '02')));
    siteB = b!.id;
    const added = await s.api.post<{ ptsId: number }>('/project/managePts/add', { token: crc2, headers: H, form: { siteId: siteB, firstVisitDate: '2026-11-01' } });
    expect(added.body.code).toBe(200);
    ptsB = added.body.data.ptsId;
  });

  let bundleTotal = 0;
  let bundleRecords = 0;
  it('an uploaded Synthea bundle (multipart over HTTP) is ingested with every resource accounted for', async () => {
    const bytes = fixture(DEMO_BUNDLES[1]);
    const entries = (JSON.parse(bytes.toString('utf8')) as { entry: { resource: unknown }[] }).entry.map((e) => e.resource);
    const want = oracle(entries);
    bundleTotal = entries.length;
    bundleRecords = want.records;
    const r = await upload(bytes, 'bundle.json');
    expect(r.body.code).toBe(200);
    const t = await taskDone(r.body.data.taskId);
    expect(t.status).toBe(2);
    expect(t.trigger).toBe('file');
    // every entry read; patients + converted + skipped (by reason) = entries
    expect(t.stats.read).toBe(bundleTotal);
    expect(t.stats.byResourceType!.Patient).toBe(1);
    expect(t.stats.skipped).toEqual(want.skipped);
    expect(want.skipped.notClinical).toBeGreaterThan(0); // Claims, ExplanationOfBenefit … skipped with a reason
    expect(1 + want.converted + want.skippedTotal).toBe(bundleTotal);
    expect(t.stats).toMatchObject({ created: bundleRecords, updated: 0, unchanged: 0, patientsQueued: 1, patientsMatched: 0 });
  }, 120_000);

  it('the same bundle uploaded again stores nothing new', async () => {
    const r = await upload(fixture(DEMO_BUNDLES[1]), 'bundle-again.json');
    const t = await taskDone(r.body.data.taskId);
    expect(t.status).toBe(2);
    expect(t.stats).toMatchObject({ read: bundleTotal, created: 0, updated: 0, unchanged: bundleRecords });
    // still one source patient waiting, not two
    expect((await queue(crc1)).data.content.filter((x) => x.records > 0)).toHaveLength(1);
  }, 120_000);

  let ndjsonRecords = 0;
  it('Bulk Data NDJSON with a malformed line: the line is counted as malformed, every other resource is stored', async () => {
    const bytes = fixture(DEMO_BUNDLES[2]);
    const resources = (JSON.parse(bytes.toString('utf8')) as { entry: { resource: { resourceType: string } }[] }).entry.map((e) => e.resource);
    // the patient after its observations (Bulk Data files come in any order), plus a cut-off line in the middle
    const patient = resources.filter((x) => x.resourceType === 'Patient');
    const clinical = resources.filter((x) => ['Observation', 'Condition', 'Encounter'].includes(x.resourceType)).slice(0, 120);
    const lines = [...clinical.slice(0, 60).map((x) => JSON.stringify(x)), '{"resourceType":"Observation","id":"cut-off', ...clinical.slice(60).map((x) => JSON.stringify(x)), ...patient.map((x) => JSON.stringify(x))];
    const want = oracle([...clinical, ...patient]);
    ndjsonRecords = want.records;
    const r = await upload(Buffer.from(`${lines.join('\n')}\n`), 'export.ndjson');
    expect(r.body.code).toBe(200);
    const t = await taskDone(r.body.data.taskId);
    expect(t.status).toBe(2);
    expect(t.stats.read).toBe(lines.length);
    expect(t.stats.skipped).toEqual({ ...want.skipped, malformed: (want.skipped.malformed ?? 0) + 1 });
    expect(t.stats).toMatchObject({ created: ndjsonRecords, updated: 0, patientsQueued: 1 });
    const again = await taskDone((await upload(Buffer.from(`${lines.join('\n')}\n`), 'export.ndjson')).body.data.taskId);
    expect(again.stats).toMatchObject({ read: lines.length, created: 0, updated: 0, unchanged: ndjsonRecords });
  }, 120_000);

  it('a coordinator of the site resolves the matching queue; another site sees none of it and cannot take it', async () => {
    const q1 = await queue(crc1);
    const waiting = q1.data.content.filter((x) => x.records > 0);
    expect(waiting).toHaveLength(2);
    const fromBundle = waiting.find((x) => x.records === bundleRecords)!;
    const fromNdjson = waiting.find((x) => x.records === ndjsonRecords)!;
    expect(fromBundle.name).toBeTruthy();
    expect(fromBundle.siteId).toBe(siteA);
    // the other site's coordinator: an empty queue, and the patient cannot be assigned or dismissed by them
    expect((await queue(crc2)).data.content).toHaveLength(0);
    expect((await s.api.post('/project/source/match/assign', { token: crc2, headers: H, form: { id: fromBundle.id, ptsId: ptsB } })).body.code).toBe(404);
    expect((await s.api.post('/project/source/match/dismiss', { token: crc2, headers: H, form: { id: fromBundle.id } })).body.code).toBe(404);
    // site A's coordinator cannot give it to site B's subject (which they cannot even see); the data manager, who
    // sees both sites, is told why
    expect((await s.api.post('/project/source/match/assign', { token: crc1, headers: H, form: { id: fromBundle.id, ptsId: ptsB } })).body.code).toBe(404);
    const cross = await s.api.post('/project/source/match/assign', { token: dm, headers: H, form: { id: fromBundle.id, ptsId: ptsB } });
    expect(cross.body).toMatchObject({ code: 400, errorCode: 'SOURCE_MATCH_SITE', message: 'The subject must be at the same site as the source patient' });
    const listB = await s.api.post<{ totalCount: number }>('/project/source/records/list', { token: crc2, headers: H, form: { ptsId: ptsB } });
    expect(listB.body.data.totalCount).toBe(0);

    // assigned to a subject of the same site: its records follow
    const before = (await s.api.post<{ totalCount: number }>('/project/source/records/list', { token: crc1, headers: H, form: { ptsId } })).body.data.totalCount;
    const ok = await s.api.post<{ status: number; records: number; ptsId: number }>('/project/source/match/assign', { token: crc1, headers: H, form: { id: fromBundle.id, ptsId } });
    expect(ok.body.data).toMatchObject({ status: 2, records: bundleRecords, ptsId });
    const after = (await s.api.post<{ totalCount: number }>('/project/source/records/list', { token: crc1, headers: H, form: { ptsId } })).body.data.totalCount;
    expect(after).toBe(before + bundleRecords);
    // dismissed: not in the study; it leaves the queue and its records reach no subject
    const no = await s.api.post<{ status: number; ptsId: number | null }>('/project/source/match/dismiss', { token: crc1, headers: H, form: { id: fromNdjson.id } });
    expect(no.body.data).toMatchObject({ status: 3, ptsId: null });
    const q2 = await queue(crc1);
    expect(q2.data.content.map((x) => x.id)).not.toContain(fromBundle.id);
    expect(q2.data.content.map((x) => x.id)).not.toContain(fromNdjson.id);
    expect((await queue(crc1, 2)).data.content.map((x) => x.id)).toContain(fromBundle.id);
    expect((await queue(crc1, 3)).data.content.map((x) => x.id)).toContain(fromNdjson.id);
  }, 60_000);
});

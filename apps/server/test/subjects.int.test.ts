import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { and, eq } from 'drizzle-orm';
import { auditEvents, sites } from '../src/db/schema';
import { startTestServer, type TestServer } from './harness';

let s: TestServer;
let siteA: number;
let siteB: number;
const P = { proId: 1, proType: 'PRO' };
type Row = { ptsId: number; ptsNo: string; status: number; version: number; idCard: string | null; identifiersMasked: boolean; siteId: number };

beforeAll(async () => {
  s = await startTestServer();
  const rows = await s.database.db.select().from(sites).where(and(eq(sites.projectId, 1), eq(sites.env, 'PRO')));
  siteA = rows.find((r) => r.siteNo === '01')!.id;
  siteB = rows.find((r) => r.siteNo === '02')!.id;
});
afterAll(async () => {
  await s?.stop();
});

describe('subjects', () => {
  let crc1: string;
  let subj: Row;

  it('a coordinator enrols a subject at their site; number, first visit and identifiers are checked', async () => {
    crc1 = await s.api.login('crc1');
    const bad = await s.api.post('/project/managePts/add', {
      token: crc1,
      headers: { ...P, language: 'en_US' },
      form: { siteId: siteA, idCard: '110101199003071234', medicalRecordId: 'MR 1' },
    });
    expect(bad.status).toBe(400);
    expect(bad.body.detail!.map((d) => d.field).sort()).toEqual(['firstVisitDate', 'idCard', 'medicalRecordId']);
    const other = await s.api.post('/project/managePts/add', { token: crc1, headers: P, form: { siteId: siteB, firstVisitDate: '2026-11-01' } });
    expect(other.status).toBe(403);
    const r = await s.api.post<Row>('/project/managePts/add', {
      token: crc1,
      headers: P,
      form: { siteId: siteA, firstVisitDate: '2026-11-01', initials: 'ZS', medicalRecordId: 'MR0001', idCard: '11010519491231002X' },
    });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    subj = r.body.data;
    expect(subj).toMatchObject({ ptsNo: '01-001', status: 1, idCard: '11010519491231002X', identifiersMasked: false });
    const second = await s.api.post<Row>('/project/managePts/add', { token: crc1, headers: P, form: { siteId: siteA, firstVisitDate: '2026-11-02' } });
    expect(second.body.data.ptsNo).toBe('01-002');
    const dup = await s.api.post('/project/managePts/add', { token: crc1, headers: P, form: { siteId: siteA, firstVisitDate: '2026-11-02', ptsNo: '01-001' } });
    expect(dup.status).toBe(409);
  });

  it('site B cannot see it; the monitor sees it with identifiers masked', async () => {
    const crc2 = await s.api.login('crc2');
    const list = await s.api.post<{ content: Row[] }>('/project/manage/ptsList', { token: crc2, headers: P });
    expect(list.body.data.content).toEqual([]);
    const direct = await s.api.get('/project/manage/getPtsByProIdAndPtsId', { token: crc2, headers: P, query: { ptsId: subj.ptsId } });
    expect(direct.status).toBe(404);
    const cra = await s.api.login('cra');
    const seen = await s.api.post<{ content: Row[] }>('/project/manage/ptsList', { token: cra, headers: P, form: { sortField: 'ptsNo', sortOrder: 'desc' } });
    expect(seen.body.data.content.map((x) => x.ptsNo)).toEqual(['01-002', '01-001']);
    expect(seen.body.data.content[1]).toMatchObject({ idCard: '11**************2X', identifiersMasked: true });
  });

  it('follows the transition table, with a reason where required', async () => {
    const t = (status: number, reason?: string, version = subj.version) =>
      s.api.post<Row>('/project/managePts/updateStatus', { token: crc1, headers: { ...P, language: 'en_US' }, form: { ptsId: subj.ptsId, version, status, ...(reason ? { reason } : {}) } });
    const jump = await t(5);
    expect(jump.status).toBe(409);
    expect(jump.body.message).toBe("A subject cannot go from 'Screening' to 'Completed'");
    const noReason = await t(2);
    expect(noReason.status).toBe(400);
    expect(noReason.body.detail![0]!.field).toBe('reason');
    const enrolled = await t(3);
    expect(enrolled.body.data.status).toBe(3);
    const stale = await t(4, 'moved away', subj.version);
    expect(stale.status).toBe(409);
    subj = enrolled.body.data;
    const [row] = await s.database.db.select().from(auditEvents).where(and(eq(auditEvents.action, 'subject.status'), eq(auditEvents.subjectId, subj.ptsId)));
    expect(row).toMatchObject({ oldValue: '1', newValue: '3', projectId: 1, siteId: siteA });
  });

  it('deletes to the recycle bin and restores to the status it had', async () => {
    const dm = await s.api.login('dm');
    const del = await s.api.post('/project/managePts/delete', { token: crc1, headers: P, form: { ptsId: subj.ptsId, reason: 'entered twice' } });
    expect(del.status).toBe(200);
    const live = await s.api.post<{ content: Row[] }>('/project/manage/ptsList', { token: dm, headers: P });
    expect(live.body.data.content.map((x) => x.ptsNo)).toEqual(['01-002']);
    const bin = await s.api.post<{ content: Row[] }>('/project/failedPts/list', { token: dm, headers: P });
    expect(bin.body.data.content.map((x) => [x.ptsNo, x.status])).toEqual([['01-001', 0]]);
    const restored = await s.api.post<Row>('/project/failedPts/restore', { token: dm, headers: P, form: { ptsId: subj.ptsId, reason: 'deleted by mistake' } });
    expect(restored.body.data.status).toBe(3);
    // a project with subjects cannot be deleted
    const delProject = await s.api.post('/project/info/delete', { token: dm, headers: P, form: { id: 1 } });
    expect(delProject.status).toBe(409);
  });
});

describe('subject update', () => {
  it('changes only what is sent; a masked caller cannot touch identifiers', async () => {
    const crc1 = await s.api.login('crc1');
    const created = await s.api.post<Row & { medicalRecordId: string }>('/project/managePts/add', {
      token: crc1,
      headers: P,
      form: { siteId: siteA, firstVisitDate: '2026-10-01', medicalRecordId: 'MR-KEEP' },
    });
    const upd = await s.api.post<Row & { medicalRecordId: string; initials: string }>('/project/managePts/update', {
      token: crc1,
      headers: P,
      form: { ptsId: created.body.data.ptsId, version: created.body.data.version, initials: 'LW' },
    });
    expect(upd.body.data).toMatchObject({ initials: 'LW', medicalRecordId: 'MR-KEEP' });
    const dm = await s.api.login('dm');
    const masked = await s.api.post('/project/managePts/update', {
      token: dm,
      headers: P,
      form: { ptsId: created.body.data.ptsId, version: upd.body.data.version, medicalRecordId: 'MR-OTHER' },
    });
    expect(masked.status).toBe(403);
  });
});

/**
 * "Generate candidates" for more subjects than one request does (SAFETY_GENERATE_SYNC_MAX): the answer says queued
 * with a progress item, the `safety.generate` job works through every subject in the caller's scope reporting
 * done/total, the status call follows it to success, the generation is audited, and another user cannot read the
 * progress item.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { and, eq } from 'drizzle-orm';
import type { GenerateResult, GenerateStatus } from '@esource/shared';
import { auditEvents, safetyGeneration, sites } from '../src/db/schema';
import { startTestServer, waitFor, type TestServer } from './harness';

let s: TestServer;
const H = { proId: 1, proType: 'PRO', language: 'en_US' };
const tok: Record<string, string> = {};

beforeAll(async () => {
  s = await startTestServer({ config: { safetyGenerateSyncMax: 1 } });
  for (const a of ['dm', 'crc1']) tok[a] = await s.api.login(a);
  const [site] = await s.database.db.select().from(sites).where(and(eq(sites.projectId, 1), eq(sites.env, 'PRO'), eq(sites.siteNo, '01')));
  for (let i = 0; i < 3; i++) await s.api.post('/project/managePts/add', { token: tok.crc1, headers: H, form: { siteId: site!.id, firstVisitDate: '2026-01-05' } });
});
afterAll(async () => {
  await s?.stop();
});

describe('generation of a whole project as a job', () => {
  it('queues, reports done/total, ends in success and is audited', async () => {
    const r = await s.api.post<GenerateResult>('/selection/generate', { token: tok.dm, headers: H, json: {} });
    expect(r.status).toBe(200);
    const g = r.body.data;
    expect(g.queued).toBe(true);
    expect(g.subjects).toBeGreaterThanOrEqual(3);
    expect(g.progressId).toBeGreaterThan(0);
    const status = () => s.api.get<GenerateStatus>('/selection/generate/status', { token: tok.dm, headers: H, query: { id: g.progressId! } });
    const done = await waitFor(status, (x) => x.body.data?.status !== 'processing');
    expect(done.body.data).toEqual({ status: 'success', done: g.subjects, total: g.subjects });
    // every subject was looked at (its fingerprint stored), and the run is in the audit trail with its totals
    expect((await s.database.db.select().from(safetyGeneration)).length).toBeGreaterThanOrEqual(g.subjects);
    const audit = await s.database.db.select().from(auditEvents).where(eq(auditEvents.action, 'safety.generate'));
    expect(audit.length).toBe(1);
    expect(JSON.parse(audit[0]!.newValue!)).toMatchObject({ subjects: g.subjects });
  });

  it('one subject is still generated in the request', async () => {
    const list = await s.api.post<{ content: { ptsId: number }[] }>('/project/manage/ptsList', { token: tok.dm, headers: H, form: { pageNumber: 1, pageSize: 50 } });
    const id = list.body.data.content[0]!.ptsId;
    const r = await s.api.post<GenerateResult>('/selection/generate', { token: tok.dm, headers: H, json: { ptsId: id } });
    expect(r.body.data.queued).toBeUndefined();
    expect(r.body.data.subjects).toBe(1);
  });

  it('another user cannot read the progress of someone else’s generation', async () => {
    const r = await s.api.post<GenerateResult>('/selection/generate', { token: tok.dm, headers: H, json: {} });
    const other = await s.api.get('/selection/generate/status', { token: tok.crc1, headers: H, query: { id: r.body.data.progressId! } });
    // the site coordinator lacks clinical:judge:update altogether, or gets not found: never the item
    expect([403, 404]).toContain(other.status);
    await waitFor(
      () => s.api.get<GenerateStatus>('/selection/generate/status', { token: tok.dm, headers: H, query: { id: r.body.data.progressId! } }),
      (x) => x.body.data?.status !== 'processing',
    );
  });
});

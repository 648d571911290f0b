/**
 * Extraction tasks nobody runs (issue 11 item 5, "survive a restart"): a task whose worker process died (kill -9 leaves
 * it 'running' with a heartbeat that stopped) and a task committed whose job was never queued (the process stopped
 * between the two). ExtractService.recover, which workers call at start and every minute, queues them again (the
 * extraction is idempotent), at most twice, then fails them with a translated 'interrupted' reason that a user can
 * retry; a task whose heartbeat is fresh is left alone, and two workers recovering at once restart a task once.
 * The restarted tasks really run against the demo hospital (@medplum/fhir-router).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { and, eq, inArray } from 'drizzle-orm';
import { TASK_STATUS } from '@esource/shared';
import { auditEvents, sites, sourceExtractTasks, subjects } from '../src/db/schema';
import { DEMO_BUNDLES, DEMO_MRN_SYSTEM, demoMrnOf, startDemoFhirServer, type DemoFhirServer } from '../src/modules/sources/demo-fhir-server';
import { ExtractService, STALE_MS } from '../src/modules/sources/extract.service';
import { startTestServer, type TestServer } from './harness';

let s: TestServer;
let fhir: DemoFhirServer;
let siteId = 0;
let connectionId = 0;
let dm = '';
const H = { proId: 1, proType: 'PRO', language: 'en_US' };
const subjectIds: number[] = [];

async function task(subjectId: number, values: Partial<typeof sourceExtractTasks.$inferInsert>) {
  const [t] = await s.database.db
    .insert(sourceExtractTasks)
    .values({ env: 'PRO', projectId: 1, siteId, subjectId, connectionId, trigger: 'manual', ...values })
    .returning();
  return t!;
}

async function settled(ids: number[]) {
  const end = Date.now() + 60_000;
  for (;;) {
    const list = await s.database.db.select().from(sourceExtractTasks).where(inArray(sourceExtractTasks.id, ids)).orderBy(sourceExtractTasks.id);
    if (list.every((t) => t.status >= TASK_STATUS.done)) return list;
    if (Date.now() > end) throw new Error(`tasks still live: ${JSON.stringify(list.map((t) => [t.id, t.status]))}`);
    await new Promise((r) => setTimeout(r, 300));
  }
}

beforeAll(async () => {
  fhir = await startDemoFhirServer({ bundles: [...DEMO_BUNDLES] });
  s = await startTestServer();
  const db = s.database.db;
  const crc1 = await s.api.login('crc1');
  dm = await s.api.login('dm');
  const [a] = await db.select().from(sites).where(and(eq(sites.projectId, 1), eq(sites.env, 'PRO'), eq(sites.siteNo, '01')));
  siteId = a!.id;
  for (const file of DEMO_BUNDLES) {
    const r = await s.api.post<{ ptsId: number }>('/project/managePts/add', { token: crc1, headers: H, form: { siteId, firstVisitDate: '2027-02-10' } });
    expect(r.body.code, JSON.stringify(r.body)).toBe(200);
    await db.update(subjects).set({ medicalRecordId: demoMrnOf(file) }).where(eq(subjects.id, r.body.data.ptsId));
    subjectIds.push(r.body.data.ptsId);
  }
  const conn = await s.api.post<{ id: number }>('/project/source/connection/add', {
    token: dm,
    headers: H,
    json: { siteId, kind: 'fhir', name: 'Demo hospital', config: { baseUrl: fhir.url, auth: 'none', identifierSystems: [{ system: DEMO_MRN_SYSTEM, type: 'medicalRecordId' }], resourceTypes: ['Observation'], pageSize: 200 } },
  });
  expect(conn.body.code, JSON.stringify(conn.body)).toBe(200);
  connectionId = conn.body.data.id;
}, 120_000);

afterAll(async () => {
  await s?.stop();
  await fhir?.close();
});

describe('extraction tasks that nobody runs', () => {
  it('restarts a task whose process died and one never queued, leaves a live one alone, and restarts each once with two workers', async () => {
    const now = new Date();
    const longAgo = new Date(now.getTime() - STALE_MS - 60_000);
    // died mid-run: 'running', its heartbeat stopped minutes ago, its job id one pg-boss does not know
    const died = await task(subjectIds[0]!, { status: TASK_STATUS.running, startedAt: longAgo, heartbeatAt: longAgo, jobId: '00000000-0000-4000-8000-000000000001', createdBy: null });
    // committed, but the process stopped before the job was sent
    const unqueued = await task(subjectIds[1]!, { status: TASK_STATUS.queued, createdAt: longAgo });
    // a live task: its heartbeat is fresh (a long extraction still running somewhere)
    const live = await task(subjectIds[2]!, { status: TASK_STATUS.running, startedAt: longAgo, heartbeatAt: now, jobId: '00000000-0000-4000-8000-000000000002' });

    const [one, two] = [new ExtractService(s.database, s.jobs), new ExtractService(s.database, s.jobs)];
    const results = await Promise.all([one.recover(now), two.recover(now)]);
    expect(results.reduce((n, r) => n + r.restarted, 0)).toBe(2);
    expect(results.reduce((n, r) => n + r.failed, 0)).toBe(0);

    const [d, u] = await settled([died.id, unqueued.id]);
    for (const t of [d!, u!]) {
      expect(t.status, JSON.stringify(t)).toBe(TASK_STATUS.done);
      expect((t.stats as { created: number }).created).toBeGreaterThan(0);
      expect((t.stats as { restarts: number }).restarts).toBe(1);
    }
    const [l] = await s.database.db.select().from(sourceExtractTasks).where(eq(sourceExtractTasks.id, live.id));
    expect(l).toMatchObject({ status: TASK_STATUS.running, jobId: live.jobId });
    // audited as the system's doing
    const audit = await s.database.db.select().from(auditEvents).where(inArray(auditEvents.action, ['source.extract.restart']));
    expect(audit.map((e) => Number(e.entityId)).sort()).toEqual([died.id, unqueued.id].sort());
    await s.database.db.update(sourceExtractTasks).set({ status: TASK_STATUS.cancelled }).where(eq(sourceExtractTasks.id, live.id));
  }, 90_000);

  it('fails a task interrupted too often with a translated reason, and a user can retry it', async () => {
    const now = new Date();
    const longAgo = new Date(now.getTime() - STALE_MS - 60_000);
    const t = await task(subjectIds[3]!, { status: TASK_STATUS.running, startedAt: longAgo, heartbeatAt: longAgo, stats: { restarts: 2 } });
    expect(await new ExtractService(s.database, s.jobs).recover(now)).toEqual({ restarted: 0, failed: 1 });
    const list = await s.api.post<{ content: { id: number; status: number; errorMessage: string | null }[] }>('/pts/extract/report/listByPage', {
      token: dm,
      headers: H,
      json: { pageNumber: 1, pageSize: 50 },
    });
    expect(list.body.code, JSON.stringify(list.body)).toBe(200);
    const row = list.body.data.content.find((x) => x.id === t.id);
    expect(row).toMatchObject({ status: TASK_STATUS.failed });
    expect(row!.errorMessage).toMatch(/interrupted 3 times/);
    // the subject is not blocked: retry runs it to the end
    const retry = await s.api.post('/project/managePts/update/ptsTask', { token: dm, headers: H, json: { taskId: t.id, action: 'retry' } });
    expect(retry.body.code, JSON.stringify(retry.body)).toBe(200);
    const [done] = await settled([t.id]);
    expect(done!.status).toBe(TASK_STATUS.done);
  }, 90_000);
});

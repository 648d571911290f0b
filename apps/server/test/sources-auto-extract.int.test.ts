/**
 * The automatic daily extraction (issue 11 item 5): at 12:00 in the project's time zone (projects.timezone), one
 * task per subject whose visit window holds that day, at a site with a hospital connection; idempotent per subject
 * per day — two ticks, or two workers ticking at once, make one task, and a task that already finished still counts;
 * nothing while the project's autoPrefillDisabled is set. The tick is driven with an injected clock (no sleeping);
 * the queued tasks really run against the demo hospital (@medplum/fhir-router).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { and, eq, inArray } from 'drizzle-orm';
import { projects, sites, sourceExtractTasks, subjects } from '../src/db/schema';
import { DEMO_BUNDLES, DEMO_MRN_SYSTEM, demoMrnOf, startDemoFhirServer, type DemoFhirServer } from '../src/modules/sources/demo-fhir-server';
import { ExtractService } from '../src/modules/sources/extract.service';
import { startTestServer, type TestServer } from './harness';

let s: TestServer;
let fhir: DemoFhirServer;
const H = { proId: 1, proType: 'PRO', language: 'en_US' };
/** in window on 2027-03-10 (week 4: 2027-03-07 … 2027-03-17), at site 01 with a connection */
let inWindow = 0;
/** at site 01, but no visit window holds 2027-03-10 */
let outOfWindow = 0;
/** in window, but site 02 has no hospital connection */
let noConnection = 0;

const tasksOf = async (subjectId: number) =>
  s.database.db.select().from(sourceExtractTasks).where(eq(sourceExtractTasks.subjectId, subjectId)).orderBy(sourceExtractTasks.id);

beforeAll(async () => {
  fhir = await startDemoFhirServer({ bundles: [DEMO_BUNDLES[0]] });
  s = await startTestServer();
  const db = s.database.db;
  const [dm, crc1, crc2] = await Promise.all([s.api.login('dm'), s.api.login('crc1'), s.api.login('crc2')]);
  const [a] = await db.select().from(sites).where(and(eq(sites.projectId, 1), eq(sites.env, 'PRO'), eq(sites.siteNo, '01')));
  const [b] = await db.select().from(sites).where(and(eq(sites.projectId, 1), eq(sites.env, 'PRO'), eq(sites.siteNo, '02')));
  const add = async (token: string, siteId: number, firstVisitDate: string) => {
    const r = await s.api.post<{ ptsId: number }>('/project/managePts/add', { token, headers: H, form: { siteId, firstVisitDate } });
    expect(r.body.code, JSON.stringify(r.body)).toBe(200);
    return r.body.data.ptsId;
  };
  inWindow = await add(crc1, a!.id, '2027-02-10');
  outOfWindow = await add(crc1, a!.id, '2027-06-01');
  noConnection = await add(crc2, b!.id, '2027-02-10');
  await db.update(subjects).set({ medicalRecordId: demoMrnOf(DEMO_BUNDLES[0]) }).where(eq(subjects.id, inWindow));
  const conn = await s.api.post('/project/source/connection/add', {
    token: dm,
    headers: H,
    json: { siteId: a!.id, kind: 'fhir', name: 'Demo hospital', config: { baseUrl: fhir.url, auth: 'none', identifierSystems: [{ system: DEMO_MRN_SYSTEM, type: 'medicalRecordId' }], resourceTypes: ['Observation'], pageSize: 200 } },
  });
  expect(conn.body.code, JSON.stringify(conn.body)).toBe(200);
  // the project keeps New York time: noon there is 17:00 UTC in March (EST)
  await db.update(projects).set({ timezone: 'America/New_York' }).where(eq(projects.id, 1));
}, 120_000);

afterAll(async () => {
  await s?.stop();
  await fhir?.close();
});

async function finished(subjectId: number) {
  const end = Date.now() + 60_000;
  for (;;) {
    const list = await tasksOf(subjectId);
    if (list.every((t) => t.status >= 2)) return list;
    if (Date.now() > end) throw new Error(`tasks still live: ${JSON.stringify(list.map((t) => [t.id, t.status]))}`);
    await new Promise((r) => setTimeout(r, 300));
  }
}

describe('automatic daily extraction', () => {
  it("waits for 12:00 in the project's time zone, not the server's or Shanghai's", async () => {
    const svc = new ExtractService(s.database, s.jobs);
    await svc.autoTick(new Date('2027-03-10T05:00:00Z')); // 13:00 in Shanghai, 00:00 in New York
    await svc.autoTick(new Date('2027-03-10T16:59:00Z')); // 11:59 in New York
    expect(await tasksOf(inWindow)).toHaveLength(0);
  });

  it('at noon: one task for the subject in window, even with two workers ticking at once', async () => {
    const noon = new Date('2027-03-10T17:00:00Z');
    const [one, two] = [new ExtractService(s.database, s.jobs), new ExtractService(s.database, s.jobs)];
    await Promise.all([one.autoTick(noon), two.autoTick(noon), one.autoTick(noon)]);
    const list = await tasksOf(inWindow);
    expect(list).toHaveLength(1);
    expect(list[0]).toMatchObject({ trigger: 'auto', dateTo: '2027-03-10', siteId: expect.any(Number) as number });
    // nobody else: out of window, or at a site without a hospital connection
    expect(await s.database.db.select().from(sourceExtractTasks).where(inArray(sourceExtractTasks.subjectId, [outOfWindow, noConnection]))).toHaveLength(0);
    // the task really runs
    const [t] = await finished(inWindow);
    expect(t).toMatchObject({ status: 2 });
    expect((t!.stats as { created: number }).created).toBeGreaterThan(0);
  }, 90_000);

  it('later that day (the task finished) and after a restart (a new service): still one task that day', async () => {
    await new ExtractService(s.database, s.jobs).autoTick(new Date('2027-03-10T23:30:00Z'));
    await new ExtractService(s.database, s.jobs).autoTick(new Date('2027-03-11T04:59:00Z')); // 23:59 in New York
    expect(await tasksOf(inWindow)).toHaveLength(1);
  });

  it('the next day (still in window) gets its own task', async () => {
    await new ExtractService(s.database, s.jobs).autoTick(new Date('2027-03-11T17:30:00Z'));
    const list = await finished(inWindow);
    expect(list.map((t) => t.dateTo)).toEqual(['2027-03-10', '2027-03-11']);
  }, 90_000);

  it("nothing while the project's automatic pre-fill is off", async () => {
    await s.database.db.update(projects).set({ autoPrefillDisabled: true }).where(eq(projects.id, 1));
    try {
      expect(await new ExtractService(s.database, s.jobs).autoTick(new Date('2027-03-12T17:30:00Z'))).toBe(0);
      expect(await tasksOf(inWindow)).toHaveLength(2);
    } finally {
      await s.database.db.update(projects).set({ autoPrefillDisabled: false }).where(eq(projects.id, 1));
    }
  });
});

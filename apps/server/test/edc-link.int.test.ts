/**
 * Associate EDC (/edc-link): a centre user links their own EDC account and the syncs they start use it. The demo EDC
 * (a strict Rave-style receiver that accepts one user and password) plays the EDC where only that person has an
 * account; the project's configuration holds a service account the EDC refuses — so a sync that succeeds can only
 * have talked to it as the person. A wrong password is refused with the EDC's reason and not saved, no response
 * carries the secret, and another user neither sees nor removes someone's link.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { and, eq, like } from 'drizzle-orm';
import type { EdcConfigView, EdcLinkRow, EdcMappingView, EdcRunView } from '@esource/shared';
import { auditEvents, edcSyncRuns, edcUserLinks, sites, subjects, users } from '../src/db/schema';
import { DEMO_EDC, DEMO_EDC_BP_GROUP, startDemoEdc } from '../src/modules/edc/demo-edc';
import type { RaveReceiver } from '../src/modules/edc/receivers/rave-receiver';
import { startTestServer, waitFor, type TestServer } from './harness';

let s: TestServer;
let edc: RaveReceiver;
const H = { proId: 1, proType: 'PRO', language: 'en_US' };
const tok: Record<string, string> = {};
/** every response body of this file, to check that no secret was ever sent back */
const seen: string[] = [];
let ptsId = 0;
let configId = 0;
type Sched = { code: string; visitId: number; forms: { code: string; formId: number }[] }[];

const call = async <T>(who: string, url: string, json: Record<string, unknown> = {}) => {
  const r = await s.api.post<T>(url, { token: tok[who], headers: H, json });
  seen.push(JSON.stringify(r.body));
  return r;
};
const syncAs = async (who: string) => {
  const r = await call<EdcRunView>(who, '/project/pts/job/handEDCStart', { scope: 'subject', ptsId });
  expect(r.status, JSON.stringify(r.body)).toBe(200);
  const run = await waitFor(
    async () =>
      (await s.database.db.select().from(edcSyncRuns).where(eq(edcSyncRuns.id, r.body.data.id)))[0]!,
    (x) => x.status >= 2,
    60_000,
  );
  return { view: r.body.data, run };
};

beforeAll(async () => {
  s = await startTestServer();
  // a second centre user (login type 1) who is a member of the demo project too
  await s.database.db
    .update(users)
    .set({ loginTypes: [1, 2] })
    .where(eq(users.account, 'cra'));
  tok.dm = await s.api.login('dm');
  tok.cra = await s.api.login('cra', { loginType: 1 });
  tok.crc1 = await s.api.login('crc1');
  edc = (await startDemoEdc(s.database.db, 0))!;
  const [site] = await s.database.db
    .select()
    .from(sites)
    .where(and(eq(sites.projectId, 1), eq(sites.env, 'PRO'), eq(sites.siteNo, '01')));
  const r = await s.api.post<{ ptsId: number }>('/project/managePts/add', {
    token: tok.crc1,
    headers: H,
    form: { siteId: site!.id, firstVisitDate: '2026-11-01' },
  });
  ptsId = r.body.data.ptsId;
  const sched = await s.api.get<Sched>('/project/pts/visits', {
    token: tok.crc1,
    headers: H,
    query: { ptsId },
  });
  const v1 = sched.body.data.find((v) => v.code === 'V1')!;
  const formId = v1.forms.find((f) => f.code === 'VS')!.formId;
  const vs = await s.api.post('/crf/form/item/result/saveBatch', {
    token: tok.crc1,
    headers: H,
    json: {
      ptsId,
      visitId: v1.visitId,
      formId,
      entryMode: 2,
      items: Object.entries({ VSDTC: '2026-11-02 09:30', SYSBP: 128, DIABP: 82, HR: 71, WEIGHT: 72 }).map(
        ([variable, value]) => ({ variable, value }),
      ),
    },
  });
  expect(vs.status, JSON.stringify(vs.body)).toBe(200);
  // configure and map with the account the EDC knows, then leave the configuration a service account it refuses
  const cfg = await call<EdcConfigView>('dm', '/edc/config/save', {
    kind: 1,
    name: 'Demo EDC',
    baseUrl: edc.url,
    studyOid: DEMO_EDC.studyOid,
    targetEnv: DEMO_EDC.environment,
    secret: `${DEMO_EDC.user}:${DEMO_EDC.password}`,
  });
  expect(cfg.status, JSON.stringify(cfg.body)).toBe(200);
  configId = cfg.body.data.id;
  expect((await call('dm', '/crf/form/item/getEDCItemList', { refresh: true })).status).toBe(200);
  const [sub] = await s.database.db.select().from(subjects).where(eq(subjects.id, ptsId));
  expect(
    (await call<EdcMappingView>('dm', '/edc/mapping/auto', { versionId: sub!.designVersionId })).body.data
      .problems,
  ).toEqual([]);
  const svc = await call<EdcConfigView>('dm', '/edc/config/save', {
    kind: 1,
    name: 'Demo EDC',
    baseUrl: edc.url,
    studyOid: DEMO_EDC.studyOid,
    targetEnv: DEMO_EDC.environment,
    secret: 'esource-robot:Robot-Pass-1',
    version: cfg.body.data.version,
  });
  expect(svc.status, JSON.stringify(svc.body)).toBe(200);
}, 120_000);
afterAll(async () => {
  await edc?.close();
  await s?.stop();
});

describe('Associate EDC', () => {
  it('lists the EDCs of the projects the user is a member of; centre users only', async () => {
    const list = await call<EdcLinkRow[]>('dm', '/edc/link/list');
    expect(list.status, JSON.stringify(list.body)).toBe(200);
    expect(list.body.data).toEqual([
      expect.objectContaining({
        configId,
        projectId: 1,
        env: 'PRO',
        kind: 1,
        name: 'Demo EDC',
        baseUrl: edc.url,
        linked: false,
        login: null,
        verifiedAt: null,
      }),
    ]);
    // a site user (login type 3) has nothing to link: an empty list
    const site = await call<unknown[]>('crc1', '/edc/link/list');
    expect(site.status).toBe(200);
    expect(site.body.data).toEqual([]);
  });

  it('without a link a sync uses the service account (refused here) and records no personal account', async () => {
    const { run, view } = await syncAs('dm');
    expect(view.edcAccount).toBeNull();
    expect(run.status).toBe(3);
    expect(run.edcAccount).toBeNull();
    expect(run.error).toMatch(/RWS00008|401/);
  }, 90_000);

  it('refuses a wrong password with the EDC reason and saves nothing', async () => {
    const before = edc.requests.length;
    const r = await call('dm', '/edc/link/save', {
      configId,
      login: DEMO_EDC.user,
      secret: 'Not-The-Password-9',
    });
    expect(r.status, JSON.stringify(r.body)).toBe(400);
    expect(r.body.errorCode).toBe('EDC_LINK_REFUSED');
    expect(r.body.message).toMatch(/HTTP 401: Incorrect login and password combination. \[RWS00008\]/);
    expect(r.body.message).not.toContain('<?xml');
    expect(JSON.stringify(r.body)).not.toContain('Not-The-Password-9');
    expect(edc.requests.length).toBeGreaterThan(before);
    expect(await s.database.db.select().from(edcUserLinks)).toEqual([]);
    // a user of another project environment's EDC, or of none: not found
    expect(
      (await call('dm', '/edc/link/save', { configId: configId + 99, login: 'x', secret: 'y' })).status,
    ).toBe(404);
  });

  it('saves a verified link, and a sync started by that user authenticates as them', async () => {
    const r = await call<EdcLinkRow>('dm', '/edc/link/save', {
      configId,
      login: DEMO_EDC.user,
      secret: DEMO_EDC.password,
    });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    expect(r.body.data).toMatchObject({ configId, linked: true, login: DEMO_EDC.user });
    expect(r.body.data.verifiedAt).not.toBeNull();
    const [link] = await s.database.db.select().from(edcUserLinks);
    expect(link!.secretEnc).not.toContain(DEMO_EDC.password);
    expect(link!.secretEnc.startsWith('v1:')).toBe(true);

    const from = edc.requests.length;
    const { run, view } = await syncAs('dm');
    expect(view.edcAccount).toBe(DEMO_EDC.user);
    expect(run.status, JSON.stringify(run)).toBe(2);
    expect(run.edcAccount).toBe(DEMO_EDC.user);
    expect(run.counts).toMatchObject({ sent: 1, synced: 1 });
    // the EDC saw the person (its only account), never a refused request; its log holds no Authorization
    expect(edc.lastUser).toBe(DEMO_EDC.user);
    const mine = edc.requests.slice(from);
    expect(mine.length).toBeGreaterThan(0);
    expect(mine.every((q) => q.status === 200)).toBe(true);
    expect(mine.every((q) => !('authorization' in q.headers) && !q.body.includes(DEMO_EDC.password))).toBe(
      true,
    );
    expect(
      edc.value(
        (await s.database.db.select().from(subjects).where(eq(subjects.id, ptsId)))[0]!.ptsNo,
        // (the demo EDC keeps blood pressure in an item group of its own)
        { event: 'SE.V1', form: 'F.VS', group: DEMO_EDC_BP_GROUP },
        'I.VS.SYSBP',
      ),
    ).toBe('128');
    // the run list shows the account
    const runs = await call<{ content: EdcRunView[] }>('dm', '/edcLog/exportList', {
      pageNumber: 1,
      pageSize: 50,
    });
    expect(runs.status, JSON.stringify(runs.body)).toBe(200);
    expect(runs.body.data.content[0]).toMatchObject({ id: run.id, edcAccount: DEMO_EDC.user });
  }, 90_000);

  it('another user neither sees nor removes the link', async () => {
    const list = await call<EdcLinkRow[]>('cra', '/edc/link/list');
    expect(list.status, JSON.stringify(list.body)).toBe(200);
    expect(list.body.data).toEqual([expect.objectContaining({ configId, linked: false, login: null })]);
    const rm = await call('cra', '/edc/link/remove', { configId });
    expect(rm.status).toBe(404);
    expect(await s.database.db.select().from(edcUserLinks)).toHaveLength(1);
  });

  it('unlinks; link and unlink are audited without the secret', async () => {
    const rm = await call<{ removed: boolean }>('dm', '/edc/link/remove', { configId });
    expect(rm.status, JSON.stringify(rm.body)).toBe(200);
    expect((await call<EdcLinkRow[]>('dm', '/edc/link/list')).body.data[0]).toMatchObject({
      linked: false,
      login: null,
    });
    expect((await call('dm', '/edc/link/remove', { configId })).status).toBe(404);
    const audit = await s.database.db
      .select()
      .from(auditEvents)
      .where(like(auditEvents.action, 'edc.link.%'));
    expect(audit.map((a) => a.action).sort()).toEqual(['edc.link.remove', 'edc.link.save']);
    for (const a of audit) expect(`${a.oldValue} ${a.newValue}`).not.toContain(DEMO_EDC.password);
    expect(audit.every((a) => a.projectId === 1 && a.env === 'PRO')).toBe(true);
    for (const body of seen) expect(body).not.toContain(DEMO_EDC.password);
  });
});

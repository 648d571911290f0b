import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eq, and } from 'drizzle-orm';
import { z } from 'zod';
import { projects, sites } from '../src/db/schema';
import { defineRoute } from '../src/lib/route';
import { DEMO_PROJECT_ID, startTestServer, type TestServer } from './harness';

let s: TestServer;
const P = { proId: DEMO_PROJECT_ID };
let siteA: number;
let siteB: number;

beforeAll(async () => {
  s = await startTestServer({
    extraRoutes: () => [
      // a site-scoped write, as later modules declare them
      defineRoute({
        method: 'POST',
        url: '/test/site/write',
        guard: { permission: { allOf: ['patient:page:add'] }, scope: 'site' },
        summary: 'site write',
        tags: ['test'],
        response: z.object({ siteId: z.number() }),
        handler: async ({ ctx }) => ({ siteId: ctx.siteId! }),
      }),
    ],
  });
  const rows = await s.database.db
    .select()
    .from(sites)
    .where(and(eq(sites.projectId, DEMO_PROJECT_ID), eq(sites.env, 'PRO')));
  siteA = rows.find((r) => r.siteNo === '01')!.id;
  siteB = rows.find((r) => r.siteNo === '02')!.id;
});
afterAll(async () => {
  await s?.stop();
});

describe('project and site scope', () => {
  it('refuses a project route without proId, and to a non-member', async () => {
    const admin = await s.api.login('admin');
    const none = await s.api.post('/pro/site/list', { token: admin, headers: { language: 'en_US' } });
    expect(none.status).toBe(400);
    expect(none.body.errorCode).toBe('PROJECT_REQUIRED');
    const notMember = await s.api.post('/pro/site/list', { token: admin, headers: P });
    expect(notMember.status).toBe(403);
    expect(notMember.body.errorCode).toBe('NOT_MEMBER');
  });

  it('a site user sees only their own sites and is denied another site', async () => {
    const crc1 = await s.api.login('crc1');
    const list = await s.api.post<{ id: number }[]>('/pro/site/list', { token: crc1, headers: P });
    expect(list.body.data.map((x) => x.id)).toEqual([siteA]);
    const other = await s.api.post('/pro/site/list', { token: crc1, headers: { ...P, proSiteId: siteB, language: 'en_US' } });
    expect(other.status).toBe(403);
    expect(other.body).toMatchObject({ errorCode: 'SITE_FORBIDDEN', message: "You have no access to this site's data" });
    const write = await s.api.post('/test/site/write', { token: crc1, headers: { ...P, proSiteId: siteB } });
    expect(write.status).toBe(403);
    const own = await s.api.post<{ siteId: number }>('/test/site/write', { token: crc1, headers: { ...P, proSiteId: siteA } });
    expect(own.status).toBe(200);
    expect(own.body.data.siteId).toBe(siteA);
    const noSite = await s.api.post('/test/site/write', { token: crc1, headers: P });
    expect(noSite.body.errorCode).toBe('SITE_REQUIRED');
  });

  it('a monitor with every site sees both', async () => {
    const cra = await s.api.login('cra');
    const list = await s.api.post<{ id: number }[]>('/pro/site/list', { token: cra, headers: P });
    expect(list.body.data.map((x) => x.id).sort()).toEqual([siteA, siteB].sort());
  });

  it('403 names the missing permission case in both languages', async () => {
    const ae = await s.api.login('ae');
    const zh = await s.api.post('/pro/site/list', { token: ae, headers: P });
    expect(zh.status).toBe(403);
    expect(zh.body).toMatchObject({ code: 403, status: '0', errorCode: 'FORBIDDEN', message: '暂无权限' });
    const en = await s.api.post('/pro/site/list', { token: ae, headers: { ...P, language: 'en_US' } });
    expect(en.body.message).toBe('No permission');
  });

  it('a project role never opens a system-scope route', async () => {
    const cra = await s.api.login('cra');
    const inProject = await s.api.post<{ pms: string[] }>('/auth/user/pmsInfo', { token: cra, json: {}, headers: P });
    expect(inProject.body.data.pms).toContain('syslog:audit-supervise-log:query');
    const sys = await s.api.post('/audit/log/v1/listByPage', { token: cra, headers: P });
    expect(sys.status).toBe(403);
    const proj = await s.api.post('/project/auditLogs/listByPage', { token: cra, headers: P });
    expect(proj.status).toBe(200);
  });
});

describe('closed project (status 3)', () => {
  it('cuts permissions to system:*, query/export and project:info:status, on the server', async () => {
    const dm = await s.api.login('dm');
    const crc1 = await s.api.login('crc1');
    const open = await s.api.post<{ pms: string[] }>('/auth/user/pmsInfo', { token: dm, json: {}, headers: P });
    expect(open.body.data.pms).toContain('crf:form:update');
    expect((await s.api.post('/test/site/write', { token: crc1, headers: { ...P, proSiteId: siteA } })).status).toBe(200);

    await s.database.db.update(projects).set({ status: 3 }).where(eq(projects.id, DEMO_PROJECT_ID));
    try {
      const closed = await s.api.post<{ pms: string[]; project: { status: number } }>('/auth/user/pmsInfo', {
        token: dm,
        json: {},
        headers: P,
      });
      expect(closed.body.data.project.status).toBe(3);
      const pms = closed.body.data.pms;
      expect(pms).not.toContain('crf:form:update');
      expect(pms).toContain('crf:form:query');
      expect(pms).toContain('crf:form:export');
      expect(pms).toContain('project:info:status');
      for (const p of pms) expect(p.startsWith('system:') || /:(query|export)$/.test(p) || p === 'project:info:status').toBe(true);
      const write = await s.api.post('/test/site/write', { token: crc1, headers: { ...P, proSiteId: siteA } });
      expect(write.status).toBe(403);
      expect(write.body.errorCode).toBe('FORBIDDEN');
      expect((await s.api.post('/pro/site/list', { token: crc1, headers: P })).status).toBe(200);
    } finally {
      await s.database.db.update(projects).set({ status: 1 }).where(eq(projects.id, DEMO_PROJECT_ID));
    }
  });
});

describe('environments', () => {
  it('keeps DEV, UAT and PRO apart', async () => {
    const dm = await s.api.login('dm');
    const ids = async (proType: string) =>
      (await s.api.post<{ id: number }[]>('/pro/site/list', { token: dm, headers: { ...P, proType } })).body.data.map((x) => x.id);
    const [dev, uat, pro] = [await ids('DEV'), await ids('UAT'), await ids('PRO')];
    expect(dev).toHaveLength(2);
    expect(new Set([...dev, ...uat, ...pro]).size).toBe(6);

    // a monitor has no DEV membership (non-DM roles cannot act in DEV)
    const cra = await s.api.login('cra');
    const r = await s.api.post('/pro/site/list', { token: cra, headers: { ...P, proType: 'DEV' } });
    expect(r.status).toBe(403);

    // progress items of PRO are not seen in UAT
    const started = await s.api.post<{ progressItemId: number }>('/test/jobs/start', {
      token: dm,
      headers: { ...P, proType: 'PRO' },
      form: { type: 2, steps: 1, stepMs: 0 },
    });
    expect(started.status).toBe(200);
    const inPro = await s.api.post<{ id: number }[]>('/proProgressDisplay/list', { token: dm, headers: { ...P, proType: 'PRO' }, json: { type: 2 } });
    const inUat = await s.api.post<{ id: number }[]>('/proProgressDisplay/list', { token: dm, headers: { ...P, proType: 'UAT' }, json: { type: 2 } });
    expect(inPro.body.data.map((x) => x.id)).toContain(started.body.data.progressItemId);
    expect(inUat.body.data.map((x) => x.id)).not.toContain(started.body.data.progressItemId);
  });
});

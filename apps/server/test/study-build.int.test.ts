import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { and, eq } from 'drizzle-orm';
import { auditEvents, projects, users } from '../src/db/schema';
import { sha256Hex, startTestServer, type TestServer } from './harness';

let s: TestServer;
let dm: string;
let admin: string;
const holdsData = new Set<number>();
type Project = { id: number; no: string; version: number; status: number; scene: number; autoPrefillDisabled: boolean; configFiveFunction: string };

beforeAll(async () => {
  // a project listed here holds subject data as far as the delete rule is concerned (a hook at the root)
  s = await startTestServer({ extraHooks: { subjectDataChecks: [async (_tx, projectId) => holdsData.has(projectId)] } });
  dm = await s.api.login('dm');
  admin = await s.api.login('admin');
});
afterAll(async () => {
  await s?.stop();
});

const audit = (entity: string, entityId: number) =>
  s.database.db.select().from(auditEvents).where(and(eq(auditEvents.entity, entity), eq(auditEvents.entityId, String(entityId))));

describe('projects', () => {
  let p: Project;

  it('validates number ≤ 20 and full name ≤ 100, naming the field in both languages', async () => {
    const long = await s.api.post('/pro/info/add', { token: dm, form: { no: 'X'.repeat(21), name: 'n', scene: 1 } });
    expect(long.status).toBe(400);
    expect(long.body.detail![0]!.field).toBe('no');
    const en = await s.api.post('/pro/info/add', { token: dm, form: { no: 'OK', name: 'n'.repeat(101), scene: 3 }, headers: { language: 'en_US' } });
    expect(en.body.detail!.map((d) => d.field)).toEqual(['name', 'scene']);
    expect(en.body.detail![1]!.message).toBe('scene must be 1 (remote monitoring) or 2 (E2E)');
  });

  it('a data manager creates a project and becomes its data manager in every environment', async () => {
    const r = await s.api.post<Project>('/pro/info/add', {
      token: dm,
      form: { no: 'HTN-2026', name: 'Hypertension outcomes', scene: 1, autoPrefillDisabled: 'true', configFiveFunction: '10110' },
    });
    expect(r.status).toBe(200);
    p = r.body.data;
    expect(p).toMatchObject({ no: 'HTN-2026', status: 1, scene: 1, autoPrefillDisabled: true, configFiveFunction: '10110', version: 1 });
    for (const proType of ['DEV', 'UAT', 'PRO']) {
      const info = await s.api.post<{ project: { role: string } }>('/auth/user/pmsInfo', { token: dm, json: {}, headers: { proId: p.id, proType } });
      expect(info.body.data.project.role, proType).toBe('DM');
    }
    const dup = await s.api.post('/pro/info/add', { token: dm, form: { no: 'htn-2026', name: 'again', scene: 1 }, headers: { language: 'en_US' } });
    expect(dup.status).toBe(409);
    expect(dup.body.message).toBe("Project no. 'htn-2026' already exists");
    // the field's own message names it by its label too (not 'no')
    expect(dup.body.detail).toEqual([{ field: 'no', message: "Project no. 'htn-2026' already exists" }]);
    const list = await s.api.post<{ content: { no: string }[] }>('/pro/info/page', { token: dm, form: { keyword: 'HTN', sortField: 'no', sortOrder: 'desc' } });
    expect(list.body.data.content.map((x) => x.no)).toEqual(['HTN-2026']);
    expect((await s.api.post('/pro/info/add', { token: await s.api.login('crc1'), form: { no: 'Z', name: 'z', scene: 1 } })).status).toBe(403);
  });

  it('updates with optimistic locking; a stale version is refused naming who changed it', async () => {
    const H = { proId: p.id };
    const ok = await s.api.post<Project>('/pro/info/update', {
      token: dm,
      headers: H,
      form: { id: p.id, version: 1, no: 'HTN-2026', name: 'Hypertension outcomes study', scene: 2 },
    });
    expect(ok.status).toBe(200);
    expect(ok.body.data.version).toBe(2);
    const stale = await s.api.post('/pro/info/update', {
      token: dm,
      headers: { ...H, language: 'en_US' },
      form: { id: p.id, version: 1, no: 'HTN-2026', name: 'Lost update', scene: 1 },
    });
    expect(stale.status).toBe(409);
    expect(stale.body.errorCode).toBe('STALE_WRITE');
    expect(stale.body.message).toContain('Dana Manager');
    const rows = await audit('project', p.id);
    expect(rows.filter((r) => r.action === 'project.update').map((r) => [r.field, r.oldValue, r.newValue])).toEqual([
      ['name', 'Hypertension outcomes', 'Hypertension outcomes study'],
      ['scene', '1', '2'],
    ]);
    const other = await s.api.post('/pro/info/update', { token: dm, headers: { proId: 1 }, form: { id: p.id, version: 2, no: 'A', name: 'b', scene: 1 } });
    expect(other.status).toBe(400);
    p = ok.body.data;
  });

  it('closing the project cuts permissions; the server refuses writes; it can be reopened', async () => {
    const H = { proId: p.id };
    const closed = await s.api.post<Project>('/pro/info/updateStatus', { token: dm, headers: H, form: { id: p.id, status: 3, reason: 'Study completed' } });
    expect(closed.body.data.status).toBe(3);
    const write = await s.api.post('/pro/info/update', { token: dm, headers: H, form: { id: p.id, version: closed.body.data.version, no: 'HTN-2026', name: 'x', scene: 1 } });
    expect(write.status).toBe(403);
    const site = await s.api.post('/pro/site/add', { token: dm, headers: H, form: { orgId: 2, siteNo: '01' } });
    expect(site.status).toBe(403);
    const reopened = await s.api.post<Project>('/pro/info/updateStatus', { token: dm, headers: H, form: { id: p.id, status: 1, reason: 'Reopened for a late query' } });
    expect(reopened.body.data.status).toBe(1);
    const [close] = (await audit('project', p.id)).filter((r) => r.action === 'project.close');
    expect(close).toMatchObject({ field: 'status', oldValue: '1', newValue: '3', reason: 'Study completed' });
    p = reopened.body.data;
  });

  it('copies configuration, never sites or members other than the copier', async () => {
    const r = await s.api.post<Project>('/pro/info/copyProInfo', { token: dm, headers: { proId: 1 }, form: { id: 1, no: 'DEMO-002', name: 'Demo copy' } });
    expect(r.status).toBe(200);
    const [src] = await s.database.db.select().from(projects).where(eq(projects.id, 1));
    expect(r.body.data).toMatchObject({ no: 'DEMO-002', scene: src!.scene, status: 1 });
    const sites = await s.api.post<unknown[]>('/pro/site/list', { token: dm, headers: { proId: r.body.data.id } });
    expect(sites.body.data).toEqual([]);
    const team = await s.api.post<{ totalCount: number }>('/pro/user/page', { token: dm, headers: { proId: r.body.data.id } });
    expect(team.body.data.totalCount).toBe(1);
    // the design comes along as an unpublished version 1
    const versions = await s.api.post<{ versionNo: number; status: number; formCount: number; visitCount: number }[]>('/crf/version/list', {
      token: dm,
      headers: { proId: r.body.data.id, proType: 'DEV' },
    });
    expect(versions.body.data).toEqual([expect.objectContaining({ versionNo: 1, status: 0, formCount: 8, visitCount: 4 })]);
  });

  it('deletes only a project without subject data', async () => {
    const r = await s.api.post<Project>('/pro/info/add', { token: dm, form: { no: 'TMP-1', name: 'Scratch', scene: 1 } });
    const id = r.body.data.id;
    holdsData.add(id);
    const refused = await s.api.post('/project/info/delete', { token: dm, headers: { proId: id, language: 'en_US' }, form: { id } });
    expect(refused.status).toBe(409);
    expect(refused.body.message).toBe('The project holds subject data and cannot be deleted');
    holdsData.delete(id);
    const ok = await s.api.post('/project/info/delete', { token: dm, headers: { proId: id }, form: { id, reason: 'created by mistake' } });
    expect(ok.status).toBe(200);
    const list = await s.api.post<{ content: { no: string }[] }>('/pro/info/page', { token: dm, form: { keyword: 'TMP' } });
    expect(list.body.data.content).toEqual([]);
    expect((await s.api.post('/pro/info/get', { token: dm, headers: { proId: id } })).status).toBe(403);
    // the number is free again
    expect((await s.api.post('/pro/info/add', { token: dm, form: { no: 'TMP-1', name: 'Scratch 2', scene: 1 } })).status).toBe(200);
  });

  describe('organisations, sites and the team', () => {
    let orgA: number;
    let orgB: number;
    it('organisation names ≤ 30, unique; departments under each', async () => {
      const long = await s.api.post('/org/info/add', { token: admin, form: { name: 'H'.repeat(31) } });
      expect(long.body.detail![0]!.field).toBe('name');
      orgA = (await s.api.post<{ id: number }>('/org/info/add', { token: admin, form: { name: 'North Hospital', code: 'NH' } })).body.data.id;
      orgB = (await s.api.post<{ id: number }>('/org/info/add', { token: admin, form: { name: 'South Hospital', code: 'SH' } })).body.data.id;
      expect((await s.api.post('/org/info/add', { token: admin, form: { name: 'north hospital' } })).status).toBe(409);
      const d = await s.api.post<{ id: number }>('/org/dept/add', { token: admin, form: { orgId: orgA, name: 'Cardiology' } });
      expect(d.status).toBe(200);
      const depts = await s.api.get<{ name: string }[]>('/org/dept/list', { token: admin, query: { orgId: orgA } });
      expect(depts.body.data.map((x) => x.name)).toEqual(['Cardiology']);
      const inUse = await s.api.post('/org/info/delete', { token: admin, form: { id: orgA }, headers: { language: 'en_US' } });
      expect(inUse.status).toBe(409);
      expect(inUse.body.message).toContain('1 department');
      const page = await s.api.post<{ content: { name: string; deptCount: number }[] }>('/org/info/page', { token: dm, form: { keyword: 'Hospital' } });
      expect(page.body.data.content.find((o) => o.name === 'North Hospital')!.deptCount).toBe(1);
    });

    it('adds sites in an environment; numbers and organisations are unique per project', async () => {
      for (const proType of ['DEV', 'UAT']) {
        const H = { proId: p.id, proType };
        expect((await s.api.post('/pro/site/add', { token: dm, headers: H, form: { orgId: orgA, siteNo: '01' } })).status).toBe(200);
        expect((await s.api.post('/pro/site/add', { token: dm, headers: H, form: { orgId: orgB, siteNo: '02', name: 'South Hospital (Oncology)' } })).status).toBe(200);
      }
      const dup = await s.api.post('/pro/site/add', { token: dm, headers: { proId: p.id, proType: 'UAT' }, form: { orgId: orgB, siteNo: '01' } });
      expect(dup.status).toBe(409);
      const sites = await s.api.post<{ siteNo: string; name: string }[]>('/pro/site/list', { token: dm, headers: { proId: p.id, proType: 'UAT' } });
      expect(sites.body.data.map((x) => [x.siteNo, x.name])).toEqual([
        ['01', 'North Hospital'],
        ['02', 'South Hospital (Oncology)'],
      ]);
    });

    it('invites a site coordinator limited to one site; only DM roles in DEV', async () => {
      const roles = await s.api.get<{ id: number; code: string }[]>('/sys/role/projectOptions', { token: dm, headers: { proId: p.id, proType: 'UAT' } });
      const crc = roles.body.data.find((r) => r.code === 'CRC')!;
      const devRoles = await s.api.get<{ code: string }[]>('/sys/role/projectOptions', { token: dm, headers: { proId: p.id, proType: 'DEV' } });
      expect(devRoles.body.data.map((r) => r.code)).toEqual(['DM']);
      const devSites = await s.api.post<{ id: number }[]>('/pro/site/list', { token: dm, headers: { proId: p.id, proType: 'DEV' } });
      const inDev = await s.api.post('/pro/user/invite', {
        token: dm,
        headers: { proId: p.id, proType: 'DEV', language: 'en_US' },
        form: { account: 'crc2', roleId: crc.id, siteIds: [devSites.body.data[0]!.id] },
      });
      expect(inDev.status).toBe(400);
      expect(inDev.body.message).toBe('Only data-manager roles can be added in the DEV environment');

      const uatSites = await s.api.post<{ id: number; siteNo: string }[]>('/pro/site/list', { token: dm, headers: { proId: p.id, proType: 'UAT' } });
      const north = uatSites.body.data.find((x) => x.siteNo === '01')!;
      const noSites = await s.api.post('/pro/user/invite', { token: dm, headers: { proId: p.id, proType: 'UAT' }, form: { account: 'crc2', roleId: crc.id } });
      expect(noSites.body.detail![0]!.field).toBe('siteIds');
      const inv = await s.api.post<{ id: number; sites: { siteNo: string }[] }>('/pro/user/invite', {
        token: dm,
        headers: { proId: p.id, proType: 'UAT' },
        form: { account: 'crc2', roleId: crc.id, siteIds: [north.id] },
      });
      expect(inv.status).toBe(200);
      expect(inv.body.data.sites.map((x) => x.siteNo)).toEqual(['01']);
      const again = await s.api.post('/pro/user/invite', { token: dm, headers: { proId: p.id, proType: 'UAT' }, form: { account: 'crc2', roleId: crc.id, siteIds: [north.id] } });
      expect(again.status).toBe(409);

      // the coordinator sees only that site, and has an invitation message
      const crc2 = await s.api.login('crc2');
      const seen = await s.api.post<{ siteNo: string }[]>('/pro/site/list', { token: crc2, headers: { proId: p.id, proType: 'UAT' } });
      expect(seen.body.data.map((x) => x.siteNo)).toEqual(['01']);
      const badge = await s.api.post<{ unread: number }>('/message/manager/badgeInfo', { token: crc2, headers: { proType: 'UAT' } });
      expect(badge.body.data.unread).toBe(1);

      // moving them to all sites is audited
      const upd = await s.api.post<{ allSites: boolean }>('/pro/user/update', {
        token: dm,
        headers: { proId: p.id, proType: 'UAT' },
        form: { id: inv.body.data.id, roleId: crc.id, allSites: 'true' },
      });
      expect(upd.body.data.allSites).toBe(true);
      const rows = (await audit('member', inv.body.data.id)).filter((r) => r.action === 'member.update');
      expect(rows.map((r) => [r.field, r.oldValue, r.newValue])).toEqual([['sites', '01', 'ALL']]);

      const team = await s.api.post<{ totalCount: number; content: { account: string }[] }>('/pro/user/page', {
        token: dm,
        headers: { proId: p.id, proType: 'UAT' },
        form: { keyword: 'crc' },
      });
      expect(team.body.data.content.map((x) => x.account)).toEqual(['crc2']);
      const xlsx = await fetch(`${s.url}/api/pro/user/export`, { headers: { token: dm, proId: String(p.id), proType: 'UAT' } });
      expect(xlsx.headers.get('content-type')).toContain('spreadsheetml');
      expect((await xlsx.arrayBuffer()).byteLength).toBeGreaterThan(1000);
    });
  });
});

describe('roles and permission groups', () => {
  it('role name ≤ 10, id ≤ 20, permissions from the catalogue', async () => {
    const bad = await s.api.post('/sys/role/add', {
      token: admin,
      form: { code: 'X'.repeat(21), name: 'N'.repeat(11), permissions: ['crf:form:query', 'nope:nope:nope'] },
      headers: { language: 'en_US' },
    });
    expect(bad.status).toBe(400);
    expect(bad.body.detail!.map((d) => d.field)).toEqual(['code', 'name', 'permissions.1']);
    expect(bad.body.detail![2]!.message).toBe('is not a known permission');
    const r = await s.api.post<{ id: number; permissions: string[] }>('/sys/role/add', {
      token: admin,
      form: { code: 'SDV', name: 'SDV reader', permissions: ['verification:sdv:query', 'patient:page:query'], envDev: 'false' },
    });
    expect(r.status).toBe(200);
    expect(r.body.data.permissions).toEqual(['patient:page:query', 'verification:sdv:query']);
    const u = await s.api.post<{ permissions: string[] }>('/sys/role/update', {
      token: admin,
      form: { id: r.body.data.id, code: 'SDV', name: 'SDV reader', permissions: ['verification:sdv:query'] },
    });
    expect(u.body.data.permissions).toEqual(['verification:sdv:query']);
    const rows = (await audit('role', r.body.data.id)).filter((x) => x.field === 'permissions' && x.action === 'role.update');
    expect(rows[0]).toMatchObject({ oldValue: 'patient:page:query,verification:sdv:query', newValue: 'verification:sdv:query' });
    expect((await s.api.post('/sys/role/delete', { token: admin, form: { id: r.body.data.id } })).status).toBe(200);
    const inUse = await s.api.post('/sys/role/delete', { token: admin, form: { id: 3 } });
    expect(inUse.status).toBe(409);
    expect((await s.api.post('/sys/role/page', { token: dm })).status).toBe(403);
  });

  it('permission groups: windows checked, reviewer, enforced at login', async () => {
    const bad = await s.api.post('/sys/permissionGroup/add', {
      token: admin,
      json: { name: 'Night', loginWindows: [{ days: [1], start: '20:00', end: '08:00' }], timezone: 'Mars/Base' },
      headers: { language: 'en_US' },
    });
    expect(bad.body.detail!.map((d) => [d.field, d.message])).toEqual([
      ['loginWindows.0.end', 'the end must be later than the start'],
      ['timezone', 'is not a known time zone'],
    ]);
    const g = await s.api.post<{ id: number; reviewerName: string }>('/sys/permissionGroup/add', {
      token: admin,
      json: { name: 'Weekdays', loginWindows: [{ days: [1, 2, 3, 4, 5], start: '08:00', end: '18:00' }], timezone: 'UTC', reviewerUserId: 1 },
    });
    expect(g.body.data.reviewerName).toBe('System Admin');
    const list = await s.api.post<{ name: string }[]>('/sys/permissionGroup/list', { token: admin });
    expect(list.body.data.map((x) => x.name)).toContain('Weekdays');
    expect((await s.api.post('/sys/permissionGroup/delete', { token: admin, form: { id: g.body.data.id } })).status).toBe(200);
  });
});

describe('member picker', () => {
  it('offers enabled users who are not yet members in this environment', async () => {
    const r = await s.api.get<{ account: string }[]>('/pro/user/candidates', { token: dm, headers: { proId: 1, proType: 'PRO' }, query: { keyword: '' } });
    const accounts = r.body.data.map((x) => x.account);
    expect(accounts).toContain('admin');
    expect(accounts).not.toContain('crc1');
    expect((await s.api.get('/pro/user/candidates', { token: await s.api.login('crc1'), headers: { proId: 1 } })).status).toBe(403);
  });
});

describe('site schedule and user invitation', () => {
  it("answers a site's visit plan in force, only for that site's users", async () => {
    const crc1 = await s.api.login('crc1');
    const sites = await s.api.post<{ id: number; siteNo: string }[]>('/pro/site/list', { token: crc1, headers: { proId: 1, proType: 'PRO' } });
    const a = sites.body.data[0]!;
    const r = await s.api.get<{ site: { siteNo: string }; version: { name: string }; visits: { code: string }[] }>('/pro/site/schedule/get', {
      token: crc1,
      headers: { proId: 1, proType: 'PRO', proSiteId: a.id },
    });
    expect(r.status).toBe(200);
    expect(r.body.data.site.siteNo).toBe('01');
    expect(r.body.data.version.name).toBe('v1.0');
    expect(r.body.data.visits.map((v) => v.code)).toContain('V2');
  });

  it('invites a user with a new initial password that works once and must be changed', async () => {
    const [u] = await s.database.db.select().from(users).where(eq(users.account, 'pi'));
    const r = await s.api.post<{ initialPassword: string }>('/system/user/invite', { token: admin, form: { id: u!.id } });
    expect(r.status).toBe(200);
    const login = await s.api.post<{ passwordChangeDue: boolean }>('/passport/login', {
      form: { account: 'pi', password: sha256Hex(r.body.data.initialPassword), loginType: 3 },
    });
    expect(login.body.data.passwordChangeDue).toBe(true);
    expect((await s.api.post('/system/user/invite', { token: dm, form: { id: u!.id } })).status).toBe(403);
  });
});

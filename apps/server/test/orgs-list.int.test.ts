import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from './harness';

let s: TestServer;
beforeAll(async () => {
  s = await startTestServer();
});
afterAll(async () => {
  await s?.stop();
});

type OrgPage = { content: { id: number; name: string; deptCount: number }[] };

describe('organisation list', () => {
  it('counts each organisation’s own departments (3, 0)', async () => {
    const admin = await s.api.login('admin');
    const three = await s.api.post<{ id: number }>('/org/info/add', { token: admin, form: { name: 'Three Dept Org', code: 'TDO' } });
    const none = await s.api.post('/org/info/add', { token: admin, form: { name: 'No Dept Org', code: 'NDO' } });
    expect(none.status).toBe(200);
    expect(three.status, JSON.stringify(three.body)).toBe(200);
    for (const name of ['Cardiology', 'Oncology', 'Neurology']) {
      const d = await s.api.post('/org/dept/add', { token: admin, form: { orgId: three.body.data.id, name } });
      expect(d.status, JSON.stringify(d.body)).toBe(200);
    }
    const page = await s.api.post<OrgPage>('/org/info/page', { token: admin, form: { keyword: 'Dept Org', pageSize: 50 } });
    const byName = Object.fromEntries(page.body.data.content.map((o) => [o.name, o.deptCount]));
    expect(byName).toEqual({ 'Three Dept Org': 3, 'No Dept Org': 0 });
  });
});

describe('conflict messages name things in the reader’s language', () => {
  it('a duplicate names the field by its label; an in-use role counts users in words of the language', async () => {
    const admin = await s.api.login('admin');
    const zh = { language: 'zh_CN' };
    const dupOrg = await s.api.post('/org/info/add', { token: admin, headers: zh, form: { name: 'Demo City Hospital' } });
    expect(dupOrg.status).toBe(409);
    expect(dupOrg.body.message).toBe('名称“Demo City Hospital”已存在');
    const crc1 = await s.api.login('crc1');
    const { sites } = await import('../src/db/schema');
    const { and, eq } = await import('drizzle-orm');
    const [siteA] = await s.database.db.select().from(sites).where(and(eq(sites.projectId, 1), eq(sites.env, 'PRO'), eq(sites.siteNo, '01')));
    const P = { proId: 1, proType: 'PRO' };
    const first = await s.api.post<{ ptsNo: string }>('/project/managePts/add', { token: crc1, headers: P, form: { siteId: siteA!.id, firstVisitDate: '2026-01-05' } });
    const dup = await s.api.post('/project/managePts/add', {
      token: crc1,
      headers: { ...P, ...zh },
      form: { siteId: siteA!.id, firstVisitDate: '2026-01-05', ptsNo: first.body.data.ptsNo },
    });
    expect(dup.body.message).toBe(`受试者编号“${first.body.data.ptsNo}”已存在`);
    expect(dup.body.detail![0]!.field).toBe('ptsNo');
    const { roles } = await import('../src/db/schema');
    const [crcRole] = await s.database.db.select().from(roles).where(eq(roles.code, 'CRC'));
    const inUse = await s.api.post('/sys/role/delete', { token: admin, headers: zh, form: { id: crcRole!.id } });
    expect(inUse.status).toBe(409);
    expect(inUse.body.message).toMatch(/^角色正在使用中（\d+ 个用户），不能删除$/);
    const en = await s.api.post('/sys/role/delete', { token: admin, headers: { language: 'en_US' }, form: { id: crcRole!.id } });
    expect(en.body.message).toMatch(/^Role is in use \(\d+ users?\) and cannot be deleted$/);
  });
});

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

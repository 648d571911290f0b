import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from './harness';

let s: TestServer;
beforeAll(async () => {
  s = await startTestServer();
});
afterAll(async () => {
  await s?.stop();
});

describe('centre applications (PRO only)', () => {
  it('a hospital user applies; the admin passes it and the PRO site exists; lists follow the status', async () => {
    const admin = await s.api.login('admin');
    const dm = await s.api.login('dm');
    const p = await s.api.post<{ id: number; no: string }>('/pro/info/add', { token: dm, form: { no: 'APPLY-1', name: 'Open study', scene: 1 } });
    const crc2 = await s.api.login('crc2');
    const uat = await s.api.post('/centerApply/apply', { token: crc2, headers: { proType: 'UAT', language: 'en_US' }, form: { projectNo: 'APPLY-1' } });
    expect(uat.status).toBe(403);
    const a = await s.api.post<{ id: number; orgName: string; status: number }>('/centerApply/apply', {
      token: crc2,
      headers: { proType: 'PRO' },
      form: { projectNo: 'apply-1', note: 'We run the hypertension clinic' },
    });
    expect(a.status).toBe(200);
    expect(a.body.data).toMatchObject({ orgName: 'Demo University Hospital', status: 0 });
    expect((await s.api.post('/centerApply/apply', { token: crc2, headers: { proType: 'PRO' }, form: { projectNo: 'APPLY-1' } })).status).toBe(409);

    const ing = await s.api.post<{ totalCount: number }>('/centerApply/page', { token: admin, headers: { proType: 'PRO' }, form: { status: 0 } });
    expect(ing.body.data.totalCount).toBe(1);
    expect((await s.api.post('/centerApply/page', { token: dm, headers: { proType: 'PRO' }, form: { status: 0 } })).status).toBe(403);

    const passed = await s.api.post<{ status: number; siteId: number }>('/centerApply/audit', {
      token: admin,
      headers: { proType: 'PRO' },
      form: { id: a.body.data.id, pass: 'true', reason: 'Qualified site' },
    });
    expect(passed.body.data.status).toBe(1);
    const sites = await s.api.post<{ id: number; name: string }[]>('/pro/site/list', { token: dm, headers: { proId: p.body.data.id, proType: 'PRO' } });
    expect(sites.body.data).toEqual([expect.objectContaining({ id: passed.body.data.siteId, name: 'Demo University Hospital' })]);
    const again = await s.api.post('/centerApply/audit', { token: admin, headers: { proType: 'PRO' }, form: { id: a.body.data.id, pass: 'false', reason: 'x' } });
    expect(again.status).toBe(409);
    const pass = await s.api.post<{ totalCount: number }>('/centerApply/page', { token: admin, headers: { proType: 'PRO' }, form: { status: 1 } });
    expect(pass.body.data.totalCount).toBe(1);
  });
});

describe('separation of duties', () => {
  it('the applicant cannot decide their own application; another reviewer can', async () => {
    const admin = await s.api.login('admin');
    const dm = await s.api.login('dm');
    await s.api.post('/pro/info/add', { token: dm, form: { no: 'APPLY-OWN', name: 'Own application study', scene: 1 } });
    const a = await s.api.post<{ id: number; applicantUserId: number }>('/centerApply/apply', {
      token: admin,
      headers: { proType: 'PRO' },
      form: { projectNo: 'APPLY-OWN' },
    });
    expect(a.status).toBe(200);
    for (const language of ['en_US', 'zh_CN']) {
      const own = await s.api.post('/centerApply/audit', {
        token: admin,
        headers: { proType: 'PRO', language },
        form: { id: a.body.data.id, pass: 'true', reason: 'self-approval' },
      });
      expect(own.status).toBe(403);
      expect(own.body.errorCode).toBe('OWN_APPLICATION');
      expect(own.body.message).toMatch(language === 'en_US' ? /your own application/ : /本人|自己/);
    }
    const list = await s.api.post<{ content: { id: number; status: number; applicantUserId: number }[] }>('/centerApply/page', {
      token: admin,
      headers: { proType: 'PRO' },
      form: { status: 0 },
    });
    const row = list.body.data.content.find((r) => r.id === a.body.data.id);
    expect(row).toMatchObject({ status: 0, applicantUserId: a.body.data.applicantUserId });
  });
});

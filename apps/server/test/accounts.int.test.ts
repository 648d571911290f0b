import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sha256Hex } from '../src/seed/seed';
import { startTestServer, type TestServer } from './harness';

let s: TestServer;
let admin: string;
beforeAll(async () => {
  s = await startTestServer();
  admin = await s.api.login('admin');
});
afterAll(async () => {
  await s?.stop();
});

/** An administrator creates a site user; returns the account and its initial password. */
async function newSiteUser(account: string): Promise<{ id: number; account: string; initialPassword: string }> {
  const orgs = await s.api.post<{ content: { id: number }[] }>('/org/info/page', { token: admin, form: { pageNumber: 1, pageSize: 50 } });
  const r = await s.api.post<{ id: number; account: string; initialPassword: string }>('/system/user/add', {
    token: admin,
    form: { account, name: `Forced ${account}`, phone: '13912345678', orgId: orgs.body.data.content[0]!.id, loginTypes: [3] },
  });
  expect(r.status, JSON.stringify(r.body)).toBe(200);
  return r.body.data;
}

describe('an initial password must be changed before anything else', () => {
  it('refuses every other call with PASSWORD_CHANGE_REQUIRED until the change, then works', async () => {
    const u = await newSiteUser('forced.crc');
    const login = await s.api.post<{ token: string; passwordChangeRequired: boolean }>('/passport/login', {
      form: { account: u.account, password: sha256Hex(u.initialPassword), loginType: 3, variant: 'site' },
    });
    expect(login.status).toBe(200);
    expect(login.body.data.passwordChangeRequired).toBe(true);
    const token = login.body.data.token;

    for (const [method, path] of [
      ['POST', '/pro/info/page'],
      ['POST', '/message/manager/badgeInfo'],
      ['GET', '/common/getEnv'],
      ['POST', '/passport/envTypeSwitch'],
    ] as const) {
      const r = await s.api.call(method, path, { token, headers: { language: 'en_US' }, ...(method === 'POST' ? { form: { proType: 'UAT' } } : {}) });
      expect(r.status, path).toBe(403);
      expect(r.body.errorCode, path).toBe('PASSWORD_CHANGE_REQUIRED');
      expect(r.body.message).toMatch(/initial password/);
    }
    const zh = await s.api.post('/pro/info/page', { token, headers: { language: 'zh_CN' } });
    expect(zh.body.message).toMatch(/初始密码/);

    // what the change screen needs still works
    const info = await s.api.post<{ user: { id: number; passwordChangeRequired: boolean } }>('/auth/user/pmsInfo', { token, json: {} });
    expect(info.status).toBe(200);
    expect(info.body.data.user).toMatchObject({ id: u.id, passwordChangeRequired: true });
    expect((await s.api.post('/common/refresh', { token })).status).toBe(200);

    const changed = await s.api.post('/user/updatePwd', {
      token,
      form: { userId: u.id, oldPwd: sha256Hex(u.initialPassword), newPwd: sha256Hex('Forced#Pass2024') },
    });
    expect(changed.status, JSON.stringify(changed.body)).toBe(200);
    expect((await s.api.post('/message/manager/badgeInfo', { token })).status).toBe(200);
    const after = await s.api.post<{ user: { passwordChangeRequired: boolean } }>('/auth/user/pmsInfo', { token, json: {} });
    expect(after.body.data.user.passwordChangeRequired).toBe(false);
  });

  it('logout works while the change is pending; demo users (changed passwords) are not held', async () => {
    const u = await newSiteUser('forced.crc2');
    const login = await s.api.post<{ token: string }>('/passport/login', {
      form: { account: u.account, password: sha256Hex(u.initialPassword), loginType: 3 },
    });
    expect((await s.api.post('/auth/logout', { token: login.body.data.token })).status).toBe(200);
    const crc = await s.api.login('crc1');
    expect((await s.api.post('/message/manager/badgeInfo', { token: crc })).status).toBe(200);
  });
});

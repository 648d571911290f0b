import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eq } from 'drizzle-orm';
import { permissionGroups, projects, sessions, users } from '../src/db/schema';
import { sha256Hex, startTestServer, type TestServer } from './harness';

let s: TestServer;
beforeAll(async () => {
  s = await startTestServer({ config: { loginMaxFailures: 3, loginLockMinutes: 15 } });
});
afterAll(async () => {
  await s?.stop();
});

describe('login', () => {
  it('logs every demo user in with their login type and returns the session', async () => {
    for (const [account, loginType] of [
      ['admin', 1],
      ['dm', 1],
      ['cra', 2],
      ['crc1', 3],
      ['crc2', 3],
      ['pi', 3],
      ['ae', 4],
    ] as const) {
      const r = await s.api.post<{ token: string; user: { account: string; loginType: number } }>('/passport/login', {
        form: { account, password: sha256Hex('Demo@123456'), loginType },
      });
      expect(r.status, account).toBe(200);
      expect(r.body).toMatchObject({ code: 200, status: '1' });
      expect(r.body.data.token).toMatch(/^[\w-]{40,}$/);
      expect(r.body.data.user).toMatchObject({ account, loginType });
    }
  });

  it('refuses a login type the account does not have, or the wrong login site', async () => {
    const r = await s.api.post('/passport/login', { form: { account: 'crc1', password: sha256Hex('Demo@123456'), loginType: 1 } });
    expect(r.status).toBe(403);
    expect(r.body.errorCode).toBe('LOGIN_TYPE_FORBIDDEN');
    const r2 = await s.api.post('/passport/login', {
      form: { account: 'crc1', password: sha256Hex('Demo@123456'), loginType: 3, variant: 'main' },
    });
    expect(r2.status).toBe(403);
  });

  it('counts failures and locks the account; a correct password does not open a locked account', async () => {
    const bad = sha256Hex('wrong-password');
    const r1 = await s.api.post('/passport/login', { form: { account: 'pi', password: bad, loginType: 3 }, headers: { language: 'en_US' } });
    expect(r1.status).toBe(400);
    expect(r1.body.errorCode).toBe('BAD_CREDENTIALS');
    expect(r1.body.message).toBe('Wrong account or password; 2 attempts left');
    await s.api.post('/passport/login', { form: { account: 'pi', password: bad, loginType: 3 } });
    const r3 = await s.api.post('/passport/login', { form: { account: 'pi', password: bad, loginType: 3 } });
    expect(r3.status).toBe(423);
    expect(r3.body.errorCode).toBe('ACCOUNT_LOCKED');
    expect(r3.body.message).toContain('15');
    const r4 = await s.api.post('/passport/login', { form: { account: 'pi', password: sha256Hex('Demo@123456'), loginType: 3 } });
    expect(r4.status).toBe(423);
    // once the lock has passed, the right password works again and the counter is reset
    await s.database.db.update(users).set({ lockedUntil: new Date(Date.now() - 1000) }).where(eq(users.account, 'pi'));
    const r5 = await s.api.post('/passport/login', { form: { account: 'pi', password: sha256Hex('Demo@123456'), loginType: 3 } });
    expect(r5.status).toBe(200);
    const [u] = await s.database.db.select().from(users).where(eq(users.account, 'pi'));
    expect(u!.failedLoginCount).toBe(0);
  });

  it('answers an unknown account like a wrong password', async () => {
    const r = await s.api.post('/passport/login', { form: { account: 'nobody', password: sha256Hex('x'), loginType: 1 } });
    expect(r.status).toBe(400);
    expect(r.body.errorCode).toBe('BAD_CREDENTIALS');
  });

  it('enforces the permission group login time windows', async () => {
    const db = s.database.db;
    const [g] = await db
      .insert(permissionGroups)
      .values({ name: 'Never', loginWindows: [{ days: [], start: '00:00', end: '00:00' }], timezone: 'UTC' })
      .returning();
    await db.update(users).set({ permissionGroupId: g!.id }).where(eq(users.account, 'crc2'));
    const closed = await s.api.post('/passport/login', {
      form: { account: 'crc2', password: sha256Hex('Demo@123456'), loginType: 3 },
      headers: { language: 'en_US' },
    });
    expect(closed.status).toBe(403);
    expect(closed.body.errorCode).toBe('LOGIN_WINDOW_CLOSED');
    expect(closed.body.message).toMatch(/not allowed at this time/);
    await db
      .update(permissionGroups)
      .set({ loginWindows: [{ days: [1, 2, 3, 4, 5, 6, 7], start: '00:00', end: '24:00' }] })
      .where(eq(permissionGroups.id, g!.id));
    const open = await s.api.post('/passport/login', { form: { account: 'crc2', password: sha256Hex('Demo@123456'), loginType: 3 } });
    expect(open.status).toBe(200);
    await db.update(users).set({ permissionGroupId: null }).where(eq(users.account, 'crc2'));
  });

  it('rate-limits repeated logins from one address for one account', async () => {
    const statuses: number[] = [];
    for (let i = 0; i < 22; i++) {
      const r = await s.api.post('/passport/login', { form: { account: 'ratelimited', password: sha256Hex('x'), loginType: 1 } });
      statuses.push(r.status);
    }
    // an unknown name is counted and locked like a real account (400 then 423), and the address limit still applies
    expect(statuses.slice(0, 20).every((x) => x === 400 || x === 423)).toBe(true);
    expect(statuses.at(-1)).toBe(429);
  });
});

describe('session', () => {
  it('logout ends the session: the token then gets the 401 envelope', async () => {
    const token = await s.api.login('dm');
    expect((await s.api.post('/common/refresh', { token })).status).toBe(200);
    expect((await s.api.post('/auth/logout', { token })).status).toBe(200);
    const r = await s.api.post('/auth/user/pmsInfo', { token, json: {} });
    expect(r.status).toBe(401);
    expect(r.body).toMatchObject({ code: 401, status: '0', errorCode: 'UNAUTHENTICATED', message: '登录已过期，请重新登录' });
    expect(r.body.requestId).toBeTruthy();
  });

  it('expires after the idle time; refresh extends it', async () => {
    const token = await s.api.login('cra');
    const before = await s.database.db.select().from(sessions);
    const refreshed = await s.api.post<{ expiresAt: string }>('/common/refresh', { token });
    expect(refreshed.status).toBe(200);
    expect(Date.parse(refreshed.body.data.expiresAt)).toBeGreaterThan(Date.now() + 29 * 60_000);
    expect(before.length).toBeGreaterThan(0);
    // the idle time passes
    await s.database.db.update(sessions).set({ expiresAt: new Date(Date.now() - 1) });
    const r = await s.api.post('/auth/user/pmsInfo', { token, json: {}, headers: { language: 'en_US' } });
    expect(r.status).toBe(401);
    expect(r.body.message).toBe('Login has expired, please login again.');
    expect((await s.api.post('/common/refresh', { token })).status).toBe(401);
  });

  it('refuses a missing token with 401', async () => {
    const r = await s.api.post('/auth/user/pmsInfo', { json: {} });
    expect(r.status).toBe(401);
  });
});

describe('pmsInfo and environments', () => {
  it('returns pms, menus, user, system time, hospital and login product', async () => {
    const token = await s.api.login('admin');
    const r = await s.api.post<{
      pms: string[];
      menus: { no: number }[];
      user: { orgName: string; name: string };
      currentSystemTime: string;
      affiliatedHospital: string;
      loginProduct: number;
    }>('/auth/user/pmsInfo', { token, json: {} });
    expect(r.status).toBe(200);
    expect(r.body.data.pms).toContain('system:user:query');
    expect(r.body.data.menus.map((m) => m.no)).toEqual([1, 2, 6, 9]);
    expect(r.body.data.user.name).toBe('System Admin');
    expect(r.body.data.affiliatedHospital).toBe('eSource Central Office');
    expect(r.body.data.loginProduct).toBe(1);
    expect(Math.abs(Date.parse(r.body.data.currentSystemTime) - Date.now())).toBeLessThan(60_000);
    // Center Application (module 9) is PRO only
    const uat = await s.api.post<{ menus: { no: number }[] }>('/auth/user/pmsInfo', { token, json: {}, headers: { proType: 'UAT' } });
    expect(uat.body.data.menus.map((m) => m.no)).toEqual([1, 2, 6]);
  });

  it('switches the environment only to one the user may act in', async () => {
    const token = await s.api.login('cra');
    const envs = await s.api.get<{ value: string; enabled: boolean; current: boolean }[]>('/common/getEnv', { token });
    expect(envs.body.data).toEqual([
      { value: 'DEV', enabled: false, current: false },
      { value: 'UAT', enabled: true, current: false },
      { value: 'PRO', enabled: true, current: true },
    ]);
    const dev = await s.api.post('/passport/envTypeSwitch', { token, form: { proType: 'DEV' }, headers: { language: 'en_US' } });
    expect(dev.status).toBe(403);
    expect(dev.body.message).toBe('Your role may not act in the DEV environment');
    const uat = await s.api.post<{ projectType: string }>('/passport/envTypeSwitch', { token, form: { proType: 'UAT' } });
    expect(uat.body.data.projectType).toBe('UAT');
    const info = await s.api.post<{ user: { projectType: string } }>('/auth/user/pmsInfo', { token, json: {} });
    expect(info.body.data.user.projectType).toBe('UAT');
  });
});

describe('password change', () => {
  it('refuses reuse, records the change date, ends other sessions, and the new password works', async () => {
    const token = await s.api.login('ae');
    const other = await s.api.login('ae');
    const [before] = await s.database.db.select().from(users).where(eq(users.account, 'ae'));
    const reuse = await s.api.post('/user/updatePwd', {
      token,
      form: { oldPwd: sha256Hex('Demo@123456'), newPwd: sha256Hex('Demo@123456'), userId: before!.id },
      headers: { language: 'en_US' },
    });
    expect(reuse.status).toBe(400);
    expect(reuse.body.message).toBe('The new password must differ from the current one');
    const notSelf = await s.api.post('/user/updatePwd', { token, form: { oldPwd: sha256Hex('Demo@123456'), newPwd: sha256Hex('Other#2024x'), userId: 1 } });
    expect(notSelf.status).toBe(403);
    const ok = await s.api.post('/user/updatePwd', {
      token,
      form: { oldPwd: sha256Hex('Demo@123456'), newPwd: sha256Hex('Newer#2024x'), userId: before!.id },
    });
    expect(ok.status).toBe(200);
    const [after] = await s.database.db.select().from(users).where(eq(users.account, 'ae'));
    expect(after!.passwordChangedAt!.getTime()).toBeGreaterThan(before!.passwordChangedAt!.getTime());
    expect((await s.api.post('/common/refresh', { token: other })).status).toBe(401);
    expect((await s.api.post('/common/refresh', { token })).status).toBe(200);
    await expect(s.api.login('ae')).rejects.toThrow(/400/);
    await expect(s.api.login('ae', { password: 'Newer#2024x' })).resolves.toBeTruthy();
  });
});

describe('project entry and session check', () => {
  it('finds a project by uuid for a member; pmsInfo refuses a project the caller is not in', async () => {
    const dm = await s.api.login('dm');
    const info = await s.api.post<{ project: { id: number } }>('/auth/user/pmsInfo', { token: dm, json: {}, headers: { proId: 1 } });
    expect(info.body.data.project.id).toBe(1);
    const [p] = await s.database.db.select().from(projects).where(eq(projects.id, 1));
    const byUuid = await s.api.get<{ proId: number }>('/getProId', { token: dm, query: { uuid: p!.uuidNo, proType: 'PRO' } });
    expect(byUuid.body.data).toEqual({ proId: 1, proType: 'PRO' });
    const admin = await s.api.login('admin');
    expect((await s.api.get('/getProId', { token: admin, query: { uuid: p!.uuidNo } })).status).toBe(403);
    const notMember = await s.api.post('/auth/user/pmsInfo', { token: admin, json: {}, headers: { proId: 1 } });
    expect(notMember.status).toBe(403);
    expect(notMember.body.errorCode).toBe('NOT_MEMBER');
  });

  it('the session check does not extend the session; the keep-alive does', async () => {
    const token = await s.api.login('cra');
    const soon = new Date(Date.now() + 60_000);
    await s.database.db.update(sessions).set({ expiresAt: soon });
    const check = await s.api.post<{ expiresAt: string }>('/common/refresh', { token, form: { check: 1 } });
    expect(Date.parse(check.body.data.expiresAt)).toBe(soon.getTime());
    const keep = await s.api.post<{ expiresAt: string }>('/common/refresh', { token });
    expect(Date.parse(keep.body.data.expiresAt)).toBeGreaterThan(Date.now() + 29 * 60_000);
  });
});

/**
 * Login throttling that holds under parallel guesses and forged addresses, identical answers for real and unknown
 * accounts, re-authentication for a password change, and the server's password policy (security issue 1 and 8).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eq } from 'drizzle-orm';
import { users } from '../src/db/schema';
import { parseTrustProxy } from '../src/config/config';
import { pruneLoginThrottle } from '../src/modules/auth/auth.repo';
import { accountVariantDigests, commonPasswordCount } from '../src/modules/auth/password-policy';
import { DEMO_PASSWORD, sha256Hex, startTestServer, type TestServer } from './harness';

const MAX = 5;
let s: TestServer;
beforeAll(async () => {
  s = await startTestServer({ config: { loginMaxFailures: MAX, loginLockMinutes: 15 } });
});
afterAll(async () => {
  await s?.stop();
});

const login = (server: TestServer, account: string, password: string, headers: Record<string, string> = {}) =>
  server.api.post('/passport/login', { form: { account, password: sha256Hex(password), loginType: 3 }, headers: { language: 'en_US', ...headers } });

/** The login failures the audit trail holds for a name: how many passwords were really verified, and from where. */
async function failures(server: TestServer, account: string) {
  const r = await server.database.executeSql(`select reason, ip from audit_events where action = 'login.failure' and new_value = $1 order by id`, [account]);
  return r.rows as { reason: string; ip: string }[];
}
const verified = (rows: { reason: string }[]) => rows.filter((r) => /^(bad password|unknown account)(; account locked)?$/.test(r.reason)).length;

describe('login throttling', () => {
  it('30 parallel wrong passwords: at most LOGIN_MAX_FAILURES are verified, the rest are refused unverified', async () => {
    const rs = await Promise.all(Array.from({ length: 30 }, (_v, i) => login(s, 'crc2', `Wrong#${i}x`)));
    const codes = rs.map((r) => r.body.errorCode);
    expect(codes.filter((c) => c === 'BAD_CREDENTIALS').length).toBe(MAX - 1);
    expect(verified(await failures(s, 'crc2'))).toBe(MAX);
    // the rest: locked (423) or over the address limit (429); none was let through
    expect(rs.every((r) => [400, 423, 429].includes(r.status))).toBe(true);
  });

  it('a burst of 19 wrong passwords then the right one: the right one is refused while the account is locked', async () => {
    const rs = await Promise.all(Array.from({ length: 19 }, (_v, i) => login(s, 'pi', `Guess#${i}x`)));
    expect(rs.filter((r) => r.body.errorCode === 'BAD_CREDENTIALS').length).toBe(MAX - 1);
    expect(verified(await failures(s, 'pi'))).toBe(MAX);
    const right = await login(s, 'pi', DEMO_PASSWORD);
    expect(right.status).toBe(423);
    expect(right.body.errorCode).toBe('ACCOUNT_LOCKED');
    expect(right.body.message).toMatch(/locked, try again in 15 minutes/);
    // (that the right password works again once the lock has passed is in auth.int.test.ts)
  });

  it('a real and an unknown account answer identically, attempt by attempt, up to the lock', async () => {
    const real: unknown[] = [];
    const unknown: unknown[] = [];
    for (let i = 0; i < MAX + 2; i++) {
      for (const [account, out] of [
        ['crc1', real],
        ['no-such-user', unknown],
      ] as const) {
        const r = await login(s, account, `Nope#${i}x`);
        out.push({ status: r.status, errorCode: r.body.errorCode, message: r.body.message });
      }
    }
    expect(unknown).toEqual(real);
    expect(real[0]).toEqual({ status: 400, errorCode: 'BAD_CREDENTIALS', message: `Wrong account or password; ${MAX - 1} attempts left` });
    expect(real[MAX - 1]).toMatchObject({ status: 423, errorCode: 'ACCOUNT_LOCKED' });
    // unknown names are counted without creating users
    expect(await s.database.db.select().from(users).where(eq(users.account, 'no-such-user'))).toHaveLength(0);
  });

  it('a forged X-Forwarded-For is ignored by default: the address limit holds and the audit records the real address', async () => {
    const statuses: number[] = [];
    for (let i = 0; i < 25; i++) statuses.push((await login(s, 'spoof-target', 'Wrong#1x', { 'x-forwarded-for': `203.0.113.${i + 1}` })).status);
    expect(statuses.slice(20).every((x) => x === 429)).toBe(true);
    const rows = await failures(s, 'spoof-target');
    expect(rows.length).toBeGreaterThan(0);
    for (const r of rows) {
      expect(r.ip).not.toMatch(/^203\.0\.113\./);
      expect(r.ip).toMatch(/127\.0\.0\.1|::1/);
    }
  });

  it('housekeeping forgets quiet, unlocked failure counts of names without a user, and keeps the rest', async () => {
    await s.database.executeSql(
      `insert into login_throttle (account_key, failed_count, locked_until, updated_at) values
         ('quiet-old', 2, null, now() - interval '2 days'),
         ('locked-old', 5, now() + interval '10 minutes', now() - interval '2 days'),
         ('recent', 1, null, now())`,
    );
    expect(await pruneLoginThrottle(s.database.db)).toBeGreaterThanOrEqual(1);
    const left = await s.database.executeSql(`select account_key from login_throttle where account_key in ('quiet-old', 'locked-old', 'recent') order by 1`);
    expect(left.rows.map((r) => (r as { account_key: string }).account_key)).toEqual(['locked-old', 'recent']);
  });

  it('TRUST_PROXY parses to off, a hop count or a list, and refuses "true"', () => {
    expect(parseTrustProxy(undefined)).toBe(false);
    expect(parseTrustProxy('')).toBe(false);
    expect(parseTrustProxy('false')).toBe(false);
    expect(parseTrustProxy('1')).toBe(1);
    expect(parseTrustProxy('10.0.0.0/8, 127.0.0.1')).toEqual(['10.0.0.0/8', '127.0.0.1']);
    expect(() => parseTrustProxy('true')).toThrow(/name the proxies/);
    expect(() => parseTrustProxy('example.com')).toThrow(/not an address/);
  });
});

describe('behind a configured proxy (TRUST_PROXY)', () => {
  let p: TestServer;
  beforeAll(async () => {
    p = await startTestServer({ config: { loginMaxFailures: MAX, trustProxy: ['127.0.0.1', '::1'] } });
  });
  afterAll(async () => {
    await p?.stop();
  });

  it('records the forwarded address, and limits one account whatever the address', async () => {
    const statuses: number[] = [];
    for (let i = 0; i < 45; i++) statuses.push((await login(p, 'botnet-target', 'Wrong#1x', { 'x-forwarded-for': `198.51.100.${i + 1}` })).status);
    // every address is new, so only the per-account limit (40 a minute) stops the run
    expect(statuses.slice(0, 40).every((x) => x === 400 || x === 423)).toBe(true);
    expect(statuses.slice(40).every((x) => x === 429)).toBe(true);
    const rows = await failures(p, 'botnet-target');
    expect(rows[0]!.ip).toBe('198.51.100.1');
    expect(verified(rows)).toBe(MAX);
  });
});

describe('password change', () => {
  it('requires the current password; wrong ones count toward the lock, which ends the sessions', async () => {
    const token = await s.api.login('cra');
    const [u] = await s.database.db.select().from(users).where(eq(users.account, 'cra'));
    const change = (oldPwd: string | null, newPwd: string) =>
      s.api.post('/user/updatePwd', {
        token,
        headers: { language: 'en_US' },
        form: { ...(oldPwd === null ? {} : { oldPwd: sha256Hex(oldPwd) }), newPwd: sha256Hex(newPwd), userId: u!.id },
      });
    const missing = await change(null, 'Fresh#Pass2031');
    expect(missing.status).toBe(400);
    expect(missing.body.detail?.[0]?.field).toBe('oldPwd');
    const wrong = await change('Not#The1Password', 'Fresh#Pass2031');
    expect(wrong.status).toBe(400);
    expect(wrong.body.errorCode).toBe('WRONG_PASSWORD');
    expect(wrong.body.message).toBe(`Wrong password; ${MAX - 1} attempts left before the account is locked`);
    // a right current password clears the count
    const common = await change(DEMO_PASSWORD, 'P@ssw0rd');
    expect(common.body.errorCode).toBe('PASSWORD_TOO_COMMON');
    const [cleared] = await s.database.db.select().from(users).where(eq(users.account, 'cra'));
    expect(cleared!.failedLoginCount).toBe(0);
    for (let i = 0; i < MAX - 1; i++) expect((await change(`Bad#${i}pass`, 'Fresh#Pass2031')).body.errorCode).toBe('WRONG_PASSWORD');
    const locked = await change('Bad#lastpass', 'Fresh#Pass2031');
    expect(locked.status).toBe(423);
    expect(locked.body.errorCode).toBe('ACCOUNT_LOCKED');
    expect((await s.api.post('/common/refresh', { token })).status).toBe(401);
    expect((await login(s, 'cra', DEMO_PASSWORD)).status).toBe(423);
    const audit = await s.database.executeSql(`select count(*)::int as n from audit_events where action = 'reauth.failure' and user_id = $1`, [u!.id]);
    expect(Number(audit.rows[0]!.n)).toBe(MAX + 1);
    await s.database.db.update(users).set({ lockedUntil: null, failedLoginCount: 0 }).where(eq(users.id, u!.id));
  });

  it('refuses common and breached passwords, one- and two-character ones, and the account name and its variants', async () => {
    const token = await s.api.login('ae');
    const [u] = await s.database.db.select().from(users).where(eq(users.account, 'ae'));
    const tryNew = async (pw: string) =>
      (
        await s.api.post('/user/updatePwd', {
          token,
          headers: { language: 'zh_CN' },
          form: { oldPwd: sha256Hex(DEMO_PASSWORD), newPwd: sha256Hex(pw), userId: u!.id },
        })
      ).body;
    for (const pw of ['a', '1!', 'password', 'Password', 'qwerty123', 'Password1!', 'Admin@123', '1qaz@WSX', 'woaini1314']) {
      const b = await tryNew(pw);
      expect(b.errorCode, pw).toBe('PASSWORD_TOO_COMMON');
    }
    expect((await tryNew('a')).message).toBe('该密码属于最常见或已泄露的密码，请换一个');
    for (const pw of ['ae', 'AE', 'Ae123', 'ae2024', `Ae@${new Date().getUTCFullYear()}`, 'ae123!']) {
      expect((await tryNew(pw)).errorCode, pw).toBe('PASSWORD_LIKE_ACCOUNT');
    }
    // a password of the spec's shape that is on no list is taken
    expect((await tryNew('Kestrel#Lantern84')).status).toBe('1');
  });

  it('loads the list once: tens of thousands of digests, and account variants are a small set', () => {
    expect(commonPasswordCount()).toBeGreaterThan(40_000);
    expect(accountVariantDigests('pi').size).toBeLessThan(200);
  });
});

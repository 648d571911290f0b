/**
 * Face login (issue 15 item 2) over real HTTP with a software WebAuthn authenticator (soft-authenticator.ts): every
 * call — getfaceAttest (login and register), /user/passkey/register, list, remove, faceLogin — and every refusal: no
 * session, wrong password, a used, expired or another user's challenge, another origin or RP ID, no user
 * verification, a passkey already registered, the limit, an unknown passkey, user A's passkey for account B, a user
 * handle that does not match, a replayed assertion, a counter that does not go up, a broken signature, and the
 * password login's rules (disabled, locked, login type and site, login windows). Each refusal is audited and changes
 * nothing (no session, no counter, no passkey); messages are translated.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { and, count, desc, eq, gt } from 'drizzle-orm';
import { FACE_LOGIN } from '@esource/shared';
import {
  auditEvents,
  permissionGroups,
  sessions,
  users,
  webauthnChallenges,
  webauthnCredentials,
} from '../src/db/schema';
import { sha256Hex, startTestServer, type TestServer } from './harness';
import { SoftAuthenticator, type SoftCredential } from './soft-authenticator';

const ORIGIN = 'http://localhost:5173';
const PASSWORD = sha256Hex('Demo@123456');

let s: TestServer;
const tokens: Record<string, string> = {};
const ids: Record<string, number> = {};

beforeAll(async () => {
  s = await startTestServer({
    config: {
      webauthn: { mode: 'fixed', rpName: 'eSource', rpId: 'localhost', origins: [ORIGIN] },
      loginMaxFailures: 5,
    },
  });
  for (const a of ['dm', 'cra', 'crc1', 'crc2', 'pi', 'ae']) {
    tokens[a] = await s.api.login(a);
    ids[a] = (await db().select({ id: users.id }).from(users).where(eq(users.account, a)))[0]!.id;
  }
});
afterAll(async () => {
  await s?.stop();
});

const db = () => s.database.db;

interface Attest {
  challengeId: string;
  purpose: string;
  expiresIn: number;
  options: Record<string, unknown> & { challenge: string };
}
interface Login {
  token: string;
  user: { id: number; account: string; loginType: number };
  passwordChangeRequired: boolean;
}

const post = <T = unknown>(path: string, json: unknown, token?: string, language = 'en_US') =>
  s.api.post<T>(path, { token: token ?? null, json, headers: { language } });

async function loginOptions(account?: string) {
  const r = await post<Attest>('/passport/getfaceAttest', {
    purpose: 'login',
    ...(account ? { account } : {}),
  });
  expect(r.status, JSON.stringify(r.body)).toBe(200);
  return r.body.data;
}

async function registerOptions(who: string) {
  const r = await post<Attest>(
    '/passport/getfaceAttest',
    { purpose: 'register', password: PASSWORD },
    tokens[who],
  );
  expect(r.status, JSON.stringify(r.body)).toBe(200);
  return r.body.data;
}

/** Enrols a new passkey of `who` on `auth`; returns it. */
async function enrol(
  who: string,
  auth: SoftAuthenticator,
  deviceName = 'Test laptop',
): Promise<SoftCredential> {
  const o = await registerOptions(who);
  const { credential, response } = auth.register(o.options);
  const r = await post<{ id: number }>(
    '/user/passkey/register',
    { challengeId: o.challengeId, deviceName, credential: response },
    tokens[who],
  );
  expect(r.status, JSON.stringify(r.body)).toBe(200);
  return credential;
}

const auditOf = (action: string, entityId: number, since = 0) =>
  db()
    .select()
    .from(auditEvents)
    .where(
      and(
        eq(auditEvents.action, action),
        eq(auditEvents.entityId, String(entityId)),
        gt(auditEvents.id, since),
      ),
    )
    .orderBy(desc(auditEvents.id));
const lastAuditId = async () =>
  (await db().select({ id: auditEvents.id }).from(auditEvents).orderBy(desc(auditEvents.id)).limit(1))[0]
    ?.id ?? 0;
const sessionCount = async (userId: number) =>
  (await db().select({ n: count() }).from(sessions).where(eq(sessions.userId, userId)))[0]!.n;
const storedCounter = async (cred: SoftCredential) =>
  (
    await db()
      .select({ c: webauthnCredentials.counter })
      .from(webauthnCredentials)
      .where(eq(webauthnCredentials.credentialId, cred.id.toString('base64url')))
  )[0]?.c;

const device = new SoftAuthenticator('localhost', ORIGIN);
let dmKey: SoftCredential;

describe('getfaceAttest', () => {
  it('gives login options without a session: a stored, single-use challenge for any of this site’s passkeys', async () => {
    const o = await loginOptions();
    expect(o.purpose).toBe('login');
    expect(o.challengeId).toMatch(/^[0-9a-f-]{36}$/);
    expect(o.expiresIn).toBe(FACE_LOGIN.challengeSeconds);
    expect(o.options).toMatchObject({
      rpId: 'localhost',
      userVerification: 'required',
      timeout: FACE_LOGIN.timeoutMs,
    });
    expect(o.options.allowCredentials ?? []).toEqual([]);
    expect(o.options.challenge).toMatch(/^[\w-]{43}$/);
    const [row] = await db()
      .select()
      .from(webauthnChallenges)
      .where(eq(webauthnChallenges.id, o.challengeId));
    expect(row).toMatchObject({
      purpose: 'login',
      challenge: o.options.challenge,
      userId: null,
      accountKey: null,
      usedAt: null,
    });
    // no purpose = login (the login page's call); the account typed is bound to the challenge, lower case
    const plain = await post<Attest>('/passport/getfaceAttest', { account: ' DM ' });
    expect(plain.body.data.purpose).toBe('login');
    const [bound] = await db()
      .select()
      .from(webauthnChallenges)
      .where(eq(webauthnChallenges.id, plain.body.data.challengeId));
    expect(bound!.accountKey).toBe('dm');
  });

  it('refuses enrolment options without a session, with a wrong password (counted, audited) or bad input', async () => {
    const anon = await post('/passport/getfaceAttest', { purpose: 'register', password: PASSWORD });
    expect(anon.status).toBe(401);
    const since = await lastAuditId();
    const wrong = await post(
      '/passport/getfaceAttest',
      { purpose: 'register', password: sha256Hex('nope') },
      tokens.pi,
    );
    expect(wrong.status).toBe(400);
    expect(wrong.body.errorCode).toBe('WRONG_PASSWORD');
    expect(wrong.body.message).toMatch(/attempts? left/);
    const a = await auditOf('reauth.failure', ids.pi!, since);
    expect(a[0]).toMatchObject({ newValue: 'passkey.register' });
    await db().update(users).set({ failedLoginCount: 0 }).where(eq(users.id, ids.pi!));
    for (const body of [
      { purpose: 'register' },
      { purpose: 'other' },
      { purpose: 'login', account: 'x'.repeat(51) },
    ]) {
      const r = await post('/passport/getfaceAttest', body, tokens.pi);
      expect(r.status, JSON.stringify(body)).toBe(400);
      expect(r.body.errorCode).toBe('VALIDATION');
    }
  });

  it('gives registration options for the caller: platform authenticator, user verification, a random user id', async () => {
    const o = await registerOptions('dm');
    expect(o.purpose).toBe('register');
    const opts = o.options as unknown as Record<string, unknown> & {
      user: { id: string; name: string; displayName: string };
      rp: { id: string; name: string };
    };
    expect(opts.rp).toEqual({ id: 'localhost', name: 'eSource' });
    expect(opts.user.name).toBe('dm');
    expect(opts.user.displayName).toBe('Dana Manager');
    expect(opts.user.id).not.toBe(String(ids.dm));
    expect(Buffer.from(opts.user.id, 'base64url')).toHaveLength(32);
    expect(opts.authenticatorSelection).toMatchObject({
      authenticatorAttachment: 'platform',
      residentKey: 'required',
      userVerification: 'required',
    });
    const [row] = await db()
      .select()
      .from(webauthnChallenges)
      .where(eq(webauthnChallenges.id, o.challengeId));
    expect(row).toMatchObject({ purpose: 'register', userId: ids.dm, userHandle: opts.user.id });
  });
});

describe('enrolment', () => {
  it('registers a passkey, lists it and audits it; the same user id is reused for a second passkey', async () => {
    const since = await lastAuditId();
    dmKey = await enrol('dm', device, 'Dana’s MacBook (Touch ID)');
    const list = await s.api.get<{
      rows: {
        id: number;
        deviceName: string;
        transports: string[];
        deviceType: string;
        lastUsedAt: string | null;
      }[];
      max: number;
      available: boolean;
    }>('/user/passkey/list', { token: tokens.dm });
    expect(list.status).toBe(200);
    expect(list.body.data.max).toBe(FACE_LOGIN.maxPasskeys);
    expect(list.body.data.available).toBe(true);
    expect(list.body.data.rows).toHaveLength(1);
    expect(list.body.data.rows[0]).toMatchObject({
      deviceName: 'Dana’s MacBook (Touch ID)',
      transports: ['internal'],
      deviceType: 'singleDevice',
      lastUsedAt: null,
    });
    const a = await auditOf('passkey.register', ids.dm!, since);
    expect(a).toHaveLength(1);
    expect(JSON.parse(a[0]!.newValue!)).toMatchObject({
      deviceName: 'Dana’s MacBook (Touch ID)',
      deviceType: 'singleDevice',
    });
    // another user sees none of them
    const other = await s.api.get<{ rows: unknown[] }>('/user/passkey/list', { token: tokens.cra });
    expect(other.body.data.rows).toEqual([]);
    // a second enrolment offers the same WebAuthn user id and excludes the first passkey
    const o = await registerOptions('dm');
    const opts = o.options as unknown as { user: { id: string }; excludeCredentials: { id: string }[] };
    expect(opts.user.id).toBe(dmKey.userHandle);
    expect(opts.excludeCredentials.map((c) => c.id)).toEqual([dmKey.id.toString('base64url')]);
  });

  it('refuses a used, expired or another user’s challenge, a wrong origin or RP ID, no user verification — audited, nothing stored', async () => {
    const before = (await db().select().from(webauthnCredentials)).length;
    const since = await lastAuditId();
    const auth = new SoftAuthenticator('localhost', ORIGIN);
    // used: the one of the test above was taken by its registration; take one and send it twice
    const o1 = await registerOptions('cra');
    const first = auth.register(o1.options);
    expect(
      (
        await post(
          '/user/passkey/register',
          { challengeId: o1.challengeId, deviceName: 'Phone', credential: first.response },
          tokens.cra,
        )
      ).status,
    ).toBe(200);
    const again = await post(
      '/user/passkey/register',
      { challengeId: o1.challengeId, deviceName: 'Phone', credential: auth.register(o1.options).response },
      tokens.cra,
    );
    expect(again.status).toBe(400);
    expect(again.body.errorCode).toBe('PASSKEY_CHALLENGE_INVALID');
    expect(again.body.message).toBe(
      'This face login request has expired or has already been used; please start again',
    );
    // another user's challenge
    const o2 = await registerOptions('crc1');
    const stolen = await post(
      '/user/passkey/register',
      { challengeId: o2.challengeId, deviceName: 'X', credential: auth.register(o2.options).response },
      tokens.cra,
    );
    expect(stolen.body.errorCode).toBe('PASSKEY_CHALLENGE_INVALID');
    // crc1's own challenge still works after the refusal (the refusal did not take it)
    const own = await post(
      '/user/passkey/register',
      {
        challengeId: o2.challengeId,
        deviceName: 'Clinic PC',
        credential: auth.register(o2.options).response,
      },
      tokens.crc1,
    );
    expect(own.status, JSON.stringify(own.body)).toBe(200);
    // expired
    const o3 = await registerOptions('cra');
    await db()
      .update(webauthnChallenges)
      .set({ expiresAt: new Date(Date.now() - 1000) })
      .where(eq(webauthnChallenges.id, o3.challengeId));
    const late = await post(
      '/user/passkey/register',
      { challengeId: o3.challengeId, deviceName: 'X', credential: auth.register(o3.options).response },
      tokens.cra,
    );
    expect(late.body.errorCode).toBe('PASSKEY_CHALLENGE_INVALID');
    // another origin, another RP ID, no user verification, another challenge
    const cases = [
      [{ origin: 'https://evil.example' }, /page's address https:\/\/evil\.example is not this server's/],
      [{ rpId: 'evil.example' }, /made for another site/],
      [{ uv: false }, /did not verify you/],
      [{ challenge: 'AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA' }, /belongs to another request/],
    ] as const;
    for (const [m, text] of cases) {
      const o = await registerOptions('cra');
      const r = await post(
        '/user/passkey/register',
        { challengeId: o.challengeId, deviceName: 'X', credential: auth.register(o.options, m).response },
        tokens.cra,
      );
      expect(r.status, JSON.stringify(m)).toBe(400);
      expect(r.body.errorCode).toBe('PASSKEY_VERIFY_FAILED');
      expect(r.body.message).toMatch(text);
    }
    // translated
    const o4 = await registerOptions('cra');
    const zh = await post(
      '/user/passkey/register',
      {
        challengeId: o4.challengeId,
        deviceName: 'X',
        credential: auth.register(o4.options, { uv: false }).response,
      },
      tokens.cra,
      'zh_CN',
    );
    expect(zh.body.message).toBe('刷脸登录验证未通过：设备未验证您的身份（面容、指纹或 PIN）');
    expect((await db().select().from(webauthnCredentials)).length).toBe(before + 2);
    const refused = await auditOf('passkey.registerRefused', ids.cra!, since);
    expect(refused.map((x) => x.reason).sort()).toEqual([
      'PASSKEY_CHALLENGE_INVALID',
      'PASSKEY_CHALLENGE_INVALID',
      'PASSKEY_CHALLENGE_INVALID',
      'PASSKEY_VERIFY_FAILED',
      'PASSKEY_VERIFY_FAILED',
      'PASSKEY_VERIFY_FAILED',
      'PASSKEY_VERIFY_FAILED',
      'PASSKEY_VERIFY_FAILED',
    ]);
  });

  it('refuses a passkey registered already and more than the limit', async () => {
    const o = await registerOptions('dm');
    const dup = await post(
      '/user/passkey/register',
      {
        challengeId: o.challengeId,
        deviceName: 'Again',
        credential: device.register(o.options, {}, dmKey).response,
      },
      tokens.dm,
    );
    expect(dup.status).toBe(409);
    expect(dup.body.errorCode).toBe('PASSKEY_EXISTS');
    // fill pi up to the limit directly, then both the options and a registration refuse
    const rows = Array.from({ length: FACE_LOGIN.maxPasskeys }, (_, i) => ({
      userId: ids.pi!,
      credentialId: `pi-fake-${i}`,
      userHandle: 'h',
      publicKey: 'AA',
      deviceType: 'singleDevice' as const,
      deviceName: `Fake ${i}`,
    }));
    const pending = await registerOptions('pi');
    await db().insert(webauthnCredentials).values(rows);
    const limit = await post(
      '/passport/getfaceAttest',
      { purpose: 'register', password: PASSWORD },
      tokens.pi,
    );
    expect(limit.status).toBe(409);
    expect(limit.body.errorCode).toBe('PASSKEY_LIMIT');
    expect(limit.body.message).toBe(
      `You already have ${FACE_LOGIN.maxPasskeys} passkeys; remove one before adding another`,
    );
    const late = await post(
      '/user/passkey/register',
      {
        challengeId: pending.challengeId,
        deviceName: 'One more',
        credential: new SoftAuthenticator('localhost', ORIGIN).register(pending.options).response,
      },
      tokens.pi,
    );
    expect(late.body.errorCode).toBe('PASSKEY_LIMIT');
    await db().delete(webauthnCredentials).where(eq(webauthnCredentials.userId, ids.pi!));
  });

  it('validates the register body', async () => {
    const o = await registerOptions('cra');
    const good = new SoftAuthenticator('localhost', ORIGIN).register(o.options).response;
    for (const body of [
      { challengeId: 'not-a-uuid', deviceName: 'X', credential: good },
      { challengeId: o.challengeId, deviceName: '', credential: good },
      { challengeId: o.challengeId, deviceName: 'x'.repeat(51), credential: good },
      { challengeId: o.challengeId, deviceName: 'X', credential: { ...good, type: 'password' } },
      { challengeId: o.challengeId, deviceName: 'X', credential: { ...good, id: 'not base64url!' } },
    ]) {
      const r = await post('/user/passkey/register', body, tokens.cra);
      expect(r.status).toBe(400);
      expect(r.body.errorCode).toBe('VALIDATION');
    }
    expect(
      (
        await post('/user/passkey/register', {
          challengeId: o.challengeId,
          deviceName: 'X',
          credential: good,
        })
      ).status,
    ).toBe(401);
  });
});

describe('faceLogin', () => {
  it('logs in with the passkey: the same session and answer as a password login, audited, counter stored', async () => {
    const since = await lastAuditId();
    const o = await loginOptions();
    const r = await post<Login>('/passport/faceLogin', {
      challengeId: o.challengeId,
      credential: device.assert(o.options, dmKey),
      loginType: 1,
      variant: 'main',
    });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    expect(r.body.data.user).toMatchObject({ account: 'dm', loginType: 1 });
    expect(r.body.data.passwordChangeRequired).toBe(false);
    const info = await s.api.post<{ user: { account: string } }>('/auth/user/pmsInfo', {
      token: r.body.data.token,
      json: {},
    });
    expect(info.status).toBe(200);
    expect(info.body.data.user.account).toBe('dm');
    const ok = await auditOf('login.success', ids.dm!, since);
    expect(ok[0]!.newValue).toBe('loginType=1; passkey');
    expect(await storedCounter(dmKey)).toBe(dmKey.counter);
    const [c] = await db()
      .select()
      .from(webauthnCredentials)
      .where(eq(webauthnCredentials.credentialId, dmKey.id.toString('base64url')));
    expect(c!.lastUsedAt).not.toBeNull();
    // with the account typed on the login page (any case)
    const o2 = await loginOptions('DM');
    const r2 = await post<Login>('/passport/faceLogin', {
      challengeId: o2.challengeId,
      credential: device.assert(o2.options, dmKey),
      loginType: 1,
    });
    expect(r2.status).toBe(200);
  });

  it('refuses a replayed assertion (challenge used) and an old assertion for a new challenge — nothing changes', async () => {
    const o = await loginOptions();
    const body = { challengeId: o.challengeId, credential: device.assert(o.options, dmKey), loginType: 1 };
    expect((await post('/passport/faceLogin', body)).status).toBe(200);
    const sessionsBefore = await sessionCount(ids.dm!);
    const counterBefore = await storedCounter(dmKey);
    const since = await lastAuditId();
    const replay = await post('/passport/faceLogin', body);
    expect(replay.status).toBe(400);
    expect(replay.body.errorCode).toBe('PASSKEY_CHALLENGE_INVALID');
    // the same signed answer with a fresh challenge: the signed challenge is not the new one
    const fresh = await loginOptions();
    const moved = await post('/passport/faceLogin', { ...body, challengeId: fresh.challengeId });
    expect(moved.body.errorCode).toBe('PASSKEY_VERIFY_FAILED');
    expect(moved.body.message).toMatch(/belongs to another request/);
    expect(await sessionCount(ids.dm!)).toBe(sessionsBefore);
    expect(await storedCounter(dmKey)).toBe(counterBefore);
    const failures = await auditOf('login.failure', ids.dm!, since);
    expect(failures.map((f) => f.reason)).toEqual([
      expect.stringMatching(/^passkey; not verified/),
      expect.stringMatching(/^passkey; challenge unknown, expired or used/),
    ]);
  });

  it('refuses user A’s passkey for account B, and a user handle that is not the passkey’s — audited against the account named', async () => {
    const since = await lastAuditId();
    const sessionsCra = await sessionCount(ids.cra!);
    const o = await loginOptions('cra');
    const r = await post('/passport/faceLogin', {
      challengeId: o.challengeId,
      credential: device.assert(o.options, dmKey),
      loginType: 2,
    });
    expect(r.status).toBe(400);
    expect(r.body.errorCode).toBe('PASSKEY_USER_MISMATCH');
    expect(r.body.message).toBe(
      'This passkey belongs to a different account than the one being logged in to; nothing was changed',
    );
    const zhO = await loginOptions('cra');
    const zh = await post(
      '/passport/faceLogin',
      { challengeId: zhO.challengeId, credential: device.assert(zhO.options, dmKey), loginType: 2 },
      undefined,
      'zh_CN',
    );
    expect(zh.body.message).toBe('此通行密钥属于其他账号，不是正在登录的账号；未做任何更改');
    const a = await auditOf('login.failure', ids.cra!, since);
    expect(a[0]!.reason).toMatch(/^passkey; belongs to another account \(user \d+/);
    expect(await sessionCount(ids.cra!)).toBe(sessionsCra);
    const o2 = await loginOptions();
    const h = await post('/passport/faceLogin', {
      challengeId: o2.challengeId,
      credential: device.assert(o2.options, dmKey, { userHandle: 'AAAA' }),
      loginType: 1,
    });
    expect(h.body.errorCode).toBe('PASSKEY_USER_MISMATCH');
  });

  it('refuses an unknown passkey, a counter that does not go up, a broken signature, another RP ID, no user verification', async () => {
    const stranger = new SoftAuthenticator('localhost', ORIGIN);
    const so = await registerOptions('crc2');
    const never = stranger.register(so.options).credential; // made, never sent to the server
    const o1 = await loginOptions();
    const unknown = await post('/passport/faceLogin', {
      challengeId: o1.challengeId,
      credential: stranger.assert(o1.options, never),
      loginType: 3,
    });
    expect(unknown.body.errorCode).toBe('PASSKEY_UNKNOWN');
    const counter = (await storedCounter(dmKey))!;
    const o2 = await loginOptions();
    const stale = await post('/passport/faceLogin', {
      challengeId: o2.challengeId,
      credential: device.assert(o2.options, dmKey, { counter }),
      loginType: 1,
    });
    expect(stale.body.errorCode).toBe('PASSKEY_COUNTER');
    expect(stale.body.message).toMatch(/may have been copied/);
    for (const [m, text] of [
      [{ badSignature: true }, /signature does not match/],
      [{ rpId: 'evil.example' }, /made for another site/],
      [{ uv: false }, /did not verify you/],
      [{ origin: 'http://localhost:9999' }, /page's address http:\/\/localhost:9999/],
    ] as const) {
      const o = await loginOptions();
      const r = await post('/passport/faceLogin', {
        challengeId: o.challengeId,
        credential: device.assert(o.options, dmKey, m),
        loginType: 1,
      });
      expect(r.body.errorCode, JSON.stringify(m)).toBe('PASSKEY_VERIFY_FAILED');
      expect(r.body.message).toMatch(text);
    }
    expect(await storedCounter(dmKey)).toBe(counter);
  });

  it('keeps every rule of the password login: disabled, locked, login type and site, login windows', async () => {
    const auth = new SoftAuthenticator('localhost', ORIGIN);
    const key = await enrol('crc2', auth, 'Ward tablet');
    const attempt = async (loginType = 3, variant?: string) => {
      const o = await loginOptions();
      return post('/passport/faceLogin', {
        challengeId: o.challengeId,
        credential: auth.assert(o.options, key),
        loginType,
        ...(variant ? { variant } : {}),
      });
    };
    expect((await attempt()).status).toBe(200);
    const type = await attempt(1);
    expect(type.body.errorCode).toBe('LOGIN_TYPE_FORBIDDEN');
    const site = await attempt(3, 'main');
    expect(site.body.errorCode).toBe('LOGIN_TYPE_FORBIDDEN');
    await db().update(users).set({ status: 0 }).where(eq(users.id, ids.crc2!));
    const disabled = await attempt();
    expect(disabled.status).toBe(403);
    expect(disabled.body.errorCode).toBe('ACCOUNT_DISABLED');
    await db()
      .update(users)
      .set({ status: 1, lockedUntil: new Date(Date.now() + 10 * 60_000) })
      .where(eq(users.id, ids.crc2!));
    const locked = await attempt();
    expect(locked.status).toBe(423);
    expect(locked.body.errorCode).toBe('ACCOUNT_LOCKED');
    await db().update(users).set({ lockedUntil: null }).where(eq(users.id, ids.crc2!));
    const [g] = await db()
      .insert(permissionGroups)
      .values({
        name: 'Never (face)',
        loginWindows: [{ days: [], start: '00:00', end: '00:00' }],
        timezone: 'UTC',
      })
      .returning();
    await db().update(users).set({ permissionGroupId: g!.id }).where(eq(users.id, ids.crc2!));
    const closed = await attempt();
    expect(closed.body.errorCode).toBe('LOGIN_WINDOW_CLOSED');
    await db().update(users).set({ permissionGroupId: null }).where(eq(users.id, ids.crc2!));
    const reasons = (await auditOf('login.failure', ids.crc2!)).map((a) => a.reason).slice(0, 5);
    expect(reasons).toEqual([
      expect.stringMatching(/^passkey; outside login windows/),
      'passkey; locked',
      'passkey; disabled',
      'passkey; login type 3 on main not allowed',
      'passkey; login type 1 on main not allowed',
    ]);
    expect((await attempt()).status).toBe(200);
  });

  it('validates the faceLogin body', async () => {
    const o = await loginOptions();
    const good = device.assert(o.options, dmKey, { counter: 0 });
    for (const body of [
      {},
      { challengeId: o.challengeId, credential: good },
      { challengeId: o.challengeId, credential: good, loginType: 9 },
      {
        challengeId: o.challengeId,
        credential: { ...good, response: { ...good.response, signature: '' } },
        loginType: 1,
      },
      { challengeId: o.challengeId, credential: good, loginType: 1, variant: 'other' },
    ]) {
      const r = await post('/passport/faceLogin', body);
      expect(r.status, JSON.stringify(body).slice(0, 80)).toBe(400);
      expect(r.body.errorCode).toBe('VALIDATION');
    }
  });
});

describe('removing a passkey', () => {
  it('needs the current password; another user’s passkey is not found; removed ones no longer log in', async () => {
    const [mine] = await db()
      .select()
      .from(webauthnCredentials)
      .where(eq(webauthnCredentials.userId, ids.dm!));
    const [theirs] = await db()
      .select()
      .from(webauthnCredentials)
      .where(eq(webauthnCredentials.userId, ids.cra!));
    const wrong = await s.api.post('/user/passkey/remove', {
      token: tokens.dm,
      form: { id: mine!.id, password: sha256Hex('nope') },
      headers: { language: 'en_US' },
    });
    expect(wrong.status).toBe(400);
    expect(wrong.body.errorCode).toBe('WRONG_PASSWORD');
    await db().update(users).set({ failedLoginCount: 0 }).where(eq(users.id, ids.dm!));
    const other = await s.api.post('/user/passkey/remove', {
      token: tokens.dm,
      form: { id: theirs!.id, password: PASSWORD },
    });
    expect(other.status).toBe(404);
    expect(
      (await db().select().from(webauthnCredentials).where(eq(webauthnCredentials.id, theirs!.id))).length,
    ).toBe(1);
    const since = await lastAuditId();
    const ok = await s.api.post('/user/passkey/remove', {
      token: tokens.dm,
      form: { id: mine!.id, password: PASSWORD },
    });
    expect(ok.status, JSON.stringify(ok.body)).toBe(200);
    const a = await auditOf('passkey.remove', ids.dm!, since);
    expect(JSON.parse(a[0]!.oldValue!)).toMatchObject({
      passkeyId: mine!.id,
      deviceName: 'Dana’s MacBook (Touch ID)',
    });
    const o = await loginOptions();
    const gone = await post('/passport/faceLogin', {
      challengeId: o.challengeId,
      credential: device.assert(o.options, dmKey),
      loginType: 1,
    });
    expect(gone.body.errorCode).toBe('PASSKEY_UNKNOWN');
    const again = await s.api.post('/user/passkey/remove', {
      token: tokens.dm,
      form: { id: mine!.id, password: PASSWORD },
    });
    expect(again.status).toBe(404);
    expect((await s.api.post('/user/passkey/remove', { form: { id: 1, password: PASSWORD } })).status).toBe(
      401,
    );
  });
});

/**
 * Real-name verification (issue 15 item 2) over real HTTP with the development provider: the result kept on the user
 * (name, masked number, HMAC — never the number), audited; every refusal: a wrong check digit, an impossible birth
 * date, a bad format or name, the provider's "does not match" (the documented test pattern, sequence code 999), a
 * number verified on another account, the daily limit; no provider configured and a provider that fails (the
 * service with its provider swapped). Messages translated.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { and, desc, eq, sql } from 'drizzle-orm';
import { REAL_NAME, maskIdNumber } from '@esource/shared';
import { auditEvents, realNameChecks, userRealNames, users } from '../src/db/schema';
import type { AuthedContext } from '../src/lib/context';
import { RealNameService, idNumberHmac } from '../src/modules/profile/real-name.service';
import type { RealNameProvider } from '../src/modules/profile/real-name-provider';
import { startTestServer, type TestServer } from './harness';

let s: TestServer;
const tokens: Record<string, string> = {};
const ids: Record<string, number> = {};

beforeAll(async () => {
  s = await startTestServer();
  for (const a of ['dm', 'cra', 'crc1', 'crc2', 'pi']) {
    tokens[a] = await s.api.login(a);
    ids[a] = (await db().select({ id: users.id }).from(users).where(eq(users.account, a)))[0]!.id;
  }
});
afterAll(async () => {
  await s?.stop();
});

const db = () => s.database.db;

/** A valid resident ID number from its first 17 digits (ISO 7064 MOD 11-2 check character). */
function withCheck(first17: string): string {
  const w = [7, 9, 10, 5, 8, 4, 2, 1, 6, 3, 7, 9, 10, 5, 8, 4, 2];
  let sum = 0;
  for (let i = 0; i < 17; i++) sum += Number(first17[i]) * w[i]!;
  return first17 + '10X98765432'[sum % 11]!;
}

interface Info {
  verified: boolean;
  name: string | null;
  idNumberMasked: string | null;
  verifiedAt: string | null;
  provider: string | null;
  remainingToday: number;
  available: boolean;
}

const verify = (who: string, name: string, idNumber: string, language = 'en_US') =>
  s.api.post<Info>('/user/realName/verify', {
    token: tokens[who],
    form: { name, idNumber },
    headers: { language },
  });
const info = async (who: string) =>
  (await s.api.get<Info>('/user/realName', { token: tokens[who] })).body.data;
const auditOf = (action: string, userId: number) =>
  db()
    .select()
    .from(auditEvents)
    .where(and(eq(auditEvents.action, action), eq(auditEvents.entityId, String(userId))))
    .orderBy(desc(auditEvents.id));

const DM_ID = withCheck('11010519850615123');
/** The `n` of a raw `select count(*)::int as n` (execute answers rows untyped). */
const countOf = (r: unknown) => (r as { rows: { n: number }[] }).rows[0]!.n;

describe('real-name verification', () => {
  it('starts unverified with the day’s checks left; needs a session', async () => {
    expect(await info('dm')).toEqual({
      verified: false,
      name: null,
      idNumberMasked: null,
      verifiedAt: null,
      provider: null,
      remainingToday: REAL_NAME.perDay,
      available: true,
    });
    expect((await s.api.get('/user/realName')).status).toBe(401);
    expect((await s.api.post('/user/realName/verify', { form: { name: 'X', idNumber: DM_ID } })).status).toBe(
      401,
    );
  });

  it('refuses a wrong check digit, an impossible birth date, a bad format and a bad name before any check, translated', async () => {
    const wrongDigit = DM_ID.slice(0, 17) + (DM_ID[17] === '0' ? '1' : '0');
    const cases = [
      [wrongDigit, 'Dana Manager', 'idNumber', 'fails the ID number check digit', '身份证号校验位不正确'],
      [withCheck('11010519850230123'), 'Dana Manager', 'idNumber', 'holds an impossible birth date', null],
      ['1101051985061512', 'Dana Manager', 'idNumber', 'must be an 18-character ID number', null],
      ['', 'Dana Manager', 'idNumber', null, null],
      [DM_ID, '', 'name', null, null],
      [DM_ID, '<script>', 'name', 'must be a name as on the ID card', null],
    ] as const;
    for (const [id, name, field, text, zh] of cases) {
      const r = await verify('dm', name, id);
      expect(r.status, `${id} ${name}`).toBe(400);
      expect(r.body.errorCode).toBe('VALIDATION');
      expect(r.body.detail?.map((d) => d.field)).toContain(field);
      if (text) expect(r.body.detail?.find((d) => d.field === field)?.message).toContain(text);
      if (zh) {
        const z = await verify('dm', name, id, 'zh_CN');
        expect(z.body.detail?.find((d) => d.field === field)?.message).toContain(zh);
      }
    }
    expect((await db().select().from(realNameChecks).where(eq(realNameChecks.userId, ids.dm!))).length).toBe(
      0,
    );
    expect((await info('dm')).remainingToday).toBe(REAL_NAME.perDay);
  });

  it('refuses what the provider says does not match (test pattern: sequence code 999), audited with the number masked', async () => {
    const mismatch = withCheck('11010519850615999');
    const r = await verify('dm', 'Dana Manager', mismatch);
    expect(r.status).toBe(400);
    expect(r.body.errorCode).toBe('REAL_NAME_MISMATCH');
    expect(r.body.message).toBe(
      'The name and the ID number do not match (checked by the development provider)',
    );
    const zh = await verify('dm', 'Dana Manager', mismatch, 'zh_CN');
    expect(zh.body.message).toBe('姓名与身份证号不一致（开发环境核验服务核验）');
    expect((await info('dm')).verified).toBe(false);
    const a = await auditOf('realName.refused', ids.dm!);
    expect(a[0]!.reason).toMatch(/^does not match \(development: test pattern/);
    expect(JSON.parse(a[0]!.newValue!)).toEqual({
      name: 'Dana Manager',
      idNumber: maskIdNumber(mismatch),
      provider: 'development',
    });
    expect((await info('dm')).remainingToday).toBe(REAL_NAME.perDay - 2);
  });

  it('verifies a valid name and number: kept on the user masked and as HMAC, never in clear; audited', async () => {
    const r = await verify('dm', '张 三·Dana', DM_ID.toLowerCase());
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    expect(r.body.data).toMatchObject({
      verified: true,
      name: '张 三·Dana',
      idNumberMasked: maskIdNumber(DM_ID),
      provider: 'development',
    });
    expect(r.body.data.idNumberMasked).toMatch(/^110\*{11}\d{3}[\dX]$/);
    const [row] = await db().select().from(userRealNames).where(eq(userRealNames.userId, ids.dm!));
    expect(row!.idHmac).toBe(idNumberHmac(DM_ID));
    expect(row!.idHmac).toMatch(/^[0-9a-f]{64}$/);
    // the number is in no table: not the result, not the checks, not the audit trail
    for (const table of ['user_real_names', 'real_name_checks', 'audit_events']) {
      const hit = await db().execute(
        sql`select count(*)::int as n from ${sql.identifier(table)} t where t::text like ${`%${DM_ID.slice(6, 14)}%`}`,
      );
      expect(countOf(hit), table).toBe(0);
    }
    const a = await auditOf('realName.verify', ids.dm!);
    expect(JSON.parse(a[0]!.newValue!)).toMatchObject({
      name: '张 三·Dana',
      idNumber: maskIdNumber(DM_ID),
      provider: 'development',
    });
    expect(a[0]!.oldValue).toBeNull();
    // verifying again (a new name) replaces the result, the old one in the audit row
    const again = await verify('dm', 'Dana Manager', DM_ID);
    expect(again.body.data.name).toBe('Dana Manager');
    const a2 = await auditOf('realName.verify', ids.dm!);
    expect(JSON.parse(a2[0]!.oldValue!)).toMatchObject({ name: '张 三·Dana', idNumber: maskIdNumber(DM_ID) });
  });

  it('refuses a number verified on another account, nothing changed', async () => {
    const r = await verify('cra', 'Chris Monitor', DM_ID);
    expect(r.status).toBe(409);
    expect(r.body.errorCode).toBe('REAL_NAME_ID_TAKEN');
    expect(r.body.message).toBe('This ID number is already verified on another account');
    expect((await info('cra')).verified).toBe(false);
    expect((await auditOf('realName.refused', ids.cra!))[0]!.reason).toBe(
      'ID number verified on another account',
    );
  });

  it('allows REAL_NAME.perDay checks a day, then refuses (audited)', async () => {
    for (let i = 0; i < REAL_NAME.perDay; i++) {
      const r = await verify('crc1', 'Amy Coordinator', withCheck(`3101151990030799`.slice(0, 14) + '999'));
      expect(r.body.errorCode, `check ${i + 1}`).toBe('REAL_NAME_MISMATCH');
    }
    const over = await verify('crc1', 'Amy Coordinator', withCheck('31011519900307123'));
    expect(over.status).toBe(429);
    expect(over.body.errorCode).toBe('REAL_NAME_DAILY_LIMIT');
    expect(over.body.message).toBe(
      `No more real-name checks today (${REAL_NAME.perDay} a day); try again tomorrow`,
    );
    expect((await info('crc1')).remainingToday).toBe(0);
    expect((await auditOf('realName.refused', ids.crc1!))[0]!.reason).toBe(
      `daily limit (${REAL_NAME.perDay})`,
    );
    // a day later the checks are back
    await db()
      .update(realNameChecks)
      .set({ createdAt: sql`${realNameChecks.createdAt} - interval '25 hours'` })
      .where(eq(realNameChecks.userId, ids.crc1!));
    const next = await verify('crc1', 'Amy Coordinator', withCheck('31011519900307123'));
    expect(next.status, JSON.stringify(next.body)).toBe(200);
  });

  it('answers REAL_NAME_UNAVAILABLE without a provider or when the provider fails, audited', async () => {
    const ctx = {
      user: { id: ids.pi!, account: 'pi', name: 'Dr. Ivy Investigator', orgId: null, systemRoleId: null },
      sessionId: 1,
      loginType: 3,
      requestId: 'test',
      language: 'en_US',
      ip: '127.0.0.1',
      env: 'PRO',
    } as unknown as AuthedContext;
    const input = { name: 'Ivy', idNumber: withCheck('44052419800101001') };
    await expect(new RealNameService(db(), null).verify(ctx, input)).rejects.toMatchObject({
      code: 'REAL_NAME_UNAVAILABLE',
      params: { detail: 'profile.realNameProvider.none' },
    });
    const failing: RealNameProvider = {
      name: 'vendor',
      verify: () => Promise.reject(new Error('connect ETIMEDOUT')),
    };
    await expect(new RealNameService(db(), failing).verify(ctx, input)).rejects.toMatchObject({
      code: 'REAL_NAME_UNAVAILABLE',
      params: { detail: 'profile.realNameProvider.failed', problem: 'connect ETIMEDOUT' },
    });
    const reasons = (await auditOf('realName.refused', ids.pi!)).map((a) => a.reason);
    expect(reasons).toEqual(['provider error: connect ETIMEDOUT', 'no provider configured']);
    const [check] = await db().select().from(realNameChecks).where(eq(realNameChecks.userId, ids.pi!));
    expect(check).toMatchObject({
      outcome: 'error',
      provider: 'vendor',
      idMasked: maskIdNumber(input.idNumber),
    });
  });
});

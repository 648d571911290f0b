/**
 * The response cache (lib/response-cache.ts, migration 0050; issues 16 and 13): a list asked again is answered from
 * memory, but never once the database has changed — a change made through the API shows in the very next call
 * (the NOTIFY reaches this process before the changing call returns), one committed elsewhere as soon as its
 * notification is delivered (the latency is printed), one rolled back empties nothing. Callers never share an
 * answer they should not: another site, another role's masking, another language, a revoked permission.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { and, eq } from 'drizzle-orm';
import { rolePermissions, roles, sites, subjects } from '../src/db/schema';
import type { ResponseCache } from '../src/lib/response-cache';
import { DEMO_PROJECT_ID, startTestServer, type TestServer } from './harness';

const H = { proId: DEMO_PROJECT_ID, proType: 'PRO', language: 'en_US' };
/** tables that send no esource_data notification (migration 0050's list): nothing cached is read from them */
const UNWATCHED = ['sessions', 'login_throttle', 'webauthn_challenges', 'audit_events', 'audit_checkpoints', 'sms_outbox', 'progress_items', 'edc_logs', 'hl7_messages'];

let s: TestServer;
let cache: ResponseCache;
const tok: Record<string, string> = {};
let siteA = 0;
let siteB = 0;
const lags: number[] = [];

type Page = { totalCount: number; content: { ptsId: number; ptsNo: string; siteId: number; initials: string | null; medicalRecordId: string | null; currentVisitName: string | null }[] };
const list = async (who: string, form: Record<string, string | number> = {}, headers: Record<string, string | number> = H) => {
  const r = await s.api.post<Page>('/project/manage/ptsList', { token: tok[who], headers, form: { pageSize: 50, ...form } });
  return r;
};
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

beforeAll(async () => {
  s = await startTestServer({ config: { responseCache: true } });
  cache = s.deps!.responses!;
  for (const a of ['admin', 'crc1', 'crc2', 'cra', 'dm']) tok[a] = await s.api.login(a);
  const rows = await s.database.db.select().from(sites).where(and(eq(sites.projectId, DEMO_PROJECT_ID), eq(sites.env, 'PRO')));
  siteA = rows.find((r) => r.siteNo === '01')!.id;
  siteB = rows.find((r) => r.siteNo === '02')!.id;
  const add = (who: string, siteId: number, initials: string, medicalRecordId: string) =>
    s.api.post<{ ptsId: number }>('/project/managePts/add', { token: tok[who], headers: H, form: { siteId, firstVisitDate: '2026-11-01', initials, medicalRecordId } });
  for (const [who, site, ini, mr] of [['crc1', siteA, 'AAA', 'MR-A-0001'], ['crc2', siteB, 'BBB', 'MR-B-0001']] as const) {
    const r = await add(who, site, ini, mr);
    expect(r.status, JSON.stringify(r.body)).toBe(200);
  }
});
afterAll(async () => {
  if (lags.length) {
    const sorted = [...lags].sort((a, b) => a - b);
    console.log(
      `[response-cache] ${s.database.kind}: a change committed on another connection emptied the cache ` +
        `${sorted[Math.floor(sorted.length / 2)]!.toFixed(2)} ms (median), ${sorted[sorted.length - 1]!.toFixed(2)} ms (max) after its commit returned, over ${sorted.length} changes`,
    );
  }
  await s?.stop();
});

describe('the response cache', () => {
  it('watches every table of the schema but those it names', async () => {
    const r = await s.database.executeSql(
      `select c.relname as t, exists (select 1 from pg_trigger g where g.tgrelid = c.oid and g.tgname = c.relname || '_data_notify') as watched
         from pg_class c join pg_namespace n on n.oid = c.relnamespace where n.nspname = 'public' and c.relkind in ('r', 'p') order by 1`,
    );
    const rows = r.rows as { t: string; watched: boolean }[];
    expect(rows.length).toBeGreaterThan(50);
    // a new table must either send the notification or be listed in migration 0050 (and here) as never read by a cached answer
    expect(rows.filter((x) => !x.watched).map((x) => x.t).sort()).toEqual([...UNWATCHED].sort());
  });

  it('answers a repeated list from memory', async () => {
    expect(cache.isListening).toBe(true);
    const first = await list('crc1');
    expect(first.status, JSON.stringify(first.body)).toBe(200);
    const { hits } = cache.stats;
    const again = await list('crc1');
    expect(cache.stats.hits).toBe(hits + 1);
    expect(again.body).toEqual({ ...first.body, requestId: again.body.requestId });
  });

  it('keeps no refusal and no outsized request', async () => {
    const bad = await list('crc1', { pageSize: 7 });
    expect([bad.status, bad.body.errorCode]).toEqual([400, 'VALIDATION']);
    const { hits } = cache.stats;
    expect((await list('crc1', { pageSize: 7 })).status).toBe(400);
    // unknown fields are dropped by the validation: a 10,000-character one is answered, and not kept
    const big = { keyword: '', junk: 'x'.repeat(10_000) };
    expect((await list('crc1', big)).status).toBe(200);
    expect((await list('crc1', big)).status).toBe(200);
    expect(cache.stats.hits).toBe(hits);
  });

  it('shows a change made through the API in the very next call', async () => {
    const before = (await list('crc1')).body.data;
    await list('crc1');
    const add = await s.api.post<{ ptsId: number }>('/project/managePts/add', { token: tok.crc1, headers: H, form: { siteId: siteA, firstVisitDate: '2026-11-02', initials: 'CCC' } });
    expect(add.status, JSON.stringify(add.body)).toBe(200);
    const after = (await list('crc1')).body.data;
    expect(after.totalCount).toBe(before.totalCount + 1);
    expect(after.content.map((r) => r.ptsId)).toContain(add.body.data.ptsId);
    // and another user's answer in the same process
    const dmList = (await list('dm', { pageSize: 200 })).body.data;
    expect(dmList.content.map((r) => r.ptsId)).toContain(add.body.data.ptsId);
  });

  it('shows a change committed on another connection once its notification arrives, and keeps the answers when a change is rolled back', async () => {
    const [subj] = await s.database.db.select().from(subjects).where(eq(subjects.initials, 'AAA'));
    for (let round = 0; round < 10; round++) {
      await list('crc1');
      expect((await list('crc1')).body.data.content.find((r) => r.ptsId === subj!.id)?.initials).toBe(round === 0 ? 'AAA' : `A${round - 1}`);
      const n = cache.stats.notifications;
      // the owner's connection is not one of the API's pooled ones: this is how another process's change arrives
      await s.database.ownerExecuteSql(`update subjects set initials = 'A${round}' where id = ${subj!.id}`);
      const committed = performance.now();
      const end = Date.now() + 3000;
      while (cache.stats.notifications === n) {
        if (Date.now() > end) throw new Error('no notification within 3 s');
        await sleep(0.2);
      }
      lags.push(cache.stats.lastNotificationAt - committed);
      expect((await list('crc1')).body.data.content.find((r) => r.ptsId === subj!.id)?.initials).toBe(`A${round}`);
    }
    await list('crc1');
    const { hits, notifications } = cache.stats;
    await expect(s.database.ownerExecuteSql(`begin; update subjects set initials = 'ZZZ' where id = ${subj!.id}; select 1/0; commit`)).rejects.toThrow();
    await s.database.ownerExecuteSql('rollback').catch(() => undefined);
    await sleep(50);
    expect(cache.stats.notifications).toBe(notifications);
    expect((await list('crc1')).body.data.content.find((r) => r.ptsId === subj!.id)?.initials).toBe('A9');
    expect(cache.stats.hits).toBe(hits + 1);
  });

  it('keeps an answer when a table it was not read from changes, and drops it when one it was read from does', async () => {
    // (migration 0052: the notification names the table; the list was read from subjects, sites … but not the
    // eCRF values — a save elsewhere leaves it cached)
    const changed = async (statement: string) => {
      const n = cache.stats.notifications;
      await s.database.ownerExecuteSql(statement);
      const end = Date.now() + 3000;
      while (cache.stats.notifications === n) {
        if (Date.now() > end) throw new Error('no notification within 3 s');
        await sleep(0.2);
      }
    };
    await list('crc1');
    const { hits } = cache.stats;
    await changed('update crf_values set entry_mode = entry_mode where false');
    expect((await list('crc1')).status).toBe(200);
    expect(cache.stats.hits).toBe(hits + 1);
    await changed('update sites set name = name where false');
    expect((await list('crc1')).status).toBe(200);
    expect(cache.stats.hits).toBe(hits + 1);
    expect((await list('crc1')).status).toBe(200);
    expect(cache.stats.hits).toBe(hits + 2);
  });

  it("never gives one caller's answer to another: site scope, masking, language", async () => {
    const a = (await list('crc1', { pageSize: 200 })).body.data;
    await list('crc1', { pageSize: 200 });
    const b = (await list('crc2', { pageSize: 200 })).body.data;
    expect(a.content.every((r) => r.siteId === siteA)).toBe(true);
    expect(b.content.length).toBeGreaterThan(0);
    expect(b.content.every((r) => r.siteId === siteB)).toBe(true);
    // the monitor may not see identifiers, the site coordinator may: the same subject, cached for both
    const mine = (await list('crc2', { pageSize: 200 })).body.data.content.find((r) => r.initials === 'BBB')!;
    const cra = (await list('cra', { pageSize: 200 })).body.data.content.find((r) => r.initials === 'BBB')!;
    const craAgain = (await list('cra', { pageSize: 200 })).body.data.content.find((r) => r.initials === 'BBB')!;
    expect(mine.medicalRecordId).toBe('MR-B-0001');
    expect(cra.medicalRecordId).not.toBe('MR-B-0001');
    expect(craAgain).toEqual(cra);
    // the same caller and request in two languages are two answers
    const en = await list('crc1', { pageSize: 200 });
    const zh = await list('crc1', { pageSize: 200 }, { ...H, language: 'zh_CN' });
    const withVisit = en.body.data.content.find((r) => r.currentVisitName);
    if (withVisit) expect(zh.body.data.content.find((r) => r.ptsId === withVisit.ptsId)?.currentVisitName).toBeDefined();
    expect(cache.keyOf('/x', { ...fakeCtx(), language: 'en_US' }, {}, undefined)).not.toBe(cache.keyOf('/x', { ...fakeCtx(), language: 'zh_CN' }, {}, undefined));
  });

  it('refuses the next call once the permission is revoked, though the answer was cached', async () => {
    await list('crc1');
    expect((await list('crc1')).status).toBe(200);
    const [crc] = await s.database.db.select().from(roles).where(eq(roles.code, 'CRC'));
    const pms = (await s.database.db.select().from(rolePermissions).where(eq(rolePermissions.roleId, crc!.id))).map((x) => x.permission);
    const form = (permissions: string[]) => ({ id: crc!.id, code: crc!.code, name: crc!.name, ...(crc!.nameEn ? { nameEn: crc!.nameEn } : {}), kind: crc!.kind, isDm: crc!.isDm, envDev: crc!.envDev, envUat: crc!.envUat, envPro: crc!.envPro, permissions });
    expect((await s.api.post('/sys/role/update', { token: tok.admin, json: form(pms.filter((p) => p !== 'patient:page:query')) })).status).toBe(200);
    const refused = await list('crc1');
    expect([refused.status, refused.body.errorCode]).toEqual([403, 'FORBIDDEN']);
    expect((await s.api.post('/sys/role/update', { token: tok.admin, json: form(pms) })).status).toBe(200);
    expect((await list('crc1')).status).toBe(200);
  });

  it('reads the database on every request while its listener is down, and caches again once it listens', async () => {
    await list('crc1');
    if (s.database.kind === 'postgres') {
      // the listener's own connection ends (a server restart, a network failure); it connects again within a second
      const r = await s.database.ownerExecuteSql(
        `select pg_terminate_backend(pid) from pg_stat_activity where datname = current_database() and application_name = 'esource listen esource_data'`,
      );
      expect(r.rows.length).toBe(1);
      const end = Date.now() + 3000;
      while (cache.isListening && Date.now() < end) await sleep(1);
    } else {
      await cache.stop();
    }
    expect(cache.isListening).toBe(false);
    expect(cache.size).toBe(0);
    const { hits } = cache.stats;
    for (let i = 0; i < 3; i++) expect((await list('crc1')).status).toBe(200);
    expect(cache.stats.hits).toBe(hits);
    if (s.database.kind === 'postgres') {
      const end = Date.now() + 5000;
      while (!cache.isListening && Date.now() < end) await sleep(10);
    } else {
      await cache.start(s.database);
    }
    expect(cache.isListening).toBe(true);
    await list('crc1');
    expect((await list('crc1')).status).toBe(200);
    expect(cache.stats.hits).toBe(hits + 1);
  });

  it('keeps the query list and its counts current: a query raised shows at once', async () => {
    const counts = () => s.api.post<{ querying: number }>('/crf/query/count', { token: tok.cra, headers: H });
    const queries = () => s.api.post<{ totalCount: number }>('/crf/query/list', { token: tok.cra, headers: H, form: { pageSize: 50 } });
    const c0 = (await counts()).body.data.querying;
    const l0 = (await queries()).body.data.totalCount;
    const { hits } = cache.stats;
    expect((await counts()).body.data.querying).toBe(c0);
    expect((await queries()).body.data.totalCount).toBe(l0);
    expect(cache.stats.hits).toBe(hits + 2);
    const [subj] = await s.database.db.select().from(subjects).where(eq(subjects.initials, 'BBB'));
    const raised = await s.api.post('/crf/query/add', { token: tok.cra, headers: H, json: { ptsId: subj!.id, text: 'Please check the consent date' } });
    expect(raised.status, JSON.stringify(raised.body)).toBe(200);
    expect((await counts()).body.data.querying).toBe(c0 + 1);
    expect((await queries()).body.data.totalCount).toBe(l0 + 1);
  });
});

function fakeCtx() {
  return {
    requestId: 'r',
    language: 'en_US' as const,
    ip: '',
    user: null,
    sessionId: null,
    loginType: null,
    env: 'PRO' as const,
    project: null,
    siteId: null,
    pms: new Set<string>(),
    systemPms: new Set<string>(),
    product: null,
    source: null,
    orgId: null,
  };
}

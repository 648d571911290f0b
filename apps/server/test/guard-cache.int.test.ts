/**
 * The guard's cache of access answers (issue 16 item 1, modules/auth/access-cache.ts): a cached answer serves the
 * next request without a query, and any change to what it was read from — made through the real API, committed —
 * refuses the very next request: the NOTIFY reaches this process's cache before the changing call returns, on the
 * embedded database and on the PostgreSQL server alike (every pooled connection listens, and PostgreSQL hands a
 * session its own notifications before the COMMIT's answer). Another process's change arrives on the listener's own
 * connection; that delivery latency is measured and printed. A rolled-back change
 * empties nothing. A revocation in the middle of a parallel load lets no request through that started after it.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { and, asc, eq } from 'drizzle-orm';
import { projectMemberSites, projectMembers, projects, rolePermissions, roles, sessions, sites, users } from '../src/db/schema';
import { hashToken } from '../src/modules/auth/context.service';
import type { AccessCache } from '../src/modules/auth/access-cache';
import { DEMO_PROJECT_ID, startTestServer, type TestServer } from './harness';

const P = { proId: DEMO_PROJECT_ID, proType: 'PRO' };
let s: TestServer;
let cache: AccessCache;
let admin: string;
let dm: string;
let crcRole: typeof roles.$inferSelect;
let crcPms: string[];
/** how long each change's notification came after the changing call returned (ms; ≤ 0 = before it returned) */
const lags: number[] = [];

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const now = () => performance.now();

/** Waits until the cache has received more than `n` notifications (polling every millisecond, at most 3 s). */
async function delivered(n: number): Promise<void> {
  const end = Date.now() + 3000;
  while (cache.stats.notifications <= n) {
    if (Date.now() > end) throw new Error('no notification within 3 s');
    await sleep(1);
  }
}

/** Runs a change; returns once its notification has reached the cache, recording the delivery lag. */
async function change<T>(fn: () => Promise<T>): Promise<T> {
  const n = cache.stats.notifications;
  const out = await fn();
  const returned = now();
  await delivered(n);
  lags.push(cache.stats.lastNotificationAt - returned);
  return out;
}

/** A new session, once its own notification (the session's insert) has come: it would keep the first load out of the cache. */
const login = (account: string) => change(() => s.api.login(account));
const siteList = (token: string, headers: Record<string, string | number> = {}) => s.api.post('/pro/site/list', { token, headers: { ...P, ...headers } });

function roleForm(permissions: string[]) {
  const r = crcRole;
  return {
    id: r.id,
    code: r.code,
    name: r.name,
    ...(r.nameEn ? { nameEn: r.nameEn } : {}),
    kind: r.kind,
    isDm: r.isDm,
    envDev: r.envDev,
    envUat: r.envUat,
    envPro: r.envPro,
    permissions,
  };
}
const setCrcPermissions = (permissions: string[]) => s.api.post('/sys/role/update', { token: admin, json: roleForm(permissions) });

async function memberOf(account: string) {
  const db = s.database.db;
  const [u] = await db.select().from(users).where(eq(users.account, account));
  const [m] = await db
    .select()
    .from(projectMembers)
    .where(and(eq(projectMembers.userId, u!.id), eq(projectMembers.projectId, DEMO_PROJECT_ID), eq(projectMembers.env, 'PRO')));
  return { user: u!, member: m! };
}

beforeAll(async () => {
  s = await startTestServer();
  cache = s.deps!.access!;
  admin = await s.api.login('admin');
  dm = await s.api.login('dm');
  const [r] = await s.database.db.select().from(roles).where(eq(roles.code, 'CRC'));
  crcRole = r!;
  crcPms = (await s.database.db.select().from(rolePermissions).where(eq(rolePermissions.roleId, crcRole.id))).map((x) => x.permission);
});
afterAll(async () => {
  if (lags.length) {
    const sorted = [...lags].sort((a, b) => a - b);
    console.log(
      `[guard-cache] ${s.database.kind}: notification delivered ${sorted[Math.floor(sorted.length / 2)]!.toFixed(2)} ms (median), ` +
        `${sorted[sorted.length - 1]!.toFixed(2)} ms (max) after the changing call returned, over ${sorted.length} changes`,
    );
  }
  await s?.stop();
});

describe('the guard cache', () => {
  it('listens, and serves a known session from memory', async () => {
    expect(cache.isListening).toBe(true);
    const crc = await login('crc1');
    expect((await siteList(crc)).status).toBe(200);
    const { hits, loads } = cache.stats;
    expect((await siteList(crc)).status).toBe(200);
    expect(cache.stats.hits).toBe(hits + 1);
    expect(cache.stats.loads).toBe(loads);
  });

  it("refuses the very next request when the role loses the permission, and allows it when it is given back", async () => {
    const crc = await login('crc1');
    await siteList(crc);
    expect((await siteList(crc)).status).toBe(200);
    const upd = await change(() => setCrcPermissions(crcPms.filter((p) => p !== 'research:page:query')));
    expect(upd.status).toBe(200);
    const refused = await siteList(crc);
    expect(refused.status).toBe(403);
    expect(refused.body.errorCode).toBe('FORBIDDEN');
    expect((await change(() => setCrcPermissions(crcPms))).status).toBe(200);
    expect((await siteList(crc)).status).toBe(200);
  });

  it('refuses the very next request when the membership is disabled, or its site taken away', async () => {
    const crc = await login('crc1');
    const { member } = await memberOf('crc1');
    const own = (await s.database.db.select().from(projectMemberSites).where(eq(projectMemberSites.memberId, member.id)))[0]!.siteId;
    const other = (
      await s.database.db
        .select()
        .from(sites)
        .where(and(eq(sites.projectId, DEMO_PROJECT_ID), eq(sites.env, 'PRO')))
        .orderBy(asc(sites.id))
    ).find((x) => x.id !== own)!.id;
    await siteList(crc);
    expect((await siteList(crc)).status).toBe(200);
    expect((await change(() => s.api.post('/pro/user/updateStatus', { token: dm, headers: P, json: { id: member.id, status: 0 } }))).status).toBe(200);
    const gone = await siteList(crc);
    expect(gone.status).toBe(403);
    expect(gone.body.errorCode).toBe('NOT_MEMBER');
    expect((await change(() => s.api.post('/pro/user/updateStatus', { token: dm, headers: P, json: { id: member.id, status: 1 } }))).status).toBe(200);
    expect((await siteList(crc, { proSiteId: own })).status).toBe(200);
    expect((await siteList(crc, { proSiteId: own })).status).toBe(200);
    const moved = await change(() =>
      s.api.post('/pro/user/update', { token: dm, headers: P, json: { id: member.id, roleId: member.roleId, allSites: false, siteIds: [other] } }),
    );
    expect(moved.status).toBe(200);
    const away = await siteList(crc, { proSiteId: own });
    expect(away.status).toBe(403);
    expect(away.body.errorCode).toBe('SITE_FORBIDDEN');
    await change(() => s.api.post('/pro/user/update', { token: dm, headers: P, json: { id: member.id, roleId: member.roleId, allSites: false, siteIds: [own] } }));
    expect((await siteList(crc, { proSiteId: own })).status).toBe(200);
  });

  it('refuses the very next request of a disabled user', async () => {
    const crc = await login('crc2');
    const { user } = await memberOf('crc2');
    await siteList(crc);
    expect((await siteList(crc)).status).toBe(200);
    const off = await change(() => s.api.post('/system/user/status/update', { token: admin, form: { id: user.id, status: 0, reason: 'guard cache test' } }));
    expect(off.status).toBe(200);
    expect((await siteList(crc)).status).toBe(401);
    await change(() => s.api.post('/system/user/status/update', { token: admin, form: { id: user.id, status: 1, reason: 'back' } }));
  });

  it("a logout ends that session's answers at once and leaves the user's other session cached", async () => {
    const a = await login('crc1');
    const b = await login('crc1');
    for (const t of [a, b, a, b]) expect((await siteList(t)).status).toBe(200);
    expect((await change(() => s.api.post('/auth/logout', { token: a }))).status).toBe(200);
    expect((await siteList(a)).status).toBe(401);
    const { hits, loads } = cache.stats;
    expect((await siteList(b)).status).toBe(200);
    expect(cache.stats).toMatchObject({ hits: hits + 1, loads });
  });

  it("a session's changed expiry is read again; columns the guard does not read send nothing", async () => {
    const crc = await login('crc1');
    await siteList(crc);
    expect((await siteList(crc)).status).toBe(200);
    const hash = hashToken(crc);
    const db = s.database.db;
    const n = cache.stats.notifications;
    await db.update(sessions).set({ lastSeenAt: new Date(), ip: '10.0.0.1' }).where(eq(sessions.tokenHash, hash));
    await db.update(users).set({ lastLoginAt: new Date(), failedLoginCount: 0 }).where(eq(users.account, 'crc1'));
    await sleep(200);
    expect(cache.stats.notifications).toBe(n);
    await change(() => db.update(sessions).set({ expiresAt: new Date(Date.now() - 1000) }).where(eq(sessions.tokenHash, hash)));
    expect((await siteList(crc)).status).toBe(401);
  });

  it('every table the guard reads notifies', async () => {
    const db = s.database.db;
    const { member } = await memberOf('crc1');
    const [p] = await db.select().from(projects).where(eq(projects.id, DEMO_PROJECT_ID));
    const statements = [
      () => db.update(users).set({ name: 'Amy Coordinator' }).where(eq(users.account, 'crc1')),
      () => db.update(roles).set({ status: 1 }).where(eq(roles.id, crcRole.id)),
      () => db.update(rolePermissions).set({ permission: 'project:info:query' }).where(and(eq(rolePermissions.roleId, crcRole.id), eq(rolePermissions.permission, 'project:info:query'))),
      () => db.update(projectMembers).set({ status: 1 }).where(eq(projectMembers.id, member.id)),
      () => db.update(projectMemberSites).set({ memberId: member.id }).where(eq(projectMemberSites.memberId, member.id)),
      () => db.update(projects).set({ scene: p!.scene }).where(eq(projects.id, DEMO_PROJECT_ID)),
    ];
    for (const [i, st] of statements.entries()) {
      const crc = await login('crc1');
      await siteList(crc);
      expect((await siteList(crc)).status).toBe(200);
      await change(st);
      const { hits, loads } = cache.stats;
      expect((await siteList(crc)).status, `statement ${i}`).toBe(200);
      expect(cache.stats, `statement ${i}: the entry went`).toMatchObject({ hits, loads: loads + 1 });
    }
  });

  it('a rolled-back change empties nothing', async () => {
    const crc = await login('crc1');
    await siteList(crc);
    const n = cache.stats.notifications;
    await s.database.db
      .transaction(async (tx) => {
        await tx.delete(rolePermissions).where(eq(rolePermissions.roleId, crcRole.id));
        await tx.update(sessions).set({ endedAt: new Date() });
        throw new Error('roll back');
      })
      .catch(() => undefined);
    await sleep(300);
    expect(cache.stats.notifications).toBe(n);
    const { hits, loads } = cache.stats;
    expect((await siteList(crc)).status).toBe(200);
    expect(cache.stats).toMatchObject({ hits: hits + 1, loads });
  });

  it('while the listener is not listening every request reads the database; listening again empties the cache', async () => {
    const crc = await login('crc1');
    await siteList(crc);
    const lost = () => !cache.isListening;
    if (s.database.kind === 'postgres') {
      // the listener's own connection ends (as on a server restart or a network failure); it connects again in 1 s
      const r = await s.database.ownerExecuteSql(
        `select pg_terminate_backend(pid) as ok from pg_stat_activity where datname = current_database() and application_name = 'esource listen esource_access'`,
      );
      expect(r.rows.length).toBe(1);
      const end = Date.now() + 3000;
      while (!lost() && Date.now() < end) await sleep(1);
    } else {
      await cache.stop();
    }
    expect(lost()).toBe(true);
    const { hits, loads } = cache.stats;
    for (let i = 0; i < 3; i++) expect((await siteList(crc)).status).toBe(200);
    expect(cache.stats).toMatchObject({ hits, loads });
    if (s.database.kind === 'postgres') {
      const end = Date.now() + 5000;
      while (!cache.isListening && Date.now() < end) await sleep(10);
    } else {
      await cache.start(s.database);
    }
    expect(cache.isListening).toBe(true);
    await siteList(crc);
    const before = cache.stats.hits;
    expect((await siteList(crc)).status).toBe(200);
    expect(cache.stats.hits).toBe(before + 1);
    // and it is told again
    await change(() => s.database.executeSql('update roles set status = status where id = $1', [crcRole.id]));
  });

  it('measures the delivery of a committed change to the listener', async () => {
    const own: number[] = [];
    for (let i = 0; i < 20; i++) {
      const n = cache.stats.notifications;
      await s.database.executeSql('update roles set status = status where id = $1', [crcRole.id]);
      const returned = now();
      await delivered(n);
      own.push(cache.stats.lastNotificationAt - returned);
    }
    own.sort((a, b) => a - b);
    lags.push(...own);
    console.log(
      `[guard-cache] ${s.database.kind}: 20 single-statement commits, notification ${own[10]!.toFixed(2)} ms (median), ${own[19]!.toFixed(2)} ms (max) after the commit returned`,
    );
    expect(own[19]!).toBeLessThanOrEqual(0);
  });

  it('read your own writes: the request right after a changing call sees the change, without waiting, every time', async () => {
    const crc = await login('crc1');
    const without = crcPms.filter((p) => p !== 'research:page:query');
    for (let i = 0; i < 15; i++) {
      expect((await siteList(crc)).status, `round ${i}, before`).toBe(200);
      expect((await siteList(crc)).status).toBe(200);
      expect((await setCrcPermissions(without)).status).toBe(200);
      expect((await siteList(crc)).status, `round ${i}, revoked`).toBe(403);
      expect((await setCrcPermissions(crcPms)).status).toBe(200);
      expect((await siteList(crc)).status, `round ${i}, given back`).toBe(200);
    }
  });

  it('a revocation during a parallel load: no request that started after the revoking call returned gets through', async () => {
    const crc = await login('crc1');
    const results: { start: number; end: number; status: number; code: string }[] = [];
    let stop = false;
    const WAVE = 200;
    const wave = () =>
      Promise.all(
        Array.from({ length: WAVE }, async () => {
          const start = now();
          const r = await siteList(crc);
          results.push({ start, end: now(), status: r.status, code: r.body.errorCode });
        }),
      );
    let waves = 0;
    const load = (async () => {
      while (!stop) {
        await wave();
        waves++;
      }
    })();
    while (results.length < 2 * WAVE) await sleep(5);
    const n = cache.stats.notifications;
    const called = now();
    const upd = await setCrcPermissions(crcPms.filter((p) => p !== 'research:page:query'));
    const returned = now();
    expect(upd.status).toBe(200);
    await delivered(n);
    const deliveredAt = cache.stats.lastNotificationAt;
    while (results.filter((r) => r.start > returned).length < 2 * WAVE) await sleep(5);
    stop = true;
    await load;
    await setCrcPermissions(crcPms);

    const before = results.filter((r) => r.end < called);
    const after = results.filter((r) => r.start > returned);
    const through = after.filter((r) => r.status === 200);
    const throughAfterDelivery = results.filter((r) => r.start > Math.max(returned, deliveredAt) && r.status === 200);
    console.log(
      `[guard-cache] ${s.database.kind}: ${results.length} requests in ${waves} waves of ${WAVE}; revoking call took ${(returned - called).toFixed(1)} ms; ` +
        `notification ${(deliveredAt - returned).toFixed(2)} ms after it returned; answered 200 though started after it returned: ${through.length} ` +
        `(after the delivery: ${throughAfterDelivery.length}); hits ${cache.stats.hits}, loads ${cache.stats.loads}`,
    );
    expect(before.every((r) => r.status === 200)).toBe(true);
    expect(after.length).toBeGreaterThanOrEqual(2 * WAVE);
    expect(after.every((r) => r.status === 200 || (r.status === 403 && r.code === 'FORBIDDEN'))).toBe(true);
    expect(throughAfterDelivery).toHaveLength(0);
    // the notification came before the call's answer: none at all
    expect(deliveredAt).toBeLessThanOrEqual(returned);
    expect(through).toHaveLength(0);
  });
});

/**
 * Authorization matrix: every registered API route × every demo role, plus anonymous, cross-site and
 * cross-project callers. The expectation comes from the seed's role definitions (an oracle independent of the
 * guard code): no route may answer a caller who lacks its permission or scope.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { and, eq } from 'drizzle-orm';
import { can, effectivePermissions } from '@esource/shared';
import { projects, sites } from '../src/db/schema';
import { DEMO_ROLES, DEMO_USERS } from '../src/seed/seed';
import type { RegisteredRoute } from '../src/app';
import { startTestServer, type TestServer } from './harness';

let s: TestServer;
let otherProjectId: number;
const siteIdOf: Record<string, number> = {};

beforeAll(async () => {
  s = await startTestServer();
  const rows = await s.database.db
    .select()
    .from(sites)
    .where(and(eq(sites.projectId, 1), eq(sites.env, 'PRO')));
  siteIdOf.a = rows.find((r) => r.siteNo === '01')!.id;
  siteIdOf.b = rows.find((r) => r.siteNo === '02')!.id;
  const [p] = await s.database.db.insert(projects).values({ no: 'OTHER-1', name: 'A project nobody here belongs to' }).returning();
  otherProjectId = p!.id;
});
afterAll(async () => {
  await s?.stop();
});

const pmsOf = (code: string | undefined) => DEMO_ROLES.find((r) => r.code === code)?.pms ?? [];

function expectedPass(route: RegisteredRoute, account: string): boolean {
  const g = route.guard;
  if ('public' in g) return true;
  const u = DEMO_USERS.find((x) => x.account === account)!;
  const system = pmsOf(u.systemRole);
  const member = u.member && u.member.envs.includes('PRO') ? u.member : null;
  // pmsInfo naming a project (proId) the caller is not in is refused
  if (route.url.endsWith('/auth/user/pmsInfo') && !member) return false;
  if (g.scope === 'system') return g.permission === 'any' || can(system, g.permission);
  if (!member) return false;
  const held = effectivePermissions([...system, ...pmsOf(member.role)], 1);
  return g.permission === 'any' || can(held, g.permission);
}

function ownSite(account: string): number {
  const m = DEMO_USERS.find((x) => x.account === account)!.member;
  return m && m.sites !== 'all' ? siteIdOf[m.sites[0]!]! : siteIdOf.a!;
}

async function call(route: RegisteredRoute, token: string | null, headers: Record<string, string | number>) {
  const path = route.url.replace(/^\/api/, '');
  return route.method === 'GET'
    ? s.api.get(path, { token, headers })
    : s.api.call(route.method, path, { token, headers, form: {} });
}

describe('authorization matrix', () => {
  it('covers every registered API route, each with a guard', () => {
    const urls = s.routes.map((r) => `${r.method} ${r.url}`);
    expect(urls.length).toBeGreaterThanOrEqual(15);
    for (const r of s.routes) expect(r.guard, r.url).toBeTruthy();
    // the app's own route table agrees with the registry
    for (const r of s.routes) expect(s.app!.hasRoute({ method: r.method, url: r.url }), r.url).toBe(true);
  });

  it('refuses every guarded route to an anonymous caller with 401', async () => {
    for (const r of s.routes.filter((x) => !('public' in x.guard))) {
      const res = await call(r, null, { proId: 1 });
      expect(res.status, `${r.method} ${r.url}`).toBe(401);
    }
  });

  it('answers each role exactly where its permissions and scope allow', async () => {
    let checked = 0;
    for (const u of DEMO_USERS) {
      let token = await s.api.login(u.account);
      for (const r of s.routes.filter((x) => !('public' in x.guard))) {
        const scope = 'scope' in r.guard ? r.guard.scope : 'system';
        const headers: Record<string, string | number> = { proId: 1, proType: 'PRO' };
        if (scope === 'site') headers.proSiteId = ownSite(u.account);
        const res = await call(r, token, headers);
        const label = `${u.account} ${r.method} ${r.url} → ${res.status} ${res.body.errorCode ?? ''}`;
        if (expectedPass(r, u.account)) {
          expect([401, 403], label).not.toContain(res.status);
          expect(['PROJECT_REQUIRED', 'SITE_REQUIRED'], label).not.toContain(res.body.errorCode);
        } else {
          expect(res.status, label).toBe(403);
        }
        checked++;
        if (r.url.endsWith('/auth/logout')) token = await s.api.login(u.account);
      }
    }
    expect(checked).toBe(DEMO_USERS.length * s.routes.filter((x) => !('public' in x.guard)).length);
    // every route × every demo user (about 2,500 calls): more than the default minute on a loaded 2-core machine
  }, 300_000);

  it("refuses eCRF form values and history to the AE reviewer (crf:result:query), not to the site and data roles", async () => {
    const ae = DEMO_ROLES.find((r) => r.code === 'AE')!;
    expect(ae.pms).not.toContain('crf:result:query');
    for (const code of ['DM', 'CRA', 'CRC', 'PI']) expect(DEMO_ROLES.find((r) => r.code === code)!.pms, code).toContain('crf:result:query');
    const token = await s.api.login('ae', { loginType: 4 });
    for (const path of ['/crf/form/item/result/list', '/crf/form/item/result/history']) {
      const res = await s.api.get(path, { token, headers: { proId: 1, proType: 'PRO' } });
      expect(res.status, path).toBe(403);
      expect(res.body.errorCode, path).toBe('FORBIDDEN');
    }
  });

  it('refuses project and site routes across projects and sites', async () => {
    const projectRoutes = s.routes.filter((r) => 'scope' in r.guard && r.guard.scope !== 'system');
    expect(projectRoutes.length).toBeGreaterThan(0);
    for (const u of DEMO_USERS) {
      const token = await s.api.login(u.account);
      const m = u.member;
      for (const r of projectRoutes) {
        const cross = await call(r, token, { proId: otherProjectId, proType: 'PRO', proSiteId: siteIdOf.a! });
        expect(cross.status, `${u.account} ${r.url} in another project`).toBe(403);
        if (m && m.sites !== 'all') {
          const foreign = m.sites[0] === 'a' ? siteIdOf.b! : siteIdOf.a!;
          const res = await call(r, token, { proId: 1, proType: 'PRO', proSiteId: foreign });
          expect(res.status, `${u.account} ${r.url} at another site`).toBe(403);
        }
      }
    }
    // every project and site route, twice per user: like the matrix above, more than a minute under load
  }, 300_000);
});

import { describe, expect, it } from 'vitest';
import { ALL_PERMISSIONS, ENVS, LOGIN_TYPES } from '@esource/shared';
import { ROUTES } from '../lib/routing/route-table';
import { pageFor } from './route-pages';
import { menuFor, type AccessContext, type MenuLeaf } from '../lib/routing/route-access';

/**
 * Menu entries that may open the placeholder page: features no issue has built yet. Anything else in a
 * menu must open a working screen — a menu entry that says "not available yet" for a feature that exists
 * elsewhere (say, as a tab) is a dead end. Building one of these means taking it off this list.
 */
const NOT_BUILT = new Set<string>([]);

/** Every menu leaf any user could see: all permissions, every login type, environment and module. */
function everyMenuLeaf(): MenuLeaf[] {
  const out = new Map<string, MenuLeaf>();
  for (const loginType of LOGIN_TYPES) {
    for (const env of ENVS) {
      const ctx: AccessContext = { pms: new Set(ALL_PERMISSIONS), loginType, env };
      for (const moduleNo of [1, 2, 6, 9]) {
        for (const inProject of [false, true]) {
          for (const n of menuFor(moduleNo, inProject, ctx)) {
            for (const leaf of n.kind === 'item' ? [n] : n.children) out.set(leaf.id, leaf);
          }
        }
      }
    }
  }
  return [...out.values()];
}

describe('side menu entries', () => {
  const leaves = everyMenuLeaf();

  it('covers the system administration entries', () => {
    const ids = leaves.map((l) => l.id);
    for (const id of ['userSys', 'roleSys', 'permissionGroup', 'orgDict', 'deptDict', 'auditTrack', 'superviseLog', 'loginLog', 'authLog']) {
      expect(ids).toContain(id);
    }
  });

  it.each(leaves.map((l) => [l.id, l] as const))('%s opens a working screen unless its feature is not built', (id) => {
    const route = ROUTES.find((r) => r.id === id)!;
    if (NOT_BUILT.has(id)) expect(route.placeholder, `${id} is built now: take it off NOT_BUILT`).toBe(true);
    else expect(route.placeholder, `${id} opens the placeholder page`).toBeFalsy();
  });

  it('opens the user-management tabs and the audit tabs from their own entries', async () => {
    const page = (id: string) => pageFor(ROUTES.find((r) => r.id === id)!)!;
    const userSys = (await page('userSys')()).default;
    for (const id of ['roleSys', 'permissionGroup', 'orgDict', 'deptDict']) expect((await page(id)()).default).toBe(userSys);
    const audit = (await page('auditTrack')()).default;
    for (const id of ['superviseLog', 'loginLog', 'authLog']) expect((await page(id)()).default).toBe(audit);
    // loading two whole pages (and their antd imports) takes seconds when the cores are shared
  }, 60_000);
});

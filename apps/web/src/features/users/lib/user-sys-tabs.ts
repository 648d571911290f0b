import type { Permission } from '@esource/shared';

export type UserSysTab = 'users' | 'roles' | 'groups' | 'orgs';

/**
 * The tabs of module 2 (/system/userSys), each with the permission that shows it, and the route ids of the
 * module's side-menu entries that mean the same tab (so that those routes can open this page on that tab).
 */
export const USER_SYS_TABS: readonly { key: UserSysTab; pm: Permission; routes: readonly string[] }[] = [
  { key: 'users', pm: 'system:user:query', routes: ['userSys'] },
  { key: 'roles', pm: 'system:role:query', routes: ['roleSys'] },
  { key: 'groups', pm: 'system:permission-group:query', routes: ['permissionGroup'] },
  { key: 'orgs', pm: 'system:org:query', routes: ['orgDict', 'deptDict'] },
];

/** The tabs the user may see, in order. */
export function visibleTabs(has: (pm: Permission) => boolean): UserSysTab[] {
  return USER_SYS_TABS.filter((t) => has(t.pm)).map((t) => t.key);
}

/**
 * The active tab: the `tab` query parameter when the user may see it, else the tab of the route the page was
 * opened by (other than the module's own route), else the first visible tab.
 */
export function activeTab(
  visible: readonly UserSysTab[],
  asked: string | null,
  routeId: string | undefined,
): UserSysTab | undefined {
  const byQuery = visible.find((k) => k === asked);
  if (byQuery) return byQuery;
  const byRoute = USER_SYS_TABS.find((t) => t.routes.includes(routeId ?? ''))?.key;
  if (byRoute && visible.includes(byRoute)) return byRoute;
  return visible[0];
}

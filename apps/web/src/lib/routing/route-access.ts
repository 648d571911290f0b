import { matchPath } from 'react-router';
import { can, visibleModules, type Env, type LoginType, type TopModule } from '@esource/shared';
import { ROUTES, routeById } from './route-table';
import {
  MENU_GROUPS,
  MENU_GROUP_ICON,
  type AppRoute,
  type ListKind,
  type MenuGroup,
  type MenuIcon,
} from './route-types';

/** What decides whether a user sees a route: their pms, login type, environment and the list build flag. */
export interface AccessContext {
  pms: ReadonlySet<string>;
  loginType: LoginType | null;
  env: Env;
  /** top modules the server grants (from the system role only: a project role never opens modules 2, 6, 9) */
  modules?: readonly number[];
}

/**
 * The build flag of spec §2: VITE_CENTRE_LISTS=true uses centre lists, false site lists. Unset (the default
 * build, which serves all three login sites), site users (type 3) get the site lists and everyone else the
 * centre lists.
 */
export function listKindFor(
  loginType: LoginType | null,
  flag: string | undefined = import.meta.env.VITE_CENTRE_LISTS,
): ListKind {
  if (flag === 'true') return 'centre';
  if (flag === 'false') return 'site';
  return loginType === 3 ? 'site' : 'centre';
}

/** True when the route exists for this user (spec §2: routes filtered by pms; menu visibility by login type and build flag). */
export function routeAllowed(route: AppRoute, ctx: AccessContext): boolean {
  if (route.loginTypes && (ctx.loginType === null || !route.loginTypes.includes(ctx.loginType))) return false;
  if (route.lists && route.lists !== listKindFor(ctx.loginType)) return false;
  if (route.module === 9 && ctx.env !== 'PRO') return false;
  return can(ctx.pms, { anyOf: route.anyOf, allOf: route.allOf });
}

/** The route table entry for a path, or undefined (→ /404). Exact matches win over parameterised ones. */
export function matchRoute(pathname: string): AppRoute | undefined {
  const path = pathname.length > 1 ? pathname.replace(/\/+$/, '') : pathname;
  let param: AppRoute | undefined;
  for (const r of ROUTES) {
    if (!matchPath({ path: r.path, end: true }, path)) continue;
    if (!r.path.includes(':')) return r;
    param ??= r;
  }
  return param;
}

/** The subject list this user has (centre / monitor / site), used as the breadcrumb parent of subject pages. */
export function subjectListRoute(ctx: AccessContext): AppRoute | undefined {
  return ['centerPtsList', 'craPtsList', 'sickLoop']
    .map((id) => routeById(id))
    .find((r): r is AppRoute => r !== undefined && routeAllowed(r, ctx));
}

export interface MenuLeaf {
  kind: 'item';
  id: string;
  path: string;
  icon: MenuIcon;
}
export interface MenuSub {
  kind: 'group';
  id: MenuGroup;
  icon: MenuIcon;
  children: MenuLeaf[];
}
export type MenuNode = MenuLeaf | MenuSub;

/** The side menu of a module (inside a project for module 1), derived from the table. */
export function menuFor(moduleNo: number, inProject: boolean, ctx: AccessContext): MenuNode[] {
  const leaves = ROUTES.filter(
    (r) =>
      r.menu &&
      !r.hidden &&
      r.shell &&
      r.module === moduleNo &&
      Boolean(r.inProject) === inProject &&
      routeAllowed(r, ctx),
  );
  const top: MenuNode[] = [];
  const groups = new Map<MenuGroup, MenuSub>();
  for (const r of leaves) {
    const menu = r.menu!;
    const leaf: MenuLeaf = { kind: 'item', id: r.id, path: r.path, icon: menu.icon };
    if (!menu.group) {
      top.push(leaf);
      continue;
    }
    let g = groups.get(menu.group);
    if (!g) {
      g = { kind: 'group', id: menu.group, icon: MENU_GROUP_ICON[menu.group], children: [] };
      groups.set(menu.group, g);
    }
    g.children.push(leaf);
  }
  for (const id of MENU_GROUPS) {
    const g = groups.get(id);
    if (g) top.push(g);
  }
  return top;
}

export interface Crumb {
  id: string;
  path: string | null;
  /** a project label instead of a route title */
  project?: boolean;
}

/** Breadcrumb of a route: home, the project (inside one), the parent chain, the page. */
export function breadcrumbsFor(route: AppRoute, ctx: AccessContext, hasProject: boolean): Crumb[] {
  const chain: Crumb[] = [];
  let cur: AppRoute | undefined = route;
  const seen = new Set<string>();
  while (cur && !seen.has(cur.id)) {
    seen.add(cur.id);
    chain.unshift({ id: cur.id, path: cur.path });
    const parentId: string | undefined = cur.parent;
    cur = parentId === 'subjectList' ? subjectListRoute(ctx) : parentId ? routeById(parentId) : undefined;
  }
  if (route.menu?.group) chain.unshift({ id: `group.${route.menu.group}`, path: null });
  if (route.inProject && hasProject)
    chain.unshift({ id: 'project', path: '/project/ProjectManage', project: true });
  if (route.module === 1 && route.id !== 'overview') chain.unshift({ id: 'overview', path: '/overview' });
  if (route.module !== 1 && route.module !== 0) chain.unshift({ id: `module.${route.module}`, path: null });
  return chain;
}

/** Top-module tabs (spec §2 table), filtered by pms and environment. */
export function moduleTabs(ctx: AccessContext): TopModule[] {
  const tabs = visibleModules(ctx.pms, ctx.env);
  return ctx.modules ? tabs.filter((m) => ctx.modules!.includes(m.no)) : tabs;
}

/** The first page of a module that this user may open (a module tab goes there). */
export function moduleLanding(moduleNo: number, ctx: AccessContext): string | null {
  if (moduleNo === 1) return '/overview';
  const first = ROUTES.find((r) => r.module === moduleNo && r.menu && routeAllowed(r, ctx));
  return first?.path ?? null;
}

/** Landing page inside a project: the project home, else the first menu entry the user may open. */
export function projectLanding(ctx: AccessContext): string | null {
  for (const n of menuFor(1, true, ctx)) {
    if (n.kind === 'item') return n.path;
    if (n.children[0]) return n.children[0].path;
  }
  return null;
}

import type { LoginType, LoginVariant, Permission } from '@esource/shared';

/** Icon names for menu entries; the layout maps them to @ant-design/icons (keeps icons out of the entry chunk). */
export type MenuIcon =
  | 'home'
  | 'project'
  | 'subjects'
  | 'sites'
  | 'visits'
  | 'calendar'
  | 'source'
  | 'deid'
  | 'message'
  | 'query'
  | 'review'
  | 'clinical'
  | 'report'
  | 'audit'
  | 'isf'
  | 'team'
  | 'config'
  | 'recycle'
  | 'edc'
  | 'user'
  | 'role'
  | 'group'
  | 'org'
  | 'dept'
  | 'feedback'
  | 'log'
  | 'apply';

/** Side-menu groups inside a project (submenus), in display order. */
export const MENU_GROUPS = [
  'subjects',
  'visits',
  'source',
  'review',
  'clinical',
  'reports',
  'settings',
] as const;
export type MenuGroup = (typeof MENU_GROUPS)[number];
export const MENU_GROUP_ICON: Record<MenuGroup, MenuIcon> = {
  subjects: 'subjects',
  visits: 'visits',
  source: 'source',
  review: 'review',
  clinical: 'clinical',
  reports: 'report',
  settings: 'config',
};

/** Which subject lists a build shows (spec §2 menu visibility: build flag centre lists / site lists). */
export type ListKind = 'centre' | 'site';

/**
 * One entry of THE route table. Menu, guard, breadcrumbs and module tabs all derive from these fields;
 * nothing about a route is written down anywhere else, except which page it opens (routes/route-pages.ts).
 */
export interface AppRoute {
  /** unique id; also the i18n key `routes:<id>` of its title */
  id: string;
  path: string;
  /** inside the layout (top bar, menu, breadcrumb) or standalone */
  shell: boolean;
  /** shows the left side bar */
  sideBar: boolean;
  /** let through by the guard without a token (spec §2 route guard: static routes) */
  static?: boolean;
  /** a login page: redirects to / when already logged in */
  login?: LoginVariant;
  anyOf?: readonly Permission[];
  allOf?: readonly Permission[];
  /** login types that see it; absent = all */
  loginTypes?: readonly LoginType[];
  /** shown only when the build/login uses this kind of subject list */
  lists?: ListKind;
  /** top module (spec §2 table) the route belongs to; highlights the tab */
  module: number;
  /** needs an entered project (the /project family) */
  inProject?: boolean;
  /** side-menu entry; `group` nests it under a project submenu */
  menu?: { icon: MenuIcon; group?: MenuGroup };
  /** breadcrumb parent route id */
  parent?: string;
  /** route name; 'All' clears the current project (spec §2 guard) */
  name?: 'All';
  /** not in any menu (spec §2: hidden routes) */
  hidden?: boolean;
  redirectTo?: string;
  /** the route opens the placeholder page, an empty state naming what a later issue builds (every other
   * route but a redirect has its page in routes/route-pages.ts) */
  placeholder?: boolean;
  /** the forced change-password screen: the only page open while an initial password is unchanged */
  passwordChange?: boolean;
}

import type { MemberRow } from '@esource/shared';

export type SiteScope = 'all' | 'chosen';

export interface MemberFormValues {
  userId?: number;
  account?: string;
  roleId?: number;
  scope: SiteScope;
  siteIds: number[];
}

/** Role and sites as POST /pro/user/add|invite|update take them. */
export interface MemberAssignment {
  roleId: number;
  allSites: boolean;
  siteIds: number[];
}

export function memberFormValues(m: MemberRow | undefined): MemberFormValues {
  if (!m) return { scope: 'chosen', siteIds: [] };
  return {
    userId: m.userId,
    account: m.account,
    roleId: m.roleId,
    scope: m.allSites ? 'all' : 'chosen',
    siteIds: m.sites.map((s) => s.id),
  };
}

/** Dialog values → assignment: "all sites" sends no site list; "chosen sites" sends them without duplicates. */
export function memberAssignment(v: MemberFormValues): MemberAssignment {
  const all = v.scope === 'all';
  return { roleId: v.roleId!, allSites: all, siteIds: all ? [] : [...new Set(v.siteIds ?? [])] };
}

/** Saves a Blob under a file name (the team Excel export). */
export { saveBlob } from '../../lib/download';

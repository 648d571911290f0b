import type { SiteDetailRow } from '@esource/shared';
import type { SiteBody } from './api/sites-api';

export interface SiteFormValues {
  orgId?: number;
  siteNo: string;
  name: string;
  piUserId?: number | null;
  enabled: boolean;
}

export function siteFormValues(s: SiteDetailRow | undefined): SiteFormValues {
  if (!s) return { orgId: undefined, siteNo: '', name: '', piUserId: undefined, enabled: true };
  return { orgId: s.orgId, siteNo: s.siteNo, name: s.name, piUserId: s.piUserId, enabled: s.status === 1 };
}

/** Dialog values → POST /pro/site/add (with orgId) or /pro/site/update (with status) body. */
export function siteBody(v: SiteFormValues, mode: 'add' | 'edit'): SiteBody {
  const body: SiteBody = { siteNo: v.siteNo.trim() };
  const name = (v.name ?? '').trim();
  if (name) body.name = name;
  if (v.piUserId) body.piUserId = v.piUserId;
  if (mode === 'add') body.orgId = v.orgId;
  else body.status = v.enabled ? 1 : 0;
  return body;
}

/** The field a refused site write names: DUPLICATE and INVALID_REFERENCE carry it (by its key) in their detail. */
export function siteDuplicateField(
  errorCode: string,
  detail: readonly { field: string }[],
): 'siteNo' | 'orgId' | 'piUserId' | null {
  if (errorCode !== 'DUPLICATE' && errorCode !== 'INVALID_REFERENCE') return null;
  for (const f of ['siteNo', 'orgId', 'piUserId'] as const) if (detail.some((d) => d.field === f)) return f;
  return null;
}

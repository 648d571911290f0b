import type { SessionState } from './session-store';

/** Product header per login site (spec §7 `product`). */
export const PRODUCT_HEADER = { main: 'esource', site: 'esource-site', ae: 'esource-ae' } as const;

/**
 * The headers every request carries (spec §7): proId, proSiteId, token, language, product, source (iCRC or
 * iCRA on the combined centre/monitor product, by login type 1/2), orgId and proType.
 */
export function sessionHeaders(s: SessionState): Record<string, string | number | null> {
  const source =
    s.variant === 'main' && s.loginType === 1
      ? 'iCRC'
      : s.variant === 'main' && s.loginType === 2
        ? 'iCRA'
        : null;
  return {
    token: s.token,
    proId: s.project?.id ?? null,
    proSiteId: s.proSiteId,
    proType: s.env,
    language: s.language,
    product: PRODUCT_HEADER[s.variant],
    source,
    orgId: s.orgId,
  };
}

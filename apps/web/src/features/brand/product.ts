import type { LoginType, LoginVariant } from '@esource/shared';

/**
 * Product identity per login site and login type (spec §1, §6): the combined site is eSource Centre for
 * type 1 (iCRC) and eSource Monitor for type 2 (iCRA); the site login is eSource Site (type 3); the
 * adverse-event login is eSource AE (type 4).
 */
export type ProductKey = 'main' | 'centre' | 'monitor' | 'site' | 'ae';

export interface ProductInfo {
  key: ProductKey;
  /** i18n key in `common:product.*` */
  nameKey: `product.${ProductKey}`;
  color: string;
  /** glyph drawn in the logo */
  glyph: 'e' | 'c' | 'm' | 's' | 'a';
  privacyPath: string;
}

const PRODUCTS: Record<ProductKey, ProductInfo> = {
  main: { key: 'main', nameKey: 'product.main', color: '#1668dc', glyph: 'e', privacyPath: '/privacy' },
  centre: { key: 'centre', nameKey: 'product.centre', color: '#1668dc', glyph: 'c', privacyPath: '/privacy' },
  monitor: {
    key: 'monitor',
    nameKey: 'product.monitor',
    color: '#0f8b8d',
    glyph: 'm',
    privacyPath: '/privacy',
  },
  site: { key: 'site', nameKey: 'product.site', color: '#2f54eb', glyph: 's', privacyPath: '/site/privacy' },
  ae: { key: 'ae', nameKey: 'product.ae', color: '#c2410c', glyph: 'a', privacyPath: '/ae/privacy' },
};

export function productFor(variant: LoginVariant, loginType: LoginType | null): ProductInfo {
  if (loginType === 1) return PRODUCTS.centre;
  if (loginType === 2) return PRODUCTS.monitor;
  if (loginType === 3) return PRODUCTS.site;
  if (loginType === 4) return PRODUCTS.ae;
  return variant === 'site' ? PRODUCTS.site : variant === 'ae' ? PRODUCTS.ae : PRODUCTS.main;
}

export function privacyVariant(pathname: string): LoginVariant {
  if (pathname.startsWith('/site')) return 'site';
  if (pathname.startsWith('/ae')) return 'ae';
  return 'main';
}

import type { ProductInfo } from './product';

const GLYPHS: Record<ProductInfo['glyph'], string> = {
  // stylised letters on a 32×32 grid
  e: 'M9 9h14v3H12.5v2.6H21v3h-8.5V20H23v3H9z',
  c: 'M22.5 12.2A6.6 6.6 0 0 0 17 9.2c-4 0-7 3-7 6.8s3 6.8 7 6.8a6.6 6.6 0 0 0 5.5-3l-2.7-1.7a3.5 3.5 0 0 1-2.8 1.5c-2.1 0-3.7-1.6-3.7-3.6s1.6-3.6 3.7-3.6c1.2 0 2.2.6 2.8 1.5z',
  m: 'M8 23V9h3.2l4.8 7 4.8-7H24v14h-3.3v-8.6L16 21l-4.7-6.6V23z',
  s: 'M21.8 12.4c-.9-1.6-2.7-3.2-5.5-3.2-3 0-5.2 1.7-5.2 4.1 0 2.6 2.2 3.4 4.6 4 1.9.4 2.7.8 2.7 1.6s-.9 1.4-2.2 1.4c-1.6 0-2.8-.9-3.5-2.1l-2.7 1.6c1 2 3.2 3.5 6.2 3.5 3.3 0 5.5-1.8 5.5-4.4 0-2.7-2.3-3.5-4.7-4.1-1.8-.4-2.6-.7-2.6-1.4 0-.6.7-1.1 1.8-1.1 1.3 0 2.2.6 2.9 1.7z',
  a: 'M13.9 9h4.2l5.6 14h-3.5l-1.1-3h-6.2l-1.1 3H8.3zm.1 8h4l-2-5.4z',
};

/** The product's logo: a rounded tile in the product colour with its letter (spec §1: logo varies by login type). */
export function ProductLogo({
  product,
  size = 32,
  inverse = false,
}: {
  product: ProductInfo;
  size?: number;
  inverse?: boolean;
}) {
  return (
    <svg
      width={size}
      height={size}
      viewBox="0 0 32 32"
      role="img"
      aria-label={`logo-${product.key}`}
      data-testid="product-logo"
      data-product={product.key}
      style={{ flex: 'none', display: 'block' }}
    >
      <rect width="32" height="32" rx="7" fill={inverse ? '#fff' : product.color} />
      <path d={GLYPHS[product.glyph]} fill={inverse ? product.color : '#fff'} />
    </svg>
  );
}

export { productFor, privacyVariant, type ProductKey, type ProductInfo } from './product';
export { ProductLogo } from './product-logo';

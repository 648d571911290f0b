/**
 * Desensitization configuration (issue 12, /project/ocrProConfig): the page is bound in routes/route-pages.ts; nothing
 * here is used by other features yet.
 */
export { deidConfigKey } from './api/deid-config-api';

/**
 * Data mapping and synonyms (issue 11 item 3): the data-mapping page (with the pre-fill schedule tab) and the
 * synonym configuration pages are bound in routes/route-pages.ts; nothing here is used by other features yet.
 */
export { ruleMatchText } from './mapping-logic';

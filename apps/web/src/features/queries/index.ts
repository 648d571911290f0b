/** Queries (issue 13 item 2): what other features use. */
export { ItemQueries } from './components/item-queries';
export { FormQueries } from './components/form-queries';
export { QueryDrawer } from './components/query-drawer';
export { queriesKey, queryCountsQuery } from './api/queries-api';
export { QueryCountTags } from './components/query-count-tags';
export { queryListPath, type QueryListTarget } from './query-links';

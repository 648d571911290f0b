export { OrgsTab } from './components/orgs-tab';
export { orgsPageQuery, deptsQuery } from './api/orgs-api';

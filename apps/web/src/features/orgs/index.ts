export { OrgsTab } from './components/orgs-tab';

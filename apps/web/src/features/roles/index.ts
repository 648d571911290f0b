export { RolesTab } from './components/roles-tab';
export { GroupsTab } from './components/groups-tab';

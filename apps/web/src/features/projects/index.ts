export { projectsPageQuery, DEFAULT_PAGE, type Page, type ProjectRow } from './api/projects-api';

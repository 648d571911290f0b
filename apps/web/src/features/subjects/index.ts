export { subjectDetailPath } from './subject-links';
export { VISIT_STATE_COLOR, VisitStateTag } from './components/visit-state-tag';
export { StatusTag } from './components/status-tag';
export { SubjectDialog, StatusDialog, ReasonDialog } from './components/subject-dialogs';
export {
  subjectPageQuery,
  recyclePageQuery,
  subjectQuery,
  scheduleQuery,
  mySitesQuery,
  plannedVisitsQuery,
  subjectsApi,
  type SubjectFilters,
  type SubjectInput,
} from './api/subjects-api';
export { SiteFilter } from './components/site-filter';

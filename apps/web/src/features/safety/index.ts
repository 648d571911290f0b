/** Safety review (issue 13 items 3, 4): what other features use. */
export { JudgeDrawer, candidateTerm } from './components/judge-drawer';
export { GradeTag, GRADE_COLOR } from './components/grade-tag';
export { safetyKey, safetyApi, candidatePageQuery, candidateCountsQuery } from './api/safety-api';

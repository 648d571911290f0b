/** The study reports of /project/reports (issue 14 item 5): what other features use. */
export { CrfReport } from './components/crf-report';
export { CrfMissingReport } from './components/crf-missing-report';
export { ConsistencyReport } from './components/consistency-report';

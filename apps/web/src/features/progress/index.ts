export { groupPercent, ProgressPanel } from './progress-panel';
export { progressApi, progressTypesFor, progressViewLink } from './api/progress-api';

export { CrfEntry, type CrfEntryProps } from './components/crf-entry';
export { CRF_STATUS_COLOR, CrfStatusTag } from './components/status';
export { SignatureDialog } from './components/signature-dialog';
export { ecrfApi, crfQuery, historyQuery, type CrfKey, type CrfView, type HistoryRow } from './api/ecrf-api';

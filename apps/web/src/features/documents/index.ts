/** The source-document feature (issue 12): what other features use. */
export { afterDocumentChange, documentsApi, documentsKey, tabCountsQuery } from './api/documents-api';
export { FileStatusTag } from './components/file-status-tag';
export { FailDialog } from './components/fail-dialog';
export { PageImage } from './components/page-image';
export { allowedActions, fmtSize, reviewPath, uploadProblems } from './document-logic';
export { SubjectDocumentsTab } from './components/subject-documents-tab';

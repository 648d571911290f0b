/** The source-document feature (issue 12): what other features use. */
export { tabCountsQuery } from './api/documents-api';
export { SubjectDocumentsTab } from './components/subject-documents-tab';

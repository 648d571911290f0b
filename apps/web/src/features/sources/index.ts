/** The source-data feature (issue 11): what other features use. */
export { SubjectSourceTab } from './components/subject-source-tab';
export { RecordDrawer } from './components/record-drawer';
export { DocTypeTag } from './components/source-tags';
export { prettyRaw } from './source-logic';

/** Generated files (issue 14 items 6 and 7): what other features use. */
export { CasebookPrintButton } from './components/casebook-print';
export { exportsKey } from './api/exports-api';

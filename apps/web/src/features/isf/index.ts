/** The investigator site file (issue 12 item 8): what other features use. */
export { isfKey } from './api/isf-api';

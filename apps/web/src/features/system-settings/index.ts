/** System settings (issue 15 item 3): what other features may use of it. */
export { adminInfoQuery, rangeOrgsQuery, rangesQuery } from './api/system-settings-api';
export { AdminContact } from './admin-contact';

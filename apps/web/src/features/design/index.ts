/** The study design feature's public face: what other features may use. */
export { formsQuery, versionsQuery } from './api/design-api';

/** The audit trail views (issue 6, 11): what other features use. */
export { AuditLogView } from './components/audit-log-view';
export { AUDIT_SOURCES } from './api/audit-api';

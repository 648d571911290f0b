import { AuditLogView } from '../components/audit-log-view';
import { AUDIT_SOURCES } from '../api/audit-api';
import { usePms, useSession } from '../../session';

/**
 * The open project's audit log (/project/auditLogs, for monitors): this project, this environment. Its event and
 * user filters offer what occurs in this trail, not the whole system's.
 */
export default function ProjectAuditLogsPage() {
  const has = usePms();
  const env = useSession((s) => s.env);
  const projectId = useSession((s) => s.project?.id ?? null);
  return (
    <AuditLogView
      source={AUDIT_SOURCES.project}
      scope={`${projectId}:${env}`}
      canExport={has('syslog:audit-supervise-log:export', 'prolog:audit-action:export')}
      // the people of this trail come from the project's own list, under the page's own permission
      canPickUser={has('syslog:audit-supervise-log:query', 'prolog:audit-action:query')}
      testId="project-audit-logs"
    />
  );
}

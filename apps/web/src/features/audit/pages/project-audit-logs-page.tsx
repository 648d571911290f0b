import { AuditLogView } from '../components/audit-log-view';
import { AUDIT_SOURCES } from '../api/audit-api';
import { usePms } from '../lib/use-pms';
import { useSession } from '../../session/session-store';

/** The open project's audit log (/project/auditLogs, for monitors): this project, this environment. */
export default function ProjectAuditLogsPage() {
  const has = usePms();
  const env = useSession((s) => s.env);
  const projectId = useSession((s) => s.project?.id ?? null);
  return (
    <AuditLogView
      source={AUDIT_SOURCES.project}
      scope={`${projectId}:${env}`}
      canExport={has('syslog:audit-supervise-log:export', 'prolog:audit-action:export')}
      canPickUser={has('system:user:query')}
      testId="project-audit-logs"
    />
  );
}

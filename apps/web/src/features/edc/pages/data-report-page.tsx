import { Card, Tabs } from 'antd';
import { useSearchParams } from 'react-router';
import { useTranslation } from 'react-i18next';
import { AUDIT_SOURCES, AuditLogView } from '../../audit';
import { usePms, useSession } from '../../session';
import { EdcLogTab } from '../components/edc-log-tab';

/**
 * /project/dataReport (spec §2: the project's audit trail): the project's audit actions (prolog:audit-action:query,
 * the same view as /project/auditLogs) and the EDC upload log (prolog:upload-edc-log:query), each tab only with its
 * permission. `?tab=edcLog&runId=…` opens the log of one sync run.
 */
export default function DataReportPage() {
  const { t } = useTranslation('edc');
  const has = usePms();
  const env = useSession((s) => s.env);
  const projectId = useSession((s) => s.project?.id ?? null);
  const [params, setParams] = useSearchParams();
  const canAudit = has('prolog:audit-action:query');
  const canLog = has('prolog:upload-edc-log:query');
  const asked = params.get('tab');
  const tab = (asked === 'edcLog' && canLog) || !canAudit ? 'edcLog' : 'audit';
  const runId = Number(params.get('runId')) || undefined;
  return (
    <Card data-testid="data-report">
      <Tabs
        activeKey={tab}
        onChange={(k) =>
          setParams(
            (p) => {
              p.set('tab', k);
              p.delete('runId');
              return p;
            },
            { replace: true },
          )
        }
        items={[
          ...(canAudit
            ? [
                {
                  key: 'audit',
                  label: <span data-testid="data-report-tab-audit">{t('dataReport.audit')}</span>,
                  children: (
                    <AuditLogView
                      source={AUDIT_SOURCES.project}
                      scope={`${projectId}:${env}`}
                      canExport={has('syslog:audit-supervise-log:export', 'prolog:audit-action:export')}
                      canPickUser={has('syslog:audit-supervise-log:query', 'prolog:audit-action:query')}
                      testId="data-report-audit"
                    />
                  ),
                },
              ]
            : []),
          ...(canLog
            ? [
                {
                  key: 'edcLog',
                  label: <span data-testid="data-report-tab-edcLog">{t('dataReport.edcLog')}</span>,
                  // a new run in the address opens the log filtered anew
                  children: (
                    <EdcLogTab
                      key={runId ?? 'all'}
                      scope={{ env, projectId }}
                      canExport={has('prolog:upload-edc-log:export')}
                      initialRunId={runId}
                    />
                  ),
                },
              ]
            : []),
        ]}
      />
    </Card>
  );
}

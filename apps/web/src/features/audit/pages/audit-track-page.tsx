import { Tabs } from 'antd';
import { useMatches, useSearchParams } from 'react-router';
import { useTranslation } from 'react-i18next';
import { AuditLogView } from '../components/audit-log-view';
import { AUDIT_SOURCES } from '../api/audit-api';
import { usePms, useSession } from '../../session';

/** Module 6 (/system/auditTrack): the system audit trail and the login log, each with its permission. */
export default function AuditTrackPage() {
  const { t } = useTranslation('audit');
  const has = usePms();
  const env = useSession((s) => s.env);
  const [params, setParams] = useSearchParams();
  const matches = useMatches();
  // the module's login-log menu entry means the login tab (should that route open this page)
  const routeTab = matches[matches.length - 1]?.id === 'loginLog' ? 'login' : 'trail';
  const canPickUser = has('system:user:query');
  const tabs = [
    has('syslog:audit-track:query', 'syslog:audit-supervise-log:query')
      ? {
          key: 'trail',
          label: <span data-testid="tab-trail">{t('tabs.trail')}</span>,
          children: (
            <AuditLogView
              source={AUDIT_SOURCES.system}
              scope={env}
              canExport={has('syslog:audit-track:export', 'syslog:audit-supervise-log:export')}
              canPickUser={canPickUser}
              testId="audit-trail"
            />
          ),
        }
      : null,
    has('syslog:login-log:query', 'syslog:audit-track:query')
      ? {
          key: 'login',
          label: <span data-testid="tab-login">{t('tabs.login')}</span>,
          children: (
            <AuditLogView
              source={AUDIT_SOURCES.login}
              scope={env}
              canExport={has('syslog:login-log:export', 'syslog:audit-track:export')}
              canPickUser={canPickUser}
              testId="login-log"
            />
          ),
        }
      : null,
  ].filter((x) => x !== null);
  const active =
    tabs.find((x) => x.key === params.get('tab'))?.key ?? tabs.find((x) => x.key === routeTab)?.key ?? tabs[0]?.key;
  return (
    <div data-testid="audit-track-page">
      <Tabs
        activeKey={active}
        destroyOnHidden
        onChange={(k) => setParams({ tab: k }, { replace: true })}
        items={tabs}
      />
    </div>
  );
}

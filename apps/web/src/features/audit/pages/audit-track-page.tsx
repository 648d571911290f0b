import { Tabs } from 'antd';
import { useMatches, useSearchParams } from 'react-router';
import { useTranslation } from 'react-i18next';
import { AuditLogView } from '../components/audit-log-view';
import { AUDIT_SOURCES } from '../api/audit-api';
import { usePms, useSession } from '../../session';

/** Module 6 (/system/auditTrack): the system audit trail, the login log and the authorisation log, each with its permission. */
export default function AuditTrackPage() {
  const { t } = useTranslation('audit');
  const has = usePms();
  const env = useSession((s) => s.env);
  const [params, setParams] = useSearchParams();
  const matches = useMatches();
  // the module's login-log and authorisation-log menu entries mean their tabs
  const routeId = matches[matches.length - 1]?.id;
  const routeTab = routeId === 'loginLog' ? 'login' : routeId === 'authLog' ? 'auth' : 'trail';
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
    has('syslog:auth-log:query', 'syslog:audit-track:query')
      ? {
          key: 'auth',
          label: <span data-testid="tab-auth">{t('tabs.auth')}</span>,
          children: (
            <AuditLogView
              source={AUDIT_SOURCES.auth}
              scope={env}
              canExport={has('syslog:auth-log:export', 'syslog:audit-track:export')}
              canPickUser={canPickUser}
              testId="auth-log"
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

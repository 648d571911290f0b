import { Tabs } from 'antd';
import { useMatches, useSearchParams } from 'react-router';
import { useTranslation } from 'react-i18next';
import { AuditLogView } from '../components/audit-log-view';
import { AUDIT_SOURCES } from '../api/audit-api';
import { usePms, useSession } from '../../session';

// each tab: its trail, and the permissions that read and export it (audit-track access reads every one)
const TABS = [
  {
    key: 'trail',
    source: AUDIT_SOURCES.system,
    read: ['syslog:audit-track:query', 'syslog:audit-supervise-log:query'],
    exp: ['syslog:audit-track:export', 'syslog:audit-supervise-log:export'],
    testId: 'audit-trail',
  },
  {
    key: 'login',
    source: AUDIT_SOURCES.login,
    read: ['syslog:login-log:query', 'syslog:audit-track:query'],
    exp: ['syslog:login-log:export', 'syslog:audit-track:export'],
    testId: 'login-log',
  },
  {
    key: 'auth',
    source: AUDIT_SOURCES.auth,
    read: ['syslog:auth-log:query', 'syslog:audit-track:query'],
    exp: ['syslog:auth-log:export', 'syslog:audit-track:export'],
    testId: 'auth-log',
  },
] as const;

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
  const tabs = TABS.filter((x) => has(...x.read)).map((x) => ({
    key: x.key,
    label: <span data-testid={`tab-${x.key}`}>{t(`tabs.${x.key}`)}</span>,
    children: (
      <AuditLogView
        source={x.source}
        scope={env}
        canExport={has(...x.exp)}
        canPickUser={canPickUser}
        testId={x.testId}
      />
    ),
  }));
  const active =
    tabs.find((x) => x.key === params.get('tab'))?.key ??
    tabs.find((x) => x.key === routeTab)?.key ??
    tabs[0]?.key;
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

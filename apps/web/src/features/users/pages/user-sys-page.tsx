import type { ReactNode } from 'react';
import { Tabs } from 'antd';
import { useSearchParams } from 'react-router';
import { useTranslation } from 'react-i18next';
import type { Permission } from '@esource/shared';
import { UsersTab } from '../components/users-tab';
import { usePms } from '../lib/use-pms';
import { GroupsTab, RolesTab } from '../../roles';
import { OrgsTab } from '../../orgs';

const TABS: { key: string; pm: Permission; render: () => ReactNode }[] = [
  { key: 'users', pm: 'system:user:query', render: () => <UsersTab /> },
  { key: 'roles', pm: 'system:role:query', render: () => <RolesTab /> },
  { key: 'groups', pm: 'system:permission-group:query', render: () => <GroupsTab /> },
  { key: 'orgs', pm: 'system:org:query', render: () => <OrgsTab /> },
];

/**
 * Module 2, User Management (/system/userSys): users, roles, permission groups and the organisation /
 * department dictionary, each tab shown only with its query permission. The tab is kept in the URL (`tab`).
 */
export default function UserSysPage() {
  const { t } = useTranslation('users');
  const has = usePms();
  const [params, setParams] = useSearchParams();
  const tabs = TABS.filter((x) => has(x.pm));
  const asked = params.get('tab');
  const active = tabs.find((x) => x.key === asked)?.key ?? tabs[0]?.key;
  return (
    <div data-testid="user-sys-page">
      <Tabs
        activeKey={active}
        destroyOnHidden
        onChange={(k) => setParams({ tab: k }, { replace: true })}
        items={tabs.map((x) => ({ key: x.key, label: <span data-testid={`tab-${x.key}`}>{t(`tabs.${x.key}`)}</span>, children: x.render() }))}
      />
    </div>
  );
}

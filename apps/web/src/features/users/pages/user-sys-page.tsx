import type { ReactNode } from 'react';
import { Empty, Tabs } from 'antd';
import { useMatches, useSearchParams } from 'react-router';
import { useTranslation } from 'react-i18next';
import { UsersTab } from '../components/users-tab';
import { usePms } from '../../session';
import { activeTab, visibleTabs, type UserSysTab } from '../lib/user-sys-tabs';
import { GroupsTab, RolesTab } from '../../roles';
import { OrgsTab } from '../../orgs';

const RENDER: Record<UserSysTab, () => ReactNode> = {
  users: () => <UsersTab />,
  roles: () => <RolesTab />,
  groups: () => <GroupsTab />,
  orgs: () => <OrgsTab />,
};

/**
 * Module 2, User Management (/system/userSys): users, roles, permission groups and the organisation /
 * department dictionary, each tab shown only with its query permission. The tab is kept in the URL (`tab`).
 */
export default function UserSysPage() {
  const { t } = useTranslation('users');
  const has = usePms();
  const matches = useMatches();
  const [params, setParams] = useSearchParams();
  const tabs = visibleTabs(has);
  const active = activeTab(tabs, params.get('tab'), matches[matches.length - 1]?.id);
  return (
    <div data-testid="user-sys-page">
      {tabs.length === 0 ? (
        <Empty description={t('noTabs')} />
      ) : (
        <Tabs
          activeKey={active}
          destroyOnHidden
          onChange={(k) => setParams({ tab: k }, { replace: true })}
          items={tabs.map((k) => ({
            key: k,
            label: <span data-testid={`tab-${k}`}>{t(`tabs.${k}`)}</span>,
            children: RENDER[k](),
          }))}
        />
      )}
    </div>
  );
}

import { App, Avatar, Dropdown, Space } from 'antd';
import {
  BellOutlined,
  CommentOutlined,
  DownOutlined,
  KeyOutlined,
  LinkOutlined,
  LogoutOutlined,
  SettingOutlined,
  UserOutlined,
} from '@ant-design/icons';
import type { MenuProps } from 'antd';
import { useNavigate } from 'react-router';
import { useQueryClient } from '@tanstack/react-query';
import { useTranslation } from 'react-i18next';
import type { LoginType } from '@esource/shared';
import { logout } from '../session';

/**
 * Items of the user dropdown by login type (spec §2). Modify Password is offered to every login type (the spec
 * says centre only; every user must be able to change their own password — docs/decisions.md).
 */
export function userMenuKeys(loginType: LoginType | null): string[] {
  const keys: string[] = [];
  if (loginType === 1) keys.push('edcLink');
  keys.push('personal', 'messages', 'feedback', 'password', 'logout');
  return keys;
}

/**
 * User dropdown: Associate EDC (type 1), Personal Settings, Messages, Feedback (a dialog; issue 15 item 5), Modify
 * Password, Log Out with 'Sure to quit?'.
 */
export function UserMenu({
  name,
  imgUrl,
  loginType,
  onModifyPassword,
  onFeedback,
}: {
  name: string;
  imgUrl: string | null;
  loginType: LoginType | null;
  onModifyPassword: () => void;
  onFeedback: () => void;
}) {
  const { t } = useTranslation('layout');
  const { modal } = App.useApp();
  const navigate = useNavigate();
  const qc = useQueryClient();
  const icons: Record<string, React.ReactNode> = {
    edcLink: <LinkOutlined />,
    personal: <SettingOutlined />,
    messages: <BellOutlined />,
    feedback: <CommentOutlined />,
    password: <KeyOutlined />,
    logout: <LogoutOutlined />,
  };
  const items: MenuProps['items'] = userMenuKeys(loginType).flatMap((k) => [
    ...(k === 'logout' ? [{ type: 'divider' as const }] : []),
    {
      key: k,
      icon: icons[k],
      label: <span data-testid={`user-menu-${k}`}>{t(`userMenu.${k}`)}</span>,
      danger: k === 'logout',
    },
  ]);
  const onClick: MenuProps['onClick'] = ({ key }) => {
    if (key === 'edcLink') void navigate('/edc-link');
    else if (key === 'personal') void navigate('/user-info');
    else if (key === 'messages') void navigate('/messages');
    else if (key === 'feedback') onFeedback();
    else if (key === 'password') onModifyPassword();
    else if (key === 'logout') {
      modal.confirm({
        title: t('logoutConfirm'),
        okText: t('logoutOk'),
        cancelText: t('cancel'),
        rootClassName: 'logout-confirm',
        onOk: async () => {
          const to = await logout(qc);
          await navigate(to, { replace: true });
        },
      });
    }
  };
  return (
    <Dropdown menu={{ items, onClick }} trigger={['click']} placement="bottomRight">
      <Space style={{ cursor: 'pointer', padding: '0 8px' }} data-testid="user-dropdown">
        <Avatar
          size={28}
          src={imgUrl ?? undefined}
          icon={<UserOutlined />}
          style={{ background: '#1668dc' }}
        />
        <span
          className="esource-narrow-hide"
          style={{ maxWidth: 140, overflow: 'hidden', textOverflow: 'ellipsis', whiteSpace: 'nowrap' }}
        >
          {name}
        </span>
        <DownOutlined style={{ fontSize: 10 }} />
      </Space>
    </Dropdown>
  );
}

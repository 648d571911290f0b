import { App, Dropdown, Tag } from 'antd';
import { DownOutlined } from '@ant-design/icons';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useLocation, useNavigate } from 'react-router';
import { useTranslation } from 'react-i18next';
import { ENVS, type Env } from '@esource/shared';
import { authApi } from '../auth/api/auth-api';
import { sessionStore, useSession } from '../session/session-store';

const ENV_COLOR: Record<Env, string> = { DEV: 'purple', UAT: 'orange', PRO: 'green' };

/**
 * Environment dropdown (spec §2, §4): DEV / UAT / PRO → POST /passport/envTypeSwitch, refresh the user
 * state, then reload on the overview, otherwise go home.
 */
export function EnvSwitch() {
  const { t } = useTranslation('layout');
  const env = useSession((s) => s.env);
  const token = useSession((s) => s.token);
  const location = useLocation();
  const navigate = useNavigate();
  const qc = useQueryClient();
  const { message } = App.useApp();
  const envs = useQuery({
    queryKey: ['envs', token],
    queryFn: authApi.envs,
    enabled: Boolean(token),
    staleTime: 5 * 60_000,
    retry: false,
  });
  const options = envs.data ?? ENVS.map((value) => ({ value, enabled: true, current: value === env }));

  const choose = async (next: Env) => {
    if (next === env) return;
    await authApi.switchEnv(next);
    sessionStore.set({ env: next, project: null, moduleNo: 1, proSiteId: null });
    await qc.invalidateQueries();
    void message.success(t('envSwitched', { env: next }));
    if (location.pathname === '/overview') window.location.reload();
    else void navigate('/overview');
  };

  return (
    <Dropdown
      trigger={['click']}
      menu={{
        selectable: true,
        selectedKeys: [env],
        items: options.map((o) => ({
          key: o.value,
          disabled: !o.enabled,
          label: <span data-testid={`env-${o.value}`}>{t(`env.${o.value}`)}</span>,
        })),
        onClick: ({ key }) => void choose(key as Env).catch(() => undefined),
      }}
    >
      <Tag
        color={ENV_COLOR[env]}
        style={{ cursor: 'pointer', marginInlineEnd: 0, padding: '2px 8px' }}
        data-testid="env-switch"
      >
        {t(`env.${env}`)} <DownOutlined style={{ fontSize: 10 }} />
      </Tag>
    </Dropdown>
  );
}

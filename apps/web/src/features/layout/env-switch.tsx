import { App, Dropdown, Tag } from 'antd';
import { DownOutlined } from '@ant-design/icons';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useLocation, useNavigate } from 'react-router';
import { useTranslation } from 'react-i18next';
import { ENVS, type Env, type LoginType, type PmsInfoResponse } from '@esource/shared';
import { api } from '../../lib/api-client';
import { authApi, sessionStore, useSession, userInfoKey } from '../session';
import { matchRoute, projectLanding, routeAllowed } from '../../lib/routing/route-access';

const ENV_COLOR: Record<Env, string> = { DEV: 'purple', UAT: 'orange', PRO: 'green' };

/** The user's pms in one project and environment, or null where they are no member there (403 NOT_MEMBER). */
async function projectInfoIn(projectId: number, env: Env): Promise<PmsInfoResponse | null> {
  try {
    const info = await api.postJson<PmsInfoResponse>(
      '/auth/user/pmsInfo',
      {},
      { headers: { proId: projectId, proType: env }, silent: true },
    );
    return info.project ? info : null;
  } catch {
    return null;
  }
}

/** Resolves once the session has no project (the overview's guard clears it), at the latest after 5 s. */
function projectCleared(): Promise<void> {
  return new Promise((resolve) => {
    if (sessionStore.get().project === null) return resolve();
    const timer = setTimeout(done, 5000);
    const stop = sessionStore.subscribe(() => {
      if (sessionStore.get().project === null) done();
    });
    function done() {
      clearTimeout(timer);
      stop();
      resolve();
    }
  });
}

/**
 * Environment dropdown (spec §2, §4): DEV / UAT / PRO → POST /passport/envTypeSwitch. Inside a project it
 * re-enters the same project in the new environment (same page when the role there allows it, else the
 * project's first page); where the user is no member of the project in that environment it goes home and says
 * why. Outside a project it refreshes the user state and reloads on the overview, otherwise goes home.
 */
export function EnvSwitch() {
  const { t } = useTranslation('layout');
  const env = useSession((s) => s.env);
  const token = useSession((s) => s.token);
  const location = useLocation();
  const navigate = useNavigate();
  const qc = useQueryClient();
  const { message, modal } = App.useApp();
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
    const s = sessionStore.get();
    const here = matchRoute(location.pathname);
    const project = here?.inProject ? s.project : null;
    await authApi.switchEnv(next);

    if (project) {
      const label = project.no ? `${project.no}-${project.name}` : String(project.id);
      const info = await projectInfoIn(project.id, next);
      if (info) {
        // the same project in the new environment: prime its user info so that no call runs without it
        qc.setQueryData(userInfoKey(s.token, project.id, next), info);
        sessionStore.set({ env: next, proSiteId: null });
        await qc.invalidateQueries({ predicate: (q) => q.queryKey[0] !== 'pmsInfo' });
        const access = {
          pms: new Set(info.pms),
          loginType: (info.user.loginType as LoginType | undefined) ?? s.loginType,
          env: next,
          modules: info.menus.map((m) => m.no),
        };
        const stay = here && routeAllowed(here, access);
        if (!stay) void navigate(projectLanding(access) ?? '/overview', { replace: true });
        void message.success(t('envSwitchedProject', { env: t(`env.${next}`), project: label }));
        return;
      }
      // not a member there: leave the project's pages first (the overview's guard clears the project once they
      // are gone — navigations render in a transition, so clearing it here would reach a still-mounted page),
      // then switch, so that no project page asks without a project
      await navigate('/overview', { replace: true });
      await projectCleared();
      sessionStore.set({ env: next, project: null, moduleNo: 1, proSiteId: null });
      await qc.invalidateQueries();
      modal.info({
        title: t('envSwitched', { env: t(`env.${next}`) }),
        content: t('envNoProject', { env: t(`env.${next}`), project: label }),
        rootClassName: 'env-no-project',
      });
      return;
    }

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
        <span className="esource-narrow-hide">{t(`env.${env}`)}</span>
        <span className="esource-narrow-only">{env}</span> <DownOutlined style={{ fontSize: 10 }} />
      </Tag>
    </Dropdown>
  );
}

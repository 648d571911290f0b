import { lazy, Suspense, useEffect, useMemo } from 'react';
import { Outlet, useLocation, useNavigate } from 'react-router';
import { useTranslation } from 'react-i18next';
import { decideGuard, type GuardDecision } from '../lib/routing/guard';
import { useSession, useAccess, useUserInfo, applyGuardActions, useSessionTimers } from '../features/session';
import { notify } from '../lib/notify';
import { ErrorPanel } from './route-error';
import { ApiError } from '../lib/api-client';
import { GuardContext } from '../lib/routing/guard-context';
import { PageSpinner } from '../components/page-spinner';
import { LOGIN_PRODUCT } from '../lib/build-flags';

const LoginExpiredDialog = lazy(() => import('../features/session/login-expired-dialog'));

/** The root route: runs the route guard on every location and holds the session-wide dialogs and timers. */
export function RootGuard() {
  const location = useLocation();
  const navigate = useNavigate();
  const { t } = useTranslation(['common', 'errors']);
  const token = useSession((s) => s.token);
  const variant = useSession((s) => s.variant);
  const projectId = useSession((s) => s.project?.id ?? null);
  const projectPending = useSession((s) => s.pendingProjectUuid !== null);
  const moduleNo = useSession((s) => s.moduleNo);
  const listPage = useSession((s) => s.listPage);
  const expired = useSession((s) => s.expired);
  const mustChangePassword = useSession((s) => s.passwordChangeRequired);
  const info = useUserInfo();
  const access = useAccess();

  const decision: GuardDecision = useMemo(
    () =>
      decideGuard(location.pathname, location.search, {
        token,
        variant,
        loginProduct: LOGIN_PRODUCT,
        access,
        projectId,
        projectPending,
        expired,
        moduleNo,
        listPage,
        mustChangePassword,
      }),
    [
      location.pathname,
      location.search,
      token,
      variant,
      access,
      projectId,
      projectPending,
      expired,
      moduleNo,
      listPage,
      mustChangePassword,
    ],
  );

  useEffect(() => {
    applyGuardActions(decision.actions, () => {
      notify.warn(t('common:projectNotFound'));
      void navigate('/overview', { replace: true });
    });
    if (decision.kind === 'redirect') void navigate(decision.to, { replace: true });
  }, [decision, navigate, t]);

  // Entering a project the user is not a member of: the server answers 403 (or no project); say so and go home.
  const notMember =
    projectId !== null &&
    ((info.data && !info.isPlaceholderData && info.data.project === null) ||
      (info.error instanceof ApiError && info.error.code === 403));
  useEffect(() => {
    if (!notMember) return;
    if (!(info.error instanceof ApiError)) notify.warn(t('errors:noPermission'), 'no-permission');
    applyGuardActions([{ type: 'clearProject' }], () => undefined);
    void navigate('/overview', { replace: true });
  }, [notMember, info.error, navigate, t]);

  const onStaticPage = decision.kind === 'render' && Boolean(decision.route.static);
  useSessionTimers(!onStaticPage);

  let body: React.ReactNode;
  const infoError = info.error instanceof ApiError && info.error.code !== 401 ? info.error : null;
  if (decision.kind === 'redirect') body = <PageSpinner />;
  else if (decision.kind === 'loading' && infoError) {
    body = (
      <ErrorPanel
        title={t('common:userInfoFailed')}
        text={infoError.message}
        action={t('common:retry')}
        onAction={() => void info.refetch()}
      />
    );
  } else if (decision.kind === 'loading' && !(decision.route.shell && info.data)) body = <PageSpinner />;
  else body = <Outlet />;

  return (
    <GuardContext.Provider value={decision}>
      {body}
      {expired ? (
        <Suspense fallback={null}>
          <LoginExpiredDialog />
        </Suspense>
      ) : null}
    </GuardContext.Provider>
  );
}

import { Modal } from 'antd';
import { useTranslation } from 'react-i18next';
import { useLocation, useNavigate } from 'react-router';
import { useQueryClient } from '@tanstack/react-query';
import { sessionStore, useSession } from './session-store';
import { AntdProvider } from '../../components/antd-provider';
import { logout } from './session-actions';

/**
 * Where to come back to after logging in again: the same path and query, with the open project's id for a
 * project page (the guard enters it again, or says the user may no longer open it), and its environment.
 */
export function returnTarget(pathname: string, search: string, projectId: number | null, env: string): string | null {
  const q = new URLSearchParams(search);
  for (const k of ['token', 'target', 'redirect']) q.delete(k);
  if (projectId !== null && pathname.toLowerCase().startsWith('/project') && !q.has('proId') && !q.has('uuid')) {
    q.set('proId', String(projectId));
  }
  if (q.has('proId')) q.set('proType', env);
  const s = q.toString();
  const target = s ? `${pathname}?${s}` : pathname;
  return target === '/' || target === '/overview' ? null : target;
}

/** The non-closable 'Login Expired' dialog (spec §4, §8): its only button logs the user out. */
export default function LoginExpiredDialog() {
  const expired = useSession((s) => s.expired);
  const { t } = useTranslation('common');
  const navigate = useNavigate();
  const location = useLocation();
  const qc = useQueryClient();
  return (
    <AntdProvider>
      <Modal
        open={expired}
        title={t('loginExpiredTitle')}
        closable={false}
        mask={{ closable: false }}
        keyboard={false}
        cancelButtonProps={{ style: { display: 'none' } }}
        okText={t('loginAgain')}
        onOk={() => {
          // after logging in again the user returns to this page (spec §2 guard: `redirect`)
          const s = sessionStore.get();
          const back = returnTarget(location.pathname, location.search, s.project?.id ?? null, s.env);
          void logout(qc).then((to) =>
            navigate(back ? `${to}?redirect=${encodeURIComponent(back)}` : to, { replace: true }),
          );
        }}
        wrapClassName="login-expired-dialog"
      >
        {t('loginExpiredText')}
      </Modal>
    </AntdProvider>
  );
}

import { Modal } from 'antd';
import { useTranslation } from 'react-i18next';
import { useNavigate } from 'react-router';
import { useQueryClient } from '@tanstack/react-query';
import { useSession } from './session-store';
import { AntdProvider } from '../../app/antd-provider';
import { logout } from './session-actions';

/** The non-closable 'Login Expired' dialog (spec §4, §8): its only button logs the user out. */
export default function LoginExpiredDialog() {
  const expired = useSession((s) => s.expired);
  const { t } = useTranslation('common');
  const navigate = useNavigate();
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
          void logout(qc).then((to) => navigate(to, { replace: true }));
        }}
        wrapClassName="login-expired-dialog"
      >
        {t('loginExpiredText')}
      </Modal>
    </AntdProvider>
  );
}

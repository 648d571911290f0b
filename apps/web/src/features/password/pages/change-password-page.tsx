import { useState } from 'react';
import { App, Alert, Button, Card, Form, Space, Typography } from 'antd';
import { LockOutlined, LogoutOutlined } from '@ant-design/icons';
import { useNavigate, useSearchParams } from 'react-router';
import { useQueryClient } from '@tanstack/react-query';
import { useTranslation } from 'react-i18next';
import { AntdProvider } from '../../../components/antd-provider';
import { ApiError } from '../../../lib/api-client';
import { productFor, ProductLogo } from '../../brand';
import { sessionStore, useSession, useUserInfo, logout } from '../../session';
import { LanguageSwitch } from '../../layout';
import {
  fieldOfError,
  PasswordChangeFields,
  updatePassword,
  type PasswordChangeValues,
} from '../password-change-form';
import { validFields } from '../../../lib/validate-form';

/**
 * The forced change of an initial password (issued by an administrator). The guard sends every page here until
 * the change is done, and the server refuses every other call meanwhile; the only ways out are the change
 * itself and logging out.
 */
export default function ChangePasswordPage() {
  return (
    <AntdProvider>
      <App>
        <ChangePassword />
      </App>
    </AntdProvider>
  );
}

function ChangePassword() {
  const { t } = useTranslation(['password', 'common', 'layout']);
  const { message } = App.useApp();
  const navigate = useNavigate();
  const [params] = useSearchParams();
  const qc = useQueryClient();
  const info = useUserInfo();
  const sessionUser = useSession((s) => s.user);
  const variant = useSession((s) => s.variant);
  const loginType = useSession((s) => s.loginType);
  const product = productFor(variant, loginType);
  const userId = info.data?.user.id ?? sessionUser?.id ?? null;
  const name = info.data?.user.name ?? sessionUser?.name ?? '';
  const [form] = Form.useForm<PasswordChangeValues>();
  const [busy, setBusy] = useState(false);

  const submit = async () => {
    const v = await validFields(form);
    if (!v || userId === null) return;
    setBusy(true);
    try {
      await updatePassword(userId, v.oldPwd, v.newPwd);
      void message.success(t('password:changed'));
      form.resetFields();
      sessionStore.set({ passwordChangeRequired: false, passwordChangeDue: false });
      await qc.invalidateQueries({ queryKey: ['pmsInfo'] });
      // the guard leaves this screen for where the user was going (the `redirect` parameter)
      const to = params.get('redirect');
      await navigate(to && to.startsWith('/') && !to.startsWith('//') ? to : '/', { replace: true });
    } catch (e) {
      const field = e instanceof ApiError ? fieldOfError(e.errorCode) : 'newPwd';
      form.setFields([{ name: field, errors: [e instanceof ApiError ? e.message : t('password:failed')] }]);
    } finally {
      setBusy(false);
    }
  };

  return (
    <div
      data-testid="change-password-page"
      style={{ minHeight: '100vh', background: '#f5f7fb', display: 'flex', flexDirection: 'column' }}
    >
      <header
        style={{
          height: 56,
          display: 'flex',
          alignItems: 'center',
          gap: 10,
          padding: '0 24px',
          background: '#fff',
          borderBottom: '1px solid #e5e7eb',
        }}
      >
        <ProductLogo product={product} />
        <Typography.Text strong>{t(`common:${product.nameKey}`)}</Typography.Text>
        <span style={{ flex: 1 }} />
        <LanguageSwitch />
      </header>
      <main style={{ flex: 1, display: 'flex', justifyContent: 'center', alignItems: 'flex-start', padding: '48px 16px' }}>
        <Card style={{ width: '100%', maxWidth: 480 }}>
          <Space align="center" size={12} style={{ marginBottom: 8 }}>
            <LockOutlined style={{ fontSize: 22, color: product.color }} />
            <Typography.Title level={4} style={{ margin: 0 }}>
              {t('password:forcedTitle')}
            </Typography.Title>
          </Space>
          <Alert
            type="warning"
            showIcon
            style={{ margin: '8px 0 16px' }}
            data-testid="change-password-reason"
            title={t('password:forcedReason', { name })}
          />
          <PasswordChangeFields form={form} />
          <div style={{ display: 'flex', justifyContent: 'space-between', gap: 12 }}>
            <Button
              icon={<LogoutOutlined />}
              onClick={() => void logout(qc).then((to) => navigate(to, { replace: true }))}
              data-testid="change-password-logout"
            >
              {t('layout:userMenu.logout')}
            </Button>
            <Button
              type="primary"
              loading={busy}
              disabled={userId === null}
              onClick={() => void submit().catch(() => undefined)}
              data-testid="change-password-submit"
            >
              {t('password:forcedSubmit')}
            </Button>
          </div>
        </Card>
      </main>
    </div>
  );
}

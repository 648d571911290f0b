import { useState } from 'react';
import { Alert, Button, Form, Input, Segmented, Typography } from 'antd';
import { LockOutlined, UserOutlined } from '@ant-design/icons';
import { Link, useLocation, useNavigate, useSearchParams } from 'react-router';
import { useTranslation } from 'react-i18next';
import { LIMITS, LOGIN_VARIANTS, type LoginType, type LoginVariant } from '@esource/shared';
import { login } from '../api/auth-api';
import { sessionStore } from '../../session/session-store';
import { LanguageSwitch } from '../../session/language-switch';
import { productFor } from '../../brand/product';
import { ProductLogo } from '../../brand/product-logo';
import { ApiError } from '../../../lib/api-client';
import { safeTarget } from '../../../routes/guard';
import { matchRoute } from '../../../routes/route-access';
import './login-page.css';

interface LoginForm {
  account: string;
  password: string;
}

function variantOf(pathname: string): LoginVariant {
  return matchRoute(pathname)?.login ?? 'main';
}

/**
 * The three login pages (spec §1, §2): the combined centre/monitor site (types 1 and 2), the site login
 * (type 3) and the adverse-event login (type 4). Each shows its own logo and product name.
 */
export default function LoginPage() {
  const { t } = useTranslation(['auth', 'common']);
  const location = useLocation();
  const navigate = useNavigate();
  const [params] = useSearchParams();
  const variant = variantOf(location.pathname);
  const types = LOGIN_VARIANTS[variant].loginTypes;
  const [loginType, setLoginType] = useState<LoginType>(types[0] ?? 1);
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const product = productFor(variant, types.length > 1 ? null : loginType);
  const typeProduct = productFor(variant, loginType);

  const onFinish = async (v: LoginForm) => {
    setBusy(true);
    setError(null);
    try {
      const res = await login({ account: v.account, password: v.password, loginType, variant });
      sessionStore.set({
        token: res.token,
        user: res.user,
        loginType: res.user.loginType as LoginType,
        variant,
        env: res.user.projectType,
        project: null,
        moduleNo: 1,
        expired: false,
        passwordChangeDue: res.passwordChangeDue,
      });
      await navigate(safeTarget(params.get('redirect')) ?? '/', { replace: true });
    } catch (e) {
      setError(e instanceof ApiError ? e.message : t('auth:loginFailed'));
    } finally {
      setBusy(false);
    }
  };

  return (
    <div className="login-page" data-testid="login-page" data-variant={variant}>
      <aside className="login-brand" style={{ background: `linear-gradient(150deg, ${product.color} 0%, #0b1f44 100%)` }}>
        <div className="login-brand-head">
          <ProductLogo product={typeProduct} size={40} inverse />
          <span className="login-brand-name" data-testid="product-name">
            {t(`common:${typeProduct.nameKey}`)}
          </span>
        </div>
        <div className="login-brand-body">
          <h1>{t(`auth:tagline.${variant}`)}</h1>
          <ul>
            {(['f1', 'f2', 'f3'] as const).map((k) => (
              <li key={k}>{t(`auth:features.${variant}.${k}`)}</li>
            ))}
          </ul>
        </div>
        <div className="login-brand-foot">© {new Date().getFullYear()} eSource</div>
      </aside>
      <main className="login-main">
        <div className="login-lang">
          <LanguageSwitch />
        </div>
        <div className="login-card">
          <Typography.Title level={3} style={{ marginBottom: 4 }}>
            {t('auth:title')}
          </Typography.Title>
          <Typography.Paragraph type="secondary">{t(`auth:subtitle.${variant}`)}</Typography.Paragraph>
          {types.length > 1 && (
            <Segmented<LoginType>
              block
              value={loginType}
              onChange={(v) => setLoginType(v)}
              options={types.map((lt) => ({ value: lt, label: <span data-testid={`login-type-${lt}`}>{t(`auth:loginType.${lt}`)}</span> }))}
              style={{ marginBottom: 20 }}
            />
          )}
          {error && <Alert type="error" showIcon title={error} style={{ marginBottom: 16 }} data-testid="login-error" />}
          <Form<LoginForm> layout="vertical" size="large" onFinish={(v) => void onFinish(v)} requiredMark={false}>
            <Form.Item
              name="account"
              label={t('auth:account')}
              rules={[
                { required: true, whitespace: true, message: t('auth:accountRequired') },
                { max: LIMITS.accountMax, message: t('auth:accountTooLong', { max: LIMITS.accountMax }) },
              ]}
            >
              <Input prefix={<UserOutlined />} autoComplete="username" placeholder={t('auth:accountPlaceholder')} data-testid="login-account" />
            </Form.Item>
            <Form.Item name="password" label={t('auth:password')} rules={[{ required: true, message: t('auth:passwordRequired') }]}>
              <Input.Password
                prefix={<LockOutlined />}
                autoComplete="current-password"
                placeholder={t('auth:passwordPlaceholder')}
                data-testid="login-password"
              />
            </Form.Item>
            <Button type="primary" htmlType="submit" block loading={busy} data-testid="login-submit">
              {t('auth:submit')}
            </Button>
          </Form>
          <div className="login-links">
            {t('auth:consent')} <Link to={product.privacyPath}>{t('auth:privacyLink')}</Link> ·{' '}
            <Link to="/agreement">{t('auth:agreementLink')}</Link> · <Link to="/person">{t('auth:personLink')}</Link>
          </div>
          <div className="login-other">
            {(Object.keys(LOGIN_VARIANTS) as LoginVariant[])
              .filter((v) => v !== variant)
              .map((v) => (
                <Link key={v} to={LOGIN_VARIANTS[v].path} data-testid={`goto-${v}-login`}>
                  {t(`auth:otherLogin.${v}`)}
                </Link>
              ))}
          </div>
        </div>
      </main>
    </div>
  );
}

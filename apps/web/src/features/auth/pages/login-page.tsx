import { useState, type SyntheticEvent } from 'react';
import { Link, useLocation, useNavigate, useSearchParams } from 'react-router';
import { useTranslation } from 'react-i18next';
import {
  LIMITS,
  LOGIN_VARIANTS,
  type LoginResponse,
  type LoginType,
  type LoginVariant,
} from '@esource/shared';
import {
  FaceCeremonyError,
  login,
  loginWithPasskey,
  sessionStore,
  LanguageToggle,
  webauthnSupported,
} from '../../session';
import { productFor, ProductLogo } from '../../brand';
import { AdminContact } from '../../system-settings';
import { ApiError } from '../../../lib/api-client';
import { safeTarget } from '../../../lib/routing/guard';
import { matchRoute } from '../../../lib/routing/route-access';
import './login-page.css';

function variantOf(pathname: string): LoginVariant {
  return matchRoute(pathname)?.login ?? 'main';
}

const UserIcon = () => (
  <svg viewBox="0 0 24 24" width="16" height="16" aria-hidden>
    <path
      fill="currentColor"
      d="M12 12a5 5 0 1 0 0-10 5 5 0 0 0 0 10zm0-8a3 3 0 1 1 0 6 3 3 0 0 1 0-6zm0 10c-4.4 0-8 2.2-8 5v3h16v-3c0-2.8-3.6-5-8-5zm-6 6v-1c0-1.2 2.5-3 6-3s6 1.8 6 3v1H6z"
    />
  </svg>
);
const LockIcon = () => (
  <svg viewBox="0 0 24 24" width="16" height="16" aria-hidden>
    <path
      fill="currentColor"
      d="M17 9V7A5 5 0 0 0 7 7v2H5v13h14V9h-2zM9 7a3 3 0 0 1 6 0v2H9V7zm8 13H7v-9h10v9zm-5-2a1.5 1.5 0 1 0 0-3 1.5 1.5 0 0 0 0 3z"
    />
  </svg>
);
const FaceIcon = () => (
  <svg viewBox="0 0 24 24" width="18" height="18" aria-hidden>
    <path
      fill="none"
      stroke="currentColor"
      strokeWidth="1.8"
      strokeLinecap="round"
      d="M4 8V6a2 2 0 0 1 2-2h2M16 4h2a2 2 0 0 1 2 2v2M20 16v2a2 2 0 0 1-2 2h-2M8 20H6a2 2 0 0 1-2-2v-2M9 9.5v1M15 9.5v1M12 9.5v3.5h-1M9.5 16c1.4 1 3.6 1 5 0"
    />
  </svg>
);
const EyeIcon = ({ open }: { open: boolean }) => (
  <svg viewBox="0 0 24 24" width="16" height="16" aria-hidden>
    <path
      fill="currentColor"
      d="M12 5C6.5 5 2.7 9.3 1.5 12c1.2 2.7 5 7 10.5 7s9.3-4.3 10.5-7C21.3 9.3 17.5 5 12 5zm0 12a5 5 0 1 1 0-10 5 5 0 0 1 0 10zm0-8a3 3 0 1 0 0 6 3 3 0 0 0 0-6z"
    />
    {open ? null : <path stroke="currentColor" strokeWidth="2" d="M3 3l18 18" />}
  </svg>
);

/**
 * The three login pages (spec §1, §2): the combined centre/monitor site (types 1 and 2), the site login
 * (type 3) and the adverse-event login (type 4), each with its own logo and product name. Plain HTML and
 * CSS on purpose: the first screen loads no component library (budget: < 250 KB gzip of JS).
 */
export default function LoginPage() {
  const { t } = useTranslation(['auth', 'common']);
  const location = useLocation();
  const navigate = useNavigate();
  const [params] = useSearchParams();
  const variant = variantOf(location.pathname);
  const types = LOGIN_VARIANTS[variant].loginTypes;
  const [loginType, setLoginType] = useState<LoginType>(types[0] ?? 1);
  const [account, setAccount] = useState('');
  const [password, setPassword] = useState('');
  const [showPwd, setShowPwd] = useState(false);
  const [touched, setTouched] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const [faceBusy, setFaceBusy] = useState(false);
  // face login (spec §7 getfaceAttest / faceLogin): offered when the browser has WebAuthn
  const [canFace] = useState(webauthnSupported);
  const product = productFor(variant, loginType);

  const accountError = !account.trim()
    ? t('auth:accountRequired')
    : account.trim().length > LIMITS.accountMax
      ? t('auth:accountTooLong', { max: LIMITS.accountMax })
      : null;
  const passwordError = !password ? t('auth:passwordRequired') : null;

  /** The session either login started (the server answers both alike). */
  const enter = async (res: LoginResponse) => {
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
      passwordChangeRequired: res.passwordChangeRequired,
    });
    await navigate(safeTarget(params.get('redirect')) ?? '/', { replace: true });
  };

  const onSubmit = async (e: SyntheticEvent) => {
    e.preventDefault();
    setTouched(true);
    if (accountError || passwordError || busy) return;
    setBusy(true);
    setError(null);
    try {
      await enter(await login({ account: account.trim(), password, loginType, variant }));
    } catch (err) {
      setError(err instanceof ApiError ? err.message : t('auth:loginFailed'));
    } finally {
      setBusy(false);
    }
  };

  /** Face login: the account, when typed, must be the passkey's; the login type chosen above applies. */
  const onFace = async () => {
    if (busy || faceBusy) return;
    if (account.trim().length > LIMITS.accountMax) {
      setError(t('auth:accountTooLong', { max: LIMITS.accountMax }));
      return;
    }
    setFaceBusy(true);
    setError(null);
    try {
      await enter(await loginWithPasskey({ account: account.trim(), loginType, variant }));
    } catch (err) {
      setError(
        err instanceof ApiError
          ? err.message
          : err instanceof FaceCeremonyError
            ? t(`auth:face.${err.problem}`, { message: err.message })
            : t('auth:loginFailed'),
      );
    } finally {
      setFaceBusy(false);
    }
  };

  return (
    <div className="login-page" data-testid="login-page" data-variant={variant}>
      <aside
        className="login-brand"
        style={{ background: `linear-gradient(150deg, ${product.color} 0%, #0b1f44 100%)` }}
      >
        <div className="login-brand-head">
          <ProductLogo product={product} size={40} inverse />
          <span className="login-brand-name" data-testid="product-name">
            {t(`common:${product.nameKey}`)}
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
          <LanguageToggle />
        </div>
        <form className="login-card" onSubmit={(e) => void onSubmit(e)} noValidate>
          <h2 className="login-title">{t('auth:title')}</h2>
          <p className="login-subtitle">{t(`auth:subtitle.${variant}`)}</p>
          {types.length > 1 && (
            <div className="login-types" role="tablist">
              {types.map((lt) => (
                <button
                  key={lt}
                  type="button"
                  role="tab"
                  aria-selected={lt === loginType}
                  className={lt === loginType ? 'on' : undefined}
                  data-testid={`login-type-${lt}`}
                  onClick={() => setLoginType(lt)}
                >
                  {t(`auth:loginType.${lt}`)}
                </button>
              ))}
            </div>
          )}
          {error && (
            <div className="login-alert" role="alert" data-testid="login-error">
              {error}
            </div>
          )}
          <label className="login-label" htmlFor="login-account">
            {t('auth:account')}
          </label>
          <div className={`login-input${touched && accountError ? ' invalid' : ''}`}>
            <UserIcon />
            <input
              id="login-account"
              name="account"
              autoComplete="username"
              placeholder={t('auth:accountPlaceholder')}
              value={account}
              onChange={(e) => setAccount(e.target.value)}
              data-testid="login-account"
            />
          </div>
          <div className="login-field-error">{touched && accountError ? accountError : ''}</div>
          <label className="login-label" htmlFor="login-password">
            {t('auth:password')}
          </label>
          <div className={`login-input${touched && passwordError ? ' invalid' : ''}`}>
            <LockIcon />
            <input
              id="login-password"
              name="password"
              type={showPwd ? 'text' : 'password'}
              autoComplete="current-password"
              placeholder={t('auth:passwordPlaceholder')}
              value={password}
              onChange={(e) => setPassword(e.target.value)}
              data-testid="login-password"
            />
            <button
              type="button"
              className="login-eye"
              onClick={() => setShowPwd((v) => !v)}
              aria-label={t('auth:showPassword')}
            >
              <EyeIcon open={showPwd} />
            </button>
          </div>
          <div className="login-field-error">{touched && passwordError ? passwordError : ''}</div>
          <button
            type="submit"
            className="login-submit"
            disabled={busy || faceBusy}
            data-testid="login-submit"
          >
            {busy ? <span className="esource-spinner login-busy" /> : null}
            {t('auth:submit')}
          </button>
          {canFace ? (
            <>
              <div className="login-or" aria-hidden>
                <span>{t('auth:face.or')}</span>
              </div>
              <button
                type="button"
                className="login-face"
                disabled={busy || faceBusy}
                onClick={() => void onFace()}
                title={t('auth:face.hint')}
                data-testid="login-face"
              >
                {faceBusy ? <span className="esource-spinner login-face-busy" /> : <FaceIcon />}
                {faceBusy ? t('auth:face.busy') : t('auth:face.button')}
              </button>
              <div className="login-face-hint">{t('auth:face.hint')}</div>
            </>
          ) : null}
          <div className="login-links">
            {t('auth:consent')} <Link to={product.privacyPath}>{t('auth:privacyLink')}</Link> ·{' '}
            <Link to="/agreement">{t('auth:agreementLink')}</Link> ·{' '}
            <Link to="/person">{t('auth:personLink')}</Link>
          </div>
          <AdminContact />
          <div className="login-other">
            {(Object.keys(LOGIN_VARIANTS) as LoginVariant[])
              .filter((v) => v !== variant)
              .map((v) => (
                <Link key={v} to={LOGIN_VARIANTS[v].path} data-testid={`goto-${v}-login`}>
                  {t(`auth:otherLogin.${v}`)}
                </Link>
              ))}
          </div>
        </form>
      </main>
    </div>
  );
}

import { useCallback, useEffect, useMemo, useRef, useState } from 'react';
import { Alert, App, Button, Result, Skeleton, Typography } from 'antd';
import { CheckCircleFilled, ClockCircleOutlined, SendOutlined } from '@ant-design/icons';
import { useTranslation } from 'react-i18next';
import { useParams } from 'react-router';
import dayjs from 'dayjs';
import { formFields, type FormDefinition, type ItemValues, type SharePublicView } from '@esource/shared';
import { ApiError } from '../../../lib/api-client';
import { FormRenderer, formWarnings, validateForm, type FieldErrors } from '../../crf-renderer';
import { LanguageToggle, sessionStore, useSession } from '../../session';
import { ddcApi } from '../api/ddc-api';
import '../ddc.css';

/** Errors the page shows as the end of the road (the link cannot be used), not as a problem with the answers. */
const FINAL = new Set([
  'SHARE_NOT_FOUND',
  'SHARE_USED',
  'SHARE_EXPIRED',
  'SHARE_REVOKED',
  'SHARE_FORM_CLOSED',
  'RATE_LIMITED',
]);

/**
 * /s/{code}: the shared form a participant fills without an account, once, on a phone (issue 15 item 6). It shows
 * the form and only what the project's micro CRF settings allow; the answers are checked here as the eCRF checks them
 * and again by the server, which saves them through the eCRF's own save, pending the site's review. No session header
 * is sent, whoever else is logged in on this browser.
 */
export default function SharedFormPage() {
  return (
    <App>
      <SharedForm />
    </App>
  );
}

function SharedForm() {
  const { t } = useTranslation('ddc');
  const { modal } = App.useApp();
  const { code = '' } = useParams();
  const language = useSession((s) => s.language);
  // fetched once (each open is counted and audited), not through the query cache that a language switch refreshes
  const [loaded, setLoaded] = useState<{ view: SharePublicView | null; error: unknown }>({
    view: null,
    error: null,
  });
  const [loading, setLoading] = useState(true);
  const load = useCallback(async () => {
    setLoading(true);
    try {
      setLoaded({ view: await ddcApi.publicForm(code, sessionStore.get().language), error: null });
    } catch (e) {
      setLoaded({ view: null, error: e });
    } finally {
      setLoading(false);
    }
  }, [code]);
  useEffect(() => {
    void load();
  }, [load]);
  const [values, setValues] = useState<ItemValues>({});
  const [errors, setErrors] = useState<FieldErrors>({});
  const [serverErrors, setServerErrors] = useState<Record<string, string>>({});
  // 'fix' (the marked answers) is worded in the page's language as it is now; other problems as the server said them
  const [general, setGeneral] = useState<'fix' | { text: string } | null>(null);
  const [final, setFinal] = useState<ApiError | null>(null);
  const [done, setDone] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  // the project's language the first time the form opens; the participant may switch it after (when allowed)
  const languageSet = useRef(false);
  useEffect(() => {
    if (!loaded.view || languageSet.current) return;
    languageSet.current = true;
    if (loaded.view.language !== sessionStore.get().language)
      sessionStore.set({ language: loaded.view.language });
  }, [loaded.view]);
  // a refusal is worded by the server: ask again in the language the participant switches to
  const lastLanguage = useRef(language);
  useEffect(() => {
    if (lastLanguage.current === language) return;
    lastLanguage.current = language;
    if (loaded.error) void load();
  }, [language, loaded.error, load]);

  const view = loaded.view;
  // on a phone the form is one column, whatever layout the designer chose for the desktop
  const definition = useMemo(
    () => (view ? { ...(view.definition as FormDefinition), layout: 'vertical' as const } : null),
    [view],
  );
  const warnings = useMemo(
    () => (definition ? formWarnings(definition.components, values) : {}),
    [definition, values],
  );
  const liveErrors = useMemo(() => {
    if (!definition) return {};
    const all = validateForm(definition.components, values);
    return Object.fromEntries(Object.entries(all).filter(([, e]) => e.key !== 'required'));
  }, [definition, values]);

  const failure = final ?? (loaded.error instanceof ApiError ? loaded.error : null);
  const canSwitch = !view || view.languageSwitch || failure !== null;

  const send = async () => {
    if (!definition) return;
    setBusy(true);
    setGeneral(null);
    setServerErrors({});
    try {
      const open = formFields(definition.components).filter(
        (f) => !f.hidden && !f.readOnly && !f.disabled && f.type !== 'file',
      );
      const items = open.map((f) => ({ variable: f.variable, value: values[f.variable] ?? null }));
      const r = await ddcApi.publicSubmit(code, items, sessionStore.get().language);
      setDone(r.submittedAt);
    } catch (e) {
      if (e instanceof ApiError && FINAL.has(e.errorCode)) setFinal(e);
      else if (e instanceof ApiError && e.detail.length) {
        setServerErrors(Object.fromEntries(e.detail.map((d) => [d.field, d.message])));
        setGeneral('fix');
      } else setGeneral({ text: e instanceof Error ? e.message : String(e) });
    } finally {
      setBusy(false);
    }
  };

  const submit = () => {
    if (!definition) return;
    const all = validateForm(definition.components, values);
    setErrors(all);
    if (Object.keys(all).length) {
      setGeneral('fix');
      return;
    }
    modal.confirm({
      title: t('public.confirmTitle'),
      content: t('public.confirmText'),
      okText: t('public.confirmOk'),
      cancelText: t('public.confirmCancel'),
      centered: true,
      onOk: send,
    });
  };

  const header = (
    <header className="ddc-public-header">
      <span className="ddc-public-brand">{view?.projectName ?? t('public.brand')}</span>
      {canSwitch ? <LanguageToggle /> : null}
    </header>
  );

  if (loading && !view && !failure)
    return (
      <div className="ddc-public">
        {header}
        <main className="ddc-public-main">
          <Skeleton active paragraph={{ rows: 8 }} />
        </main>
      </div>
    );

  if (done)
    return (
      <div className="ddc-public">
        {header}
        <main className="ddc-public-main">
          <Result
            icon={<CheckCircleFilled style={{ color: '#52c41a' }} />}
            title={<span data-testid="shared-done">{t('public.doneTitle')}</span>}
            subTitle={t('public.doneText', { time: dayjs(done).format('YYYY-MM-DD HH:mm') })}
          />
        </main>
      </div>
    );

  if (failure || !view || !definition)
    return (
      <div className="ddc-public">
        {header}
        <main className="ddc-public-main">
          <Result
            status={failure?.errorCode === 'SHARE_NOT_FOUND' ? '404' : 'warning'}
            title={<span data-testid="shared-refused">{t('public.refusedTitle')}</span>}
            subTitle={
              <span data-testid="shared-refused-message">{failure?.message ?? t('public.loadFailed')}</span>
            }
          />
        </main>
      </div>
    );

  const en = language === 'en_US';
  const welcome =
    (en ? view.welcomeEn : view.welcomeZh) || (en ? view.welcomeZh : view.welcomeEn) || t('public.welcome');
  return (
    <div className="ddc-public" data-testid="shared-form-page">
      {header}
      <main className="ddc-public-main">
        <Typography.Title level={4} className="ddc-public-title" data-testid="shared-form-title">
          {(en ? view.formNameEn : null) ?? view.formName}
        </Typography.Title>
        <SharedFacts view={view} en={en} />
        <Typography.Paragraph className="ddc-public-welcome">{welcome}</Typography.Paragraph>
        <Typography.Paragraph type="secondary" className="ddc-public-expiry">
          <ClockCircleOutlined />{' '}
          {t('public.validUntil', { time: dayjs(view.expiresAt).format('YYYY-MM-DD HH:mm') })}
        </Typography.Paragraph>
        <FormRenderer
          definition={definition}
          values={values}
          onChange={(v) => {
            setValues(v);
            setGeneral(null);
          }}
          errors={{
            ...liveErrors,
            ...Object.fromEntries(
              Object.entries(errors).filter(
                ([k, e]) =>
                  e.key === 'required' && (values[k] === undefined || values[k] === null || values[k] === ''),
              ),
            ),
          }}
          warnings={warnings}
          errorTexts={serverErrors}
          language={language}
        />
        {general ? (
          <Alert
            type="error"
            showIcon
            title={general === 'fix' ? t('public.fix') : general.text}
            className="ddc-public-alert"
            data-testid="shared-error"
          />
        ) : null}
        <Button
          type="primary"
          size="large"
          block
          icon={<SendOutlined />}
          loading={busy}
          onClick={submit}
          data-testid="shared-submit"
        >
          {t('public.submit')}
        </Button>
        <Typography.Paragraph type="secondary" className="ddc-public-note">
          {t('public.once')}
        </Typography.Paragraph>
      </main>
    </div>
  );
}

/** Project, visit and (masked) subject number, as the settings allow. */
function SharedFacts({ view, en }: { view: SharePublicView; en: boolean }) {
  const { t } = useTranslation('ddc');
  const facts = [
    view.visitName ? { k: t('public.visit'), v: (en ? view.visitNameEn : null) ?? view.visitName } : null,
    view.subjectNo ? { k: t('public.subject'), v: view.subjectNo } : null,
    view.siteName ? { k: t('public.site'), v: view.siteName } : null,
  ].filter((x): x is { k: string; v: string } => x !== null);
  if (!facts.length) return null;
  return (
    <dl className="ddc-public-facts" data-testid="shared-facts">
      {facts.map((f) => (
        <div key={f.k}>
          <dt>{f.k}</dt>
          <dd>{f.v}</dd>
        </div>
      ))}
    </dl>
  );
}

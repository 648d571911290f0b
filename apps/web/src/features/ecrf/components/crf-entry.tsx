import { useEffect, useMemo, useRef, useState } from 'react';
import { Alert, App, Button, Drawer, Modal, Result, Skeleton, Space, Tag, Typography } from 'antd';
import {
  CheckCircleOutlined,
  DeleteOutlined,
  PlusOutlined,
  ReloadOutlined,
  RollbackOutlined,
  SaveOutlined,
} from '@ant-design/icons';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useTranslation } from 'react-i18next';
import dayjs from 'dayjs';
import {
  can,
  CRF_STATUS,
  ENTRY_MODE,
  formFields,
  type FieldComponent,
  type ItemValues,
  type Permission,
  type SignatureMeaning,
} from '@esource/shared';
import { ApiError } from '../../../lib/api-client';
import { useSession, useAccess } from '../../session';
import { FormRenderer, formWarnings, labelFor, shownVariables, validateForm, type FieldErrors } from '../../crf-renderer';
import { ReasonDialog } from '../../subjects';
import { PrefillButton, PrefillPanel, SourceLink } from '../../prefill';
import { crfQuery, ecrfApi, type CrfKey, type CrfView } from '../api/ecrf-api';
import {
  changedVariables,
  clearedVariables,
  emptyValue,
  fieldMessages,
  needReason,
  plainValues,
  rebase,
  saveItems,
  type StoredValues,
} from '../ecrf-logic';
import { ItemHistory } from './item-history';
import { FormQueries, ItemQueries, queriesKey } from '../../queries';
import { ItemVerification, VerificationBar, verificationKey } from '../../verification';
import { PendingReviewBar, ShareFormButton } from '../../ddc';
import { ChangeReasonDialog } from './change-reason-dialog';
import { SignatureDialog } from './signature-dialog';
import { CrfStatusTag } from './status';
import '../ecrf.css';

interface Loaded {
  stored: StoredValues;
  version: number | undefined;
}

export interface CrfEntryProps {
  crfKey: CrfKey;
  /** a title for the drawer: subject and visit */
  context: string;
  /** repeats of a cycle form that exist (to offer another one) */
  repeats?: number[];
  onClose: () => void;
  /** the form's state changed (saved, certified…): the schedule should reload */
  onChanged: () => void;
  /** open another repeat of this form */
  onOpenRepeat?: (repeatNo: number) => void;
}

/**
 * eCRF data entry for one form instance (subject × visit × form × repeat), drawn by the same renderer as the
 * designer's preview. Drafts (entry mode 0) skip required checks; Save (2) completes the form. A changed saved
 * value asks for a reason per item before anything is sent; a refused stale save keeps the user's input and
 * offers to reload it over the current values.
 */
export function CrfEntry({ crfKey, context, repeats = [], onClose, onChanged, onOpenRepeat }: CrfEntryProps) {
  const { t } = useTranslation('ecrf');
  const { message } = App.useApp();
  const qc = useQueryClient();
  const env = useSession((s) => s.env);
  const language = useSession((s) => s.language);
  const projectId = useSession((s) => s.project?.id ?? null);
  const access = useAccess();
  const allowed = (p: Permission) => Boolean(access && can(access.pms, { anyOf: [p] }));
  const q = useQuery(crfQuery({ env, projectId }, crfKey));

  const [loaded, setLoaded] = useState<Loaded | null>(null);
  const [values, setValues] = useState<ItemValues>({});
  const [errors, setErrors] = useState<FieldErrors>({});
  const [serverErrors, setServerErrors] = useState<Record<string, string>>({});
  const [general, setGeneral] = useState<string | null>(null);
  const [stale, setStale] = useState<string | null>(null);
  const [kept, setKept] = useState<string[] | null>(null);
  const [busy, setBusy] = useState(false);
  const [asking, setAsking] = useState<{ mode: number; vars: string[]; cleared: string[] } | null>(null);
  const [dialog, setDialog] = useState<'certify' | 'uncertify' | 'deleteRepeat' | null>(null);
  const initFor = useRef<string | null>(null);
  // the pre-fill review beside the form (features/prefill): the drawer widens to hold it
  const [prefillOpen, setPrefillOpen] = useState(false);

  const take = (v: CrfView) => {
    setLoaded({ stored: v.values, version: v.instance?.version });
    setValues(plainValues(v.values));
    setErrors({});
    setServerErrors({});
  };

  const keyText = JSON.stringify(crfKey);
  useEffect(() => {
    if (q.data && initFor.current !== keyText) {
      initFor.current = keyText;
      take(q.data);
    }
  }, [q.data, keyText]);

  const view = q.data;
  const definition = view?.definition;
  const fields = useMemo(() => (definition ? formFields(definition.components) : []), [definition]);
  const fieldOf = (v: string): FieldComponent | undefined => fields.find((f) => f.variable === v);
  const shown = useMemo(
    () => (definition ? shownVariables(definition.components, values) : new Set<string>()),
    [definition, values],
  );
  const changed = loaded ? changedVariables(loaded.stored, values, shown) : [];
  // value rules as the user types (a range, an impossible or future date); 'required' waits for a save
  const liveErrors = useMemo(() => {
    if (!definition) return {};
    const all = validateForm(definition.components, values);
    return Object.fromEntries(Object.entries(all).filter(([, e]) => e.key !== 'required'));
  }, [definition, values]);
  const warnings = useMemo(() => (definition ? formWarnings(definition.components, values) : {}), [definition, values]);
  const status = view?.instance?.status ?? CRF_STATUS.notStarted;
  const certified = status === CRF_STATUS.certified;
  const canSave = allowed('crf:result:save');
  const readOnly = certified || !canSave;
  const formTitle = view
    ? language === 'en_US' && definition?.nameEn
      ? definition.nameEn
      : view.formName
    : '';

  const after = async (v: CrfView) => {
    qc.setQueryData(crfQuery({ env, projectId }, crfKey).queryKey, v);
    take(v);
    setStale(null);
    setKept(null);
    // a save may raise or close automatic queries and lose verification marks: both read again
    void qc.invalidateQueries({ queryKey: queriesKey });
    void qc.invalidateQueries({ queryKey: verificationKey });
    onChanged();
  };

  const send = async (mode: number, withReasons: Record<string, string>) => {
    if (!loaded) return;
    setBusy(true);
    setGeneral(null);
    setServerErrors({});
    try {
      const v = await ecrfApi.save(crfKey, loaded.version, mode, saveItems(values, changed, withReasons));
      await after(v);
      setAsking(null);
      void message.success(mode === ENTRY_MODE.stash ? t('saved.draft') : t('saved.done'));
    } catch (e) {
      setAsking(null);
      if (e instanceof ApiError && e.errorCode === 'STALE_WRITE_ITEMS') setStale(e.message);
      else if (e instanceof ApiError && e.detail.length) {
        setServerErrors(fieldMessages(e.detail));
        setGeneral(e.message);
      } else setGeneral(e instanceof Error ? e.message : String(e));
    } finally {
      setBusy(false);
    }
  };

  const save = (mode: number) => {
    if (!definition || !loaded) return;
    // a draft skips required items, never the value rules (the server refuses an impossible value in any mode)
    const all = validateForm(definition.components, values);
    const errs = mode === ENTRY_MODE.stash ? Object.fromEntries(Object.entries(all).filter(([, e]) => e.key !== 'required')) : all;
    setErrors(errs);
    if (Object.keys(errs).length) {
      setGeneral(t('fixErrors'));
      return;
    }
    const need = needReason(loaded.stored, changed);
    const cleared = clearedVariables(loaded.stored, changed, shown);
    if (need.length || cleared.length) {
      setAsking({ mode, vars: need, cleared });
      return;
    }
    void send(mode, {});
  };

  const reload = async () => {
    if (!loaded) return;
    const r = await q.refetch();
    if (!r.data) return;
    const { values: merged, kept: mine } = rebase(loaded.stored, values, r.data.values);
    setLoaded({ stored: r.data.values, version: r.data.instance?.version });
    setValues(merged);
    setServerErrors({});
    setStale(null);
    setKept(mine);
  };

  /** Certifying is an electronic signature: the signature dialog re-authenticates, then this sends it. */
  const certify = async (password: string, meaning: SignatureMeaning) => {
    if (!view?.instance) return;
    await ecrfApi.certify(view.instance.id, view.instance.version, password, meaning);
    setDialog(null);
    const r = await q.refetch();
    if (r.data) await after(r.data);
    void message.success(t('certify.done'));
  };

  const close = () => {
    if (changed.length && !readOnly) {
      Modal.confirm({
        title: t('discard.title'),
        content: t('discard.content', { count: changed.length }),
        okText: t('discard.ok'),
        cancelText: t('discard.cancel'),
        onOk: onClose,
      });
    } else onClose();
  };

  const nextRepeat = Math.max(crfKey.repeatNo, ...repeats) + 1;

  return (
    <Drawer
      open
      size={prefillOpen ? 'min(1340px, max(860px, calc(100vw - 40px)))' : 860}
      onClose={close}
      destroyOnHidden
      title={
        <Space wrap size={8}>
          <span data-testid="crf-title">{formTitle || t('loading')}</span>
          {view?.cycle ? (
            <Typography.Text type="secondary">{t('repeat', { n: crfKey.repeatNo })}</Typography.Text>
          ) : null}
          <CrfStatusTag status={status} />
          <Typography.Text type="secondary" style={{ fontWeight: 'normal', fontSize: 13 }}>
            {context}
          </Typography.Text>
        </Space>
      }
      extra={
        view ? (
          <Space wrap>
            {view.instance ? <FormQueries instanceId={view.instance.id} target={crfKey} formName={formTitle} /> : null}
            <PrefillButton crfKey={crfKey} open={prefillOpen} onToggle={() => setPrefillOpen((o) => !o)} />
            {canSave && status < CRF_STATUS.completed ? (
              // a participant fills a form the site has not completed (shared forms, issue 15 item 6)
              <ShareFormButton
                target={{ ...crfKey, label: `${formTitle} · ${context}` }}
              />
            ) : null}
            {view.cycle && canSave && view.instance && !certified ? (
              <Button
                icon={<DeleteOutlined />}
                danger
                onClick={() => setDialog('deleteRepeat')}
                data-testid="crf-delete-repeat"
              >
                {t('deleteRepeat.button')}
              </Button>
            ) : null}
            {view.cycle && canSave && view.instance && onOpenRepeat ? (
              <Button
                icon={<PlusOutlined />}
                onClick={() => onOpenRepeat(nextRepeat)}
                data-testid="crf-add-repeat"
              >
                {t('addRepeat')}
              </Button>
            ) : null}
            {status === CRF_STATUS.completed && allowed('crf:result:check') ? (
              <Button
                icon={<CheckCircleOutlined />}
                onClick={() => setDialog('certify')}
                loading={busy}
                disabled={changed.length > 0}
                data-testid="crf-certify"
              >
                {t('certify.button')}
              </Button>
            ) : null}
            {certified && allowed('crf:result:uncheck') ? (
              <Button
                icon={<RollbackOutlined />}
                onClick={() => setDialog('uncertify')}
                data-testid="crf-uncertify"
              >
                {t('uncertify.button')}
              </Button>
            ) : null}
            {readOnly ? null : (
              <>
                <Button
                  icon={<SaveOutlined />}
                  onClick={() => save(ENTRY_MODE.stash)}
                  loading={busy}
                  data-testid="crf-save-draft"
                >
                  {t('saveDraft')}
                </Button>
                <Button
                  type="primary"
                  icon={<SaveOutlined />}
                  onClick={() => save(ENTRY_MODE.manual)}
                  loading={busy}
                  data-testid="crf-save"
                >
                  {t('save')}
                </Button>
              </>
            )}
          </Space>
        ) : null
      }
    >
      {q.isError ? (
        <Result status="warning" title={t('loadFailed')} subTitle={q.error.message} />
      ) : !view || !definition || !loaded ? (
        <Skeleton active />
      ) : (
        <div data-testid="crf-entry">
          {certified ? (
            <Alert
              type="info"
              showIcon
              style={{ marginBottom: 12 }}
              data-testid="crf-certified"
              title={t('certify.readOnly', {
                who: view.instance?.certifiedBy ?? '—',
                when: view.instance?.certifiedAt
                  ? dayjs(view.instance.certifiedAt).format('YYYY-MM-DD HH:mm')
                  : '—',
              })}
            />
          ) : !canSave ? (
            <Alert type="info" showIcon style={{ marginBottom: 12 }} title={t('viewOnly')} />
          ) : null}
          {view.instance?.pendingReview ? (
            <PendingReviewBar
              instanceId={view.instance.id}
              version={view.instance.version}
              pending={view.instance.pendingReview}
              canAccept={canSave && !certified}
              dirty={changed.length > 0}
              onAccepted={async () => {
                const r = await q.refetch();
                if (r.data) await after(r.data);
              }}
            />
          ) : null}
          {stale ? (
            <Alert
              type="error"
              showIcon
              style={{ marginBottom: 12 }}
              data-testid="crf-stale"
              title={t('stale.title')}
              description={
                <div>
                  <div data-testid="crf-stale-message">{stale}</div>
                  <div>{t('stale.kept')}</div>
                </div>
              }
              action={
                <Button
                  size="small"
                  icon={<ReloadOutlined />}
                  onClick={() => void reload()}
                  data-testid="crf-reload"
                >
                  {t('stale.reload')}
                </Button>
              }
            />
          ) : null}
          {kept ? (
            <Alert
              type="warning"
              showIcon
              closable={{ onClose: () => setKept(null) }}
              style={{ marginBottom: 12 }}
              data-testid="crf-kept"
              title={
                kept.length
                  ? t('stale.rebased', {
                      items: kept.map((v) => (fieldOf(v) ? labelFor(fieldOf(v)!, language) : v)).join(', '),
                    })
                  : t('stale.rebasedNone')
              }
            />
          ) : null}
          {general ? (
            <Alert
              type="error"
              showIcon
              closable={{ onClose: () => setGeneral(null) }}
              style={{ marginBottom: 12 }}
              title={general}
              data-testid="crf-error"
            />
          ) : null}
          {view.instance ? (
            <Typography.Paragraph type="secondary" style={{ fontSize: 12 }}>
              {t('lastSaved', {
                when: dayjs(view.instance.updateTime).format('YYYY-MM-DD HH:mm:ss'),
                version: view.instance.version,
              })}
              {changed.length ? (
                <span data-testid="crf-dirty"> · {t('unsaved', { count: changed.length })}</span>
              ) : null}
            </Typography.Paragraph>
          ) : (
            <Typography.Paragraph type="secondary" style={{ fontSize: 12 }}>
              {t('notStarted')}
            </Typography.Paragraph>
          )}
          {view.instance && loaded ? (
            <VerificationBar
              instanceId={view.instance.id}
              items={Object.values(loaded.stored).filter((v) => !emptyValue(v?.value)).length}
              completed={view.instance.status >= CRF_STATUS.completed}
            />
          ) : null}
          <div className={prefillOpen ? 'crf-with-prefill' : undefined}>
            <div className="crf-main">
              <FormRenderer
                definition={definition}
                values={values}
                onChange={setValues}
                errors={{
                  ...liveErrors,
                  // 'required' marks from the last save, until the item is filled in
                  ...Object.fromEntries(Object.entries(errors).filter(([k, e]) => e.key === 'required' && emptyValue(values[k]))),
                }}
                warnings={warnings}
                errorTexts={serverErrors}
                readOnly={readOnly}
                language={language}
                itemExtra={(f) =>
                  view.instance ? (
                    <>
                      {loaded.stored[f.variable] ? (
                        <>
                          <SourceLink variable={f.variable} stored={loaded.stored[f.variable]} />
                          {loaded.stored[f.variable]?.entryMode === ENTRY_MODE.participant ? (
                            // answered by the participant through a shared link (its source: share:<id>)
                            <Tag color="orange" style={{ marginInlineEnd: 0 }} data-testid={`crf-participant-${f.variable}`}>
                              {t('mode.7')}
                            </Tag>
                          ) : null}
                          <ItemHistory instanceId={view.instance.id} field={f} />
                          <ItemVerification
                            instanceId={view.instance.id}
                            field={f}
                            hasValue={!emptyValue(loaded.stored[f.variable]?.value)}
                            completed={view.instance.status >= CRF_STATUS.completed}
                          />
                        </>
                      ) : null}
                      <ItemQueries instanceId={view.instance.id} target={crfKey} field={f} />
                    </>
                  ) : null
                }
              />
            </div>
            {prefillOpen ? (
              <div className="prefill-side">
                <PrefillPanel
                  crfKey={crfKey}
                  dirty={changed.length > 0}
                  readOnly={readOnly}
                  onClose={() => setPrefillOpen(false)}
                  onApplied={async () => {
                    const r = await q.refetch();
                    if (r.data) await after(r.data);
                  }}
                />
              </div>
            ) : null}
          </div>
        </div>
      )}
      {asking && loaded ? (
        <ChangeReasonDialog
          need={asking.vars}
          cleared={asking.cleared}
          stored={loaded.stored}
          values={values}
          fieldOf={fieldOf}
          language={language}
          busy={busy}
          onCancel={() => setAsking(null)}
          onOk={(reasons) => void send(asking.mode, reasons)}
        />
      ) : null}
      {dialog === 'certify' && view?.instance ? (
        <SignatureDialog
          title={t('signature.title')}
          okText={t('certify.button')}
          onSign={certify}
          onClose={() => setDialog(null)}
        >
          <Typography.Paragraph>{t('signature.what', { what: formTitle })}</Typography.Paragraph>
        </SignatureDialog>
      ) : null}
      {dialog === 'uncertify' && view?.instance ? (
        <ReasonDialog
          title={t('uncertify.title')}
          description={t('uncertify.description')}
          okText={t('uncertify.button')}
          testId="uncertify"
          onClose={() => setDialog(null)}
          onSubmit={async (reason) => {
            await ecrfApi.uncertify(view.instance!.id, view.instance!.version, reason);
            setDialog(null);
            const r = await q.refetch();
            if (r.data) await after(r.data);
            void message.success(t('uncertify.done'));
          }}
        />
      ) : null}
      {dialog === 'deleteRepeat' && view?.instance ? (
        <ReasonDialog
          title={t('deleteRepeat.title', { n: crfKey.repeatNo })}
          description={t('deleteRepeat.description')}
          okText={t('deleteRepeat.button')}
          danger
          testId="delete-repeat"
          onClose={() => setDialog(null)}
          onSubmit={async (reason) => {
            await ecrfApi.deleteRepeat(view.instance!.id, reason);
            setDialog(null);
            void message.success(t('deleteRepeat.done', { n: crfKey.repeatNo }));
            onChanged();
            onClose();
          }}
        />
      ) : null}
    </Drawer>
  );
}

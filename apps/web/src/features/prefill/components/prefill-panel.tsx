import { useState } from 'react';
import { Alert, App, Button, Empty, Radio, Result, Skeleton, Space, Tag, Tooltip, Typography } from 'antd';
import { CheckOutlined, CloseOutlined, LinkOutlined, ReloadOutlined, UndoOutlined } from '@ant-design/icons';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useTranslation } from 'react-i18next';
import dayjs from 'dayjs';
import type { PrefillCandidate } from '@esource/shared';
import { ApiError } from '../../../lib/api-client';
import { LimitedTextArea } from '../../../components/limited-input';
import { usePms, useSession } from '../../session';
import { candidatesQuery, prefillApi, type PrefillKey } from '../api/prefill-api';
import {
  acceptAllNew,
  choicesFor,
  decisionInputs,
  displayValue,
  missingReasons,
  readableNumber,
  stateCounts,
  type Choice,
  type Decisions,
} from '../prefill-logic';
import { docTypeName, SourceRecordDrawer } from './source-record-drawer';
import '../prefill.css';

export interface PrefillPanelProps {
  crfKey: PrefillKey;
  /** the form has unsaved edits: confirming would reload it over them, so it waits */
  dirty: boolean;
  /** the form cannot be changed (certified, or no permission to save) */
  readOnly: boolean;
  /** decisions were saved: reload the form */
  onApplied: () => Promise<void> | void;
  onClose: () => void;
}

const STATE_COLOR: Record<PrefillCandidate['state'], string> = {
  new: 'green',
  same: 'default',
  conflict: 'orange',
  problem: 'red',
};
const REASON_MAX = 500;

/** Maps a refused confirm's detail (decisions.3.reason, or a variable) to the candidate rows it is about. */
function rowErrors(detail: readonly { field: string; message: string }[], sent: readonly string[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const d of detail) {
    const m = /^decisions\.(\d+)/.exec(d.field);
    const variable = m ? sent[Number(m[1])] : sent.includes(d.field) ? d.field : undefined;
    if (variable && !out[variable]) out[variable] = d.message;
  }
  return out;
}

/**
 * 'Pre-fill from source' beside the eCRF form (spec §4): for the current subject × visit × form, each item a
 * mapping rule fills, with the value the source records give (converted, with the record it came from) and
 * the form's current value; new data is accepted, a different value merged only with a reason, anything may be
 * ignored. Nothing is decided for the user; confirm saves through the server at the form version it was shown.
 */
export function PrefillPanel({ crfKey, dirty, readOnly, onApplied, onClose }: PrefillPanelProps) {
  const { t } = useTranslation('prefill');
  const { message } = App.useApp();
  const qc = useQueryClient();
  const env = useSession((s) => s.env);
  const language = useSession((s) => s.language);
  const projectId = useSession((s) => s.project?.id ?? null);
  const has = usePms();
  const canDecide = has('crf:prefill:execute') && !readOnly;
  const q = useQuery(candidatesQuery({ env, projectId }, crfKey));
  const [decisions, setDecisions] = useState<Decisions>({});
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [general, setGeneral] = useState<string | null>(null);
  const [stale, setStale] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const [record, setRecord] = useState<{ id: number; version: number } | null>(null);

  const data = q.data;
  const candidates = data?.candidates ?? [];
  const counts = stateCounts(candidates);
  const inputs = decisionInputs(candidates, decisions);
  const label = (c: PrefillCandidate) => (language === 'en_US' && c.labelEn ? c.labelEn : c.label);

  const decide = (variable: string, choice: Choice | undefined) => {
    setErrors(({ [variable]: _drop, ...rest }) => rest);
    setDecisions(({ [variable]: old, ...rest }) => (choice ? { ...rest, [variable]: { choice, reason: old?.reason } } : rest));
  };
  const setReason = (variable: string, reason: string) => {
    setErrors(({ [variable]: _drop, ...rest }) => rest);
    setDecisions((d) => ({ ...d, [variable]: { choice: 'merge', reason } }));
  };

  const reload = async () => {
    setStale(null);
    setGeneral(null);
    setErrors({});
    setDecisions({});
    await onApplied();
    await q.refetch();
  };

  const confirm = async () => {
    if (!data) return;
    const missing = missingReasons(decisions);
    if (missing.length) {
      setErrors(Object.fromEntries(missing.map((v) => [v, t('reasonRequired')])));
      setGeneral(t('fixErrors'));
      return;
    }
    setBusy(true);
    setGeneral(null);
    setErrors({});
    try {
      const r = await prefillApi.confirm(crfKey, data.instance?.version, inputs);
      void message.success(t('confirmed', { saved: r.saved, ignored: r.ignored }));
      setDecisions({});
      // the candidates (shown, so refetched here), the visit counts and the reports: once each
      void qc.invalidateQueries({ queryKey: ['prefill'] });
      await onApplied();
    } catch (e) {
      if (e instanceof ApiError && /STALE/.test(e.errorCode)) setStale(e.message);
      else if (e instanceof ApiError && e.detail.length) {
        const rows = rowErrors(
          e.detail,
          inputs.map((i) => i.variable),
        );
        setErrors(rows);
        setGeneral(e.message);
      } else setGeneral(e instanceof Error ? e.message : String(e));
    } finally {
      setBusy(false);
    }
  };

  const restoreIgnored = async () => {
    setBusy(true);
    try {
      const r = await prefillApi.clean({
        ptsId: crfKey.ptsId,
        visitId: crfKey.visitId,
        unscheduledId: crfKey.unscheduledId,
        formId: crfKey.formId,
      });
      void message.success(t('restored', { count: r.removed }));
      // the candidates and the visit counts behind the toggle's badge
      await qc.invalidateQueries({ queryKey: ['prefill'] });
    } catch (e) {
      setGeneral(e instanceof Error ? e.message : String(e));
    } finally {
      setBusy(false);
    }
  };

  return (
    <aside className="prefill-panel" data-testid="prefill-panel" aria-label={t('title')}>
      <div className="prefill-panel-head">
        <Typography.Title level={5} style={{ margin: 0 }}>
          {t('title')}
        </Typography.Title>
        <Space size={4}>
          <Tooltip title={t('refresh')}>
            <Button
              size="small"
              type="text"
              icon={<ReloadOutlined />}
              loading={q.isFetching}
              onClick={() => void q.refetch()}
              aria-label={t('refresh')}
              data-testid="prefill-refresh"
            />
          </Tooltip>
          <Tooltip title={t('close')}>
            <Button size="small" type="text" icon={<CloseOutlined />} onClick={onClose} aria-label={t('close')} data-testid="prefill-close" />
          </Tooltip>
        </Space>
      </div>
      {q.isError ? (
        <Result
          status="warning"
          title={t('loadFailed')}
          subTitle={q.error.message}
          extra={<Button onClick={() => void q.refetch()}>{t('retry')}</Button>}
          data-testid="prefill-error"
        />
      ) : !data ? (
        <Skeleton active />
      ) : (
        <>
          <Typography.Paragraph type="secondary" style={{ fontSize: 12, marginBottom: 8 }} data-testid="prefill-window">
            {data.window
              ? t('window', { planned: data.window.planned, start: data.window.start, end: data.window.end })
              : t('noWindow')}
          </Typography.Paragraph>
          {candidates.length ? (
            <Space size={[4, 4]} wrap style={{ marginBottom: 8 }} data-testid="prefill-counts">
              {(['new', 'conflict', 'same', 'problem'] as const)
                .filter((s) => counts[s] > 0)
                .map((s) => (
                  <Tag key={s} color={STATE_COLOR[s]}>
                    {t(`state.${s}`)} {counts[s]}
                  </Tag>
                ))}
            </Space>
          ) : null}
          {!canDecide ? (
            <Alert type="info" showIcon style={{ marginBottom: 8 }} title={t('readOnly')} data-testid="prefill-readonly" />
          ) : dirty ? (
            <Alert type="warning" showIcon style={{ marginBottom: 8 }} title={t('dirty')} data-testid="prefill-dirty" />
          ) : null}
          {stale ? (
            <Alert
              type="error"
              showIcon
              style={{ marginBottom: 8 }}
              data-testid="prefill-stale"
              title={t('stale')}
              description={stale}
              action={
                <Button size="small" icon={<ReloadOutlined />} onClick={() => void reload()} data-testid="prefill-reload">
                  {t('reload')}
                </Button>
              }
            />
          ) : null}
          {general ? (
            <Alert
              type="error"
              showIcon
              closable={{ onClose: () => setGeneral(null) }}
              style={{ marginBottom: 8 }}
              title={general}
              data-testid="prefill-general-error"
            />
          ) : null}
          {candidates.length === 0 ? (
            <Empty
              image={Empty.PRESENTED_IMAGE_SIMPLE}
              description={data.ignored ? t('emptyIgnored', { count: data.ignored }) : t('empty')}
              data-testid="prefill-empty"
            />
          ) : (
            <div className="prefill-list">
              {candidates.map((c) => {
                const choices = choicesFor(c);
                const d = decisions[c.variable];
                return (
                  <div
                    key={c.variable}
                    className={`prefill-item prefill-item-${c.state}${d ? ' prefill-item-decided' : ''}`}
                    data-testid={`prefill-item-${c.variable}`}
                    data-state={c.state}
                  >
                    <div className="prefill-item-head">
                      <Typography.Text strong ellipsis title={label(c)}>
                        {label(c)}
                      </Typography.Text>
                      <Tag color={STATE_COLOR[c.state]} data-testid={`prefill-state-${c.variable}`}>
                        {t(`state.${c.state}`)}
                      </Tag>
                    </div>
                    <dl className="prefill-values">
                      <dt>{t('candidate')}</dt>
                      <dd data-testid={`prefill-candidate-${c.variable}`}>
                        {c.state === 'problem' ? (
                          <Typography.Text type="secondary">
                            {c.source.valueNum !== null ? readableNumber(c.source.valueNum) : (c.source.valueText ?? '—')}
                            {c.source.unit ? ` ${c.source.unit}` : ''}
                          </Typography.Text>
                        ) : (
                          <Typography.Text strong>
                            {displayValue(c.candidateValue, c.options, language)}
                            {c.unit ? ` ${c.unit}` : ''}
                          </Typography.Text>
                        )}
                        {c.conversion ? (
                          <Typography.Text type="secondary" style={{ fontSize: 12 }}>
                            {' '}
                            {t('converted', { value: readableNumber(c.conversion.fromValue), unit: c.conversion.fromUnit })}
                          </Typography.Text>
                        ) : null}
                      </dd>
                      <dt>{t('current')}</dt>
                      <dd data-testid={`prefill-current-${c.variable}`}>
                        {displayValue(c.currentValue, c.options, language)}
                        {c.currentEntryMode !== null && c.currentValue !== null && c.currentValue !== undefined ? (
                          <Typography.Text type="secondary" style={{ fontSize: 12 }}>
                            {' '}
                            · {t(`entryMode.${c.currentEntryMode}`, { defaultValue: String(c.currentEntryMode) })}
                          </Typography.Text>
                        ) : null}
                      </dd>
                      <dt>{t('source')}</dt>
                      <dd className="prefill-source">
                        <span>
                          {docTypeName(t, c.source.docType)} · {c.source.code ?? c.source.resourceType}
                          {c.source.display ? ` ${c.source.display}` : ''} ·{' '}
                          {c.source.effectiveAt
                            ? dayjs(c.source.effectiveAt).format('YYYY-MM-DD HH:mm')
                            : (c.source.effectiveDate ?? '—')}
                        </span>
                        <Button
                          type="link"
                          size="small"
                          icon={<LinkOutlined />}
                          style={{ padding: 0, height: 'auto' }}
                          onClick={() => setRecord({ id: c.source.id, version: c.source.version })}
                          data-testid={`prefill-record-${c.variable}`}
                        >
                          {t('openRecord')}
                        </Button>
                      </dd>
                    </dl>
                    {c.state === 'problem' ? (
                      <Alert
                        type="error"
                        showIcon
                        style={{ marginTop: 6 }}
                        title={
                          <div>
                            <div>{c.problemMessage ?? t(`problem.${c.problem ?? 'DATA_ABNORMAL'}`)}</div>
                            {c.problemDetail ? (
                              <Typography.Text type="secondary" style={{ fontSize: 12 }}>
                                {c.problemDetail}
                              </Typography.Text>
                            ) : null}
                          </div>
                        }
                        data-testid={`prefill-problem-${c.variable}`}
                      />
                    ) : null}
                    {canDecide && choices.length ? (
                      <div className="prefill-choice">
                        <Radio.Group
                          size="small"
                          optionType="button"
                          buttonStyle="solid"
                          value={d?.choice}
                          onChange={(e) => decide(c.variable, e.target.value as Choice)}
                          options={choices.map((ch) => ({
                            value: ch,
                            label: <span data-testid={`prefill-choose-${ch}-${c.variable}`}>{t(`choice.${ch}`)}</span>,
                          }))}
                        />
                        {d ? (
                          <Button size="small" type="link" onClick={() => decide(c.variable, undefined)} data-testid={`prefill-undo-${c.variable}`}>
                            {t('undecide')}
                          </Button>
                        ) : null}
                      </div>
                    ) : null}
                    {d?.choice === 'merge' ? (
                      <div style={{ marginTop: 6 }}>
                        <LimitedTextArea
                          max={REASON_MAX}
                          rows={2}
                          placeholder={t('reasonPlaceholder')}
                          value={d.reason ?? ''}
                          status={errors[c.variable] ? 'error' : undefined}
                          onChange={(e) => setReason(c.variable, e.target.value)}
                          data-testid={`prefill-reason-${c.variable}`}
                        />
                      </div>
                    ) : null}
                    {errors[c.variable] ? (
                      <Typography.Text type="danger" style={{ fontSize: 12 }} data-testid={`prefill-error-${c.variable}`}>
                        {errors[c.variable]}
                      </Typography.Text>
                    ) : null}
                  </div>
                );
              })}
            </div>
          )}
          {canDecide ? (
            <div className="prefill-actions">
              <Space wrap size={8}>
                <Button
                  size="small"
                  disabled={!candidates.some((c) => c.state === 'new' && !decisions[c.variable])}
                  onClick={() => setDecisions((d) => acceptAllNew(candidates, d))}
                  data-testid="prefill-accept-all"
                >
                  {t('acceptAllNew')}
                </Button>
                {data.ignored ? (
                  <Button size="small" icon={<UndoOutlined />} onClick={() => void restoreIgnored()} disabled={busy} data-testid="prefill-restore">
                    {t('restoreIgnored', { count: data.ignored })}
                  </Button>
                ) : null}
              </Space>
              <Button
                type="primary"
                icon={<CheckOutlined />}
                loading={busy}
                disabled={inputs.length === 0 || dirty || stale !== null}
                onClick={() => void confirm()}
                data-testid="prefill-confirm"
              >
                {t('confirm', { count: inputs.length })}
              </Button>
            </div>
          ) : null}
        </>
      )}
      {record ? <SourceRecordDrawer recordId={record.id} version={record.version} onClose={() => setRecord(null)} /> : null}
    </aside>
  );
}

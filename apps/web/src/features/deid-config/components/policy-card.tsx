import { useState } from 'react';
import { Alert, App, Button, Card, Result, Skeleton, Space, Switch, Typography } from 'antd';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useTranslation } from 'react-i18next';
import dayjs from 'dayjs';
import { DEID_POLICY_KEYS, type DeidPolicyFlags } from '@esource/shared';
import { ApiError } from '../../../lib/api-client';
import { useSession } from '../../session';
import { afterDeidConfigChange, deidConfigApi, policyQuery } from '../api/deid-config-api';
import { flagsOf, policyChanged } from '../deid-config-logic';

/**
 * The policy: four switches with what each hides, saved together over the version read. Someone else's save in between
 * is refused (STALE_WRITE) and said so, with a reload that drops the draft. Read-only users see the switches disabled
 * and no buttons.
 */
export function PolicyCard({ canEdit }: { canEdit: boolean }) {
  const { t } = useTranslation('deidConfig');
  const { message } = App.useApp();
  const qc = useQueryClient();
  const env = useSession((s) => s.env);
  const projectId = useSession((s) => s.project?.id ?? null);
  const q = useQuery(policyQuery({ env, projectId }));
  const [draft, setDraft] = useState<DeidPolicyFlags | null>(null);
  const [stale, setStale] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  if (q.isError && !q.data) {
    return (
      <Card title={t('policy.title')} size="small">
        <Result
          status="warning"
          title={t('loadFailed')}
          subTitle={q.error.message}
          extra={<Button onClick={() => void q.refetch()}>{t('retry')}</Button>}
        />
      </Card>
    );
  }
  if (!q.data) {
    return (
      <Card title={t('policy.title')} size="small">
        <Skeleton active />
      </Card>
    );
  }
  const view = q.data;
  const saved = flagsOf(view);
  const shown = draft ?? saved;
  const changed = policyChanged(saved, shown);

  const save = async () => {
    setBusy(true);
    setError(null);
    setStale(null);
    try {
      await deidConfigApi.savePolicy(shown, view.version);
      setDraft(null);
      void message.success(t('policy.saved'));
      await afterDeidConfigChange(qc);
    } catch (e) {
      if (e instanceof ApiError && e.errorCode === 'STALE_WRITE') setStale(e.message);
      else setError(e instanceof Error ? e.message : String(e));
    } finally {
      setBusy(false);
    }
  };
  const reload = async () => {
    setStale(null);
    setDraft(null);
    await q.refetch();
  };

  return (
    <Card
      title={t('policy.title')}
      size="small"
      data-testid="deid-policy"
      extra={
        <Typography.Text type="secondary" style={{ fontSize: 12 }}>
          {view.version === 0 || !view.updateTime
            ? t('policy.defaults')
            : t('policy.lastSaved', {
                user: view.updatedBy ?? '—',
                time: dayjs(view.updateTime).format('YYYY-MM-DD HH:mm'),
              })}
        </Typography.Text>
      }
    >
      {stale ? (
        <Alert
          type="warning"
          showIcon
          style={{ marginBottom: 12 }}
          title={t('policy.stale', { message: stale })}
          action={
            <Button size="small" onClick={() => void reload()} data-testid="deid-policy-reload">
              {t('policy.reload')}
            </Button>
          }
          data-testid="deid-policy-stale"
        />
      ) : null}
      {error ? <Alert type="error" showIcon style={{ marginBottom: 12 }} title={error} /> : null}
      <div className="deid-policy-list">
        {DEID_POLICY_KEYS.map((k) => (
          <div key={k} className="deid-policy-row">
            <Switch
              checked={shown[k]}
              disabled={!canEdit || busy}
              onChange={(v) => setDraft({ ...shown, [k]: v })}
              aria-labelledby={`deid-policy-${k}`}
              data-testid={`deid-policy-${k}`}
            />
            <div>
              <div id={`deid-policy-${k}`} className="deid-policy-label">
                {t(`policy.${k}.label`)}
              </div>
              <Typography.Text type="secondary">{t(`policy.${k}.help`)}</Typography.Text>
            </div>
          </div>
        ))}
      </div>
      {canEdit ? (
        <Space style={{ marginTop: 12 }}>
          <Button
            type="primary"
            disabled={!changed}
            loading={busy}
            onClick={() => void save()}
            data-testid="deid-policy-save"
          >
            {t('policy.save')}
          </Button>
          <Button disabled={!changed || busy} onClick={() => setDraft(null)}>
            {t('policy.reset')}
          </Button>
        </Space>
      ) : null}
    </Card>
  );
}

import { useState } from 'react';
import { Alert, App, Button, Progress, Space, Tag, Tooltip, Typography } from 'antd';
import { CheckCircleFilled } from '@ant-design/icons';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useTranslation } from 'react-i18next';
import { usePms } from '../../session';
import { ReasonDialog } from '../../subjects';
import { afterVerificationChange, marksQuery, verificationApi } from '../api/verification-api';
import '../verification.css';

/**
 * Above a saved form, for monitors: how many of its items are source-verified, "verify all items" (SDV), the form's
 * source review (SDR) and its removal with a reason. A draft is not verified.
 */
export function VerificationBar({ instanceId, items, completed }: { instanceId: number; items: number; completed: boolean }) {
  const { t } = useTranslation('verification');
  const { message } = App.useApp();
  const has = usePms();
  const qc = useQueryClient();
  const canSee = has('verification:sdv:query') || has('verification:sdr:query');
  const marks = useQuery(marksQuery(instanceId, canSee));
  const [busy, setBusy] = useState<string | null>(null);
  const [removing, setRemoving] = useState(false);
  if (!canSee) return null;
  const sdv = (marks.data ?? []).filter((m) => m.kind === 'sdv');
  const verified = sdv.filter((m) => m.status === 1).length;
  const lost = sdv.filter((m) => m.status === 2).length;
  const sdr = (marks.data ?? []).find((m) => m.kind === 'sdr' && m.status === 1);
  const run = async (what: 'sdv' | 'sdr') => {
    setBusy(what);
    try {
      const r = await verificationApi.mark(what, [instanceId]);
      void message.success(t(`bar.done.${what}`, { count: r.marked }));
      await afterVerificationChange(qc);
    } catch (e) {
      void message.error(e instanceof Error ? e.message : String(e));
    } finally {
      setBusy(null);
    }
  };
  return (
    <div className="verification-bar" data-testid="verification-bar">
      {!completed ? (
        <Alert type="info" showIcon title={t('bar.draft')} />
      ) : (
        <Space wrap size={12}>
          <Typography.Text strong>{t('bar.title')}</Typography.Text>
          <Tooltip title={t('bar.progress', { verified, items })}>
            <Progress percent={items ? Math.round((verified / items) * 100) : 0} size="small" style={{ width: 140, margin: 0 }} data-testid="sdv-progress" />
          </Tooltip>
          <Typography.Text type="secondary" data-testid="sdv-count">
            {t('bar.count', { verified, items })}
          </Typography.Text>
          {lost ? (
            <Tag color="orange" data-testid="sdv-lost-count">
              {t('bar.lost', { count: lost })}
            </Tag>
          ) : null}
          {has('verification:sdv:check') && verified < items ? (
            <Button size="small" type="primary" loading={busy === 'sdv'} onClick={() => void run('sdv')} data-testid="sdv-all">
              {t('bar.verifyAll')}
            </Button>
          ) : null}
          {sdr ? (
            <Tag color="green" icon={<CheckCircleFilled />} style={{ cursor: has('verification:sdr:check') ? 'pointer' : 'default' }} onClick={has('verification:sdr:check') ? () => setRemoving(true) : undefined} data-testid="sdr-done">
              {t('bar.reviewed', { name: sdr.markedBy ?? '—' })}
            </Tag>
          ) : has('verification:sdr:check') ? (
            <Button size="small" loading={busy === 'sdr'} onClick={() => void run('sdr')} data-testid="sdr">
              {t('bar.review')}
            </Button>
          ) : null}
        </Space>
      )}
      {removing && sdr ? (
        <ReasonDialog
          title={t('bar.removeTitle')}
          description={t('item.removeIntro')}
          okText={t('item.remove')}
          danger
          testId="sdr-remove"
          onClose={() => setRemoving(false)}
          onSubmit={async (reason) => {
            await verificationApi.remove([sdr.id], reason);
            setRemoving(false);
            await afterVerificationChange(qc);
          }}
        />
      ) : null}
    </div>
  );
}

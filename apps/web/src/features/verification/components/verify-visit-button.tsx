import { useState } from 'react';
import { App, Button, Popconfirm } from 'antd';
import { CheckCircleOutlined } from '@ant-design/icons';
import { useQueryClient } from '@tanstack/react-query';
import { useTranslation } from 'react-i18next';
import { usePms } from '../../session';
import { afterVerificationChange, verificationApi } from '../api/verification-api';

/** On a visit card, for monitors: SDV of every item of the visit's completed forms at once. */
export function VerifyVisitButton({ instanceIds, testId }: { instanceIds: number[]; testId: string }) {
  const { t } = useTranslation('verification');
  const { message } = App.useApp();
  const has = usePms();
  const qc = useQueryClient();
  const [busy, setBusy] = useState(false);
  if (!has('verification:sdv:check') || instanceIds.length === 0) return null;
  const run = async () => {
    setBusy(true);
    try {
      const r = await verificationApi.mark('sdv', instanceIds);
      void message.success(t('visit.done', { count: r.marked, forms: instanceIds.length }));
      await afterVerificationChange(qc);
    } catch (e) {
      void message.error(e instanceof Error ? e.message : String(e));
    } finally {
      setBusy(false);
    }
  };
  return (
    <Popconfirm title={t('visit.confirm', { count: instanceIds.length })} onConfirm={() => void run()} okText={t('visit.ok')} cancelText={t('visit.cancel')}>
      <Button size="small" icon={<CheckCircleOutlined />} loading={busy} data-testid={testId}>
        {t('visit.button')}
      </Button>
    </Popconfirm>
  );
}

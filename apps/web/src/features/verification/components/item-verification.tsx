import { useState } from 'react';
import { App, Button, Tag, Tooltip } from 'antd';
import { CheckCircleFilled, ExclamationCircleOutlined } from '@ant-design/icons';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useTranslation } from 'react-i18next';
import dayjs from 'dayjs';
import type { FieldComponent } from '@esource/shared';
import { usePms, useSession } from '../../session';
import { labelFor } from '../../crf-renderer';
import { ReasonDialog } from '../../subjects';
import { afterVerificationChange, marksQuery, verificationApi } from '../api/verification-api';

/**
 * Beside an eCRF item with a value: its SDV state — verified (by whom, when; a monitor may remove the mark with a
 * reason), changed since it was verified, or (for a monitor) "SDV" to verify it now.
 */
export function ItemVerification({ instanceId, field, hasValue, completed }: { instanceId: number; field: FieldComponent; hasValue: boolean; completed: boolean }) {
  const { t } = useTranslation('verification');
  const { message } = App.useApp();
  const has = usePms();
  const qc = useQueryClient();
  const language = useSession((s) => s.language);
  const canSee = has('verification:sdv:query');
  const canCheck = has('verification:sdv:check');
  const marks = useQuery(marksQuery(instanceId, canSee));
  const [removing, setRemoving] = useState(false);
  const [busy, setBusy] = useState(false);
  if (!canSee || !hasValue) return null;
  const mine = marks.data?.find((m) => m.kind === 'sdv' && m.variable === field.variable);
  if (mine?.status === 1)
    return (
      <>
        <Tooltip title={t('item.verifiedBy', { name: mine.markedBy ?? '—', time: dayjs(mine.markTime).format('YYYY-MM-DD HH:mm') })}>
          <Tag
            color="green"
            icon={<CheckCircleFilled />}
            style={{ cursor: canCheck ? 'pointer' : 'default', marginInlineEnd: 0 }}
            onClick={canCheck ? () => setRemoving(true) : undefined}
            data-testid={`sdv-done-${field.variable}`}
          >
            SDV
          </Tag>
        </Tooltip>
        {removing ? (
          <ReasonDialog
            title={t('item.removeTitle', { item: labelFor(field, language) })}
            description={t('item.removeIntro')}
            okText={t('item.remove')}
            danger
            testId="sdv-remove"
            onClose={() => setRemoving(false)}
            onSubmit={async (reason) => {
              await verificationApi.remove([mine.id], reason);
              void message.success(t('item.removed'));
              setRemoving(false);
              await afterVerificationChange(qc);
            }}
          />
        ) : null}
      </>
    );
  const lost = mine?.status === 2;
  const verify = async () => {
    setBusy(true);
    try {
      await verificationApi.mark('sdv', [instanceId], [field.variable]);
      await afterVerificationChange(qc);
    } catch (e) {
      void message.error(e instanceof Error ? e.message : String(e));
    } finally {
      setBusy(false);
    }
  };
  return (
    <>
      {lost ? (
        <Tooltip title={t('item.lostHint', { time: mine.endTime ? dayjs(mine.endTime).format('YYYY-MM-DD HH:mm') : '' })}>
          <Tag color="orange" icon={<ExclamationCircleOutlined />} style={{ marginInlineEnd: 0 }} data-testid={`sdv-lost-${field.variable}`}>
            {t('item.lost')}
          </Tag>
        </Tooltip>
      ) : null}
      {canCheck && completed ? (
        <Tooltip title={t('item.verifyHint')}>
          <Button size="small" loading={busy} onClick={() => void verify()} data-testid={`sdv-${field.variable}`}>
            SDV
          </Button>
        </Tooltip>
      ) : null}
    </>
  );
}

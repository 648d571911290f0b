import { useState } from 'react';
import { Alert, App, Button, Tag, Tooltip } from 'antd';
import { CheckOutlined, MobileOutlined } from '@ant-design/icons';
import { useQueryClient } from '@tanstack/react-query';
import { useTranslation } from 'react-i18next';
import dayjs from 'dayjs';
import type { PendingReview } from '@esource/shared';
import { ApiError } from '../../../lib/api-client';
import { ddcApi, ddcKey } from '../api/ddc-api';

/** The tag a form and its visit show while a participant's answers wait for the site's review. */
export function PendingReviewTag({ testId }: { testId?: string }) {
  const { t } = useTranslation('ddc');
  return (
    <Tooltip title={t('review.tagHint')}>
      <Tag color="orange" icon={<MobileOutlined />} data-testid={testId}>
        {t('review.tag')}
      </Tag>
    </Tooltip>
  );
}

/**
 * On a form that holds a participant's answers not reviewed yet: who filled it and when, and Accept (as they are).
 * Correcting goes through the normal entry path: saving the form (not as a draft) also ends the review.
 */
export function PendingReviewBar({
  instanceId,
  version,
  pending,
  canAccept,
  dirty,
  onAccepted,
}: {
  instanceId: number;
  version: number;
  pending: PendingReview;
  canAccept: boolean;
  /** unsaved edits on screen: accepting would leave them unsaved, so save (= correct) instead */
  dirty: boolean;
  onAccepted: () => Promise<void> | void;
}) {
  const { t } = useTranslation('ddc');
  const { message } = App.useApp();
  const qc = useQueryClient();
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const accept = async () => {
    setBusy(true);
    setError(null);
    try {
      await ddcApi.accept(instanceId, version);
      void qc.invalidateQueries({ queryKey: ddcKey });
      await onAccepted();
      void message.success(t('review.accepted'));
    } catch (e) {
      setError(e instanceof ApiError ? e.message : String(e));
    } finally {
      setBusy(false);
    }
  };
  return (
    <Alert
      type="warning"
      showIcon
      icon={<MobileOutlined />}
      style={{ marginBottom: 12 }}
      data-testid="crf-pending-review"
      title={t('review.title', {
        id: pending.shareId,
        time: dayjs(pending.submittedAt).format('YYYY-MM-DD HH:mm'),
      })}
      description={
        <div>
          <div>{canAccept ? t('review.howTo') : t('review.waiting')}</div>
          {error ? <div style={{ color: '#cf1322', marginTop: 4 }}>{error}</div> : null}
        </div>
      }
      action={
        canAccept ? (
          <Tooltip title={dirty ? t('review.dirty') : undefined}>
            <Button
              size="small"
              type="primary"
              icon={<CheckOutlined />}
              loading={busy}
              disabled={dirty}
              onClick={() => void accept()}
              data-testid="crf-accept-review"
            >
              {t('review.accept')}
            </Button>
          </Tooltip>
        ) : null
      }
    />
  );
}

import { Space, Tag, Tooltip, Typography } from 'antd';
import { useTranslation } from 'react-i18next';
import dayjs from 'dayjs';
import { EDC_SYNC_STATUS } from '@esource/shared';

export const fmtTime = (v: string | null | undefined) => (v ? dayjs(v).format('YYYY-MM-DD HH:mm:ss') : '—');

const STATUS_COLOR: Record<number, string> = {
  [EDC_SYNC_STATUS.pending]: 'gold',
  [EDC_SYNC_STATUS.syncing]: 'processing',
  [EDC_SYNC_STATUS.synced]: 'success',
  [EDC_SYNC_STATUS.failed]: 'error',
};
/** The bar's colours per state (antd's palette: gold, blue, green, red). */
const BAR_COLOR = { pending: '#faad14', syncing: '#1677ff', synced: '#52c41a', failed: '#ff4d4f' } as const;

/** A record's or subject's sync state: pending, syncing, synced, sync failed. */
export function SyncStatusTag({ status, testId }: { status: number; testId?: string }) {
  const { t } = useTranslation('edc');
  return (
    <Tag color={STATUS_COLOR[status] ?? 'default'} data-testid={testId} data-status={status}>
      {t(`status.${status}`)}
    </Tag>
  );
}

/** A run's state: queued, running, finished, finished with failures. */
export function RunStatusTag({ status, testId }: { status: number; testId?: string }) {
  const { t } = useTranslation('edc');
  return (
    <Tag color={STATUS_COLOR[status] ?? 'default'} data-testid={testId} data-status={status}>
      {t(`runStatus.${status}`)}
    </Tag>
  );
}

export interface StateCounts {
  pending: number;
  syncing: number;
  synced: number;
  failed: number;
}

/** The records of a site by state as one stacked bar, with the counts under it. */
export function StackedBar({ counts, testId }: { counts: StateCounts; testId?: string }) {
  const { t } = useTranslation('edc');
  const total = counts.pending + counts.syncing + counts.synced + counts.failed;
  const parts = (['synced', 'syncing', 'failed', 'pending'] as const).filter((k) => counts[k] > 0);
  const label = (k: keyof StateCounts) => `${t(`state.${k}`)}: ${counts[k]}`;
  return (
    <div data-testid={testId}>
      <Tooltip title={total ? parts.map(label).join(' · ') : t('sites.noRecords')}>
        <div
          role="img"
          aria-label={total ? parts.map(label).join(', ') : t('sites.noRecords')}
          style={{
            display: 'flex',
            height: 10,
            borderRadius: 5,
            overflow: 'hidden',
            background: 'rgba(0,0,0,0.06)',
            width: '100%',
          }}
        >
          {parts.map((k) => (
            <div
              key={k}
              style={{ width: `${(100 * counts[k]) / total}%`, background: BAR_COLOR[k], minWidth: 3 }}
            />
          ))}
        </div>
      </Tooltip>
      <Space size={10} wrap style={{ marginTop: 4, fontSize: 12 }}>
        {(['synced', 'syncing', 'failed', 'pending'] as const).map((k) => (
          <Typography.Text
            key={k}
            type="secondary"
            style={{ fontSize: 12, whiteSpace: 'nowrap' }}
            data-testid={testId ? `${testId}-${k}` : undefined}
            data-count={counts[k]}
          >
            <span
              style={{
                display: 'inline-block',
                width: 8,
                height: 8,
                borderRadius: 4,
                background: BAR_COLOR[k],
                marginInlineEnd: 4,
              }}
            />
            {label(k)}
          </Typography.Text>
        ))}
      </Space>
    </div>
  );
}

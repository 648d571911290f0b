import { Space, Tag, Tooltip, Typography } from 'antd';
import { useTranslation } from 'react-i18next';
import type { ExtractStats } from '@esource/shared';
import {
  DOC_TYPE_COLOR,
  docTypeKey,
  skippedEntries,
  sumValues,
  TASK_STATUS_COLOR,
  taskStatusKey,
} from '../source-logic';

/** A source document type (1..8) as a coloured, translated tag. */
export function DocTypeTag({ docType }: { docType: number }) {
  const { t } = useTranslation('sources');
  const key = docTypeKey(docType);
  return (
    <Tag color={key ? DOC_TYPE_COLOR[key] : 'default'} data-testid={`doc-type-${docType}`}>
      {key ? t(`docType.${key}`) : String(docType)}
    </Tag>
  );
}

export function TaskStatusTag({ status }: { status: number }) {
  const { t } = useTranslation('sources');
  const key = taskStatusKey(status);
  return (
    <Tag color={TASK_STATUS_COLOR[key]} data-testid="task-status">
      {t(`taskStatus.${key}`)}
    </Tag>
  );
}

/** created / updated / unchanged / skipped (with the reasons in a tooltip): what a task stored. */
export function TaskStats({ stats }: { stats: Partial<ExtractStats> }) {
  const { t } = useTranslation('sources');
  const skipped = skippedEntries(stats.skipped);
  const skippedTotal = sumValues(stats.skipped);
  return (
    <Space size={[8, 2]} wrap data-testid="task-stats">
      <Typography.Text>{t('stats.created', { count: stats.created ?? 0 })}</Typography.Text>
      <Typography.Text>{t('stats.updated', { count: stats.updated ?? 0 })}</Typography.Text>
      <Typography.Text type="secondary">{t('stats.unchanged', { count: stats.unchanged ?? 0 })}</Typography.Text>
      {skippedTotal > 0 ? (
        <Tooltip
          title={skipped.map(([reason, n]) => (
            <div key={reason}>
              {t(`skip.${reason}`, { defaultValue: reason })}: {n}
            </div>
          ))}
        >
          <Typography.Text type="warning" style={{ cursor: 'help', textDecoration: 'underline dotted' }}>
            {t('stats.skipped', { count: skippedTotal })}
          </Typography.Text>
        </Tooltip>
      ) : null}
    </Space>
  );
}

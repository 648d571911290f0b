import { Button, Empty, Popover, Spin, Table, Tag } from 'antd';
import { HistoryOutlined } from '@ant-design/icons';
import { useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import dayjs from 'dayjs';
import { ENTRY_MODE, type FieldComponent } from '@esource/shared';
import { useSession } from '../../session';
import { labelFor } from '../../crf-renderer';
import { historyQuery, type HistoryRow } from '../api/ecrf-api';
import { valueText } from '../ecrf-logic';

function HistoryTable({ instanceId, field }: { instanceId: number; field: FieldComponent }) {
  const { t } = useTranslation('ecrf');
  const env = useSession((s) => s.env);
  const language = useSession((s) => s.language);
  const projectId = useSession((s) => s.project?.id ?? null);
  const q = useQuery(historyQuery({ env, projectId }, instanceId, field.variable));
  const options = field.options?.map((o) => ({ value: o.value, label: labelFor(o, language) }));
  if (q.isLoading) return <Spin size="small" />;
  if (q.isError) return <span>{t('history.failed')}</span>;
  if (!q.data?.length) return <Empty image={Empty.PRESENTED_IMAGE_SIMPLE} description={t('history.empty')} />;
  return (
    <Table<HistoryRow>
      size="small"
      rowKey="id"
      pagination={false}
      data-testid={`history-table-${field.variable}`}
      dataSource={[...q.data].reverse()}
      style={{ maxWidth: 620 }}
      columns={[
        {
          title: t('history.when'),
          dataIndex: 'createTime',
          width: 140,
          render: (v: string) => dayjs(v).format('YYYY-MM-DD HH:mm:ss'),
        },
        {
          title: t('history.who'),
          dataIndex: 'userName',
          width: 90,
          // a participant (shared form, entry mode 7) has no account: the entry mode names them
          render: (v: string | null, r) => v ?? (r.entryMode === ENTRY_MODE.participant ? t('mode.7') : '—'),
        },
        {
          title: t('history.change'),
          key: 'change',
          render: (_: unknown, r) => (
            <span>
              <span className="ecrf-old">{valueText(r.oldValue, options)}</span> →{' '}
              <strong>{valueText(r.newValue, options)}</strong>
            </span>
          ),
        },
        {
          title: t('history.reason'),
          key: 'reason',
          // the reason is the user's; why the row exists when they did not type the value is a marker of ours
          render: (_: unknown, r) => (
            <span>
              {r.cause === 'condition' ? (
                <Tag color="orange" data-testid="history-cleared">
                  {t('history.clearedByCondition')}
                </Tag>
              ) : null}
              {r.quality ? (
                <Tag color="gold" data-testid="history-quality">
                  {t('history.quality')}
                </Tag>
              ) : null}
              {r.reason ?? (r.cause || r.quality ? null : '—')}
            </span>
          ),
        },
        {
          title: t('history.mode'),
          dataIndex: 'entryMode',
          width: 90,
          render: (v: number) => <Tag>{t(`mode.${v}`, { defaultValue: String(v) })}</Tag>,
        },
      ]}
    />
  );
}

/** The history button next to an item's label: who, when, old → new, reason, entry mode. */
export function ItemHistory({ instanceId, field }: { instanceId: number; field: FieldComponent }) {
  const { t } = useTranslation('ecrf');
  const [open, setOpen] = useState(false);
  const language = useSession((s) => s.language);
  const title = t('history.title', { item: labelFor(field, language) });
  return (
    <Popover
      open={open}
      onOpenChange={setOpen}
      trigger="click"
      title={title}
      content={open ? <HistoryTable instanceId={instanceId} field={field} /> : null}
      destroyOnHidden
    >
      <Button
        type="text"
        size="small"
        icon={<HistoryOutlined />}
        aria-label={title}
        data-testid={`history-${field.variable}`}
        onClick={(e) => e.preventDefault()}
      />
    </Popover>
  );
}

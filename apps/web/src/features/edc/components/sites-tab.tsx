import { Button, Empty, Result, Space, Table, Typography } from 'antd';
import type { TableColumnsType } from 'antd';
import { CloudUploadOutlined, ReloadOutlined } from '@ant-design/icons';
import { useQuery } from '@tanstack/react-query';
import { useTranslation } from 'react-i18next';
import type { SyncCenterStatusRow } from '@esource/shared';
import { edcSitesQuery } from '../api/edc-api';
import { StackedBar, fmtTime } from './sync-bits';
import type { SyncTabProps } from './use-start-sync';


/** Per site: subjects, completed forms and their states at the EDC as a stacked bar, the last sync; sync a site or the study. */
export function SitesTab({ scope, poll, canExecute, start }: SyncTabProps) {
  const { t } = useTranslation('edc');
  const q = useQuery(edcSitesQuery(scope, poll));
  const rows = q.data ?? [];
  const total = rows.reduce(
    (a, r) => ({
      pending: a.pending + r.pending,
      syncing: a.syncing + r.syncing,
      synced: a.synced + r.synced,
      failed: a.failed + r.failed,
      records: a.records + r.records,
      subjects: a.subjects + r.subjects,
    }),
    { pending: 0, syncing: 0, synced: 0, failed: 0, records: 0, subjects: 0 },
  );
  const columns: TableColumnsType<SyncCenterStatusRow> = [
    {
      title: t('col.site'),
      key: 'site',
      width: 220,
      render: (_: unknown, r) => (
        <Typography.Text ellipsis={{ tooltip: `${r.siteNo} ${r.siteName}` }}>
          <Typography.Text type="secondary">{r.siteNo}</Typography.Text> {r.siteName}
        </Typography.Text>
      ),
    },
    { title: t('col.subjects'), key: 'subjects', dataIndex: 'subjects', width: 90, align: 'right' },
    { title: t('col.records'), key: 'records', dataIndex: 'records', width: 120, align: 'right' },
    {
      title: t('col.progress'),
      key: 'progress',
      render: (_: unknown, r) => <StackedBar counts={r} testId={`edc-site-bar-${r.siteId}`} />,
    },
    { title: t('col.lastSync'), key: 'last', width: 170, render: (_: unknown, r) => fmtTime(r.lastSyncAt) },
    ...(canExecute
      ? [
          {
            title: '',
            key: 'action',
            width: 150,
            fixed: 'right' as const,
            render: (_: unknown, r: SyncCenterStatusRow) => (
              <Button
                size="small"
                icon={<CloudUploadOutlined />}
                disabled={poll || r.records === 0}
                onClick={() => start({ scope: 'site', siteId: r.siteId }, `${r.siteNo} ${r.siteName}`)}
                data-testid={`edc-sync-site-${r.siteId}`}
              >
                {t('sync.site')}
              </Button>
            ),
          },
        ]
      : []),
  ];
  if (q.isError && !q.data)
    return (
      <Result
        status="warning"
        title={t('loadFailed')}
        subTitle={q.error.message}
        extra={<Button onClick={() => void q.refetch()}>{t('retry')}</Button>}
      />
    );
  return (
    <div data-testid="edc-sites">
      <div style={{ display: 'flex', flexWrap: 'wrap', gap: 16, alignItems: 'center', marginBottom: 12 }}>
        <div style={{ flex: '1 1 360px', maxWidth: 560 }}>
          <Typography.Text strong>
            {t('sites.total', { subjects: total.subjects, records: total.records })}
          </Typography.Text>
          <StackedBar counts={total} testId="edc-study-bar" />
        </div>
        <span style={{ flex: 1 }} />
        <Space>
          <Button icon={<ReloadOutlined />} onClick={() => void q.refetch()} aria-label={t('refresh')}>
            {t('refresh')}
          </Button>
          {canExecute ? (
            <Button
              type="primary"
              icon={<CloudUploadOutlined />}
              disabled={poll || total.records === 0}
              onClick={() => start({ scope: 'study' }, '')}
              data-testid="edc-sync-study"
            >
              {t('sync.study')}
            </Button>
          ) : null}
        </Space>
      </div>
      <Table<SyncCenterStatusRow>
        rowKey="siteId"
        size="middle"
        tableLayout="fixed"
        scroll={{ x: 900 }}
        loading={q.isFetching && !q.data}
        dataSource={rows}
        columns={columns}
        pagination={false}
        locale={{ emptyText: <Empty image={Empty.PRESENTED_IMAGE_SIMPLE} description={t('sites.empty')} /> }}
        data-testid="edc-sites-table"
      />
    </div>
  );
}

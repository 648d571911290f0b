import { useState } from 'react';
import { Button, Empty, Input, Result, Select, Space, Table, Tag, Tooltip, Typography } from 'antd';
import type { TableColumnsType } from 'antd';
import { CloudUploadOutlined, ReloadOutlined } from '@ant-design/icons';
import { useQuery } from '@tanstack/react-query';
import { useTranslation } from 'react-i18next';
import { EDC_SYNC_STATUS, type PtsEdcFormRow, type PtsEdcRow } from '@esource/shared';
import { PagedTable, usePaging } from '../../../components/paged-table';
import { SiteFilter } from '../../subjects';
import { edcSubjectFormsQuery, edcSubjectsQuery, type SubjectFilters } from '../api/edc-api';
import { SyncStatusTag, fmtTime } from './sync-bits';
import type { SyncTabProps } from './use-start-sync';

type Scope = SyncTabProps['scope'];

/** One subject's completed forms at the EDC (the row's expansion). */
function SubjectForms({ scope, ptsId, poll }: { scope: Scope; ptsId: number; poll: boolean }) {
  const { t } = useTranslation('edc');
  const q = useQuery(edcSubjectFormsQuery(scope, ptsId, poll));
  if (q.isError && !q.data)
    return (
      <Result
        status="warning"
        title={t('loadFailed')}
        subTitle={q.error.message}
        extra={<Button onClick={() => void q.refetch()}>{t('retry')}</Button>}
      />
    );
  const columns: TableColumnsType<PtsEdcFormRow> = [
    { title: t('col.visit'), key: 'visit', dataIndex: 'visitName', width: 160, ellipsis: true },
    {
      title: t('col.form'),
      key: 'form',
      width: 200,
      render: (_: unknown, r) => (
        <span>
          {r.formName}
          {r.repeatNo > 1 ? ` #${r.repeatNo}` : ''}
          {!r.mapped ? (
            <Tooltip title={t('forms.unmappedHint')}>
              <Typography.Text type="warning" style={{ marginInlineStart: 6, fontSize: 12 }}>
                {t('forms.unmapped')}
              </Typography.Text>
            </Tooltip>
          ) : null}
        </span>
      ),
    },
    {
      title: t('col.status'),
      key: 'status',
      width: 110,
      render: (_: unknown, r) => (
        <SyncStatusTag status={r.status} testId={`edc-form-status-${r.instanceId}`} />
      ),
    },
    {
      title: t('col.reason'),
      key: 'reason',
      render: (_: unknown, r) =>
        r.reason ? (
          <Typography.Paragraph
            type={r.status === EDC_SYNC_STATUS.failed ? 'danger' : 'secondary'}
            ellipsis={{ rows: 2, expandable: 'collapsible' }}
            style={{ marginBottom: 0, overflowWrap: 'anywhere' }}
            data-testid={`edc-form-reason-${r.instanceId}`}
          >
            {r.reason}
          </Typography.Paragraph>
        ) : (
          '—'
        ),
    },
    { title: t('col.attempts'), key: 'attempts', dataIndex: 'attempts', width: 90, align: 'right' },
    { title: t('col.syncedAt'), key: 'syncedAt', width: 170, render: (_: unknown, r) => fmtTime(r.syncedAt) },
  ];
  return (
    <Table<PtsEdcFormRow>
      rowKey="instanceId"
      size="small"
      tableLayout="fixed"
      loading={q.isFetching && !q.data}
      dataSource={q.data ?? []}
      columns={columns}
      pagination={false}
      locale={{ emptyText: <Empty image={Empty.PRESENTED_IMAGE_SIMPLE} description={t('forms.empty')} /> }}
      data-testid={`edc-subject-forms-${ptsId}`}
    />
  );
}

/** Subjects with their forms' sync states: filters, 50/100/200 paging, each row opens its forms; sync one subject. */
export function SubjectsTab({ scope, poll, canExecute, start }: SyncTabProps) {
  const { t } = useTranslation('edc');
  const paging = usePaging();
  const { pageNumber, pageSize } = paging;
  const [filters, setFilters] = useState<SubjectFilters>({});
  const [ptsNo, setPtsNo] = useState('');
  const q = useQuery(edcSubjectsQuery(scope, filters, pageNumber, pageSize, poll));
  const filter = (f: Partial<SubjectFilters>) => {
    setFilters((x) =>
      Object.fromEntries(Object.entries({ ...x, ...f }).filter(([, v]) => v !== undefined && v !== '')),
    );
    paging.first();
  };
  const columns: TableColumnsType<PtsEdcRow> = [
    { title: t('col.subject'), key: 'ptsNo', dataIndex: 'ptsNo', width: 120 },
    { title: t('col.site'), key: 'site', dataIndex: 'siteName', width: 180, ellipsis: true },
    {
      title: t('col.status'),
      key: 'status',
      width: 110,
      render: (_: unknown, r) => <SyncStatusTag status={r.status} testId={`edc-subject-status-${r.ptsId}`} />,
    },
    {
      title: t('col.forms'),
      key: 'forms',
      width: 230,
      render: (_: unknown, r) => (
        <Space size={[6, 2]} wrap data-testid={`edc-subject-counts-${r.ptsId}`}>
          <Typography.Text>{t('subjects.synced', { synced: r.synced, records: r.records })}</Typography.Text>
          {r.failed ? <Tag color="error">{t('subjects.failed', { n: r.failed })}</Tag> : null}
          {r.pending ? <Tag color="gold">{t('subjects.pending', { n: r.pending })}</Tag> : null}
        </Space>
      ),
    },
    {
      title: t('col.lastReason'),
      key: 'reason',
      render: (_: unknown, r) =>
        r.lastReason ? (
          <Typography.Text type="danger" ellipsis={{ tooltip: r.lastReason }}>
            {r.lastReason}
          </Typography.Text>
        ) : (
          '—'
        ),
    },
    { title: t('col.lastSync'), key: 'last', width: 170, render: (_: unknown, r) => fmtTime(r.lastSyncAt) },
    ...(canExecute
      ? [
          {
            title: '',
            key: 'action',
            width: 130,
            fixed: 'right' as const,
            render: (_: unknown, r: PtsEdcRow) => (
              <Button
                size="small"
                icon={<CloudUploadOutlined />}
                disabled={poll || r.records === 0}
                onClick={() => start({ scope: 'subject', ptsId: r.ptsId }, r.ptsNo)}
                data-testid={`edc-sync-subject-${r.ptsId}`}
              >
                {t('sync.subject')}
              </Button>
            ),
          },
        ]
      : []),
  ];
  return (
    <div data-testid="edc-subjects">
      <div style={{ display: 'flex', flexWrap: 'wrap', gap: 8, marginBottom: 12, alignItems: 'center' }}>
        <SiteFilter
          value={filters.siteId}
          onChange={(v) => filter({ siteId: v })}
          placeholder={t('filter.site')}
          testId="edc-subjects-site"
        />
        <Input.Search
          allowClear
          value={ptsNo}
          maxLength={30}
          onChange={(e) => setPtsNo(e.target.value)}
          onSearch={(v) => filter({ ptsNo: v.trim() || undefined })}
          placeholder={t('filter.ptsNo')}
          style={{ width: 200 }}
          data-testid="edc-subjects-ptsno"
        />
        <Select
          allowClear
          value={filters.status}
          onChange={(v?: number) => filter({ status: v })}
          placeholder={t('filter.status')}
          style={{ width: 150 }}
          options={[EDC_SYNC_STATUS.pending, EDC_SYNC_STATUS.synced, EDC_SYNC_STATUS.failed].map((s) => ({
            value: s,
            label: t(`status.${s}`),
          }))}
          data-testid="edc-subjects-status"
        />
        <Button icon={<ReloadOutlined />} onClick={() => void q.refetch()} aria-label={t('refresh')} />
      </div>
      <PagedTable<PtsEdcRow>
        rowKey="ptsId"
        query={q}
        page={pageNumber}
        pageSize={pageSize}
        onPage={paging.onPage}
        columns={columns}
        expandable={{
          expandedRowRender: (r) => <SubjectForms scope={scope} ptsId={r.ptsId} poll={poll} />,
          rowExpandable: (r) => r.records > 0,
        }}
        empty={Object.keys(filters).length ? t('subjects.emptyFiltered') : t('subjects.empty')}
        texts={{ loadFailed: t('loadFailed'), retry: t('retry'), total: (n) => t('total', { count: n }) }}
        data-testid="edc-subjects-table"
      />
    </div>
  );
}

import { useState } from 'react';
import { App, Button, DatePicker, Input, Select, Tag, Tooltip, Typography } from 'antd';
import type { TableColumnsType, TableProps } from 'antd';
import { DownloadOutlined, ReloadOutlined } from '@ant-design/icons';
import { useQuery } from '@tanstack/react-query';
import { useTranslation } from 'react-i18next';
import dayjs, { type Dayjs } from 'dayjs';
import { EDC_LOG_ACTIONS, type EdcLogRow } from '@esource/shared';
import { PagedTable, usePaging } from '../../../components/paged-table';
import { saveBlob } from '../../../lib/download';
import { SiteFilter } from '../../subjects';
import {
  edcApi,
  edcCreatorsQuery,
  edcDataNamesQuery,
  edcLogsQuery,
  edcRunsQuery,
  type LogFilters,
} from '../api/edc-api';
import { ActionTag, EdcLogDrawer } from './edc-log-drawer';
import { fmtTime } from './sync-bits';

type Scope = { env: string; projectId: number | null };

/**
 * The EDC upload log (prolog:upload-edc-log:query): every record sent, removed, refused or in conflict and every
 * failed exchange, filtered by run, subject, site, action, result, visit/form, who started it and date; newest first
 * or oldest first; a row opens its item changes (our items' labels in the reader's language) and the exchange that
 * decided the record; Excel export with prolog:upload-edc-log:export.
 */
export function EdcLogTab({
  scope,
  canExport,
  initialRunId,
}: {
  scope: Scope;
  canExport: boolean;
  initialRunId?: number;
}) {
  const { t } = useTranslation('edc');
  const { message } = App.useApp();
  const paging = usePaging();
  const { pageNumber, pageSize } = paging;
  const [filters, setFilters] = useState<LogFilters>(initialRunId ? { runId: initialRunId } : {});
  const [sortOrder, setSortOrder] = useState<'asc' | 'desc'>('desc');
  const [ptsNo, setPtsNo] = useState('');
  const [range, setRange] = useState<[Dayjs | null, Dayjs | null] | null>(null);
  const [open, setOpen] = useState<number | null>(null);
  const [exporting, setExporting] = useState(false);
  const all: LogFilters = { ...filters, sortOrder };
  const q = useQuery(edcLogsQuery(scope, all, pageNumber, pageSize));
  const runs = useQuery(edcRunsQuery(scope, 1, 200, false));
  const names = useQuery(edcDataNamesQuery(scope));
  const creators = useQuery(edcCreatorsQuery(scope));
  const filter = (f: Partial<LogFilters>) => {
    setFilters((x) =>
      Object.fromEntries(Object.entries({ ...x, ...f }).filter(([, v]) => v !== undefined && v !== '')),
    );
    paging.first();
  };
  const download = async () => {
    setExporting(true);
    try {
      saveBlob(await edcApi.exportLog(all), `edc-log-${dayjs().format('YYYYMMDD-HHmm')}.xlsx`);
    } catch (e) {
      void message.error(e instanceof Error ? e.message : t('log.exportFailed'));
    } finally {
      setExporting(false);
    }
  };

  const runOptions = (runs.data?.content ?? []).map((r) => ({
    value: r.id,
    label: `#${r.id} · ${fmtTime(r.createTime)} · ${t(`scope.${r.scope}`)}`,
  }));
  if (filters.runId && !runOptions.some((o) => o.value === filters.runId))
    runOptions.unshift({ value: filters.runId, label: `#${filters.runId}` });

  const columns: TableColumnsType<EdcLogRow> = [
    {
      title: t('col.time'),
      key: 'time',
      width: 165,
      sorter: true,
      sortOrder: sortOrder === 'asc' ? 'ascend' : 'descend',
      sortDirections: ['descend', 'ascend', 'descend'],
      render: (_: unknown, r) => fmtTime(r.createTime),
    },
    { title: t('col.run'), key: 'run', width: 70, render: (_: unknown, r) => `#${r.runId}` },
    { title: t('col.subject'), key: 'subject', width: 110, render: (_: unknown, r) => r.ptsNo ?? '—' },
    {
      title: t('col.site'),
      key: 'site',
      width: 130,
      ellipsis: true,
      render: (_: unknown, r) => r.siteName ?? '—',
    },
    {
      title: t('col.data'),
      key: 'data',
      render: (_: unknown, r) => (
        <div style={{ minWidth: 0 }}>
          <Typography.Link
            onClick={() => setOpen(r.id)}
            data-testid={`edc-log-open-${r.id}`}
            style={{ overflowWrap: 'anywhere' }}
          >
            {r.dataName ?? t('log.runLevel')}
          </Typography.Link>
          {r.reason ? (
            <Typography.Text
              type="danger"
              ellipsis={{ tooltip: r.reason }}
              style={{ display: 'block', fontSize: 12 }}
              data-testid={`edc-log-reason-${r.id}`}
            >
              {r.reason}
            </Typography.Text>
          ) : null}
        </div>
      ),
    },
    {
      title: t('col.action'),
      key: 'action',
      width: 100,
      render: (_: unknown, r) => <ActionTag action={r.action} />,
    },
    {
      title: t('col.result'),
      key: 'result',
      width: 90,
      render: (_: unknown, r) => (
        <Tag
          color={r.status === 2 ? 'success' : 'error'}
          data-testid={`edc-log-result-${r.id}`}
          data-status={r.status}
        >
          {t(r.status === 2 ? 'log.ok' : 'log.failed')}
        </Tag>
      ),
    },
    {
      title: t('col.changes'),
      key: 'changes',
      width: 96,
      align: 'right',
      render: (_: unknown, r) => r.changeCount,
    },
    {
      title: t('col.by'),
      key: 'by',
      width: 120,
      ellipsis: true,
      render: (_: unknown, r) => r.createdByName ?? '—',
    },
    {
      title: '',
      key: 'open',
      width: 76,
      fixed: 'right',
      render: (_: unknown, r) => (
        <Button size="small" onClick={() => setOpen(r.id)}>
          {t('log.view')}
        </Button>
      ),
    },
  ];
  const onTable: TableProps<EdcLogRow>['onChange'] = (pg, _f, sorter, extra) => {
    if (extra.action === 'sort') {
      const s = Array.isArray(sorter) ? sorter[0] : sorter;
      setSortOrder(s?.order === 'ascend' ? 'asc' : 'desc');
      paging.first();
      return;
    }
    paging.onPage(pg.current ?? 1, pg.pageSize ?? pageSize);
  };

  return (
    <div data-testid="edc-log">
      <div style={{ display: 'flex', flexWrap: 'wrap', gap: 8, marginBottom: 12, alignItems: 'center' }}>
        <Select
          allowClear
          showSearch={{ optionFilterProp: 'label' }}
          value={filters.runId}
          onChange={(v?: number) => filter({ runId: v })}
          placeholder={t('filter.run')}
          style={{ width: 240 }}
          options={runOptions}
          data-testid="edc-log-run"
        />
        <Input.Search
          allowClear
          value={ptsNo}
          maxLength={30}
          onChange={(e) => setPtsNo(e.target.value)}
          onSearch={(v) => filter({ ptsNo: v.trim() || undefined })}
          placeholder={t('filter.ptsNo')}
          style={{ width: 170 }}
          data-testid="edc-log-ptsno"
        />
        <SiteFilter
          value={filters.siteId}
          onChange={(v) => filter({ siteId: v })}
          placeholder={t('filter.site')}
          testId="edc-log-site"
        />
        <Select
          allowClear
          value={filters.action}
          onChange={(v?: LogFilters['action']) => filter({ action: v })}
          placeholder={t('filter.action')}
          style={{ width: 130 }}
          options={EDC_LOG_ACTIONS.map((a) => ({ value: a, label: t(`action.${a}`) }))}
          data-testid="edc-log-action"
        />
        <Select
          allowClear
          value={filters.status}
          onChange={(v?: 2 | 3) => filter({ status: v })}
          placeholder={t('filter.result')}
          style={{ width: 120 }}
          options={[
            { value: 2, label: t('log.ok') },
            { value: 3, label: t('log.failed') },
          ]}
          data-testid="edc-log-result"
        />
        <Select
          allowClear
          showSearch={{ optionFilterProp: 'label' }}
          value={filters.dataName}
          onChange={(v?: string) => filter({ dataName: v })}
          placeholder={t('filter.dataName')}
          style={{ width: 220 }}
          options={(names.data ?? []).map((n) => ({ value: n, label: n }))}
          data-testid="edc-log-dataname"
        />
        <Select
          allowClear
          showSearch={{ optionFilterProp: 'label' }}
          value={filters.createdBy}
          onChange={(v?: number) => filter({ createdBy: v })}
          placeholder={t('filter.createdBy')}
          style={{ width: 160 }}
          options={(creators.data ?? []).map((c) => ({ value: c.id, label: c.name }))}
          data-testid="edc-log-creator"
        />
        <DatePicker.RangePicker
          value={range}
          allowEmpty={[true, true]}
          onChange={(v) => {
            const r = v ? ([v[0], v[1]] as [Dayjs | null, Dayjs | null]) : null;
            setRange(r);
            filter({ dateFrom: r?.[0]?.format('YYYY-MM-DD'), dateTo: r?.[1]?.format('YYYY-MM-DD') });
          }}
          placeholder={[t('filter.from'), t('filter.to')]}
          data-testid="edc-log-dates"
        />
        <Tooltip title={t('refresh')}>
          <Button icon={<ReloadOutlined />} onClick={() => void q.refetch()} aria-label={t('refresh')} />
        </Tooltip>
        <span style={{ flex: 1 }} />
        {canExport ? (
          <Button
            icon={<DownloadOutlined />}
            loading={exporting}
            onClick={() => void download()}
            data-testid="edc-log-export"
          >
            {t('log.export')}
          </Button>
        ) : null}
      </div>
      <PagedTable<EdcLogRow>
        rowKey="id"
        query={q}
        page={pageNumber}
        pageSize={pageSize}
        onChange={onTable}
        columns={columns}
        onRow={(r) => ({ onDoubleClick: () => setOpen(r.id) })}
        empty={Object.keys(filters).length ? t('log.emptyFiltered') : t('log.empty')}
        texts={{ loadFailed: t('loadFailed'), retry: t('retry'), total: (n) => t('total', { count: n }) }}
        data-testid="edc-log-table"
      />
      <EdcLogDrawer id={open} onClose={() => setOpen(null)} />
    </div>
  );
}

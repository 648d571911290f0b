import { useState, type ReactNode } from 'react';
import { Button, DatePicker, Input, Select, Space, Tag, Typography } from 'antd';
import type { TableColumnsType } from 'antd';
import { DownloadOutlined, ReloadOutlined } from '@ant-design/icons';
import { useQuery } from '@tanstack/react-query';
import { Link } from 'react-router';
import { useTranslation } from 'react-i18next';
import dayjs, { type Dayjs } from 'dayjs';
import {
  LIMITS,
  SOURCE_DOC_TYPES,
  TASK_STATUS,
  TASK_TRIGGERS,
  type ChangeRow,
  type TaskView,
} from '@esource/shared';
import { PagedTable } from '../../../components/paged-table';
import { saveBlob } from '../../../lib/download';
import { usePms, useSession } from '../../session';
import { mySitesQuery } from '../../subjects';
import { changeReportQuery, extractReportQuery, sourcesApi, type ReportFilters } from '../api/sources-api';
import { DocTypeTag } from './source-tags';
import { fmtTime, useTaskColumns } from './task-table';
import { roundedText } from '../source-logic';

function useScope() {
  const env = useSession((s) => s.env);
  const projectId = useSession((s) => s.project?.id ?? null);
  return { env, projectId };
}

/** Filters shared by the report tabs: site, subject number, date range (+ the tab's own), page reset on change. */
function useReportFilters() {
  const [f, setF] = useState<ReportFilters>({});
  const [range, setRange] = useState<[Dayjs, Dayjs] | null>(null);
  const [pageNumber, setPage] = useState<number>(LIMITS.firstPage);
  const [pageSize, setPageSize] = useState<number>(LIMITS.defaultPageSize);
  const filters: ReportFilters = {
    ...Object.fromEntries(Object.entries(f).filter(([, v]) => v !== undefined && v !== '')),
    ...(range ? { dateFrom: range[0].format('YYYY-MM-DD'), dateTo: range[1].format('YYYY-MM-DD') } : {}),
  };
  return {
    filters,
    filtered: Object.keys(filters).length > 0,
    set: (patch: Partial<ReportFilters>) => {
      setF((prev) => ({ ...prev, ...patch }));
      setPage(LIMITS.firstPage);
    },
    range,
    setRange: (r: [Dayjs, Dayjs] | null) => {
      setRange(r);
      setPage(LIMITS.firstPage);
    },
    pageNumber,
    pageSize,
    onPage: (p: number, s: number) => {
      setPage(p);
      setPageSize(s);
    },
  };
}

function SiteFilter({ value, onChange }: { value?: number; onChange: (v?: number) => void }) {
  const { t } = useTranslation('sources');
  const sites = useQuery(mySitesQuery(useScope()));
  return (
    <Select
      allowClear
      value={value}
      onChange={onChange}
      placeholder={t('filters.site')}
      style={{ width: 200 }}
      loading={sites.isLoading}
      options={(sites.data ?? []).map((s) => ({ value: s.id, label: `${s.siteNo} ${s.name}` }))}
      data-testid="report-filter-site"
    />
  );
}

type ReportFilterState = ReturnType<typeof useReportFilters>;

/**
 * The filter row of every report tab: site, subject number, the tab's own filters (children), date range, refresh,
 * and the tab's actions (extra).
 */
function ReportFilterBar({
  r,
  onRefresh,
  children,
  extra,
}: {
  r: ReportFilterState;
  onRefresh: () => void;
  children?: ReactNode;
  extra?: ReactNode;
}) {
  const { t } = useTranslation('sources');
  return (
    <div className="source-filters">
      <SiteFilter value={r.filters.siteId} onChange={(siteId) => r.set({ siteId })} />
      <Input.Search
        allowClear
        maxLength={30}
        placeholder={t('filters.ptsNo')}
        style={{ width: 180 }}
        onSearch={(v) => r.set({ ptsNo: v.trim() || undefined })}
        data-testid="report-filter-pts"
      />
      {children}
      <DatePicker.RangePicker
        value={r.range}
        onChange={(v) => r.setRange(v && v[0] && v[1] ? [v[0], v[1]] : null)}
        placeholder={[t('filters.from'), t('filters.to')]}
      />
      <span style={{ flex: 1 }} />
      <Button icon={<ReloadOutlined />} onClick={onRefresh} aria-label={t('refresh')} />
      {extra}
    </div>
  );
}

/** The PagedTable props every report tab shares: its page, paging, empty text (filtered or not) and texts. */
function useReportTable(r: ReportFilterState, emptyKey: string) {
  const { t } = useTranslation('sources');
  return {
    page: r.pageNumber,
    pageSize: r.pageSize,
    onPage: r.onPage,
    empty: r.filtered ? t('report.emptyFiltered') : t(emptyKey),
    texts: { loadFailed: t('loadFailed'), retry: t('retry'), total: (n: number) => t('total', { count: n }) },
  };
}

/** The extraction report (/pts/extract/report/listByPage): every extraction task with what it stored. */
export function ExtractReport() {
  const { t } = useTranslation('sources');
  const r = useReportFilters();
  const q = useQuery(extractReportQuery(useScope(), r.filters, r.pageNumber, r.pageSize));
  const columns = useTaskColumns({ subject: false });
  const table = useReportTable(r, 'report.extractEmpty');
  return (
    <div data-testid="extract-report">
      <ReportFilterBar r={r} onRefresh={() => void q.refetch()}>
        <Select
          allowClear
          placeholder={t('filters.status')}
          style={{ width: 140 }}
          onChange={(status?: number) => r.set({ status })}
          options={Object.entries(TASK_STATUS).map(([k, v]) => ({ value: v, label: t(`taskStatus.${k}`) }))}
          data-testid="report-filter-status"
        />
        <Select
          allowClear
          placeholder={t('filters.trigger')}
          style={{ width: 140 }}
          onChange={(trigger?: string) => r.set({ trigger })}
          options={TASK_TRIGGERS.map((k) => ({ value: k, label: t(`trigger.${k}`) }))}
        />
      </ReportFilterBar>
      <PagedTable<TaskView>
        query={q}
        {...table}
        rowKey="id"
        columns={columns}
        data-testid="extract-report-table"
      />
    </div>
  );
}

const CHANGE_FIELDS = ['value', 'unit', 'effective', 'content'] as const;

/** old → new; numbers read rounded like the other lists (the exact value as stored is the tooltip and the export's) */
function oldNew(o: string | null, n: string | null) {
  return (
    <span className="source-kv">
      <Typography.Text delete type="secondary" title={o ?? undefined}>
        {roundedText(o) ?? '—'}
      </Typography.Text>
      {' → '}
      <Typography.Text strong title={n ?? undefined}>
        {roundedText(n) ?? '—'}
      </Typography.Text>
    </span>
  );
}

/**
 * Records the hospital changed (version > 1): the sync change list (/pts/extract/report/syncChangeListByPage) and
 * the data change report (/dataChangeReport/pageQuery, with Excel export through the API client).
 */
export function ChangeReport({ kind }: { kind: 'sync' | 'data' }) {
  const { t } = useTranslation('sources');
  const has = usePms();
  const r = useReportFilters();
  const q = useQuery(changeReportQuery(useScope(), kind, r.filters, r.pageNumber, r.pageSize));
  const table = useReportTable(r, 'report.changeEmpty');
  const [exporting, setExporting] = useState(false);
  const doExport = async () => {
    setExporting(true);
    try {
      const blob = await sourcesApi.exportDataChange(r.filters);
      saveBlob(blob, `${t('report.fileName')}-${dayjs().format('YYYYMMDD-HHmm')}.xlsx`);
    } catch {
      // the API client has already shown the server's (translated) message
    } finally {
      setExporting(false);
    }
  };
  const columns: TableColumnsType<ChangeRow> = [
    {
      title: t('col.subject'),
      key: 'subject',
      width: 130,
      ellipsis: true,
      render: (_: unknown, c) =>
        c.ptsId ? <Link to={`/project/sourceData?ptsId=${c.ptsId}`}>{c.ptsNo ?? c.ptsId}</Link> : '—',
    },
    { title: t('col.site'), dataIndex: 'siteName', width: 160, ellipsis: true },
    {
      title: t('col.docType'),
      dataIndex: 'docType',
      width: 120,
      render: (d: number) => <DocTypeTag docType={d} />,
    },
    {
      title: t('col.display'),
      key: 'display',
      render: (_: unknown, c) => (
        <span>
          {c.display ?? c.resourceType}
          {c.code ? (
            <Typography.Text type="secondary" style={{ marginInlineStart: 6, fontSize: 12 }}>
              {c.code}
            </Typography.Text>
          ) : null}
        </span>
      ),
    },
    {
      title: t('report.changed'),
      dataIndex: 'changed',
      width: 150,
      render: (v: string[]) => (
        <Space size={[4, 4]} wrap>
          {v.map((k) => (
            <Tag key={k} color="orange">
              {(CHANGE_FIELDS as readonly string[]).includes(k) ? t(`report.field.${k}`) : k}
            </Tag>
          ))}
        </Space>
      ),
    },
    {
      title: t('report.oldNew'),
      key: 'oldNew',
      width: 300,
      render: (_: unknown, c) => (
        <Space orientation="vertical" size={0}>
          {c.oldValue !== c.newValue || c.changed.includes('value') ? oldNew(c.oldValue, c.newValue) : null}
          {c.oldUnit !== c.newUnit ? oldNew(c.oldUnit, c.newUnit) : null}
          {c.oldEffective !== c.newEffective ? oldNew(c.oldEffective, c.newEffective) : null}
          {c.changed.length === 1 && c.changed[0] === 'content' ? (
            <Typography.Text type="secondary">{t('report.contentOnly')}</Typography.Text>
          ) : null}
        </Space>
      ),
    },
    { title: t('col.version'), dataIndex: 'version', width: 80, render: (v: number) => `v${v - 1} → v${v}` },
    { title: t('report.changeTime'), dataIndex: 'changeTime', width: 170, render: fmtTime },
    {
      title: t('task.id'),
      dataIndex: 'taskId',
      width: 90,
      render: (id: number | null) =>
        id ? <Link to={`/project/gatherData/detail?taskId=${id}`}>#{id}</Link> : '—',
    },
  ];
  return (
    <div data-testid={`${kind}-change-report`}>
      <ReportFilterBar
        r={r}
        onRefresh={() => void q.refetch()}
        extra={
          kind === 'data' && has('report:data-change:export') ? (
            <Button
              icon={<DownloadOutlined />}
              loading={exporting}
              onClick={() => void doExport()}
              data-testid="data-change-export"
            >
              {t('report.export')}
            </Button>
          ) : null
        }
      >
        <Select
          allowClear
          placeholder={t('filters.docType')}
          style={{ width: 160 }}
          onChange={(docType?: number) => r.set({ docType })}
          options={SOURCE_DOC_TYPES.map((k, i) => ({ value: i + 1, label: t(`docType.${k}`) }))}
          data-testid="report-filter-doc-type"
        />
      </ReportFilterBar>
      <PagedTable<ChangeRow>
        query={q}
        {...table}
        rowKey={(c) => `${c.recordId}-${c.version}`}
        columns={columns}
        data-testid={`${kind}-change-table`}
      />
    </div>
  );
}

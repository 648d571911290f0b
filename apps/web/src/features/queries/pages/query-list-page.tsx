import { useState } from 'react';
import { App, Button, Card, Input, Select, Space, Tabs, Tag, Tooltip, Typography } from 'antd';
import type { TableColumnsType } from 'antd';
import { DownloadOutlined, ReloadOutlined } from '@ant-design/icons';
import { useQuery } from '@tanstack/react-query';
import { useSearchParams } from 'react-router';
import { useTranslation } from 'react-i18next';
import dayjs from 'dayjs';
import { QUERY_STATUS_PERMISSION, type QueryView } from '@esource/shared';
import { PagedTable, useUrlPaging } from '../../../components/paged-table';
import { usePms, useSession } from '../../session';
import { SiteFilter } from '../../subjects';
import { queriesApi, queryCountsQuery, queryPageQuery, type QueryFilters } from '../api/queries-api';
import { QueryDrawer } from '../components/query-drawer';
import { QueryStatusTag } from '../components/query-status-tag';
import { readQueryListTarget } from '../query-links';
import '../queries.css';

const fmtTime = (v: string) => dayjs(v).format('YYYY-MM-DD HH:mm');
const STATUSES = [1, 2, 3] as const;
const COUNT_KEY = { 1: 'querying', 2: 'replied', 3: 'closed' } as const;

/**
 * Queries (spec §2 /project/doubtList: querying, replied, closed): a tab per status the caller may see with its count,
 * filters (site, subject, raised by a person or automatically, text), 50/100/200 paging, the Excel export, and the
 * query drawer to answer, close or reopen. The address may name a status tab and one subject or one of its visits
 * (?status=&ptsId=&visitId=&unscheduledId=: the counts on the subject list and the visit cards link here), shown as
 * a filter tag that clears them.
 */
export default function QueryListPage() {
  const { t } = useTranslation('queries');
  const { message } = App.useApp();
  const has = usePms();
  const env = useSession((s) => s.env);
  const projectId = useSession((s) => s.project?.id ?? null);
  const scope = { env, projectId };
  const tabs = STATUSES.filter((s) => has(QUERY_STATUS_PERMISSION[s]));
  const [params, setParams] = useSearchParams();
  const [target] = useState(() => readQueryListTarget(params));
  const [status, setStatus] = useState<number>(target.status && tabs.includes(target.status) ? target.status : (tabs[0] ?? 1));
  const [filters, setFilters] = useState<QueryFilters>(() =>
    target.ptsId === undefined ? {} : { ptsId: target.ptsId, ...(target.visitId !== undefined ? { visitId: target.visitId, unscheduledId: target.unscheduledId ?? 0 } : {}) },
  );
  const [ptsNo, setPtsNo] = useState('');
  const [keyword, setKeyword] = useState('');
  const paging = useUrlPaging();
  const { pageNumber, pageSize } = paging;
  const [open, setOpen] = useState<number | null>(null);
  const [exporting, setExporting] = useState(false);
  const counts = useQuery(queryCountsQuery(scope));
  const all = { ...filters, status };
  const q = useQuery(queryPageQuery(scope, all, pageNumber, pageSize));
  const filtered = Object.keys(filters).length > 0;

  const filter = (f: Partial<QueryFilters>) => {
    setFilters((x) => Object.fromEntries(Object.entries({ ...x, ...f }).filter(([, v]) => v !== undefined && v !== '')));
    paging.first();
  };
  const subjectLabel =
    filters.ptsId === undefined
      ? null
      : [target.ptsNo ?? `#${filters.ptsId}`, filters.visitId !== undefined ? (target.visit ?? `#${filters.visitId}`) : null].filter(Boolean).join(' · ');
  const clearSubject = () => {
    filter({ ptsId: undefined, visitId: undefined, unscheduledId: undefined });
    setParams(new URLSearchParams(), { replace: true });
  };

  const download = async () => {
    setExporting(true);
    try {
      const blob = await queriesApi.exportFile(all);
      const url = URL.createObjectURL(blob);
      const a = document.createElement('a');
      a.href = url;
      a.download = `queries-${dayjs().format('YYYYMMDD-HHmm')}.xlsx`;
      a.click();
      setTimeout(() => URL.revokeObjectURL(url), 1000);
    } catch {
      void message.error(t('exportFailed'));
    } finally {
      setExporting(false);
    }
  };

  const columns: TableColumnsType<QueryView> = [
    { title: t('col.id'), key: 'id', dataIndex: 'id', width: 70 },
    { title: t('col.subject'), key: 'ptsNo', dataIndex: 'ptsNo', width: 110 },
    { title: t('col.site'), key: 'site', dataIndex: 'siteName', width: 150, ellipsis: true },
    {
      title: t('col.where'),
      key: 'where',
      width: 240,
      render: (_: unknown, r) => (
        <Space orientation="vertical" size={0}>
          <span>{[r.visitName, r.formName].filter(Boolean).join(' · ') || t(`level.${r.level}`)}</span>
          {r.itemLabel ?? r.variable ? <Typography.Text type="secondary">{r.itemLabel ?? r.variable}</Typography.Text> : null}
        </Space>
      ),
    },
    {
      title: t('col.question'),
      key: 'text',
      render: (_: unknown, r) => (
        <div style={{ minWidth: 0 }}>
          <Typography.Paragraph ellipsis={{ rows: 2, tooltip: r.text }} style={{ margin: 0 }}>
            <Typography.Link onClick={() => setOpen(r.id)} data-testid={`query-open-${r.id}`}>
              {r.text}
            </Typography.Link>
          </Typography.Paragraph>
          {r.lastMessage ? (
            <Typography.Paragraph type="secondary" ellipsis={{ rows: 1, tooltip: r.lastMessage }} style={{ margin: 0, fontSize: 12 }}>
              ↳ {r.lastMessage}
            </Typography.Paragraph>
          ) : null}
        </div>
      ),
    },
    { title: t('col.origin'), key: 'origin', width: 110, render: (_: unknown, r) => (r.origin === 'auto' ? <Tag color="purple">{t('origin.auto')}</Tag> : t('origin.manual')) },
    { title: t('col.status'), key: 'status', width: 100, render: (_: unknown, r) => <QueryStatusTag status={r.status} /> },
    { title: t('col.raisedBy'), key: 'by', dataIndex: 'createdBy', width: 130, ellipsis: true },
    { title: t('col.updatedAt'), key: 'updated', width: 150, render: (_: unknown, r) => fmtTime(r.updateTime) },
  ];

  return (
    <Card size="small" data-testid="query-list-page">
      <Typography.Paragraph type="secondary">{t('intro')}</Typography.Paragraph>
      <Tabs
        activeKey={String(status)}
        onChange={(k) => {
          setStatus(Number(k));
          paging.first();
          // an address that named the tab follows it (a reload stays on this tab)
          if (params.has('status'))
            setParams(
              (p) => {
                const next = new URLSearchParams(p);
                next.set('status', k);
                return next;
              },
              { replace: true },
            );
        }}
        items={tabs.map((s) => ({ key: String(s), label: <span data-testid={`query-tab-${s}`}>{`${t(`status.${s}`)} (${counts.data?.[COUNT_KEY[s]] ?? 0})`}</span> }))}
      />
      <div className="query-filters">
        {subjectLabel ? (
          <Tooltip title={t(filters.visitId !== undefined ? 'filter.visitHint' : 'filter.subjectHint')}>
            <Tag color="processing" closable onClose={clearSubject} style={{ marginInlineEnd: 0 }} data-testid="query-filter-subject">
              {t(filters.visitId !== undefined ? 'filter.subjectVisit' : 'filter.subject', { label: subjectLabel })}
            </Tag>
          </Tooltip>
        ) : null}
        <SiteFilter value={filters.siteId} onChange={(v) => filter({ siteId: v })} placeholder={t('filter.site')} testId="query-filter-site" />
        <Input.Search allowClear value={ptsNo} maxLength={50} onChange={(e) => setPtsNo(e.target.value)} onSearch={(v) => filter({ ptsNo: v.trim() || undefined })} placeholder={t('filter.ptsNo')} style={{ width: 170 }} data-testid="query-filter-ptsno" />
        <Select
          allowClear
          value={filters.origin}
          onChange={(v?: 'manual' | 'auto') => filter({ origin: v })}
          placeholder={t('filter.origin')}
          style={{ width: 170 }}
          options={[
            { value: 'manual', label: t('origin.manual') },
            { value: 'auto', label: t('origin.auto') },
          ]}
          data-testid="query-filter-origin"
        />
        <Input.Search allowClear value={keyword} maxLength={100} onChange={(e) => setKeyword(e.target.value)} onSearch={(v) => filter({ keyword: v.trim() || undefined })} placeholder={t('filter.keyword')} style={{ width: 200 }} data-testid="query-filter-keyword" />
        <Tooltip title={t('refresh')}>
          <Button icon={<ReloadOutlined />} onClick={() => void Promise.all([q.refetch(), counts.refetch()])} aria-label={t('refresh')} />
        </Tooltip>
        <span style={{ flex: 1 }} />
        {has('doubt:export:export') ? (
          <Button icon={<DownloadOutlined />} loading={exporting} onClick={() => void download()} data-testid="query-export">
            {t('export')}
          </Button>
        ) : null}
      </div>
      <PagedTable<QueryView>
        rowKey="id"
        query={q}
        page={pageNumber}
        pageSize={pageSize}
        onPage={paging.onPage}
        columns={columns}
        onRow={(r) => ({ onDoubleClick: () => setOpen(r.id) })}
        empty={filtered ? t('emptyFiltered') : t(`empty.${status}`)}
        texts={{ loadFailed: t('loadFailed'), retry: t('retry'), total: (n) => t('total', { count: n }) }}
        data-testid="query-table"
      />
      <QueryDrawer id={open} onClose={() => setOpen(null)} />
    </Card>
  );
}

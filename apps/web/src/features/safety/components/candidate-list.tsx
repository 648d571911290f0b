import { useEffect, useState } from 'react';
import { Alert, App, Button, Card, Input, Modal, Progress, Segmented, Select, Space, Switch, Tabs, Tag, Tooltip, Typography } from 'antd';
import type { TableColumnsType, TableProps } from 'antd';
import type { SortOrder } from 'antd/es/table/interface';
import { DownloadOutlined, ReloadOutlined, ThunderboltOutlined } from '@ant-design/icons';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useTranslation } from 'react-i18next';
import dayjs from 'dayjs';
import { CANDIDATE_ORIGINS, SAFETY_CATEGORIES, type CandidateView, type SafetyCategory } from '@esource/shared';
import { PagedTable, usePaging } from '../../../components/paged-table';
import { usePms, useSession } from '../../session';
import { SiteFilter } from '../../subjects';
import { afterSafetyChange, candidateCountsQuery, candidatePageQuery, safetyApi, type CandidateFilters, type CandidateState } from '../api/safety-api';
import { GradeTag } from './grade-tag';
import { JudgeDrawer, candidateTerm } from './judge-drawer';

type SortField = NonNullable<CandidateFilters['sortField']>;
const fmtTime = (v: string | null) => (v ? dayjs(v).format('YYYY-MM-DD HH:mm') : '');

/** What a judged record says in one line, per category (the category pages' "details" column). */
function summary(c: CandidateView, t: (k: string) => string): string {
  if (!c.fields) return '';
  const f = c.fields as { serious?: boolean; relatedness?: string; outcome?: string; dose?: number; unit?: string; route?: string; frequency?: string; indication?: string; ongoing?: boolean };
  switch (c.category) {
    case 'ae':
      return [f.serious ? t('summary.serious') : null, f.relatedness ? t(`relatedness.${f.relatedness}`) : null, f.outcome ? t(`outcome.${f.outcome}`) : null].filter(Boolean).join(' · ');
    case 'cm':
      return [f.dose !== undefined ? `${f.dose} ${f.unit ?? ''}`.trim() : null, f.route ? t(`route.${f.route}`) : null, f.frequency ? t(`frequency.${f.frequency}`) : null, f.indication ?? null].filter(Boolean).join(' · ');
    case 'mh':
      return f.ongoing ? t('field.ongoing') : '';
    case 'pr':
    case 'hiss':
      return '';
  }
}

/**
 * The candidates for judgement (spec /project/clinical: /2 to judge, /3 judged) and the category pages (/project/ae/6,
 * cm/9, pr/13, mh/14, hiss/15): tabs per category with the counts to judge, filters (site, subject, origin, grade,
 * text, source changed), sortable columns, 50/100/200 paging, the Excel export, "generate" from the source data, and
 * the judgement drawer.
 */
export function CandidateList({ state: fixedState, category: fixedCategory, testId }: { state?: CandidateState; category?: SafetyCategory; testId: string }) {
  const { t, i18n } = useTranslation('safety');
  const { message, modal } = App.useApp();
  const qc = useQueryClient();
  const has = usePms();
  const env = useSession((s) => s.env);
  const projectId = useSession((s) => s.project?.id ?? null);
  const scope = { env, projectId };
  const paging = usePaging();
  const { pageNumber, pageSize } = paging;
  const [state, setState] = useState<CandidateState>(fixedState ?? 'yes');
  const [category, setCategory] = useState<SafetyCategory | 'all'>(fixedCategory ?? 'all');
  const [filters, setFilters] = useState<Omit<CandidateFilters, 'state' | 'category'>>({});
  const [ptsNo, setPtsNo] = useState('');
  const [keyword, setKeyword] = useState('');
  const [sort, setSort] = useState<{ field: SortField; order: 'asc' | 'desc' }>({ field: fixedState === 'judged' ? 'judgedAt' : 'startDate', order: 'desc' });
  const [open, setOpen] = useState<number | null>(null);
  const [busy, setBusy] = useState<'export' | 'generate' | null>(null);
  // a generation too large for one request runs as a job: its progress item, polled until it ends
  const [running, setRunning] = useState<number | null>(null);
  const status = useQuery({
    queryKey: ['safety', 'generate-status', running],
    queryFn: () => safetyApi.generateStatus(running!),
    enabled: running !== null,
    refetchInterval: (query) => (query.state.data && query.state.data.status !== 'processing' ? false : 2000),
  });
  useEffect(() => {
    const s = status.data?.status;
    if (running === null || !s || s === 'processing') return;
    setRunning(null);
    if (s === 'success') void message.success(t('generate.jobDone'));
    else void message.error(t('generate.jobFailed'));
    void afterSafetyChange(qc);
  }, [status.data?.status, running, message, t, qc]);
  const all: CandidateFilters = { ...filters, state, ...(category !== 'all' ? { category } : {}), sortField: sort.field, sortOrder: sort.order };
  const q = useQuery(candidatePageQuery(scope, all, pageNumber, pageSize));
  const counts = useQuery(candidateCountsQuery(scope));
  const filtered = Object.keys(filters).length > 0;

  const filter = (f: Partial<CandidateFilters>) => {
    setFilters((x) => Object.fromEntries(Object.entries({ ...x, ...f }).filter(([, v]) => v !== undefined && v !== '')));
    paging.first();
  };

  const download = async () => {
    setBusy('export');
    try {
      const blob = await safetyApi.exportFile(all);
      const url = URL.createObjectURL(blob);
      const a = document.createElement('a');
      a.href = url;
      a.download = `safety-${dayjs().format('YYYYMMDD-HHmm')}.xlsx`;
      a.click();
      setTimeout(() => URL.revokeObjectURL(url), 1000);
    } catch {
      void message.error(t('exportFailed'));
    } finally {
      setBusy(null);
    }
  };

  const generate = () =>
    modal.confirm({
      title: t('generate.title'),
      content: t('generate.confirm'),
      okText: t('generate.ok'),
      cancelText: t('cancel'),
      onOk: async () => {
        setBusy('generate');
        try {
          const r = await safetyApi.generate();
          if (r.queued && r.progressId) setRunning(r.progressId);
          else {
            Modal.success({ title: t('generate.done'), content: t('generate.result', r) });
            await afterSafetyChange(qc);
          }
        } catch (e) {
          void message.error((e as Error).message);
        } finally {
          setBusy(null);
        }
      },
    });

  const order = (f: SortField): SortOrder => (sort.field === f ? (sort.order === 'asc' ? 'ascend' : 'descend') : null);
  const judgedView = state !== 'toJudge';
  const columns: TableColumnsType<CandidateView> = [
    { title: t('col.subject'), key: 'ptsNo', dataIndex: 'ptsNo', width: 110, sorter: true, sortOrder: order('ptsNo') },
    { title: t('col.site'), key: 'site', dataIndex: 'siteName', width: 140, ellipsis: true },
    ...(fixedCategory ? [] : [{ title: t('col.category'), key: 'category', width: 100, render: (_: unknown, r: CandidateView) => <Tag>{r.category.toUpperCase()}</Tag> }]),
    {
      title: t('col.term'),
      key: 'term',
      sorter: true,
      sortOrder: order('term'),
      render: (_: unknown, r) => {
        const coded = (r.fields as { coded?: { code: string; term: string } } | null)?.coded;
        return (
          <div style={{ minWidth: 0 }}>
            <Typography.Link onClick={() => setOpen(r.id)} data-testid={`candidate-open-${r.id}`}>
              {candidateTerm(r, i18n.language)}
            </Typography.Link>
            {r.sourceChanged ? (
              <Tooltip title={t('sourceChangedHint')}>
                <Tag color="orange" style={{ marginInlineStart: 6 }}>
                  {t('sourceChanged')}
                </Tag>
              </Tooltip>
            ) : null}
            {coded ? (
              <Typography.Text type="secondary" style={{ display: 'block', fontSize: 12 }}>
                {coded.code} {coded.term}
              </Typography.Text>
            ) : null}
          </div>
        );
      },
    },
    { title: t('col.origin'), key: 'origin', width: 100, render: (_: unknown, r) => t(`origin.${r.origin}`) },
    {
      title: t('col.start'),
      key: 'startDate',
      width: 110,
      sorter: true,
      sortOrder: order('startDate'),
      render: (_: unknown, r) => {
        const f = (r.fields ?? {}) as { onset?: string; start?: string; date?: string };
        return f.onset ?? f.start ?? f.date ?? r.startDate ?? '—';
      },
    },
    {
      title: t('col.end'),
      key: 'end',
      width: 110,
      render: (_: unknown, r) => {
        const f = (r.fields ?? {}) as { end?: string; ongoing?: boolean };
        return f.ongoing ? t('field.ongoing') : (f.end ?? r.endDate ?? '—');
      },
    },
    ...(fixedCategory && fixedCategory !== 'ae'
      ? []
      : [
          {
            title: t('col.grade'),
            key: 'grade',
            width: 90,
            sorter: true,
            sortOrder: order('grade'),
            render: (_: unknown, r: CandidateView) => <GradeTag grade={(r.fields as { grade?: number } | null)?.grade ?? r.detail.grade} outOfRange={r.origin === 'lab' || r.origin === 'ecrf'} />,
          },
        ]),
    ...(judgedView && fixedCategory ? [{ title: t('col.details'), key: 'details', width: 220, ellipsis: true, render: (_: unknown, r: CandidateView) => summary(r, t) }] : []),
    { title: t('col.sources'), key: 'sources', width: 80, render: (_: unknown, r) => r.sourceCount || '—' },
    ...(judgedView
      ? [
          { title: t('col.status'), key: 'status', width: 80, render: (_: unknown, r: CandidateView) => <Tag color={r.status === 2 ? 'green' : 'default'}>{t(`status.${r.status}`)}</Tag> },
          { title: t('col.judgedBy'), key: 'judgedBy', dataIndex: 'judgedBy', width: 120, ellipsis: true },
          { title: t('col.judgedAt'), key: 'judgedAt', width: 140, sorter: true, sortOrder: order('judgedAt'), render: (_: unknown, r: CandidateView) => fmtTime(r.judgedAt) },
        ]
      : []),
    {
      title: '',
      key: 'action',
      width: 90,
      fixed: 'right',
      render: (_: unknown, r) => (
        <Button size="small" type={r.status === 1 ? 'primary' : 'default'} onClick={() => setOpen(r.id)} data-testid={`candidate-judge-${r.id}`}>
          {has('clinical:judge:update') ? (r.status === 1 ? t('judge.submit') : t('judge.review')) : t('judge.view')}
        </Button>
      ),
    },
  ];

  const onTable: TableProps<CandidateView>['onChange'] = (pg, _f, sorter, extra) => {
    if (extra.action === 'sort') {
      const s = Array.isArray(sorter) ? sorter[0] : sorter;
      setSort(s?.order ? { field: s.columnKey as SortField, order: s.order === 'descend' ? 'desc' : 'asc' } : { field: 'startDate', order: 'desc' });
      paging.first();
      return;
    }
    paging.onPage(pg.current ?? 1, pg.pageSize ?? pageSize);
  };

  const toJudgeTotal = counts.data ? Object.values(counts.data.toJudge).reduce((a, b) => a + b, 0) : 0;
  const tabCount = (c: SafetyCategory | 'all') => (state === 'toJudge' && counts.data ? (c === 'all' ? toJudgeTotal : counts.data.toJudge[c]) : null);

  return (
    <Card size="small" data-testid={testId}>
      <Typography.Paragraph type="secondary">{t(fixedCategory ? `intro.${fixedCategory}` : fixedState === 'judged' ? 'intro.judged' : 'intro.toJudge')}</Typography.Paragraph>
      {fixedCategory ? (
        <Segmented<CandidateState>
          value={state}
          onChange={(v) => {
            setState(v);
            paging.first();
          }}
          options={(['yes', 'toJudge', 'no', 'all'] as const).map((s) => ({ value: s, label: <span data-testid={`candidate-state-${s}`}>{t(`state.${s}`)}</span> }))}
          style={{ marginBottom: 12 }}
        />
      ) : (
        <Tabs
          activeKey={category}
          onChange={(k) => {
            setCategory(k as SafetyCategory | 'all');
            paging.first();
          }}
          items={(['all', ...SAFETY_CATEGORIES] as const).map((c) => {
            const n = tabCount(c);
            return { key: c, label: <span data-testid={`candidate-tab-${c}`}>{`${t(`category.${c}`)}${n !== null ? ` (${n})` : ''}`}</span> };
          })}
        />
      )}
      <div className="safety-filters" style={{ display: 'flex', flexWrap: 'wrap', gap: 8, marginBottom: 12, alignItems: 'center' }}>
        <SiteFilter value={filters.siteId} onChange={(v) => filter({ siteId: v })} placeholder={t('filter.site')} testId="candidate-filter-site" />
        <Input.Search allowClear value={ptsNo} maxLength={50} onChange={(e) => setPtsNo(e.target.value)} onSearch={(v) => filter({ ptsNo: v.trim() || undefined })} placeholder={t('filter.ptsNo')} style={{ width: 180 }} data-testid="candidate-filter-ptsno" />
        <Select
          allowClear
          value={filters.origin}
          onChange={(v?: string) => filter({ origin: v })}
          placeholder={t('filter.origin')}
          style={{ width: 140 }}
          options={CANDIDATE_ORIGINS.map((o) => ({ value: o, label: t(`origin.${o}`) }))}
          data-testid="candidate-filter-origin"
        />
        {!fixedCategory || fixedCategory === 'ae' ? (
          <Select
            allowClear
            value={filters.minGrade}
            onChange={(v?: number) => filter({ minGrade: v })}
            placeholder={t('filter.minGrade')}
            style={{ width: 130 }}
            options={[1, 2, 3, 4, 5].map((g) => ({ value: g, label: t('filter.gradeAtLeast', { grade: g }) }))}
            data-testid="candidate-filter-grade"
          />
        ) : null}
        <Input.Search allowClear value={keyword} maxLength={100} onChange={(e) => setKeyword(e.target.value)} onSearch={(v) => filter({ keyword: v.trim() || undefined })} placeholder={t('filter.keyword')} style={{ width: 200 }} data-testid="candidate-filter-keyword" />
        {state !== 'toJudge' ? (
          <Space size={4}>
            <Switch size="small" checked={filters.sourceChanged === true} onChange={(v) => filter({ sourceChanged: v ? true : undefined })} data-testid="candidate-filter-changed" />
            <Typography.Text>{t('filter.sourceChanged', { count: counts.data?.sourceChanged ?? 0 })}</Typography.Text>
          </Space>
        ) : null}
        <Tooltip title={t('refresh')}>
          <Button icon={<ReloadOutlined />} onClick={() => void Promise.all([q.refetch(), counts.refetch()])} aria-label={t('refresh')} />
        </Tooltip>
        <span style={{ flex: 1 }} />
        {has('clinical:judge:update') ? (
          <Tooltip title={t('generate.hint')}>
            <Button icon={<ThunderboltOutlined />} loading={busy === 'generate' || running !== null} onClick={() => void generate()} data-testid="candidate-generate">
              {t('generate.button')}
            </Button>
          </Tooltip>
        ) : null}
        <Button icon={<DownloadOutlined />} loading={busy === 'export'} onClick={() => void download()} data-testid="candidate-export">
          {t('export')}
        </Button>
      </div>
      {running !== null ? (
        <Alert
          type="info"
          showIcon
          style={{ marginBottom: 12 }}
          data-testid="candidate-generate-progress"
          title={t('generate.running', { done: status.data?.done ?? 0, total: status.data?.total ?? 0 })}
          description={<Progress percent={status.data?.total ? Math.floor((100 * status.data.done) / status.data.total) : 0} size="small" />}
        />
      ) : null}
      <PagedTable<CandidateView>
        rowKey="id"
        query={q}
        page={pageNumber}
        pageSize={pageSize}
        onChange={onTable}
        columns={columns}
        onRow={(r) => ({ onDoubleClick: () => setOpen(r.id) })}
        empty={filtered ? t('emptyFiltered') : t(state === 'toJudge' ? 'empty.toJudge' : 'empty.judged')}
        texts={{ loadFailed: t('loadFailed'), retry: t('retry'), total: (n) => t('total', { count: n }) }}
        data-testid={`${testId}-table`}
      />
      <JudgeDrawer id={open} onClose={() => setOpen(null)} />
    </Card>
  );
}

import { useState } from 'react';
import { Tag, Tooltip, Typography } from 'antd';
import type { TableColumnsType, TableProps } from 'antd';
import { useQuery } from '@tanstack/react-query';
import { useTranslation } from 'react-i18next';
import { SIGNAL_GRADES, type SignalTermRow } from '@esource/shared';
import { PagedTable, usePaging } from '../../../components/paged-table';
import { useSession } from '../../session';
import { signalTermsQuery, type SignalFilters, type TermSort, type TermSortField } from '../api/signal-api';
import { SERIOUS_COLOR, SIGNAL_GRADE_COLOR } from '../signal-charts';

const DEFAULT_SORT: TermSort = { sortField: 'events', sortOrder: 'desc' };

/** Events of each grade as one thin stacked bar (the counts in its tooltip and for screen readers). */
function GradeBar({ grades, label }: { grades: number[]; label: string }) {
  const total = grades.reduce((a, b) => a + b, 0) || 1;
  return (
    <Tooltip title={label}>
      <div className="signal-grade-bar" role="img" aria-label={label}>
        {grades.map((n, i) => (n ? <span key={i} style={{ width: `${(n / total) * 100}%`, background: SIGNAL_GRADE_COLOR[i + 1] }} /> : null))}
      </div>
    </Tooltip>
  );
}

/** The table of terms of the filters: server-paged (50/100/200) and sorted; a new filter starts at page 1. */
export function SignalTermTable({ filters }: { filters: SignalFilters }) {
  const { t } = useTranslation('signal');
  const env = useSession((s) => s.env);
  const projectId = useSession((s) => s.project?.id ?? null);
  const paging = usePaging();
  const [sort, setSort] = useState<TermSort>(DEFAULT_SORT);
  const [seen, setSeen] = useState(filters);
  // filters changed above: back to the first page (during render, so no request for a stale page goes out)
  if (seen !== filters) {
    setSeen(filters);
    paging.first();
  }
  const q = useQuery(signalTermsQuery({ env, projectId }, filters, sort, paging.pageNumber, paging.pageSize));

  const onTable: TableProps<SignalTermRow>['onChange'] = (p, _f, sorter, extra) => {
    if (extra.action === 'paginate') {
      paging.onPage(p.current ?? 1, p.pageSize ?? paging.pageSize);
      return;
    }
    const s = Array.isArray(sorter) ? sorter[0] : sorter;
    setSort(s?.order ? { sortField: s.columnKey as TermSortField, sortOrder: s.order === 'ascend' ? 'asc' : 'desc' } : DEFAULT_SORT);
    paging.first();
  };
  const sortOrderOf = (k: TermSortField) => (sort.sortField === k ? (sort.sortOrder === 'asc' ? ('ascend' as const) : ('descend' as const)) : null);
  const num = (k: TermSortField, width = 110) => ({ key: k, title: t(`col.${k}`), dataIndex: k, width, align: 'right' as const, sorter: true, sortOrder: sortOrderOf(k), sortDirections: ['descend', 'ascend'] as ('descend' | 'ascend')[] });

  const columns: TableColumnsType<SignalTermRow> = [
    {
      key: 'term',
      title: t('col.term'),
      sorter: true,
      sortOrder: sortOrderOf('term'),
      render: (_: unknown, r) => (
        <div style={{ minWidth: 0 }}>
          <Typography.Text ellipsis={{ tooltip: r.term }} data-testid="signal-term">
            {r.term}
          </Typography.Text>
          {r.code ? (
            <Typography.Text type="secondary" style={{ display: 'block', fontSize: 12 }}>
              {r.code}
            </Typography.Text>
          ) : filters.termBy === 'coded' ? (
            <Typography.Text type="secondary" style={{ display: 'block', fontSize: 12 }}>
              {t('notCoded')}
            </Typography.Text>
          ) : null}
        </div>
      ),
    },
    num('events', 90),
    num('subjects', 100),
    {
      ...num('serious', 95),
      render: (_: unknown, r) => (r.serious ? <span style={{ color: SERIOUS_COLOR, fontWeight: 600 }}>{r.serious}</span> : 0),
    },
    num('severe', 105),
    {
      key: 'grades',
      title: t('col.grades'),
      width: 150,
      render: (_: unknown, r) => <GradeBar grades={r.grades} label={SIGNAL_GRADES.map((g) => `${t('grade', { grade: g })}: ${r.grades[g - 1] ?? 0}`).join(' · ')} />,
    },
    {
      ...num('maxGrade', 110),
      align: 'center',
      render: (_: unknown, r) => (r.maxGrade ? <Tag color={SIGNAL_GRADE_COLOR[r.maxGrade]}>{t('grade', { grade: r.maxGrade })}</Tag> : '—'),
    },
    { ...num('firstOnset', 110), align: 'left', render: (_: unknown, r) => r.firstOnset ?? '—' },
    { ...num('lastOnset', 110), align: 'left', render: (_: unknown, r) => r.lastOnset ?? '—' },
  ];

  return (
    <PagedTable<SignalTermRow>
      rowKey="key"
      query={q}
      page={paging.pageNumber}
      pageSize={paging.pageSize}
      columns={columns}
      onChange={onTable}
      empty={t('empty.filtered')}
      texts={{ loadFailed: t('loadFailed'), retry: t('retry'), total: (n) => t('termTotal', { count: n }) }}
      data-testid="signal-term-table"
    />
  );
}

import { useMemo, useState } from 'react';
import { Card, Empty, Input, Result, Select, Space, Table, Tag, Typography } from 'antd';
import dayjs from 'dayjs';
import { Link } from 'react-router';
import { useTranslation } from 'react-i18next';
import { VISIT_RANGE_MAX_DAYS, visitLabel } from '@esource/shared';
import { usePaging } from '../../../components/paged-table';
import { tablePagination } from '../../../lib/pagination';
import { useSession } from '../../session';
import { VisitStateTag, subjectDetailPath } from '../../subjects';
import { tasks, type VisitOccurrence } from '../calendar-logic';
import { useAllVisits } from '../use-all-visits';

/** /project/visitTimeline/taskList: visits in window or overdue across the caller's subjects. */
export default function TaskListPage() {
  const { t, i18n } = useTranslation('subjects');
  const loginType = useSession((s) => s.loginType);
  // in window today, or overdue with a window that ended in the past year (the widest range one request
  // takes); one day past today so that a browser behind UTC still asks for the server's today
  const all = useAllVisits({
    from: dayjs()
      .subtract(VISIT_RANGE_MAX_DAYS - 1, 'day')
      .format('YYYY-MM-DD'),
    to: dayjs().add(1, 'day').format('YYYY-MM-DD'),
    states: ['inWindow', 'overdue'],
  });
  const [state, setState] = useState<'inWindow' | 'overdue' | undefined>();
  const [search, setSearch] = useState('');
  const paging = usePaging();
  const pending = useMemo(() => tasks(all.visits), [all.visits]);
  // filtered on the page: the list is every visit in window or overdue at once (capped, see truncated)
  const rows = useMemo(() => {
    const q = search.trim().toLowerCase();
    return pending.filter((r) => (!state || r.state === state) && (!q || r.ptsNo.toLowerCase().includes(q)));
  }, [pending, state, search]);
  return (
    <div data-testid="task-list-page">
      <Card size="small" title={t('tasks.title')}>
        <Typography.Paragraph type="secondary">{t('tasks.hint')}</Typography.Paragraph>
        {all.truncated ? (
          <Typography.Paragraph type="warning" data-testid="task-truncated">
            {t('tasks.truncated', { n: all.limit })}
          </Typography.Paragraph>
        ) : null}
        <Space wrap style={{ marginBottom: 12 }}>
          <Input.Search
            allowClear
            style={{ width: 240 }}
            placeholder={t('tasks.search')}
            onSearch={(v) => {
              setSearch(v);
              paging.first();
            }}
            data-testid="task-search"
          />
          <Select
            allowClear
            style={{ width: 180 }}
            placeholder={t('tasks.allStates')}
            value={state}
            onChange={(v) => {
              setState(v);
              paging.first();
            }}
            options={(['inWindow', 'overdue'] as const).map((v) => ({
              value: v,
              label: t(`visitState.${v}`),
            }))}
            data-testid="task-state"
          />
        </Space>
        {all.error ? (
          <Result status="warning" title={t('loadFailed')} subTitle={all.error} />
        ) : (
          <Table<VisitOccurrence>
            size="middle"
            rowKey={(r) => `${r.ptsId}-${r.visitId}-${r.unscheduledId}`}
            loading={all.loading}
            dataSource={rows}
            data-testid="task-table"
            pagination={tablePagination({
              page: paging.pageNumber,
              pageSize: paging.pageSize,
              total: rows.length,
              showTotal: (n) => t('tasks.total', { count: n }),
              onChange: paging.onPage,
            })}
            locale={{
              emptyText: (
                <Empty
                  image={Empty.PRESENTED_IMAGE_SIMPLE}
                  description={pending.length && (state || search) ? t('noMatch') : t('tasks.empty')}
                />
              ),
            }}
            columns={[
              {
                title: t('col.ptsNo'),
                key: 'ptsNo',
                sorter: (a, b) => a.ptsNo.localeCompare(b.ptsNo),
                render: (_: unknown, r) => (
                  <Link
                    to={subjectDetailPath(
                      { ptsId: r.ptsId, ptsNo: r.ptsNo, designVersionId: null },
                      loginType,
                    )}
                  >
                    {r.ptsNo}
                  </Link>
                ),
              },
              {
                title: t('tasks.visit'),
                key: 'visit',
                render: (_: unknown, r) => (
                  <span>
                    <Tag color="geekblue">{r.code}</Tag>
                    {visitLabel(r, i18n.language)}
                  </span>
                ),
              },
              {
                title: t('tasks.planned'),
                dataIndex: 'planned',
                key: 'planned',
                sorter: (a, b) => (a.planned ?? '').localeCompare(b.planned ?? ''),
                render: (v: string | null) => v ?? '—',
              },
              {
                title: t('tasks.window'),
                key: 'window',
                sorter: (a, b) => (a.end ?? '').localeCompare(b.end ?? ''),
                render: (_: unknown, r) => `${r.start ?? '—'} ~ ${r.end ?? '—'}`,
              },
              {
                title: t('col.status'),
                key: 'state',
                sorter: (a, b) => a.state.localeCompare(b.state),
                render: (_: unknown, r) => <VisitStateTag state={r.state} />,
              },
              {
                title: '',
                key: 'timeline',
                render: (_: unknown, r) => (
                  <Link to={`/project/visitTimeline?ptsId=${r.ptsId}`}>{t('tasks.timeline')}</Link>
                ),
              },
            ]}
          />
        )}
      </Card>
    </div>
  );
}

import { Card, Empty, Result, Table, Tag, Typography } from 'antd';
import dayjs from 'dayjs';
import { Link } from 'react-router';
import { useTranslation } from 'react-i18next';
import { VISIT_RANGE_MAX_DAYS, visitLabel } from '@esource/shared';
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
  const rows = tasks(all.visits);
  return (
    <div data-testid="task-list-page">
      <Card size="small" title={t('tasks.title')}>
        <Typography.Paragraph type="secondary">{t('tasks.hint')}</Typography.Paragraph>
        {all.truncated ? (
          <Typography.Paragraph type="warning" data-testid="task-truncated">
            {t('tasks.truncated', { n: all.limit })}
          </Typography.Paragraph>
        ) : null}
        {all.error ? (
          <Result status="warning" title={t('loadFailed')} subTitle={all.error} />
        ) : (
          <Table<VisitOccurrence>
            size="middle"
            rowKey={(r) => `${r.ptsId}-${r.visitId}-${r.unscheduledId}`}
            loading={all.loading}
            dataSource={rows}
            data-testid="task-table"
            pagination={{ pageSize: 50, showSizeChanger: false }}
            locale={{
              emptyText: <Empty image={Empty.PRESENTED_IMAGE_SIMPLE} description={t('tasks.empty')} />,
            }}
            columns={[
              {
                title: t('col.ptsNo'),
                key: 'ptsNo',
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
                render: (v: string | null) => v ?? '—',
              },
              {
                title: t('tasks.window'),
                key: 'window',
                render: (_: unknown, r) => `${r.start ?? '—'} ~ ${r.end ?? '—'}`,
              },
              {
                title: t('col.status'),
                key: 'state',
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

import { useMemo, useState } from 'react';
import { Badge, Calendar, Card, Popover, Result, Select, Space, Spin, Typography } from 'antd';
import { useQuery } from '@tanstack/react-query';
import { Link } from 'react-router';
import { useTranslation } from 'react-i18next';
import dayjs, { type Dayjs } from 'dayjs';
import { visitLabel } from '@esource/shared';
import { useSession } from '../../session';
import { mySitesQuery, VisitStateTag, subjectDetailPath } from '../../subjects';
import { groupByDay, type VisitOccurrence } from '../calendar-logic';
import { useAllVisits } from '../use-all-visits';
import '../calendar.css';

const BADGE: Record<string, 'default' | 'processing' | 'error' | 'success'> = {
  upcoming: 'default',
  inWindow: 'processing',
  overdue: 'error',
  done: 'success',
};

/** /project/calendar: every subject's visits of a site in a month (planned dates; unscheduled on their date). */
export default function CalendarPage() {
  const { t } = useTranslation('subjects');
  const env = useSession((s) => s.env);
  const loginType = useSession((s) => s.loginType);
  const projectId = useSession((s) => s.project?.id ?? null);
  const sites = useQuery(mySitesQuery({ env, projectId }));
  const [siteId, setSiteId] = useState<number | undefined>();
  const site = siteId ?? sites.data?.[0]?.id;
  const [month, setMonth] = useState<Dayjs>(dayjs());
  // the days the month grid shows (6 weeks from the week of the 1st, whichever day a week starts on)
  const from = month.startOf('month').subtract(6, 'day').format('YYYY-MM-DD');
  const to = month.endOf('month').add(14, 'day').format('YYYY-MM-DD');
  const all = useAllVisits({ from, to, siteId: site });
  const byDay = useMemo(() => groupByDay(all.visits), [all.visits]);

  const cell = (d: Dayjs) => {
    const list = byDay.get(d.format('YYYY-MM-DD')) ?? [];
    if (!list.length) return null;
    const shown = list.slice(0, 3);
    return (
      <div className="cal-cell" data-testid={`cal-${d.format('YYYY-MM-DD')}`}>
        {shown.map((v) => (
          <Occurrence key={`${v.ptsId}-${v.visitId}-${v.unscheduledId}`} v={v} loginType={loginType} />
        ))}
        {list.length > shown.length ? (
          <Popover
            content={
              <div className="cal-more">
                {list.map((v) => (
                  <Occurrence
                    key={`${v.ptsId}-${v.visitId}-${v.unscheduledId}`}
                    v={v}
                    loginType={loginType}
                  />
                ))}
              </div>
            }
          >
            <Typography.Link style={{ fontSize: 12 }}>
              {t('calendar.more', { count: list.length - shown.length })}
            </Typography.Link>
          </Popover>
        ) : null}
      </div>
    );
  };

  const inMonth = all.visits.filter((v) => (v.planned ?? v.start ?? '').startsWith(month.format('YYYY-MM')));
  const monthSubjects = new Set(inMonth.map((v) => v.ptsId)).size;

  return (
    <div data-testid="calendar-page">
      <Card
        size="small"
        title={t('calendar.title')}
        extra={
          <Space>
            {all.loading ? <Spin size="small" /> : null}
            <Select
              style={{ width: 240 }}
              value={site}
              onChange={(v: number) => setSiteId(v)}
              options={(sites.data ?? []).map((s) => ({ value: s.id, label: `${s.siteNo} ${s.name}` }))}
              placeholder={t('filter.site')}
              data-testid="calendar-site"
            />
          </Space>
        }
      >
        <Space size={16} wrap style={{ marginBottom: 8 }}>
          <Typography.Text type="secondary">
            {t('calendar.summary', { count: inMonth.length, subjects: monthSubjects })}
          </Typography.Text>
          {(['upcoming', 'inWindow', 'overdue', 'done'] as const).map((s) => (
            <Badge key={s} status={BADGE[s]} text={t(`visitState.${s}`)} />
          ))}
          {all.truncated ? (
            <Typography.Text type="warning" data-testid="calendar-truncated">
              {t('tasks.truncated', { n: all.limit })}
            </Typography.Text>
          ) : null}
        </Space>
        {all.error ? (
          <Result status="warning" title={t('loadFailed')} subTitle={all.error} />
        ) : (
          <Calendar
            value={month}
            onPanelChange={(d) => setMonth(d)}
            onChange={(d) => setMonth(d)}
            cellRender={(d, info) => (info.type === 'date' ? cell(d) : info.originNode)}
          />
        )}
      </Card>
    </div>
  );
}

function Occurrence({ v, loginType }: { v: VisitOccurrence; loginType: number | null }) {
  const { i18n } = useTranslation();
  return (
    <Popover
      title={`${v.ptsNo} · ${v.code} ${visitLabel(v, i18n.language)}`}
      content={
        <Space orientation="vertical" size={4}>
          <VisitStateTag state={v.state} />
          <span>{v.start === v.end ? v.start : `${v.start ?? '—'} ~ ${v.end ?? '—'}`}</span>
          <Link to={subjectDetailPath({ ptsId: v.ptsId, ptsNo: v.ptsNo, designVersionId: null }, loginType)}>
            {v.ptsNo}
          </Link>
        </Space>
      }
    >
      <div className="cal-item">
        <Badge status={BADGE[v.state]} text={`${v.ptsNo} ${v.code}`} />
      </div>
    </Popover>
  );
}

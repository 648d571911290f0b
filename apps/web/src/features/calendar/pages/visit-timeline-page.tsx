import { Button, Card, Empty, Result, Select, Skeleton, Space, Tag, Tooltip, Typography } from 'antd';
import { UnorderedListOutlined } from '@ant-design/icons';
import { useQuery } from '@tanstack/react-query';
import { Link, useSearchParams } from 'react-router';
import { useTranslation } from 'react-i18next';
import { useState } from 'react';
import { visitLabel, type ScheduleVisit } from '@esource/shared';
import { useSession } from '../../session';
import { scheduleQuery, subjectPageQuery, subjectQuery, VisitStateTag, StatusTag, subjectDetailPath } from '../../subjects';
import { position } from '../calendar-logic';
import '../calendar.css';

const today = () => new Date().toISOString().slice(0, 10);

/** /project/visitTimeline?ptsId: a subject's visits on a line with their windows, today marked. */
export default function VisitTimelinePage() {
  const { t } = useTranslation('subjects');
  const env = useSession((s) => s.env);
  const loginType = useSession((s) => s.loginType);
  const projectId = useSession((s) => s.project?.id ?? null);
  const scope = { env, projectId };
  const [params, setParams] = useSearchParams();
  const ptsId = Number(params.get('ptsId')) || null;
  const [keyword, setKeyword] = useState('');
  const list = useQuery(subjectPageQuery(scope, { keyword: keyword || undefined }, 1, 50, false));
  const subject = useQuery(subjectQuery(scope, ptsId));
  const schedule = useQuery({ ...scheduleQuery(scope, ptsId), enabled: Boolean(subject.data) });

  return (
    <div data-testid="visit-timeline-page">
      <Card
        size="small"
        title={t('timeline.title')}
        extra={
          <Link to="/project/visitTimeline/taskList">
            <Button icon={<UnorderedListOutlined />} data-testid="open-task-list">
              {t('tasks.title')}
            </Button>
          </Link>
        }
      >
        <Space wrap style={{ marginBottom: 16 }}>
          <Select
            showSearch={{ filterOption: false, onSearch: setKeyword }}
            allowClear
            style={{ width: 280 }}
            placeholder={t('timeline.pick')}
            value={ptsId ?? undefined}
            onChange={(v: number | undefined) => setParams(v ? { ptsId: String(v) } : {})}
            options={[
              ...(subject.data && !list.data?.content.some((s) => s.ptsId === subject.data.ptsId)
                ? [{ value: subject.data.ptsId, label: `${subject.data.ptsNo} · ${subject.data.siteName}` }]
                : []),
              ...(list.data?.content ?? []).map((s) => ({
                value: s.ptsId,
                label: `${s.ptsNo} · ${s.siteName}`,
              })),
            ]}
            data-testid="timeline-subject"
          />
          {subject.data ? (
            <>
              <StatusTag status={subject.data.status} />
              <Typography.Text type="secondary">
                {t('col.firstVisitDate')}: {subject.data.firstVisitDate}
              </Typography.Text>
              <Link to={subjectDetailPath(subject.data, loginType)}>{t('timeline.openDetail')}</Link>
            </>
          ) : null}
        </Space>
        {!ptsId ? (
          <Empty description={t('timeline.none')} />
        ) : subject.isError ? (
          <Result status="403" title={t('detail.unavailable')} subTitle={subject.error.message} />
        ) : schedule.isLoading || subject.isLoading ? (
          <Skeleton active />
        ) : schedule.data?.length ? (
          <Timeline visits={schedule.data} />
        ) : (
          <Empty description={t('detail.noVisits')} />
        )}
      </Card>
    </div>
  );
}

function Timeline({ visits }: { visits: ScheduleVisit[] }) {
  const { t, i18n } = useTranslation('subjects');
  const dated = visits.filter((v) => v.start && v.end);
  const now = today();
  const dates = dated
    .flatMap((v) => [v.start!, v.end!])
    .concat(now)
    .sort();
  const min = dates[0]!;
  const max = dates[dates.length - 1]!;
  return (
    <div className="vt" data-testid="timeline">
      <div className="vt-axis">
        <span>{min}</span>
        <span>{max}</span>
      </div>
      {dated.map((v) => {
        const left = position(v.start!, min, max);
        const width = Math.max(position(v.end!, min, max) - left, 0.8);
        return (
          <div key={`${v.visitId}-${v.unscheduledId}`} className="vt-row" data-testid={`timeline-${v.code}`}>
            <div className="vt-label">
              <Tag color="geekblue">{v.code}</Tag>
              <span className="vt-name">{visitLabel(v, i18n.language)}</span>
            </div>
            <div className="vt-track">
              <div
                className="vt-today"
                style={{ left: `${position(now, min, max)}%` }}
                title={t('timeline.today')}
              />
              <Tooltip title={t('visit.window', { planned: v.planned ?? '—', start: v.start, end: v.end })}>
                <div className={`vt-bar vt-${v.state}`} style={{ left: `${left}%`, width: `${width}%` }} />
              </Tooltip>
            </div>
            <div className="vt-meta">
              <VisitStateTag state={v.state} />
              <Typography.Text type="secondary" style={{ fontSize: 12 }}>
                {v.start === v.end ? v.start : `${v.start} ~ ${v.end}`}
              </Typography.Text>
            </div>
          </div>
        );
      })}
      <div className="vt-legend">
        <span className="vt-today-key" /> {t('timeline.today')} ({now})
      </div>
    </div>
  );
}

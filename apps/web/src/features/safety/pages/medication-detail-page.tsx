import { useMemo, useState } from 'react';
import { Alert, Button, Card, Empty, Result, Space, Spin, Tag, Tooltip, Typography } from 'antd';
import { useQuery } from '@tanstack/react-query';
import { Link, useSearchParams } from 'react-router';
import { useTranslation } from 'react-i18next';
import dayjs from 'dayjs';
import type { CandidateView } from '@esource/shared';
import { useSession } from '../../session';
import { subjectSafetyQuery } from '../api/safety-api';
import { GRADE_COLOR } from '../components/grade-tag';
import { JudgeDrawer, candidateTerm } from '../components/judge-drawer';
import '../safety.css';

interface Bar {
  c: CandidateView;
  start: string;
  end: string;
  ongoing: boolean;
}

/** A partial date (YYYY, YYYY-MM) as the first day it can be. */
const dayOf = (d: string) => (d.length === 4 ? `${d}-01-01` : d.length === 7 ? `${d}-01` : d);

function barsOf(list: CandidateView[], today: string): Bar[] {
  return list
    .map((c) => {
      const f = (c.fields ?? {}) as { start?: string; onset?: string; end?: string; ongoing?: boolean };
      const start = f.start ?? f.onset ?? c.startDate;
      if (!start) return null;
      const ongoing = f.ongoing === true || (!f.end && !c.endDate);
      return { c, start: dayOf(start), end: ongoing ? today : dayOf(f.end ?? c.endDate ?? start), ongoing };
    })
    .filter((b): b is Bar => b !== null);
}

/**
 * /project/medicationDetail?ptsId=: one subject's medications as a timeline (judged yes in green, to judge in amber,
 * judged no in grey; an ongoing one runs to today) with the subject's judged adverse events below on the same time
 * axis, coloured by grade — what a safety reviewer looks at to see which drug an event followed. A bar opens the
 * judgement drawer.
 */
export default function MedicationDetailPage() {
  const { t, i18n } = useTranslation('safety');
  const env = useSession((s) => s.env);
  const projectId = useSession((s) => s.project?.id ?? null);
  const [params] = useSearchParams();
  const ptsId = Number(params.get('ptsId')) || null;
  const ptsNo = params.get('ptsNo') ?? (ptsId ? `#${ptsId}` : '');
  const q = useQuery(subjectSafetyQuery({ env, projectId }, ptsId));
  const [open, setOpen] = useState<number | null>(null);
  const today = dayjs().format('YYYY-MM-DD');
  const data = q.data;
  const { meds, events, from, to } = useMemo(() => {
    const meds = barsOf(data?.cm ?? [], today);
    const events = barsOf(data?.ae ?? [], today);
    const all = [...meds, ...events];
    const from = all.reduce((m, b) => (b.start < m ? b.start : m), all[0]?.start ?? today);
    const to = all.reduce((m, b) => (b.end > m ? b.end : m), all[0]?.end ?? today);
    return { meds, events, from, to };
  }, [data, today]);
  if (!ptsId) return <Result status="warning" title={t('medication.noSubject')} extra={<Link to="/project/medication">{t('medication.back')}</Link>} />;
  const span = Math.max(1, dayjs(to).diff(dayjs(from), 'day') + 1);
  const pos = (b: Bar) => {
    const left = (dayjs(b.start).diff(dayjs(from), 'day') / span) * 100;
    const width = Math.max(0.8, ((dayjs(b.end).diff(dayjs(b.start), 'day') + 1) / span) * 100);
    return { left: `${left}%`, width: `${Math.min(width, 100 - left)}%` };
  };
  const row = (b: Bar, kind: 'cm' | 'ae') => {
    const grade = (b.c.fields as { grade?: number } | null)?.grade ?? b.c.detail.grade ?? null;
    const cls = kind === 'ae' ? 'safety-bar safety-bar-ae' : `safety-bar safety-bar-s${b.c.status}`;
    const label = candidateTerm(b.c, i18n.language);
    return (
      <div className="safety-row" key={`${kind}-${b.c.id}`}>
        <div className="safety-row-label">
          <Typography.Text ellipsis={{ tooltip: label }}>{label}</Typography.Text>
        </div>
        <div className="safety-row-track">
          <Tooltip title={`${label}: ${b.start} → ${b.ongoing ? t('field.ongoing') : b.end}`}>
            <button
              type="button"
              className={cls}
              style={{ ...pos(b), ...(kind === 'ae' && grade ? { background: GRADE_COLOR[grade] } : {}) }}
              onClick={() => setOpen(b.c.id)}
              data-testid={`timeline-${kind}-${b.c.id}`}
            >
              {kind === 'ae' && grade ? `G${grade}` : ''}
            </button>
          </Tooltip>
        </div>
      </div>
    );
  };
  return (
    <Card
      size="small"
      title={t('medication.detailTitle', { ptsNo })}
      extra={<Link to="/project/medication">{t('medication.back')}</Link>}
      data-testid="medication-detail-page"
    >
      {q.isLoading ? <Spin /> : null}
      {q.isError ? <Result status="warning" title={t('loadFailed')} subTitle={q.error.message} extra={<Button onClick={() => void q.refetch()}>{t('retry')}</Button>} /> : null}
      {data && !meds.length && !events.length ? <Empty description={t('medication.detailEmpty')} /> : null}
      {data && (meds.length || events.length) ? (
        <Space orientation="vertical" style={{ width: '100%' }}>
          <Space size={8} wrap>
            <Tag color="green">{t('state.yes')}</Tag>
            <Tag color="gold">{t('state.toJudge')}</Tag>
            <Tag>{t('state.no')}</Tag>
            <Typography.Text type="secondary">{t('medication.axis', { from, to })}</Typography.Text>
          </Space>
          {data.cm.length >= 200 || data.ae.length >= 200 ? <Alert type="info" showIcon title={t('medication.capped')} /> : null}
          <div className="safety-timeline" data-testid="medication-timeline">
            <Typography.Text strong>{t('medication.medications', { count: meds.length })}</Typography.Text>
            {meds.map((b) => row(b, 'cm'))}
            <Typography.Text strong style={{ display: 'block', marginTop: 12 }}>
              {t('medication.eventsTitle', { count: events.length })}
            </Typography.Text>
            {events.length ? events.map((b) => row(b, 'ae')) : <Typography.Text type="secondary">{t('medication.noEvents')}</Typography.Text>}
          </div>
        </Space>
      ) : null}
      <JudgeDrawer id={open} onClose={() => setOpen(null)} />
    </Card>
  );
}

import { useState } from 'react';
import { App, Button, Card, Empty, Result, Skeleton, Space, Typography } from 'antd';
import { useQuery } from '@tanstack/react-query';
import { Link } from 'react-router';
import { useTranslation } from 'react-i18next';
import dayjs from 'dayjs';
import { usePms, useSession } from '../../session';
import { DEFAULT_SIGNAL_FILTERS, narrowed, signalApi, signalReportQuery, type SignalFilters } from '../api/signal-api';
import { SignalChartsGrid } from '../components/signal-charts-grid';
import { SignalFiltersBar } from '../components/signal-filters-bar';
import { SignalKpis } from '../components/signal-kpis';
import { SignalTermTable } from '../components/signal-term-table';
import '../signal.css';

/** Where AEs are judged (the safety review's "to judge" tab). */
const TO_JUDGE_PATH = '/project/clinical/2';

/**
 * The signal report (issue 13 item 6, /project/signalReport): judged adverse events of the caller's sites counted by
 * period of onset and grade, serious or not, by term and by site — KPI cards, four charts and the table of terms —
 * under one set of filters, exported as an Excel workbook with clinical:signal:export. Nothing judged yet says where
 * AEs are judged; filters that leave nothing say so and clear in one click.
 */
export default function SignalReportPage() {
  const { t } = useTranslation('signal');
  const { message } = App.useApp();
  const has = usePms();
  const env = useSession((s) => s.env);
  const projectId = useSession((s) => s.project?.id ?? null);
  const [filters, setFilters] = useState<SignalFilters>(DEFAULT_SIGNAL_FILTERS);
  const [exporting, setExporting] = useState(false);
  const q = useQuery(signalReportQuery({ env, projectId }, filters));
  const report = q.data;

  const change = (f: Partial<SignalFilters>) => setFilters((x) => Object.fromEntries(Object.entries({ ...x, ...f }).filter(([, v]) => v !== undefined && v !== '')) as unknown as SignalFilters);
  const clear = () => setFilters((x) => ({ period: x.period, termBy: x.termBy }));

  const download = async () => {
    setExporting(true);
    try {
      const blob = await signalApi.exportFile(filters);
      const url = URL.createObjectURL(blob);
      const a = document.createElement('a');
      a.href = url;
      a.download = `signal-report-${dayjs().format('YYYYMMDD-HHmm')}.xlsx`;
      a.click();
      setTimeout(() => URL.revokeObjectURL(url), 1000);
    } catch {
      void message.error(t('exportFailed'));
    } finally {
      setExporting(false);
    }
  };

  let body;
  if (!report && q.isError) {
    body = <Result status="warning" title={t('loadFailed')} subTitle={q.error.message} extra={<Button onClick={() => void q.refetch()}>{t('retry')}</Button>} data-testid="signal-error" />;
  } else if (!report) {
    body = (
      <div data-testid="signal-loading">
        <Skeleton active paragraph={{ rows: 2 }} />
        <Skeleton.Node active style={{ width: '100%', height: 260 }} />
      </div>
    );
  } else if (report.totals.judged === 0) {
    body = (
      <Empty
        data-testid="signal-empty"
        description={
          <Space orientation="vertical" size={4}>
            <Typography.Text>{t('empty.none')}</Typography.Text>
            <Typography.Text type="secondary">{t('empty.noneHint')}</Typography.Text>
          </Space>
        }
      >
        {has('clinical:judge:query') ? (
          <Link to={TO_JUDGE_PATH} data-testid="signal-to-judge">
            {t('empty.toJudge')}
          </Link>
        ) : null}
      </Empty>
    );
  } else if (report.totals.events === 0) {
    body = (
      <Empty data-testid="signal-filtered-empty" description={t('empty.filtered')}>
        {narrowed(filters) ? <Button onClick={clear}>{t('clearFilters')}</Button> : null}
      </Empty>
    );
  } else {
    body = (
      <Space orientation="vertical" size={12} style={{ width: '100%' }}>
        <SignalKpis totals={report.totals} />
        <SignalChartsGrid report={report} period={filters.period} />
        <Card size="small" title={t('table.title', { count: report.totals.terms })}>
          <SignalTermTable filters={filters} />
        </Card>
      </Space>
    );
  }

  return (
    <Card size="small" data-testid="signal-report-page" data-state={!report ? (q.isError ? 'error' : 'loading') : report.totals.judged === 0 ? 'empty' : report.totals.events === 0 ? 'filtered-empty' : 'ready'}>
      <Typography.Paragraph type="secondary">{t('intro')}</Typography.Paragraph>
      {report?.totals.judged !== 0 ? (
        <SignalFiltersBar
          filters={filters}
          onChange={change}
          onRefresh={() => void q.refetch()}
          onExport={has('clinical:signal:export') ? () => void download() : undefined}
          exporting={exporting}
        />
      ) : null}
      <div className={q.isFetching && report ? 'signal-body signal-refreshing' : 'signal-body'}>{body}</div>
    </Card>
  );
}

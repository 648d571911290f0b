import { useMemo, useState } from 'react';
import { Card, Col, Progress, Row, Segmented, Space, Statistic, Table, Typography } from 'antd';
import type { TableColumnsType } from 'antd';
import { useQuery } from '@tanstack/react-query';
import { useTranslation } from 'react-i18next';
import {
  CRF_REPORT_GROUPS,
  LIMITS,
  type CrfReport as Report,
  type CrfReportGroup,
  type CrfReportRow,
} from '@esource/shared';
import { tablePagination } from '../../../lib/pagination';
import { usePms } from '../../session';
import { crfReportQuery, reportsApi, type BaseFilters } from '../api/reports-api';
import { chartHeight, completionOption, percent, STATE_COLOR } from '../report-charts';
import { shortName } from '../report-values';
import { EChart } from '../../../components/echart';
import { cleaned, ReportFilters, useScope } from './report-filters';
import '../reports.css';
import { download, ReportEmpty, ReportError, ReportLoading } from './report-states';

const TEST_ID = 'crf-report';

/** The counts and rate of the whole filter: subjects, forms expected, done (with the rate), draft, not started. */
function Kpis({ totals }: { totals: Report['totals'] }) {
  const { t } = useTranslation('reports');
  const cards = [
    { key: 'subjects', value: totals.subjects },
    { key: 'expected', value: totals.expected },
    { key: 'done', value: totals.done, suffix: `(${percent(totals.rate)})`, color: STATE_COLOR.completed },
    { key: 'draft', value: totals.draft, color: totals.draft ? STATE_COLOR.draft : undefined },
    { key: 'notStarted', value: totals.notStarted },
  ] as const;
  return (
    <Row gutter={[12, 12]}>
      {cards.map((c) => (
        <Col key={c.key} flex="1 1 180px">
          <Card size="small" data-testid={`crf-kpi-${c.key}`}>
            <Statistic
              title={t(`crf.kpi.${c.key}`)}
              value={c.value}
              suffix={'suffix' in c ? <span className="report-kpi-share">{c.suffix}</span> : undefined}
              styles={{ content: 'color' in c && c.color ? { color: c.color } : {} }}
            />
          </Card>
        </Col>
      ))}
    </Row>
  );
}

/** The rate as a thin bar with its percentage. */
function RateBar({ rate }: { rate: number }) {
  return (
    <Space size={6} style={{ width: '100%' }}>
      <Progress
        percent={Math.round(rate * 1000) / 10}
        showInfo={false}
        size="small"
        strokeColor={STATE_COLOR.completed}
        style={{ width: 70, margin: 0 }}
      />
      <span>{percent(rate)}</span>
    </Space>
  );
}

/**
 * eCRF completion (report:crf:query; /visual/report/crfReport): forms expected of the subjects in the filters,
 * grouped by site, visit or form, stacked by state in a chart and listed in a sortable table with the totals, and
 * exported (report:crf:export) as one workbook of the three groupings.
 */
export function CrfReport() {
  const { t, i18n } = useTranslation('reports');
  const has = usePms();
  const scope = useScope();
  const [filters, setFilters] = useState<BaseFilters>({});
  const [groupBy, setGroupBy] = useState<CrfReportGroup>('site');
  const [page, setPage] = useState<{ n: number; size: number }>({
    n: LIMITS.firstPage,
    size: LIMITS.defaultPageSize,
  });
  const [exporting, setExporting] = useState(false);
  const q = useQuery(crfReportQuery(scope, filters, groupBy));
  const report = q.data;
  const filtered = Object.keys(filters).length > 0;

  const change = (patch: Partial<BaseFilters>) => {
    setFilters((f) => cleaned({ ...f, ...patch }));
    setPage((p) => ({ ...p, n: LIMITS.firstPage }));
  };
  const option = useMemo(
    () =>
      report
        ? completionOption(report.rows, {
            state: (s) => t(`state.${s}`),
            label: (r) => `${groupBy === 'site' ? `${r.code} ` : ''}${shortName(r.name)}  ${percent(r.rate)}`,
            aria: t('crf.chartAria', { group: t(`crf.group.${groupBy}`) }),
          })
        : null,
    // the language is part of every text: the chart is rebuilt when it changes
    [report, groupBy, t, i18n.language],
  );

  const num = (k: 'expected' | 'notStarted' | 'draft' | 'completed' | 'certified' | 'done', width = 110) => ({
    key: k,
    dataIndex: k,
    title: t(`col.${k}`),
    width,
    align: 'right' as const,
    sorter: (a: CrfReportRow, b: CrfReportRow) => a[k] - b[k],
  });
  const columns: TableColumnsType<CrfReportRow> = [
    {
      key: 'code',
      dataIndex: 'code',
      title: t('col.code'),
      width: 80,
      sorter: (a, b) => a.code.localeCompare(b.code),
    },
    {
      key: 'name',
      dataIndex: 'name',
      title: t(`crf.group.${groupBy}`),
      ellipsis: true,
      sorter: (a, b) => a.name.localeCompare(b.name),
    },
    num('expected', 120),
    num('notStarted', 110),
    num('draft', 90),
    num('completed', 120),
    num('certified', 110),
    num('done', 150),
    {
      key: 'rate',
      dataIndex: 'rate',
      title: t('col.rate'),
      width: 150,
      sorter: (a, b) => a.rate - b.rate,
      render: (v: number) => <RateBar rate={v} />,
    },
  ];

  let body;
  if (!report && q.isError)
    body = <ReportError testId={TEST_ID} message={q.error.message} onRetry={() => void q.refetch()} />;
  else if (!report) body = <ReportLoading testId={TEST_ID} />;
  else if (report.totals.expected === 0)
    body = filtered ? (
      <ReportEmpty
        testId={TEST_ID}
        text={t('emptyFiltered')}
        onClear={() => change(Object.fromEntries(Object.keys(filters).map((k) => [k, undefined])))}
      />
    ) : (
      <ReportEmpty testId={TEST_ID} text={t('crf.empty')} hint={t('crf.emptyHint')} />
    );
  else
    body = (
      <Space orientation="vertical" size={12} style={{ width: '100%' }}>
        <Kpis totals={report.totals} />
        <Card
          size="small"
          title={t('crf.chartTitle', { group: t(`crf.group.${groupBy}`) })}
          extra={
            <Segmented<CrfReportGroup>
              size="small"
              value={groupBy}
              onChange={(g) => {
                setGroupBy(g);
                setPage((p) => ({ ...p, n: LIMITS.firstPage }));
              }}
              options={CRF_REPORT_GROUPS.map((g) => ({ value: g, label: t(`crf.by.${g}`) }))}
              data-testid="crf-group"
            />
          }
        >
          {option ? (
            <EChart
              option={option}
              height={chartHeight(report.rows.length)}
              label={t('crf.chartTitle', { group: t(`crf.group.${groupBy}`) })}
              testId="crf-chart"
            />
          ) : null}
          <Table<CrfReportRow>
            size="middle"
            tableLayout="fixed"
            rowKey="key"
            columns={columns}
            dataSource={report.rows}
            scroll={{ x: 1090 }}
            loading={q.isFetching}
            pagination={tablePagination({
              page: page.n,
              pageSize: page.size,
              total: report.rows.length,
              showTotal: (n) => t(`crf.groupTotal.${groupBy}`, { count: n }),
              onChange: (n, size) => setPage({ n, size }),
            })}
            summary={() => (
              <Table.Summary.Row className="report-total-row">
                <Table.Summary.Cell index={0} colSpan={2}>
                  <Typography.Text strong>{t('total')}</Typography.Text>
                </Table.Summary.Cell>
                {(['expected', 'notStarted', 'draft', 'completed', 'certified', 'done'] as const).map(
                  (k, i) => (
                    <Table.Summary.Cell key={k} index={i + 2} align="right">
                      <Typography.Text strong>{report.totals[k]}</Typography.Text>
                    </Table.Summary.Cell>
                  ),
                )}
                <Table.Summary.Cell index={8}>
                  <RateBar rate={report.totals.rate} />
                </Table.Summary.Cell>
              </Table.Summary.Row>
            )}
            data-testid="crf-table"
          />
        </Card>
      </Space>
    );

  return (
    <div
      data-testid={TEST_ID}
      data-state={
        !report ? (q.isError ? 'error' : 'loading') : report.totals.expected === 0 ? 'empty' : 'ready'
      }
    >
      <Typography.Paragraph type="secondary" className="report-intro">
        {t('crf.intro')}
      </Typography.Paragraph>
      <ReportFilters
        keys={['site', 'version', 'visit', 'form', 'subjectStatus']}
        value={filters}
        onChange={change}
        onRefresh={() => void q.refetch()}
        onExport={
          has('report:crf:export')
            ? () => void download(() => reportsApi.crfExport(filters), t('crf.fileName'), setExporting)
            : undefined
        }
        exporting={exporting}
        testId={TEST_ID}
      />
      <div className={q.isFetching && report ? 'report-body report-refreshing' : 'report-body'}>{body}</div>
    </div>
  );
}

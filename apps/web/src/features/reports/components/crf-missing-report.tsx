import { useMemo, useState } from 'react';
import { Card, Col, Row, Space, Statistic, Tag, Typography } from 'antd';
import type { TableColumnsType } from 'antd';
import { useQuery } from '@tanstack/react-query';
import { Link } from 'react-router';
import { useTranslation } from 'react-i18next';
import dayjs from 'dayjs';
import type { CrfMissingRow, CrfMissingSummary } from '@esource/shared';
import { PagedTable } from '../../../components/paged-table';
import { usePms, useSession } from '../../session';
import { subjectDetailPath } from '../../subjects';
import {
  missingQuery,
  reportsApi,
  type MissingFilters,
  type MissingSortField,
  type Sort,
} from '../api/reports-api';
import { chartHeight, itemRows, MISSING_COLOR, missingOption, STATE_COLOR } from '../report-charts';
import { EChart } from '../../../components/echart';
import { ReportFilters, useScope } from './report-filters';
import { useReportTable } from './use-report-table';
import '../reports.css';
import { download, ReportEmpty, ReportError, ReportLoading } from './report-states';

const TEST_ID = 'missing-report';
const DEFAULT_SORT: Sort<MissingSortField> = { sortField: 'ptsNo', sortOrder: 'asc' };

/** Saved forms checked, those with a missing item, missing items; the charts per form and per item. */
function Summary({ summary }: { summary: CrfMissingSummary }) {
  const { t, i18n } = useTranslation('reports');
  const charts = useMemo(
    () => ({
      forms: missingOption(
        summary.byForm.map((f) => ({ label: f.formName, missing: f.missing })),
        { series: t('missing.kpi.missing'), aria: t('missing.byFormAria') },
      ),
      items: missingOption(itemRows(summary), {
        series: t('missing.kpi.missing'),
        aria: t('missing.byItemAria', { n: summary.byItem.length }),
      }),
    }),
    // the language is part of every text: charts are rebuilt when it changes
    [summary, t, i18n.language],
  );
  const share = summary.formsChecked
    ? Math.round((summary.formsWithMissing / summary.formsChecked) * 100)
    : 0;
  return (
    <Space orientation="vertical" size={12} style={{ width: '100%' }}>
      <Row gutter={[12, 12]}>
        <Col flex="1 1 200px">
          <Card size="small" data-testid="missing-kpi-checked">
            <Statistic title={t('missing.kpi.formsChecked')} value={summary.formsChecked} />
          </Card>
        </Col>
        <Col flex="1 1 200px">
          <Card size="small" data-testid="missing-kpi-forms">
            <Statistic
              title={t('missing.kpi.formsWithMissing')}
              value={summary.formsWithMissing}
              suffix={<span className="report-kpi-share">({share} %)</span>}
              styles={{ content: summary.formsWithMissing ? { color: STATE_COLOR.draft } : {} }}
            />
          </Card>
        </Col>
        <Col flex="1 1 200px">
          <Card size="small" data-testid="missing-kpi-missing">
            <Statistic
              title={t('missing.kpi.missing')}
              value={summary.missing}
              styles={{ content: summary.missing ? { color: MISSING_COLOR } : {} }}
            />
          </Card>
        </Col>
      </Row>
      <Row gutter={[12, 12]}>
        <Col xs={24} xl={10}>
          <Card size="small" title={t('missing.byForm')}>
            <EChart
              option={charts.forms}
              height={chartHeight(summary.byForm.length)}
              label={t('missing.byForm')}
              testId="missing-chart-forms"
            />
          </Card>
        </Col>
        <Col xs={24} xl={14}>
          <Card size="small" title={t('missing.byItem', { n: summary.byItem.length })}>
            <EChart
              option={charts.items}
              height={chartHeight(summary.byItem.length)}
              label={t('missing.byItem', { n: summary.byItem.length })}
              testId="missing-chart-items"
            />
          </Card>
        </Col>
      </Row>
    </Space>
  );
}

/**
 * Missing data (report:crf-missing:query; /visual/report/crfReportMissing): required items left empty — while their
 * display condition shows them — in saved forms, with the summary per form and item as charts and every missing
 * item in a server-paged, sortable table that opens the form; exported with report:crf-missing:export.
 */
export function CrfMissingReport() {
  const { t } = useTranslation('reports');
  const has = usePms();
  const scope = useScope();
  const loginType = useSession((s) => s.loginType);
  const { filters, sort, paging, change, onTable, sortable, filtered } = useReportTable<MissingFilters, MissingSortField, CrfMissingRow>(DEFAULT_SORT);
  const [exporting, setExporting] = useState(false);
  const q = useQuery(missingQuery(scope, filters, sort, paging.pageNumber, paging.pageSize));
  const data = q.data;

  const columns: TableColumnsType<CrfMissingRow> = [
    {
      ...sortable('ptsNo'),
      title: t('col.subject'),
      width: 130,
      render: (_: unknown, r) => (
        <Link
          to={subjectDetailPath({ ptsId: r.ptsId, ptsNo: r.ptsNo, designVersionId: null }, loginType, {
            visitId: r.visitId,
            formId: r.formId,
            ...(r.unscheduledId ? { unscheduledId: r.unscheduledId } : {}),
            ...(r.repeatNo > 1 ? { repeatNo: r.repeatNo } : {}),
          })}
          data-testid={`missing-open-${r.instanceId}-${r.variable}`}
        >
          {r.ptsNo}
        </Link>
      ),
    },
    { ...sortable('site'), title: t('col.site'), dataIndex: 'siteName', width: 150, ellipsis: true },
    { ...sortable('visit'), title: t('col.visit'), dataIndex: 'visitName', width: 150, ellipsis: true },
    {
      ...sortable('form'),
      title: t('col.form'),
      width: 160,
      ellipsis: true,
      render: (_: unknown, r) => (r.repeatNo > 1 ? `${r.formName} #${r.repeatNo}` : r.formName),
    },
    {
      ...sortable('item'),
      title: t('col.item'),
      render: (_: unknown, r) => (
        <div style={{ minWidth: 0 }}>
          <Typography.Text ellipsis={{ tooltip: r.itemLabel }} data-testid="missing-item">
            {r.itemLabel}
          </Typography.Text>
          <Typography.Text type="secondary" style={{ display: 'block', fontSize: 12 }}>
            {r.variable}
          </Typography.Text>
        </div>
      ),
    },
    {
      ...sortable('formStatus'),
      title: t('col.formStatus'),
      width: 110,
      render: (_: unknown, r) => (
        <Tag color={r.formStatus === 1 ? 'gold' : 'green'}>{t(`formStatus.${r.formStatus}`)}</Tag>
      ),
    },
    {
      ...sortable('updateTime'),
      title: t('col.lastSaved'),
      width: 160,
      render: (_: unknown, r) => (
        <div style={{ minWidth: 0 }}>
          <Typography.Text ellipsis={{ tooltip: r.updatedBy ?? undefined }}>
            {r.updatedBy ?? '—'}
          </Typography.Text>
          <Typography.Text type="secondary" style={{ display: 'block', fontSize: 12 }}>
            {dayjs(r.updateTime).format('YYYY-MM-DD HH:mm')}
          </Typography.Text>
        </div>
      ),
    },
  ];

  let body;
  if (!data && q.isError)
    body = <ReportError testId={TEST_ID} message={q.error.message} onRetry={() => void q.refetch()} />;
  else if (!data) body = <ReportLoading testId={TEST_ID} />;
  else if (data.summary.missing === 0)
    body = filtered ? (
      <ReportEmpty
        testId={TEST_ID}
        text={t('emptyFiltered')}
        onClear={() => change(Object.fromEntries(Object.keys(filters).map((k) => [k, undefined])))}
      />
    ) : (
      <ReportEmpty
        testId={TEST_ID}
        text={t('missing.empty')}
        hint={t('missing.emptyHint', { count: data.summary.formsChecked })}
      />
    );
  else
    body = (
      <Space orientation="vertical" size={12} style={{ width: '100%' }}>
        <Summary summary={data.summary} />
        <Card size="small" title={t('missing.tableTitle', { count: data.summary.missing })}>
          <PagedTable<CrfMissingRow>
            rowKey={(r) => `${r.instanceId}-${r.variable}`}
            query={q}
            page={paging.pageNumber}
            pageSize={paging.pageSize}
            columns={columns}
            onChange={onTable}
            empty={t('emptyFiltered')}
            texts={{
              loadFailed: t('loadFailed'),
              retry: t('retry'),
              total: (n) => t('missing.total', { count: n }),
            }}
            data-testid="missing-table"
          />
        </Card>
      </Space>
    );

  return (
    <div
      data-testid={TEST_ID}
      data-state={!data ? (q.isError ? 'error' : 'loading') : data.summary.missing === 0 ? 'empty' : 'ready'}
    >
      <Typography.Paragraph type="secondary" className="report-intro">
        {t('missing.intro')}
      </Typography.Paragraph>
      <ReportFilters
        keys={['site', 'version', 'visit', 'form', 'item', 'formStatus', 'subjectStatus', 'ptsNo']}
        value={filters}
        onChange={change}
        onRefresh={() => void q.refetch()}
        onExport={
          has('report:crf-missing:export')
            ? () =>
                void download(() => reportsApi.missingExport(filters), t('missing.fileName'), setExporting)
            : undefined
        }
        exporting={exporting}
        testId={TEST_ID}
      />
      <div className={q.isFetching && data ? 'report-body report-refreshing' : 'report-body'}>{body}</div>
    </div>
  );
}

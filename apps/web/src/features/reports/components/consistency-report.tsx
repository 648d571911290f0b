import { useState } from 'react';
import { Space, Tag, Tooltip, Typography } from 'antd';
import type { TableColumnsType } from 'antd';
import { useQuery } from '@tanstack/react-query';
import { Link } from 'react-router';
import { useTranslation } from 'react-i18next';
import dayjs from 'dayjs';
import type { ConsistencyReason, ConsistencyRow } from '@esource/shared';
import { PagedTable } from '../../../components/paged-table';
import { usePms, useSession } from '../../session';
import { subjectDetailPath } from '../../subjects';
import { shortName, sourceText, valueText, withUnit } from '../report-values';
import {
  consistencyQuery,
  reportsApi,
  type ConsistencyFilters,
  type ConsistencySortField,
  type Sort,
} from '../api/reports-api';
import { ReportFilters, useScope } from './report-filters';
import { useReportTable } from './use-report-table';
import '../reports.css';
import { download, ReportEmpty, ReportError, ReportLoading } from './report-states';

const TEST_ID = 'consistency-report';
const DEFAULT_SORT: Sort<ConsistencySortField> = { sortField: 'ptsNo', sortOrder: 'asc' };
const REASON_COLOR: Record<ConsistencyReason, string> = {
  edited: 'orange',
  sourceChanged: 'red',
  sourceDeleted: 'default',
};

/**
 * Data consistency (report:data-consistency:query; /dataConsistencyReport/list): pre-filled eCRF values that no longer
 * agree with their source record — edited by hand since, or the record changed or was deleted at the hospital — with
 * the eCRF value beside the value as pre-filled and the source value then and now; exported with
 * report:data-consistency:export.
 */
export function ConsistencyReport() {
  const { t } = useTranslation('reports');
  const has = usePms();
  const scope = useScope();
  const loginType = useSession((s) => s.loginType);
  const { filters, sort, paging, change, onTable, sortable, filtered } = useReportTable<ConsistencyFilters, ConsistencySortField, ConsistencyRow>(DEFAULT_SORT);
  const [exporting, setExporting] = useState(false);
  const q = useQuery(consistencyQuery(scope, filters, sort, paging.pageNumber, paging.pageSize));
  const data = q.data;

  const secondary = (text: string) => (
    <Typography.Text type="secondary" style={{ display: 'block', fontSize: 12 }} ellipsis={{ tooltip: text }}>
      {text}
    </Typography.Text>
  );
  const columns: TableColumnsType<ConsistencyRow> = [
    {
      ...sortable('ptsNo'),
      title: t('col.subject'),
      width: 140,
      render: (_: unknown, r) => (
        <div style={{ minWidth: 0 }}>
          <Link
            to={subjectDetailPath({ ptsId: r.ptsId, ptsNo: r.ptsNo, designVersionId: null }, loginType, {
              visitId: r.visitId,
              formId: r.formId,
              ...(r.unscheduledId ? { unscheduledId: r.unscheduledId } : {}),
              ...(r.repeatNo > 1 ? { repeatNo: r.repeatNo } : {}),
            })}
          >
            {r.ptsNo}
          </Link>
          {secondary(r.siteName)}
        </div>
      ),
    },
    {
      ...sortable('visit'),
      title: t('col.visitForm'),
      width: 160,
      render: (_: unknown, r) => (
        <div style={{ minWidth: 0 }}>
          <Typography.Text ellipsis={{ tooltip: r.visitName }}>{r.visitName}</Typography.Text>
          {secondary(r.repeatNo > 1 ? `${r.formName} #${r.repeatNo}` : r.formName)}
        </div>
      ),
    },
    {
      ...sortable('item'),
      title: t('col.item'),
      width: 140,
      render: (_: unknown, r) => (
        <div style={{ minWidth: 0 }}>
          <Typography.Text ellipsis={{ tooltip: r.itemLabel }} data-testid="consistency-item">
            {r.itemLabel}
          </Typography.Text>
          {secondary(r.variable)}
        </div>
      ),
    },
    {
      key: 'crf',
      title: t('col.crfValue'),
      width: 150,
      render: (_: unknown, r) => (
        <div style={{ minWidth: 0 }}>
          <Typography.Text strong data-testid="consistency-crf-value">
            {withUnit(valueText(r.crfValue), r.itemUnit)}
          </Typography.Text>
          {r.reasons.includes('edited')
            ? secondary(t('consistency.filled', { value: withUnit(valueText(r.filledValue), r.itemUnit) }))
            : null}
        </div>
      ),
    },
    {
      key: 'source',
      title: t('col.sourceValue'),
      width: 170,
      render: (_: unknown, r) => (
        <div style={{ minWidth: 0 }}>
          <Tooltip
            title={
              [
                r.sourceValue && r.sourceValue !== sourceText(r.sourceValue) ? r.sourceValue : null,
                r.sourceDisplay,
                r.sourceCode,
              ]
                .filter(Boolean)
                .join(' · ') || undefined
            }
          >
            <Typography.Text
              strong={r.reasons.includes('sourceChanged')}
              delete={r.reasons.includes('sourceDeleted')}
              data-testid="consistency-source-value"
            >
              {withUnit(sourceText(r.sourceValue), r.sourceUnit)}
            </Typography.Text>
          </Tooltip>
          {r.reasons.includes('sourceChanged')
            ? secondary(
                t('consistency.sourceThen', {
                  value: withUnit(sourceText(r.filledSourceValue), r.filledSourceUnit),
                  from: r.filledVersion,
                  to: r.currentVersion,
                }),
              )
            : r.sourceDisplay
              ? secondary(shortName(r.sourceDisplay, 40))
              : null}
        </div>
      ),
    },
    {
      key: 'reasons',
      title: t('col.reasons'),
      width: 130,
      render: (_: unknown, r) => (
        <Space size={[4, 4]} wrap>
          {r.reasons.map((x) => (
            <Tag key={x} color={REASON_COLOR[x]} style={{ marginInlineEnd: 0 }}>
              {t(`reason.${x}`)}
            </Tag>
          ))}
        </Space>
      ),
    },
    {
      ...sortable('sourceDate'),
      title: t('col.sourceDate'),
      dataIndex: 'sourceDate',
      width: 110,
      render: (v: string | null) => v ?? '—',
    },
    {
      ...sortable('updateTime'),
      title: t('col.lastChange'),
      width: 150,
      render: (_: unknown, r) => (
        <div style={{ minWidth: 0 }}>
          <Typography.Text ellipsis={{ tooltip: r.updatedBy ?? undefined }}>
            {r.updatedBy ?? '—'}
          </Typography.Text>
          {secondary(dayjs(r.updateTime).format('YYYY-MM-DD HH:mm'))}
        </div>
      ),
    },
  ];

  let body;
  if (!data && q.isError)
    body = <ReportError testId={TEST_ID} message={q.error.message} onRetry={() => void q.refetch()} />;
  else if (!data) body = <ReportLoading testId={TEST_ID} />;
  else if (data.totalCount === 0 && paging.pageNumber === 1)
    body = filtered ? (
      <ReportEmpty
        testId={TEST_ID}
        text={t('emptyFiltered')}
        onClear={() => change(Object.fromEntries(Object.keys(filters).map((k) => [k, undefined])))}
      />
    ) : (
      <ReportEmpty testId={TEST_ID} text={t('consistency.empty')} hint={t('consistency.emptyHint')} />
    );
  else
    body = (
      <PagedTable<ConsistencyRow>
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
          total: (n) => t('consistency.total', { count: n }),
        }}
        data-testid="consistency-table"
      />
    );

  return (
    <div
      data-testid={TEST_ID}
      data-state={!data ? (q.isError ? 'error' : 'loading') : data.totalCount === 0 ? 'empty' : 'ready'}
    >
      <Typography.Paragraph type="secondary" className="report-intro">
        {t('consistency.intro')}
      </Typography.Paragraph>
      <ReportFilters
        keys={['site', 'version', 'visit', 'form', 'reason', 'ptsNo']}
        value={filters}
        onChange={change}
        onRefresh={() => void q.refetch()}
        onExport={
          has('report:data-consistency:export')
            ? () =>
                void download(
                  () => reportsApi.consistencyExport(filters),
                  t('consistency.fileName'),
                  setExporting,
                )
            : undefined
        }
        exporting={exporting}
        testId={TEST_ID}
      />
      <div className={q.isFetching && data ? 'report-body report-refreshing' : 'report-body'}>{body}</div>
    </div>
  );
}

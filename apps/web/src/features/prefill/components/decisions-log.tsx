import { useState } from 'react';
import { Button, Tag, Typography } from 'antd';
import type { TableProps } from 'antd';
import { LinkOutlined } from '@ant-design/icons';
import { useQuery } from '@tanstack/react-query';
import type { TFunction } from 'i18next';
import { useTranslation } from 'react-i18next';
import dayjs from 'dayjs';
import { LIMITS, type PrefillLogRow } from '@esource/shared';
import { PagedTable } from '../../../components/paged-table';
import { useSession } from '../../session';
import { decisionsQuery, type TraceFilters } from '../api/prefill-api';
import { displayValue } from '../prefill-logic';
import { SourceRecordDrawer } from './source-record-drawer';

/** Where a row of a report sits, named in the user's language from the design in force (the server names it as stored). */
export interface ReportNames {
  visit: (r: { visitId: number; visitName: string }) => string;
  form: (r: { formId: number; formName: string }) => string;
  item: (r: { formId: number; variable: string; itemLabel?: string }) => string;
}

/** The report columns 'visit / form' and 'item' (named by `names`), shared by the values and the decisions tables. */
export function whereColumns<R extends { visitId: number; visitName: string; formId: number; formName: string; repeatNo: number; variable: string; itemLabel?: string }>(
  t: TFunction<'prefill'>,
  names: ReportNames,
): NonNullable<TableProps<R>['columns']> {
  return [
    {
      title: t('trace.visitForm'),
      key: 'where',
      width: 160,
      render: (_: unknown, r) => (
        <div>
          <div>{names.visit(r)}</div>
          <Typography.Text type="secondary" style={{ fontSize: 12 }}>
            {names.form(r)}
            {r.repeatNo > 1 ? ` #${r.repeatNo}` : ''}
          </Typography.Text>
        </div>
      ),
    },
    {
      title: t('trace.item'),
      key: 'item',
      width: 150,
      render: (_: unknown, r) => (
        <div>
          <div>{names.item(r)}</div>
          <Typography.Text type="secondary" style={{ fontSize: 12 }}>
            {r.variable}
          </Typography.Text>
        </div>
      ),
    },
  ];
}

const DECISION_COLOR: Record<string, string> = {
  new: 'green',
  merge: 'orange',
  ignore: 'default',
  inject: 'purple',
};

/**
 * The pre-fill decisions log (/audit/log/preFillCrfQuery) as a tab of the traceability page: when, who, where
 * (subject, visit, form, item), the decision (accepted / merged / ignored / injected by an automatic run), the source
 * value decided on, the reason of a merge and the source record version behind it; the page's subject / visit /
 * form filters; paged 50/100/200.
 */
export function DecisionsLog({ filters, names }: { filters: TraceFilters; names: ReportNames }) {
  const { t } = useTranslation('prefill');
  const env = useSession((s) => s.env);
  const language = useSession((s) => s.language);
  const projectId = useSession((s) => s.project?.id ?? null);
  const [page, setPage] = useState<{ number: number; size: number; filters: TraceFilters }>({
    number: LIMITS.firstPage,
    size: LIMITS.defaultPageSize,
    filters,
  });
  // new filters start again at the first page
  const pageNumber = page.filters === filters ? page.number : LIMITS.firstPage;
  const [record, setRecord] = useState<{ id: number; version: number } | null>(null);
  const q = useQuery(decisionsQuery({ env, projectId }, filters, pageNumber, page.size));
  const filtered = Object.values(filters).some((v) => v !== undefined);

  const columns: TableProps<PrefillLogRow>['columns'] = [
    {
      title: t('log.when'),
      dataIndex: 'createTime',
      width: 130,
      render: (v: string) => dayjs(v).format('YYYY-MM-DD HH:mm'),
    },
    {
      title: t('log.who'),
      dataIndex: 'userName',
      width: 120,
      render: (v: string | null) =>
        v ?? <Typography.Text type="secondary">{t('log.automatic')}</Typography.Text>,
    },
    { title: t('trace.subject'), dataIndex: 'ptsNo', width: 100 },
    ...whereColumns<PrefillLogRow>(t, names),
    {
      title: t('log.decision'),
      dataIndex: 'decision',
      width: 110,
      render: (d: string, r) => (
        <Tag color={DECISION_COLOR[d] ?? 'default'} data-testid={`log-decision-${r.variable}`}>
          {t(`log.decisions.${d}`, { defaultValue: d })}
        </Tag>
      ),
    },
    {
      title: t('log.value'),
      key: 'value',
      width: 100,
      render: (_: unknown, r) => (
        <span data-testid={`log-value-${r.variable}`}>{displayValue(r.candidate, [], language)}</span>
      ),
    },
    {
      title: t('log.reason'),
      dataIndex: 'reason',
      render: (v: string | null) =>
        v ? (
          <Typography.Text ellipsis={{ tooltip: true }}>{v}</Typography.Text>
        ) : (
          <Typography.Text type="secondary">—</Typography.Text>
        ),
    },
    {
      title: t('trace.source'),
      key: 'source',
      width: 170,
      fixed: 'right',
      render: (_: unknown, r) => (
        <Button
          type="link"
          size="small"
          icon={<LinkOutlined />}
          onClick={() => setRecord({ id: r.sourceRecordId, version: r.sourceVersion })}
          data-testid={`log-open-${r.id}`}
        >
          {t('log.record', { id: r.sourceRecordId, version: r.sourceVersion })}
        </Button>
      ),
    },
  ];

  return (
    <>
      <PagedTable<PrefillLogRow>
        query={q}
        page={pageNumber}
        pageSize={page.size}
        onPage={(n, size) => setPage({ number: n, size, filters })}
        empty={filtered ? t('log.emptyFiltered') : t('log.empty')}
        texts={{
          loadFailed: t('log.loadFailed'),
          retry: t('retry'),
          total: (n) => t('log.total', { count: n }),
        }}
        rowKey={(r) => r.id}
        columns={columns}
        data-testid="decisions-table"
      />
      {record ? (
        <SourceRecordDrawer recordId={record.id} version={record.version} onClose={() => setRecord(null)} />
      ) : null}
    </>
  );
}

import { useMemo, useState } from 'react';
import { App, Button, Card, Select, Space, Tabs, Tag, Tooltip, Typography } from 'antd';
import type { TableProps } from 'antd';
import { DownloadOutlined, LinkOutlined, ReloadOutlined, WarningOutlined } from '@ant-design/icons';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useTranslation } from 'react-i18next';
import { useSearchParams } from 'react-router';
import dayjs from 'dayjs';
import { ENTRY_MODE, formFields, LIMITS, type TraceabilityRow } from '@esource/shared';
import { PagedTable } from '../../../components/paged-table';
import { saveBlob } from '../../../lib/download';
import { usePms, useSession } from '../../session';
import { enabledDesignQuery, prefillApi, traceabilityQuery, type TraceFilters } from '../api/prefill-api';
import { displayValue } from '../prefill-logic';
import { docTypeName, SourceRecordDrawer } from '../components/source-record-drawer';
import { SubjectSelect } from '../components/subject-select';
import { DecisionsLog, whereColumns, type ReportNames } from '../components/decisions-log';
import '../prefill.css';

const time = (v: string | null) => (v ? dayjs(v).format('YYYY-MM-DD HH:mm') : '—');

/**
 * /project/icrc-source, the traceability report: every eCRF value that came from a source record, with the record
 * behind it (type, code, date, the version filled from and whether the hospital changed it since), who filled it
 * and when; filters subject / visit / form, 50/100/200 paging, Excel export, and the record itself in a drawer.
 * Its 'Decisions' tab (?tab=decisions) lists the pre-fill decisions log under the same filters.
 */
export default function TraceabilityPage() {
  const { t } = useTranslation('prefill');
  const { message } = App.useApp();
  const env = useSession((s) => s.env);
  const language = useSession((s) => s.language);
  const projectId = useSession((s) => s.project?.id ?? null);
  const has = usePms();
  const qc = useQueryClient();
  const [filters, setFilters] = useState<TraceFilters>({});
  const [pageNumber, setPage] = useState<number>(LIMITS.firstPage);
  const [pageSize, setPageSize] = useState<number>(LIMITS.defaultPageSize);
  const [record, setRecord] = useState<{ id: number; version: number } | null>(null);
  const [exporting, setExporting] = useState(false);
  const [params, setParams] = useSearchParams();
  const tab = params.get('tab') === 'decisions' ? 'decisions' : 'values';
  const scope = { env, projectId };
  const q = useQuery(traceabilityQuery(scope, filters, pageNumber, pageSize));
  const design = useQuery(enabledDesignQuery(scope));
  const filtered = Object.values(filters).some((v) => v !== undefined);
  const set = (patch: TraceFilters) => {
    setFilters((f) => ({ ...f, ...patch }));
    setPage(LIMITS.firstPage);
  };
  const name = (o: { name: string; nameEn: string | null }) =>
    language === 'en_US' && o.nameEn ? o.nameEn : o.name;
  // the report names visits, forms and items as stored (Chinese); in English they come from the design in force
  const names = useMemo((): ReportNames => {
    const visits = new Map((design.data?.visits ?? []).map((v) => [v.id, v]));
    const forms = new Map((design.data?.forms ?? []).map((f) => [f.id, f]));
    return {
      visit: (r) => {
        const v = visits.get(r.visitId);
        return v ? name(v) : r.visitName;
      },
      form: (r) => {
        const f = forms.get(r.formId);
        return f ? name(f) : r.formName;
      },
      item: (r) => {
        const f = forms.get(r.formId);
        const field = f
          ? formFields(f.definition.components).find((x) => x.variable === r.variable)
          : undefined;
        if (field && language === 'en_US' && field.labelEn) return field.labelEn;
        return r.itemLabel ?? field?.label ?? r.variable;
      },
    };
  }, [design.data, language]);

  const exportXlsx = async () => {
    setExporting(true);
    try {
      const blob = await prefillApi.exportTrace(filters);
      saveBlob(blob, `${t('trace.fileName')}-${dayjs().format('YYYYMMDD-HHmmss')}.xlsx`);
    } catch (e) {
      void message.error(e instanceof Error ? e.message : String(e));
    } finally {
      setExporting(false);
    }
  };

  const columns: TableProps<TraceabilityRow>['columns'] = [
    {
      title: t('trace.subject'),
      key: 'subject',
      width: 130,
      render: (_: unknown, r) => (
        <div>
          <div>{r.ptsNo}</div>
          <Typography.Text type="secondary" style={{ fontSize: 12 }} ellipsis>
            {r.siteName}
          </Typography.Text>
        </div>
      ),
    },
    ...whereColumns<TraceabilityRow>(t, names),
    {
      title: t('trace.value'),
      key: 'value',
      width: 90,
      render: (_: unknown, r) => (
        <span data-testid={`trace-value-${r.variable}`}>{displayValue(r.value, [], language)}</span>
      ),
    },
    {
      title: t('trace.entryMode'),
      dataIndex: 'entryMode',
      width: 100,
      render: (m: number) => (
        <Tag color={m === ENTRY_MODE.inject ? 'purple' : m === ENTRY_MODE.gather ? 'cyan' : 'default'}>
          {t(`entryMode.${m}`, { defaultValue: String(m) })}
        </Tag>
      ),
    },
    {
      title: t('trace.source'),
      key: 'source',
      render: (_: unknown, r) =>
        r.recordId ? (
          <div>
            <div>
              {docTypeName(t, r.docType)} · {r.resourceType ?? '—'}
            </div>
            <Typography.Text type="secondary" style={{ fontSize: 12 }} ellipsis={{ tooltip: true }}>
              {r.code ?? '—'}
              {r.display ? ` ${r.display}` : ''}
            </Typography.Text>
            <div style={{ fontSize: 12 }}>
              <Space size={4} wrap>
                <Typography.Text type="secondary">
                  {r.effectiveDate ?? '—'} · {t('trace.versionShort', { version: r.recordVersion ?? '—' })}
                </Typography.Text>
                {r.changedSinceFill ? (
                  <Tooltip title={t('trace.changedHint', { latest: r.latestVersion })}>
                    <Tag
                      color="warning"
                      icon={<WarningOutlined />}
                      data-testid={`trace-changed-${r.variable}`}
                    >
                      {t('trace.changed')}
                    </Tag>
                  </Tooltip>
                ) : null}
              </Space>
            </div>
          </div>
        ) : (
          <Typography.Text type="secondary">{r.sourceRef}</Typography.Text>
        ),
    },
    {
      title: t('trace.filled'),
      key: 'filled',
      width: 150,
      render: (_: unknown, r) => (
        <div>
          <div>{r.updatedBy ?? '—'}</div>
          <Typography.Text type="secondary" style={{ fontSize: 12 }}>
            {time(r.updateTime)}
          </Typography.Text>
        </div>
      ),
    },
    {
      title: t('trace.actions'),
      key: 'actions',
      width: 90,
      fixed: 'right',
      render: (_: unknown, r) =>
        r.recordId ? (
          <Button
            type="link"
            size="small"
            icon={<LinkOutlined />}
            onClick={() => setRecord({ id: r.recordId!, version: r.recordVersion ?? 1 })}
            data-testid={`trace-open-${r.variable}`}
          >
            {t('link.source')}
          </Button>
        ) : null,
    },
  ];

  return (
    <Card data-testid="traceability-page">
      <div style={{ display: 'flex', flexWrap: 'wrap', gap: 12, marginBottom: 16, alignItems: 'center' }}>
        <SubjectSelect
          value={filters.ptsId}
          onChange={(ptsId) => set({ ptsId })}
          testId="trace-filter-subject"
        />
        <Select<number>
          allowClear
          value={filters.visitId}
          placeholder={t('trace.pickVisit')}
          style={{ width: 200 }}
          loading={design.isLoading}
          onChange={(visitId) => set({ visitId })}
          options={(design.data?.visits ?? []).map((v) => ({ value: v.id, label: `${v.code} ${name(v)}` }))}
          data-testid="trace-filter-visit"
        />
        <Select<number>
          allowClear
          value={filters.formId}
          placeholder={t('trace.pickForm')}
          style={{ width: 200 }}
          loading={design.isLoading}
          onChange={(formId) => set({ formId })}
          options={(design.data?.forms ?? []).map((f) => ({ value: f.id, label: `${f.code} ${name(f)}` }))}
          data-testid="trace-filter-form"
        />
        <span style={{ flex: 1 }} />
        <Space>
          <Button
            icon={<ReloadOutlined />}
            // the tab shown: the values or the decisions log
            onClick={() => void qc.invalidateQueries({ queryKey: ['prefill', tab === 'decisions' ? 'decisions' : 'trace'] })}
            aria-label={t('refresh')}
          />
          {tab === 'values' && has('report:traceability:export') ? (
            <Button
              icon={<DownloadOutlined />}
              loading={exporting}
              disabled={!q.data?.totalCount}
              onClick={() => void exportXlsx()}
              data-testid="trace-export"
            >
              {t('trace.export')}
            </Button>
          ) : null}
        </Space>
      </div>
      <Tabs
        activeKey={tab}
        onChange={(k) =>
          setParams(
            (p) => {
              const n = new URLSearchParams(p);
              if (k === 'decisions') n.set('tab', 'decisions');
              else n.delete('tab');
              return n;
            },
            { replace: true },
          )
        }
        items={[
          {
            key: 'values',
            label: <span data-testid="trace-tab-values">{t('trace.tabValues')}</span>,
            children: (
              <PagedTable<TraceabilityRow>
                query={q}
                page={pageNumber}
                pageSize={pageSize}
                onPage={(p, s) => {
                  setPage(p);
                  setPageSize(s);
                }}
                empty={filtered ? t('trace.emptyFiltered') : t('trace.empty')}
                texts={{
                  loadFailed: t('trace.loadFailed'),
                  retry: t('retry'),
                  total: (n) => t('trace.total', { count: n }),
                }}
                rowKey={(r) =>
                  `${r.ptsId}-${r.visitId}-${r.unscheduledId}-${r.formId}-${r.repeatNo}-${r.variable}`
                }
                columns={columns}
                data-testid="trace-table"
              />
            ),
          },
          {
            key: 'decisions',
            label: <span data-testid="trace-tab-decisions">{t('trace.tabDecisions')}</span>,
            children: <DecisionsLog filters={filters} names={names} />,
          },
        ]}
      />
      {record ? (
        <SourceRecordDrawer recordId={record.id} version={record.version} onClose={() => setRecord(null)} />
      ) : null}
    </Card>
  );
}

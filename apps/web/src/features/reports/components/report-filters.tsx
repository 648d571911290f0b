import type { ReactNode } from 'react';
import { Button, Input, Select, Tooltip } from 'antd';
import { DownloadOutlined, ReloadOutlined } from '@ant-design/icons';
import { useQuery } from '@tanstack/react-query';
import { useTranslation } from 'react-i18next';
import { CONSISTENCY_REASONS, SUBJECT_STATUS } from '@esource/shared';
import { useSession } from '../../session';
import { reportOptionsQuery, type ConsistencyFilters, type MissingFilters } from '../api/reports-api';

/** Every filter a report tab may show; each tab lists its own. */
export type FilterKey =
  'site' | 'version' | 'visit' | 'form' | 'item' | 'formStatus' | 'subjectStatus' | 'ptsNo' | 'reason';
export type AnyFilters = MissingFilters & Pick<ConsistencyFilters, 'reason'>;

const LIVE_STATUSES = Object.values(SUBJECT_STATUS).filter((s) => s !== SUBJECT_STATUS.deleted);

export function useScope() {
  const env = useSession((s) => s.env);
  const projectId = useSession((s) => s.project?.id ?? null);
  return { env, projectId };
}

/**
 * The filter row of a report tab: the filters it lists (site, design version, visit, form, item of the form, form
 * status, subject status, subject number, reason), its own controls (children), refresh, and the export when the
 * caller may export. Visits, forms and items come from /visual/report/pts/options (of the chosen version).
 */
export function ReportFilters({
  keys,
  value,
  onChange,
  onRefresh,
  onExport,
  exporting,
  testId,
  children,
}: {
  keys: FilterKey[];
  value: AnyFilters;
  onChange: (patch: Partial<AnyFilters>) => void;
  onRefresh: () => void;
  /** absent without the report's export permission */
  onExport?: (() => void) | undefined;
  exporting: boolean;
  testId: string;
  children?: ReactNode;
}) {
  const { t } = useTranslation('reports');
  const scope = useScope();
  const options = useQuery(reportOptionsQuery(scope, value.versionId));
  const o = options.data;
  const form = value.formCode ? o?.forms.find((f) => f.code === value.formCode) : undefined;
  const has = (k: FilterKey) => keys.includes(k);
  function select<V extends string | number>(
    k: FilterKey,
    width: number,
    p: {
      value: V | undefined;
      placeholder: string;
      onChange: (v: V | undefined) => void;
      options: { value: V; label: string }[];
      disabled?: boolean;
      search?: boolean;
    },
  ) {
    return (
      <Select<V>
        allowClear
        showSearch={p.search === false ? false : { optionFilterProp: 'label' }}
        style={{ width }}
        loading={options.isLoading}
        value={p.value}
        placeholder={p.placeholder}
        disabled={p.disabled ?? false}
        onChange={(v?: V) => p.onChange(v)}
        options={p.options}
        data-testid={`${testId}-filter-${k}`}
      />
    );
  }
  return (
    <div className="report-filters" data-testid={`${testId}-filters`}>
      {has('site') && (o?.sites.length ?? 0) > 1
        ? select('site', 190, {
            value: value.siteId,
            placeholder: t('filter.site'),
            onChange: (v) => onChange({ siteId: v }),
            options: (o?.sites ?? []).map((s) => ({ value: s.id, label: `${s.siteNo} ${s.name}` })),
          })
        : null}
      {has('version') && (o?.versions.length ?? 0) > 1
        ? select('version', 150, {
            value: value.versionId,
            placeholder: t('filter.version'),
            onChange: (v) =>
              onChange({ versionId: v, visitCode: undefined, formCode: undefined, variable: undefined }),
            options: (o?.versions ?? []).map((v) => ({ value: v.id, label: v.name })),
          })
        : null}
      {has('visit')
        ? select('visit', 160, {
            value: value.visitCode,
            placeholder: t('filter.visit'),
            onChange: (v) => onChange({ visitCode: v }),
            options: (o?.visits ?? []).map((v) => ({ value: v.code, label: v.name })),
          })
        : null}
      {has('form')
        ? select('form', 170, {
            value: value.formCode,
            placeholder: t('filter.form'),
            onChange: (v) => onChange({ formCode: v, variable: undefined }),
            options: (o?.forms ?? []).map((f) => ({ value: f.code, label: f.name })),
          })
        : null}
      {has('item') ? (
        <Tooltip title={form ? undefined : t('filter.itemHint')}>
          {select('item', 170, {
            value: value.variable,
            disabled: !form,
            placeholder: t('filter.item'),
            onChange: (v) => onChange({ variable: v }),
            options: (form?.items ?? [])
              .filter((i) => i.required)
              .map((i) => ({ value: i.variable, label: i.label })),
          })}
        </Tooltip>
      ) : null}
      {has('formStatus')
        ? select('formStatus', 130, {
            value: value.formStatus,
            placeholder: t('filter.formStatus'),
            search: false,
            onChange: (v) => onChange({ formStatus: v }),
            options: [1, 2].map((x) => ({ value: x, label: t(`formStatus.${x}`) })),
          })
        : null}
      {has('subjectStatus')
        ? select('subjectStatus', 150, {
            value: value.subjectStatus,
            placeholder: t('filter.subjectStatus'),
            onChange: (v) => onChange({ subjectStatus: v }),
            options: LIVE_STATUSES.map((x): { value: number; label: string } => ({
              value: x,
              label: t(`subjects:status.${x}`),
            })),
          })
        : null}
      {has('reason')
        ? select('reason', 170, {
            value: value.reason,
            placeholder: t('filter.reason'),
            search: false,
            onChange: (v) => onChange({ reason: v }),
            options: CONSISTENCY_REASONS.map((r) => ({ value: r, label: t(`reason.${r}`) })),
          })
        : null}
      {has('ptsNo') ? (
        <Input.Search
          allowClear
          maxLength={30}
          placeholder={t('filter.ptsNo')}
          style={{ width: 170 }}
          defaultValue={value.ptsNo}
          onSearch={(v) => onChange({ ptsNo: v.trim() || undefined })}
          data-testid={`${testId}-filter-ptsNo`}
        />
      ) : null}
      {children}
      <span style={{ flex: 1 }} />
      <Tooltip title={t('refresh')}>
        <Button icon={<ReloadOutlined />} onClick={onRefresh} aria-label={t('refresh')} />
      </Tooltip>
      {onExport ? (
        <Button
          icon={<DownloadOutlined />}
          loading={exporting}
          onClick={onExport}
          data-testid={`${testId}-export`}
        >
          {t('export')}
        </Button>
      ) : null}
    </div>
  );
}

/** Filters without their empty entries (what the query key and the request carry). */
export function cleaned<F extends object>(f: F): F {
  return Object.fromEntries(Object.entries(f).filter(([, v]) => v !== undefined && v !== '')) as F;
}

import { Button, DatePicker, Segmented, Select, Space, Switch, Tooltip } from 'antd';
import { DownloadOutlined, ReloadOutlined } from '@ant-design/icons';
import { useTranslation } from 'react-i18next';
import dayjs from 'dayjs';
import { SIGNAL_GRADES, SIGNAL_PERIODS, SIGNAL_TERM_GROUPS } from '@esource/shared';
import { SiteFilter } from '../../subjects';
import type { SignalFilters } from '../api/signal-api';

/** The report's filters: site, onset range, period, grade at least, serious only, related only, term grouping. */
export function SignalFiltersBar({
  filters,
  onChange,
  onRefresh,
  onExport,
  exporting,
}: {
  filters: SignalFilters;
  onChange: (f: Partial<SignalFilters>) => void;
  onRefresh: () => void;
  /** absent without clinical:signal:export */
  onExport?: (() => void) | undefined;
  exporting: boolean;
}) {
  const { t } = useTranslation('signal');
  const range = filters.onsetFrom && filters.onsetTo ? ([dayjs(filters.onsetFrom), dayjs(filters.onsetTo)] as const) : null;
  return (
    <div className="signal-filters" data-testid="signal-filters">
      <SiteFilter value={filters.siteId} onChange={(siteId) => onChange({ siteId })} placeholder={t('filter.site')} testId="signal-filter-site" />
      <DatePicker.RangePicker
        value={range ? [range[0], range[1]] : null}
        onChange={(v) => onChange(v && v[0] && v[1] ? { onsetFrom: v[0].format('YYYY-MM-DD'), onsetTo: v[1].format('YYYY-MM-DD') } : { onsetFrom: undefined, onsetTo: undefined })}
        placeholder={[t('filter.onsetFrom'), t('filter.onsetTo')]}
        data-testid="signal-filter-onset"
      />
      <Select
        allowClear
        value={filters.minGrade}
        onChange={(v?: number) => onChange({ minGrade: v })}
        placeholder={t('filter.minGrade')}
        style={{ width: 150 }}
        options={SIGNAL_GRADES.filter((g) => g > 1).map((g) => ({ value: g, label: t('filter.gradeAtLeast', { grade: g }) }))}
        data-testid="signal-filter-grade"
      />
      <Space size={6}>
        <Switch size="small" checked={!!filters.seriousOnly} onChange={(v) => onChange({ seriousOnly: v || undefined })} data-testid="signal-filter-serious" />
        <span>{t('filter.seriousOnly')}</span>
      </Space>
      <Space size={6}>
        <Switch size="small" checked={!!filters.relatedOnly} onChange={(v) => onChange({ relatedOnly: v || undefined })} data-testid="signal-filter-related" />
        <Tooltip title={t('filter.relatedHint')}>
          <span>{t('filter.relatedOnly')}</span>
        </Tooltip>
      </Space>
      <Segmented
        value={filters.period}
        onChange={(v) => onChange({ period: v })}
        options={SIGNAL_PERIODS.map((p) => ({ value: p, label: t(`period.${p}`) }))}
        data-testid="signal-filter-period"
      />
      <Segmented
        value={filters.termBy}
        onChange={(v) => onChange({ termBy: v })}
        options={SIGNAL_TERM_GROUPS.map((g) => ({ value: g, label: t(`termBy.${g}`) }))}
        data-testid="signal-filter-termby"
      />
      <span style={{ flex: 1 }} />
      <Tooltip title={t('refresh')}>
        <Button icon={<ReloadOutlined />} onClick={onRefresh} aria-label={t('refresh')} />
      </Tooltip>
      {onExport ? (
        <Button icon={<DownloadOutlined />} loading={exporting} onClick={onExport} data-testid="signal-export">
          {t('export')}
        </Button>
      ) : null}
    </div>
  );
}

import { lazy, Suspense } from 'react';
import { Button, Card, Empty, Result, Skeleton, Tabs } from 'antd';
import { Link, useSearchParams } from 'react-router';
import { useTranslation } from 'react-i18next';
import type { Permission } from '@esource/shared';
import { usePms } from '../../session';
import { ChangeReport, ExtractReport } from '../components/reports';
import '../sources.css';

// the study reports (features/reports) draw charts: their code, ECharts included, loads with their first tab
const reports = () => import('../../reports');
const STUDY_REPORTS = {
  crf: lazy(async () => ({ default: (await reports()).CrfReport })),
  crfMissing: lazy(async () => ({ default: (await reports()).CrfMissingReport })),
  dataConsistency: lazy(async () => ({ default: (await reports()).ConsistencyReport })),
};

/** The report tabs of /project/reports, each behind its own permission (spec §2: seven report permissions). */
const TABS: { key: string; pms: Permission }[] = [
  { key: 'extract', pms: 'report:extract:query' },
  { key: 'syncChange', pms: 'report:sync-change:query' },
  { key: 'dataChange', pms: 'report:data-change:query' },
  { key: 'traceability', pms: 'report:traceability:query' },
  { key: 'dataConsistency', pms: 'report:data-consistency:query' },
  { key: 'crf', pms: 'report:crf:query' },
  { key: 'crfMissing', pms: 'report:crf-missing:query' },
];

/**
 * /project/reports: the extraction report, the sync change list and the data change report (with export), eCRF
 * completion, missing data and data consistency (features/reports, with charts and exports); the traceability
 * report links to its own page. Only the tabs of the user's permissions show.
 */
export default function ReportsPage() {
  const { t } = useTranslation('sources');
  const has = usePms();
  const [params, setParams] = useSearchParams();
  const tabs = TABS.filter((x) => has(x.pms));
  if (tabs.length === 0) return <Result status="403" title={t('report.none')} />;
  const active = tabs.find((x) => x.key === params.get('tab'))?.key ?? tabs[0]!.key;
  const body = (key: string) => {
    switch (key) {
      case 'extract':
        return <ExtractReport />;
      case 'syncChange':
        return <ChangeReport kind="sync" />;
      case 'dataChange':
        return <ChangeReport kind="data" />;
      case 'crf':
      case 'crfMissing':
      case 'dataConsistency': {
        const Report = STUDY_REPORTS[key];
        return (
          <Suspense fallback={<Skeleton active />}>
            <Report />
          </Suspense>
        );
      }
      case 'traceability':
        return (
          <Empty image={Empty.PRESENTED_IMAGE_SIMPLE} description={t('report.traceabilityHint')}>
            <Link to="/project/icrc-source">
              <Button type="primary">{t('report.openTraceability')}</Button>
            </Link>
          </Empty>
        );
      default:
        return (
          <Empty
            image={Empty.PRESENTED_IMAGE_SIMPLE}
            data-testid={`report-not-built-${key}`}
            description={t('report.notBuilt', { name: t(`report.tab.${key}`) })}
          />
        );
    }
  };
  return (
    <Card size="small" data-testid="reports-page">
      <Tabs
        activeKey={active}
        onChange={(k) => setParams({ tab: k }, { replace: true })}
        destroyOnHidden
        items={tabs.map((x) => ({
          key: x.key,
          label: <span data-testid={`report-tab-${x.key}`}>{t(`report.tab.${x.key}`)}</span>,
          children: body(x.key),
        }))}
      />
    </Card>
  );
}

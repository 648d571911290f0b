import { useCallback, useEffect, useRef, useState } from 'react';
import { Badge, Button, Card, Result, Skeleton, Space, Tabs } from 'antd';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useSearchParams } from 'react-router';
import { useTranslation } from 'react-i18next';
import type { EdcRunView } from '@esource/shared';
import { usePms, useSession } from '../../session';
import { EDC_POLL_MS, afterSyncStart, edcConfigQuery, edcLatestRunsQuery, isLiveRun } from '../api/edc-api';
import { EdcConfigCard } from '../components/edc-config-card';
import { EdcConfigDrawer } from '../components/edc-config-drawer';
import { MappingTab } from '../components/mapping-tab';
import { RunBanner, RunsTab } from '../components/runs-tab';
import { SitesTab } from '../components/sites-tab';
import { SubjectsTab } from '../components/subjects-tab';
import { useStartSync } from '../components/use-start-sync';

const TABS = ['sites', 'subjects', 'mapping', 'runs'] as const;
type TabKey = (typeof TABS)[number];

/**
 * /project/edcReportDetail (edc:sync:query; issue 14 items 2–4): the project environment's EDC and its settings, then
 * tabs — per-site sync state, subjects with their forms, the mapping (edc:sync:config) and the sync runs. Starting a
 * sync (edc:sync:execute) shows its run; the lists are read every 3 s while a run is queued or running.
 */
export default function EdcReportDetailPage() {
  const { t } = useTranslation('edc');
  const has = usePms();
  const env = useSession((s) => s.env);
  const projectId = useSession((s) => s.project?.id ?? null);
  const scope = { env, projectId };
  const qc = useQueryClient();
  const canConfig = has('edc:sync:config');
  const canExecute = has('edc:sync:execute');
  const canLog = has('prolog:upload-edc-log:query');
  const [params, setParams] = useSearchParams();
  const asked = params.get('tab') as TabKey | null;
  const tab: TabKey = asked && TABS.includes(asked) && (asked !== 'mapping' || canConfig) ? asked : 'sites';
  const [drawer, setDrawer] = useState(false);
  const [mappingDirty, setMappingDirty] = useState(false);
  const onDirty = useCallback((d: boolean) => setMappingDirty(d), []);
  const config = useQuery(edcConfigQuery(scope));
  const [started, setStarted] = useState<EdcRunView | null>(null);
  // a run is live while the latest runs show one queued or running, or the one just started is not seen ended yet
  const liveIn = (runs: EdcRunView[] | undefined) =>
    (runs?.some(isLiveRun) ?? false) ||
    (started !== null && !runs?.some((r) => r.id === started.id && !isLiveRun(r)));
  const latest = useQuery({
    ...edcLatestRunsQuery(scope),
    enabled: projectId !== null && !!config.data,
    refetchInterval: (q) => (liveIn(q.state.data?.content) ? EDC_POLL_MS : false),
  });
  const live = liveIn(latest.data?.content);
  // the lists stop polling when the run ends: read them once more for its final state
  const wasLive = useRef(false);
  useEffect(() => {
    if (wasLive.current && !live) void afterSyncStart(qc);
    wasLive.current = live;
  }, [live, qc]);
  const [hidden, setHidden] = useState<number | null>(null);
  const start = useStartSync((run) => {
    setStarted(run);
    setHidden(null);
  });
  // the run to show: the one just started (as the lists last read it), else one still running
  const banner =
    (started
      ? (latest.data?.content.find((r) => r.id === started.id) ?? started)
      : latest.data?.content.find(isLiveRun)) ?? null;

  if (config.isError)
    return (
      <Card>
        <Result
          status="warning"
          title={t('loadFailed')}
          subTitle={config.error.message}
          extra={<Button onClick={() => void config.refetch()}>{t('retry')}</Button>}
        />
      </Card>
    );
  if (config.isLoading || config.data === undefined)
    return (
      <Card data-testid="edc-page-loading">
        <Skeleton active paragraph={{ rows: 3 }} />
      </Card>
    );
  const c = config.data;
  return (
    <Space orientation="vertical" size={12} style={{ width: '100%' }} data-testid="edc-report-detail">
      <EdcConfigCard config={c} canConfig={canConfig} onSettings={() => setDrawer(true)} />
      {c ? (
        <Card>
          {banner && banner.id !== hidden ? (
            <RunBanner run={banner} canLog={canLog} onClose={() => setHidden(banner.id)} />
          ) : null}
          <Tabs
            activeKey={tab}
            onChange={(k) =>
              setParams(
                (p) => {
                  p.set('tab', k);
                  return p;
                },
                { replace: true },
              )
            }
            items={[
              {
                key: 'sites',
                label: <span data-testid="edc-tab-sites">{t('tab.sites')}</span>,
                children: <SitesTab scope={scope} poll={live} canExecute={canExecute} start={start} />,
              },
              {
                key: 'subjects',
                label: <span data-testid="edc-tab-subjects">{t('tab.subjects')}</span>,
                children: <SubjectsTab scope={scope} poll={live} canExecute={canExecute} start={start} />,
              },
              ...(canConfig
                ? [
                    {
                      key: 'mapping',
                      label: (
                        <span data-testid="edc-tab-mapping">
                          {t('tab.mapping')}
                          {mappingDirty ? <Badge status="warning" style={{ marginInlineStart: 6 }} /> : null}
                        </span>
                      ),
                      children: <MappingTab scope={scope} config={c} onDirty={onDirty} />,
                    },
                  ]
                : []),
              {
                key: 'runs',
                label: <span data-testid="edc-tab-runs">{t('tab.runs')}</span>,
                children: <RunsTab scope={scope} poll={live} canLog={canLog} />,
              },
            ]}
          />
        </Card>
      ) : null}
      {canConfig ? (
        <EdcConfigDrawer
          open={drawer}
          config={c}
          onClose={() => setDrawer(false)}
          onSaved={(next) => qc.setQueryData(edcConfigQuery(scope).queryKey, next)}
        />
      ) : null}
    </Space>
  );
}

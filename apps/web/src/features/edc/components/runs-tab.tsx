import { Alert, Button, Progress, Space, Typography } from 'antd';
import type { TableColumnsType } from 'antd';
import { FileSearchOutlined, ReloadOutlined } from '@ant-design/icons';
import { useQuery } from '@tanstack/react-query';
import { Link } from 'react-router';
import { useTranslation } from 'react-i18next';
import type { EdcRunView } from '@esource/shared';
import { PagedTable, usePaging } from '../../../components/paged-table';
import { useSession } from '../../session';
import { edcRunsQuery, edcSitesQuery, isLiveRun } from '../api/edc-api';
import { RunStatusTag, fmtTime } from './sync-bits';

type Scope = { env: string; projectId: number | null };

/** The link to the EDC log of one run (dataReport, its log tab filtered by the run). */
export const runLogPath = (runId: number) => `/project/dataReport?tab=edcLog&runId=${runId}`;

/** "The study", "Site 01 Peking …", "One subject" (the site's name from the site list, when it is there). */
function useScopeText() {
  const { t } = useTranslation('edc');
  const env = useSession((s) => s.env);
  const projectId = useSession((s) => s.project?.id ?? null);
  const sites = useQuery(edcSitesQuery({ env, projectId }, false));
  return (r: EdcRunView) => {
    if (r.scope !== 'site') return t(`scope.${r.scope}`);
    const s = sites.data?.find((x) => x.siteId === r.scopeId);
    return s ? `${t('scope.site')} ${s.siteNo} ${s.siteName}` : t('scope.site');
  };
}

function Counts({ r }: { r: EdcRunView }) {
  const { t } = useTranslation('edc');
  if (!r.counts) return <Typography.Text type="secondary">—</Typography.Text>;
  const c = r.counts;
  return (
    <Space size={[10, 0]} wrap style={{ fontSize: 12 }} data-testid={`edc-run-counts-${r.id}`}>
      <span>{t('counts.subjects', { n: c.subjects })}</span>
      <span>{t('counts.sent', { n: c.sent })}</span>
      <Typography.Text type="success" style={{ fontSize: 12 }}>
        {t('counts.synced', { n: c.synced })}
      </Typography.Text>
      <Typography.Text
        type={c.failed ? 'danger' : 'secondary'}
        style={{ fontSize: 12 }}
        data-testid={`edc-run-failed-${r.id}`}
        data-count={c.failed}
      >
        {t('counts.failed', { n: c.failed })}
      </Typography.Text>
      {c.conflicts ? (
        <Typography.Text type="warning" style={{ fontSize: 12 }}>
          {t('counts.conflicts', { n: c.conflicts })}
        </Typography.Text>
      ) : null}
      {c.removed ? (
        <span data-testid={`edc-run-removed-${r.id}`} data-count={c.removed}>
          {t('counts.removed', { n: c.removed })}
        </span>
      ) : null}
      <Typography.Text type="secondary" style={{ fontSize: 12 }}>
        {t('counts.unchanged', { n: c.unchanged })}
      </Typography.Text>
    </Space>
  );
}

/** The sync runs, newest first: trigger, who, counts, state, error; each links to its log. */
export function RunsTab({ scope, poll, canLog }: { scope: Scope; poll: boolean; canLog: boolean }) {
  const { t } = useTranslation('edc');
  const paging = usePaging();
  const { pageNumber, pageSize } = paging;
  const q = useQuery(edcRunsQuery(scope, pageNumber, pageSize, poll));
  const scopeText = useScopeText();
  const columns: TableColumnsType<EdcRunView> = [
    { title: t('col.run'), key: 'id', dataIndex: 'id', width: 70, render: (v: number) => `#${v}` },
    { title: t('col.started'), key: 'created', width: 170, render: (_: unknown, r) => fmtTime(r.createTime) },
    { title: t('col.scope'), key: 'scope', width: 150, render: (_: unknown, r) => scopeText(r) },
    {
      title: t('col.trigger'),
      key: 'trigger',
      width: 110,
      render: (_: unknown, r) => t(`trigger.${r.trigger}`),
    },
    {
      title: t('col.by'),
      key: 'by',
      width: 130,
      ellipsis: true,
      render: (_: unknown, r) => r.startedByName ?? (r.trigger === 'schedule' ? t('trigger.schedule') : '—'),
    },
    {
      title: t('col.status'),
      key: 'status',
      width: 140,
      render: (_: unknown, r) => <RunStatusTag status={r.status} testId={`edc-run-status-${r.id}`} />,
    },
    { title: t('col.counts'), key: 'counts', width: 300, render: (_: unknown, r) => <Counts r={r} /> },
    {
      title: t('col.error'),
      key: 'error',
      render: (_: unknown, r) =>
        r.error ? (
          <Typography.Paragraph
            type="danger"
            ellipsis={{ rows: 2, expandable: 'collapsible' }}
            style={{ marginBottom: 0, overflowWrap: 'anywhere' }}
          >
            {r.error}
          </Typography.Paragraph>
        ) : (
          '—'
        ),
    },
    {
      title: t('col.finished'),
      key: 'finished',
      width: 170,
      render: (_: unknown, r) => fmtTime(r.finishTime),
    },
    ...(canLog
      ? [
          {
            title: '',
            key: 'log',
            width: 110,
            fixed: 'right' as const,
            render: (_: unknown, r: EdcRunView) => (
              <Link to={runLogPath(r.id)} data-testid={`edc-run-log-${r.id}`}>
                <FileSearchOutlined /> {t('runs.log')}
              </Link>
            ),
          },
        ]
      : []),
  ];
  return (
    <div data-testid="edc-runs">
      <div style={{ display: 'flex', marginBottom: 12 }}>
        <span style={{ flex: 1 }} />
        <Button icon={<ReloadOutlined />} onClick={() => void q.refetch()}>
          {t('refresh')}
        </Button>
      </div>
      <PagedTable<EdcRunView>
        rowKey="id"
        query={q}
        page={pageNumber}
        pageSize={pageSize}
        onPage={paging.onPage}
        columns={columns}
        empty={t('runs.empty')}
        texts={{ loadFailed: t('loadFailed'), retry: t('retry'), total: (n) => t('total', { count: n }) }}
        data-testid="edc-runs-table"
      />
    </div>
  );
}

/** The run just started (or one still running): its state, updated while the lists poll. */
export function RunBanner({
  run,
  canLog,
  onClose,
}: {
  run: EdcRunView;
  canLog: boolean;
  onClose: () => void;
}) {
  const { t } = useTranslation('edc');
  const scopeText = useScopeText();
  const live = isLiveRun(run);
  const c = run.counts;
  return (
    <Alert
      type={live ? 'info' : run.status === 2 ? 'success' : 'error'}
      showIcon
      closable={{ onClose }}
      style={{ marginBottom: 12 }}
      data-testid="edc-run-banner"
      data-status={run.status}
      title={
        <Space size={8} wrap>
          <span>{t('runs.banner', { id: run.id, scope: scopeText(run) })}</span>
          <RunStatusTag status={run.status} testId="edc-run-banner-status" />
        </Space>
      }
      description={
        <Space orientation="vertical" size={4} style={{ width: '100%' }}>
          {live ? (
            <Progress
              percent={100}
              status="active"
              showInfo={false}
              size="small"
              style={{ maxWidth: 360, margin: 0 }}
            />
          ) : null}
          {live ? <Typography.Text type="secondary">{t('runs.polling')}</Typography.Text> : null}
          {c ? <Counts r={run} /> : null}
          {run.error ? <Typography.Text type="danger">{run.error}</Typography.Text> : null}
          {!live && canLog ? (
            <Link to={runLogPath(run.id)} data-testid="edc-run-banner-log">
              {t('runs.log')}
            </Link>
          ) : null}
        </Space>
      }
    />
  );
}

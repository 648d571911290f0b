import { Card, Col, Descriptions, Empty, Result, Row, Skeleton, Space, Statistic, Tag, Typography } from 'antd';
import { useQuery } from '@tanstack/react-query';
import { Link, useSearchParams } from 'react-router';
import { useTranslation } from 'react-i18next';
import { LIMITS, SOURCE_DOC_TYPES } from '@esource/shared';
import { useSession } from '../../session';
import { gatherPtsQuery } from '../api/sources-api';
import { LatestExtraction } from '../components/latest-extraction';
import { RunExtractionButton } from '../components/run-extraction';
import { fmtTime, TaskTable } from '../components/task-table';
import { idParam } from './source-data-page';
import '../sources.css';

/**
 * /project/SickFile/gatherPtsData/detail?ptsId=: a subject's data acquisition — records by document type, the
 * connections of their site, matched hospital patients, and every extraction task (trigger, status, times, what
 * it stored and skipped, the failure reason) with a link to each task's detail.
 */
export default function GatherPtsPage() {
  const { t } = useTranslation('sources');
  const env = useSession((s) => s.env);
  const projectId = useSession((s) => s.project?.id ?? null);
  const [params] = useSearchParams();
  const ptsId = idParam(params.get('ptsId'));
  const q = useQuery(gatherPtsQuery({ env, projectId }, ptsId));
  if (ptsId === null)
    return <Result status="info" title={t('data.noSubject')} subTitle={t('data.noSubjectHint')} />;
  if (q.isError)
    return (
      <Result status="403" title={t('data.unavailable')} subTitle={q.error.message} data-testid="gather-unavailable" />
    );
  if (!q.data) return <Skeleton active />;
  const d = q.data;
  return (
    <div data-testid="gather-pts-page">
      <Card size="small">
        <div className="source-head">
          <Descriptions
            size="small"
            column={{ xs: 1, md: 3 }}
            title={
              <Space>
                <span data-testid="gather-subject-no">{d.ptsNo}</span>
                <Link to={`/project/sourceData?ptsId=${d.ptsId}`} style={{ fontWeight: 400 }} data-testid="to-source-data">
                  {t('gather.toSourceData')}
                </Link>
              </Space>
            }
            extra={<RunExtractionButton ptsId={d.ptsId} />}
            style={{ flex: 1 }}
            items={[
              { key: 'site', label: t('col.site'), children: d.siteName },
              { key: 'patients', label: t('gather.sourcePatients'), children: d.sourcePatients },
              { key: 'last', label: t('gather.lastExtract'), children: fmtTime(d.lastExtractTime) },
              {
                key: 'connections',
                label: t('gather.connections'),
                span: 'filled',
                children: d.connections.length ? (
                  <Space size={[4, 4]} wrap>
                    {d.connections.map((c) => (
                      <Tag key={c.id} color={c.enabled ? 'blue' : 'default'}>
                        {c.name} · {t(`kind.${c.kind}`)}
                        {c.enabled ? '' : ` (${t('conn.disabled')})`}
                      </Tag>
                    ))}
                  </Space>
                ) : (
                  <Typography.Text type="secondary">{t('gather.noConnections')}</Typography.Text>
                ),
              },
            ]}
          />
        </div>
        <LatestExtraction ptsId={d.ptsId} />
      </Card>
      <Card size="small" title={t('gather.byType')} style={{ marginTop: 12 }}>
        <Row gutter={[12, 12]} data-testid="gather-types">
          {SOURCE_DOC_TYPES.map((k, i) => {
            const c = d.types.find((x) => x.docType === i + 1);
            return (
              <Col key={k} xs={12} md={6} xxl={3}>
                <Link to={`/project/sourceData?ptsId=${d.ptsId}&docType=${i + 1}`}>
                  <Statistic
                    title={t(`docType.${k}`)}
                    value={c?.count ?? 0}
                    suffix={c?.changed ? <Tag color="orange">{t('gather.changed', { count: c.changed })}</Tag> : null}
                  />
                </Link>
                <Typography.Text type="secondary" style={{ fontSize: 12 }}>
                  {c?.latestDate ? t('gather.latest', { date: c.latestDate }) : '\u00a0'}
                </Typography.Text>
              </Col>
            );
          })}
        </Row>
      </Card>
      <Card size="small" title={t('gather.tasks')} style={{ marginTop: 12 }}>
        <TaskTable
          tasks={d.tasks}
          data-testid="gather-tasks"
          locale={{ emptyText: <Empty image={Empty.PRESENTED_IMAGE_SIMPLE} description={t('gather.noTasks')} /> }}
        />
        {d.tasks.length >= LIMITS.gatherTasksShown ? (
          <Typography.Paragraph type="secondary" style={{ marginTop: 8 }} data-testid="gather-tasks-capped">
            {t('gather.tasksCapped', { n: LIMITS.gatherTasksShown })} <Link to="/project/reports">{t('gather.allTasks')}</Link>
          </Typography.Paragraph>
        ) : null}
      </Card>
    </div>
  );
}

import { useState } from 'react';
import { Alert, Button, Card, Descriptions, Empty, Result, Skeleton, Space, Table, Tag } from 'antd';
import { useQuery } from '@tanstack/react-query';
import { Link, useSearchParams } from 'react-router';
import { useTranslation } from 'react-i18next';
import { LIMITS, TASK_STATUS, type GatherDataDetail } from '@esource/shared';
import { useSession } from '../../session';
import { gatherTaskQuery } from '../api/sources-api';
import { RecordDrawer } from '../components/record-drawer';
import { DocTypeTag, TaskStats, TaskStatusTag } from '../components/source-tags';
import { fmtTime } from '../components/task-table';
import { docTypeKey, formatValue, skippedEntries } from '../source-logic';
import { idParam } from './source-data-page';
import { ExtractReport } from '../components/reports';
import '../sources.css';

type TaskRecord = GatherDataDetail['records'][number];

/**
 * /project/gatherData/detail?taskId=: one extraction task — trigger, window, status, times, what it read, stored,
 * changed and skipped (by reason, by document type, by resource type), its failure reason, and the records it
 * created or changed. Without taskId: the project's extraction tasks (the extract report's list).
 */
export default function GatherTaskPage() {
  const { t } = useTranslation('sources');
  const [params] = useSearchParams();
  const taskId = idParam(params.get('taskId'));
  if (taskId === null)
    return (
      <Card size="small" title={t('gather.projectTasks')} data-testid="gather-tasks-page">
        <ExtractReport />
      </Card>
    );
  return <TaskDetail taskId={taskId} />;
}

function TaskDetail({ taskId }: { taskId: number }) {
  const { t } = useTranslation('sources');
  const env = useSession((s) => s.env);
  const projectId = useSession((s) => s.project?.id ?? null);
  const q = useQuery(gatherTaskQuery({ env, projectId }, taskId));
  const [open, setOpen] = useState<number | null>(null);
  if (q.isError)
    return <Result status="403" title={t('gather.taskUnavailable')} subTitle={q.error.message} data-testid="task-unavailable" />;
  if (!q.data) return <Skeleton active />;
  const { task, records } = q.data;
  const s = task.stats;
  const failed = task.status === TASK_STATUS.failed || task.status === TASK_STATUS.cancelled;
  const kv = (o: Record<string, number> | undefined, label: (k: string) => string) => {
    const e = Object.entries(o ?? {}).filter(([, n]) => n > 0);
    return e.length ? (
      <Space size={[6, 4]} wrap className="source-kv">
        {e.map(([k, n]) => (
          <Tag key={k}>
            {label(k)}: {n}
          </Tag>
        ))}
      </Space>
    ) : (
      '—'
    );
  };
  return (
    <div data-testid="gather-task-page">
      <Card size="small">
        <Descriptions
          size="small"
          column={{ xs: 1, sm: 2, lg: 3 }}
          title={
            <Space>
              <span>{t('gather.taskTitle', { id: task.id })}</span>
              <TaskStatusTag status={task.status} />
            </Space>
          }
          extra={
            task.ptsId ? (
              <Space>
                <Link to={`/project/SickFile/gatherPtsData/detail?ptsId=${task.ptsId}`}>{t('gather.subjectTasks')}</Link>
                <Link to={`/project/sourceData?ptsId=${task.ptsId}`}>{t('gather.toSourceData')}</Link>
              </Space>
            ) : null
          }
          items={[
            { key: 'subject', label: t('col.subject'), children: task.ptsNo ?? t('task.allSubjects') },
            { key: 'site', label: t('col.site'), children: task.siteName ?? '—' },
            { key: 'connection', label: t('col.connection'), children: task.connectionName ?? t('task.allConnections') },
            { key: 'trigger', label: t('task.trigger'), children: t(`trigger.${task.trigger}`, { defaultValue: task.trigger }) },
            {
              key: 'window',
              label: t('task.window'),
              children: task.dateFrom || task.dateTo ? `${task.dateFrom ?? '…'} ~ ${task.dateTo ?? '…'}` : t('task.anyDate'),
            },
            { key: 'by', label: t('task.createdBy'), children: task.createdBy ?? t('task.system') },
            { key: 'created', label: t('task.created'), children: fmtTime(task.createTime) },
            { key: 'started', label: t('task.started'), children: fmtTime(task.startTime) },
            { key: 'finished', label: t('task.finished'), children: fmtTime(task.finishTime) },
            {
              key: 'progress',
              label: t('task.progress'),
              children: task.total > 0 ? `${task.done}/${task.total}` : '—',
            },
            { key: 'read', label: t('stats.read'), children: s.read ?? 0 },
            { key: 'result', label: t('task.result'), children: <TaskStats stats={s} /> },
            {
              key: 'patients',
              label: t('stats.patients'),
              children: t('stats.patientsValue', { matched: s.patientsMatched ?? 0, queued: s.patientsQueued ?? 0 }),
            },
            {
              key: 'skipped',
              label: t('stats.skippedBy'),
              span: 3,
              children: skippedEntries(s.skipped).length
                ? kv(s.skipped, (k) => t(`skip.${k}`, { defaultValue: k }))
                : t('stats.noneSkipped'),
            },
            {
              key: 'byDoc',
              label: t('stats.byDocType'),
              span: 3,
              children: kv(s.byDocType, (k) => {
                const key = docTypeKey(Number(k));
                return key ? t(`docType.${key}`) : k;
              }),
            },
            { key: 'byRes', label: t('stats.byResourceType'), span: 3, children: kv(s.byResourceType, (k) => k) },
          ]}
        />
        {failed ? (
          <Alert
            type="error"
            showIcon
            data-testid="task-error"
            title={task.errorMessage ?? t('latest.failed')}
            description={task.errorDetail ? <div style={{ whiteSpace: 'pre-wrap' }}>{task.errorDetail}</div> : undefined}
          />
        ) : null}
      </Card>
      <Card size="small" title={records.length >= 200 ? t('gather.recordsCapped', { count: records.length }) : t('gather.records', { count: records.length })} style={{ marginTop: 12 }}>
        <Table<TaskRecord>
          size="middle"
          rowKey={(r) => `${r.id}-${r.version}`}
          tableLayout="fixed"
          scroll={{ x: 1000 }}
          dataSource={records}
          data-testid="task-records"
          pagination={{ pageSize: LIMITS.defaultPageSize, hideOnSinglePage: true, showSizeChanger: false }}
          locale={{ emptyText: <Empty image={Empty.PRESENTED_IMAGE_SIMPLE} description={t('gather.noRecords')} /> }}
          columns={[
            { title: t('col.docType'), dataIndex: 'docType', width: 130, render: (d: number) => <DocTypeTag docType={d} /> },
            {
              title: t('col.display'),
              key: 'display',
              render: (_: unknown, r) => (
                <Button type="link" style={{ padding: 0, height: 'auto', whiteSpace: 'normal', textAlign: 'start' }} onClick={() => setOpen(r.id)}>
                  {r.display ?? r.code ?? r.resourceType}
                </Button>
              ),
            },
            { title: t('col.code'), dataIndex: 'code', width: 130, ellipsis: true, render: (v: string | null) => v ?? '—' },
            { title: t('col.value'), key: 'value', width: 160, render: (_: unknown, r) => formatValue(r) },
            { title: t('col.date'), dataIndex: 'effectiveDate', width: 120, render: (v: string | null) => v ?? '—' },
            {
              title: t('record.change'),
              key: 'change',
              width: 130,
              render: (_: unknown, r) => (
                <Tag color={r.changeKind === 'updated' ? 'orange' : r.changeKind === 'created' ? 'green' : 'default'}>
                  {t(`changeKind.${r.changeKind}`, { defaultValue: r.changeKind })} v{r.version}
                </Tag>
              ),
            },
          ]}
        />
      </Card>
      <RecordDrawer id={open} onClose={() => setOpen(null)} />
    </div>
  );
}

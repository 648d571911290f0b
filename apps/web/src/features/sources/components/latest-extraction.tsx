import { useEffect, useRef, useState } from 'react';
import { Alert, App, Button, Progress, Space, Typography } from 'antd';
import { ReloadOutlined } from '@ant-design/icons';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { Link } from 'react-router';
import { useTranslation } from 'react-i18next';
import dayjs from 'dayjs';
import { TASK_STATUS } from '@esource/shared';
import { usePms, useSession } from '../../session';
import { afterSourceChange, processBarQuery, sourcesApi } from '../api/sources-api';
import { isLive } from '../source-logic';
import { TaskStats, TaskStatusTag } from './source-tags';

/**
 * The subject's latest extraction (POST /project/manage/queryProcessBar, polled while it runs): status, progress,
 * what it stored, and — when it failed — the translated reason with Retry (source:extract:execute).
 */
export function LatestExtraction({ ptsId }: { ptsId: number }) {
  const { t } = useTranslation('sources');
  const { message } = App.useApp();
  const has = usePms();
  const qc = useQueryClient();
  const env = useSession((s) => s.env);
  const projectId = useSession((s) => s.project?.id ?? null);
  const q = useQuery(processBarQuery({ env, projectId }, ptsId));
  const [busy, setBusy] = useState(false);
  const task = q.data?.task;
  const running = Boolean(q.data && (q.data.running || (task && isLive(task.status))));
  // when a task's state changes to an end (done, failed, cancelled), the records, counts and task lists change:
  // refresh them once (also when the run was too quick to be seen running)
  const seen = useRef<string | null>(null);
  const state = q.data ? (task ? `${task.id}:${task.status}` : 'none') : null;
  useEffect(() => {
    if (seen.current !== null && state !== null && state !== seen.current && task && !isLive(task.status)) {
      void afterSourceChange(qc);
    }
    if (state !== null) seen.current = state;
  }, [state, task, qc]);
  if (q.isError) return <Alert type="warning" showIcon title={t('latest.loadFailed')} description={q.error.message} />;
  if (!q.data) return null;
  if (!task) {
    return (
      <Typography.Text type="secondary" data-testid="latest-none">
        {t('latest.none')}
      </Typography.Text>
    );
  }
  const retry = async () => {
    setBusy(true);
    try {
      await sourcesApi.updatePtsTask(task.id, 'retry');
      void message.success(t('run.queued'));
      await afterSourceChange(qc);
    } catch (e) {
      void message.error(e instanceof Error ? e.message : String(e));
    } finally {
      setBusy(false);
    }
  };
  const failed = task.status === TASK_STATUS.failed || task.status === TASK_STATUS.cancelled;
  return (
    <div data-testid="latest-extraction">
      <Space wrap size={[12, 4]} align="center">
        <Typography.Text strong>{t('latest.title')}</Typography.Text>
        <TaskStatusTag status={task.status} />
        {running ? (
          <Progress
            percent={q.data.percent}
            size="small"
            style={{ width: 160, margin: 0 }}
            data-testid="latest-progress"
          />
        ) : null}
        <Typography.Text type="secondary">
          {t('latest.when', {
            time: dayjs(task.finishTime ?? task.startTime ?? task.createTime).format('YYYY-MM-DD HH:mm'),
          })}
        </Typography.Text>
        {task.status === TASK_STATUS.done ? <TaskStats stats={task.stats} /> : null}
        <Link to={`/project/gatherData/detail?taskId=${task.id}`} data-testid="latest-task-link">
          {t('latest.details')}
        </Link>
      </Space>
      {failed ? (
        <Alert
          style={{ marginTop: 8 }}
          type="error"
          showIcon
          data-testid="latest-error"
          title={task.errorMessage ?? t('latest.failed')}
          description={task.errorDetail ?? undefined}
          action={
            has('source:extract:execute') ? (
              <Button size="small" icon={<ReloadOutlined />} loading={busy} onClick={() => void retry()} data-testid="latest-retry">
                {t('retryTask')}
              </Button>
            ) : null
          }
        />
      ) : null}
    </div>
  );
}

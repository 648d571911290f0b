import { useState } from 'react';
import { App, Button, Popconfirm, Space, Table, Typography } from 'antd';
import type { TableColumnsType, TableProps } from 'antd';
import { useQueryClient } from '@tanstack/react-query';
import { Link } from 'react-router';
import { useTranslation } from 'react-i18next';
import dayjs from 'dayjs';
import { TASK_STATUS, type TaskView } from '@esource/shared';
import { usePms } from '../../session';
import { afterSourceChange, sourcesApi } from '../api/sources-api';
import { isLive } from '../source-logic';
import { TaskStats, TaskStatusTag } from './source-tags';

export const fmtTime = (v: string | null) => (v ? dayjs(v).format('YYYY-MM-DD HH:mm:ss') : '—');

/** The columns of an extraction-task list (the subject's acquisition page, the project's list, the extract report). */
export function useTaskColumns(o: { subject: boolean }): TableColumnsType<TaskView> {
  const { t } = useTranslation('sources');
  const { message } = App.useApp();
  const has = usePms();
  const qc = useQueryClient();
  const [busy, setBusy] = useState<number | null>(null);
  const act = async (task: TaskView, action: 'cancel' | 'retry') => {
    setBusy(task.id);
    try {
      await sourcesApi.updatePtsTask(task.id, action);
      void message.success(t(action === 'retry' ? 'run.queued' : 'task.cancelled'));
      await afterSourceChange(qc);
    } catch (e) {
      void message.error(e instanceof Error ? e.message : String(e));
    } finally {
      setBusy(null);
    }
  };
  const canRun = has('source:extract:execute');
  return [
    {
      title: t('task.id'),
      dataIndex: 'id',
      width: 80,
      render: (id: number) => (
        <Link to={`/project/gatherData/detail?taskId=${id}`} data-testid={`task-link-${id}`}>
          #{id}
        </Link>
      ),
    },
    ...(o.subject
      ? []
      : [
          {
            title: t('col.subject'),
            key: 'subject',
            width: 140,
            ellipsis: true,
            render: (_: unknown, r: TaskView) =>
              r.ptsId ? (
                <Link to={`/project/sourceData?ptsId=${r.ptsId}`}>{r.ptsNo ?? r.ptsId}</Link>
              ) : (
                <Typography.Text type="secondary">{t('task.allSubjects')}</Typography.Text>
              ),
          },
          { title: t('col.site'), dataIndex: 'siteName', width: 160, ellipsis: true, render: (v: string | null) => v ?? '—' },
        ]),
    {
      title: t('task.trigger'),
      dataIndex: 'trigger',
      width: 110,
      render: (v: string) => t(`trigger.${v}`, { defaultValue: v }),
    },
    {
      title: t('col.connection'),
      dataIndex: 'connectionName',
      width: 160,
      ellipsis: true,
      render: (v: string | null) => v ?? t('task.allConnections'),
    },
    {
      title: t('task.window'),
      key: 'window',
      width: 190,
      render: (_: unknown, r) => (r.dateFrom || r.dateTo ? `${r.dateFrom ?? '…'} ~ ${r.dateTo ?? '…'}` : t('task.anyDate')),
    },
    {
      title: t('col.status'),
      dataIndex: 'status',
      width: 110,
      render: (s: number, r) => (
        <Space size={4}>
          <TaskStatusTag status={s} />
          {s === TASK_STATUS.running && r.total > 0 ? (
            <Typography.Text type="secondary">
              {r.done}/{r.total}
            </Typography.Text>
          ) : null}
        </Space>
      ),
    },
    { title: t('task.started'), dataIndex: 'startTime', width: 170, render: fmtTime },
    { title: t('task.finished'), dataIndex: 'finishTime', width: 170, render: fmtTime },
    {
      title: t('task.result'),
      key: 'result',
      width: 320,
      render: (_: unknown, r) =>
        r.status === TASK_STATUS.failed || r.status === TASK_STATUS.cancelled ? (
          <Typography.Text type="danger" data-testid={`task-error-${r.id}`}>
            {r.errorMessage ?? t('latest.failed')}
          </Typography.Text>
        ) : r.status === TASK_STATUS.done ? (
          <TaskStats stats={r.stats} />
        ) : (
          '—'
        ),
    },
    ...(canRun
      ? [
          {
            title: t('actions'),
            key: 'actions',
            width: 110,
            fixed: 'right' as const,
            render: (_: unknown, r: TaskView) =>
              isLive(r.status) ? (
                <Popconfirm title={t('task.cancelConfirm')} onConfirm={() => void act(r, 'cancel')} okText={t('ok')} cancelText={t('cancel')}>
                  <Button size="small" type="link" danger loading={busy === r.id} data-testid={`task-cancel-${r.id}`}>
                    {t('task.cancel')}
                  </Button>
                </Popconfirm>
              ) : r.status === TASK_STATUS.failed || r.status === TASK_STATUS.cancelled ? (
                <Button size="small" type="link" loading={busy === r.id} onClick={() => void act(r, 'retry')} data-testid={`task-retry-${r.id}`}>
                  {t('retryTask')}
                </Button>
              ) : null,
          },
        ]
      : []),
  ];
}

/** An unpaged task list (the subject's tasks). */
export function TaskTable({ tasks, ...rest }: { tasks: TaskView[] } & Omit<TableProps<TaskView>, 'columns' | 'dataSource'>) {
  const columns = useTaskColumns({ subject: true });
  return (
    <Table<TaskView>
      size="middle"
      rowKey="id"
      tableLayout="fixed"
      scroll={{ x: 1300 }}
      columns={columns}
      dataSource={tasks}
      pagination={false}
      {...rest}
    />
  );
}

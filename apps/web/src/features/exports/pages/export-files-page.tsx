import { App, Button, Card, Popconfirm, Progress, Space, Tag, Tooltip, Typography } from 'antd';
import { DeleteOutlined, DownloadOutlined, ReloadOutlined } from '@ant-design/icons';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useTranslation } from 'react-i18next';
import dayjs from 'dayjs';
import type { ExportFileView } from '@esource/shared';
import { PagedTable, usePaging } from '../../../components/paged-table';
import { usePms, useSession } from '../../session';
import { StudyExportButton } from '../components/study-export';
import { exportListQuery, exportsApi, exportsKey, isLive } from '../api/exports-api';

const STATUS_COLOR: Record<ExportFileView['status'], string> = {
  queued: 'default',
  running: 'processing',
  done: 'success',
  failed: 'error',
};

/** 1.2 MB, 340 KB … */
export function fileSize(bytes: number | null): string {
  if (bytes === null) return '—';
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(0)} KB`;
  return `${(bytes / 1024 / 1024).toFixed(1)} MB`;
}

/**
 * /project/exportFiles: the caller's generated files in this project and environment (casebooks now, study exports
 * later): what, status with progress, size, when; download when done, delete. Polled while one is being made.
 */
export default function ExportFilesPage() {
  const { t } = useTranslation('exports');
  const { message } = App.useApp();
  const env = useSession((s) => s.env);
  const projectId = useSession((s) => s.project?.id ?? null);
  const qc = useQueryClient();
  const has = usePms();
  // a failed load offers a retry (not "no files"); a new page size starts at page 1
  const paging = usePaging();
  const q = useQuery(exportListQuery({ env, projectId }, paging.pageNumber, paging.pageSize));
  const remove = async (f: ExportFileView) => {
    await exportsApi.remove(f.id);
    void message.success(t('deleted', { name: f.fileName }));
    await qc.invalidateQueries({ queryKey: exportsKey });
  };
  return (
    <Card data-testid="export-files-page">
      <div style={{ display: 'flex', alignItems: 'flex-start', justifyContent: 'space-between', gap: 16 }}>
        <Typography.Paragraph type="secondary">{t('page.hint')}</Typography.Paragraph>
        <Space>
          {has('crf:result:export') ? <StudyExportButton /> : null}
          <Button icon={<ReloadOutlined />} onClick={() => void q.refetch()} data-testid="exports-refresh">
            {t('refresh')}
          </Button>
        </Space>
      </div>
      <PagedTable<ExportFileView>
        rowKey="id"
        size="small"
        // polled while a file is being made: the spinner only for the first load, not every poll
        query={{ ...q, isFetching: q.isLoading }}
        page={paging.pageNumber}
        pageSize={paging.pageSize}
        onPage={paging.onPage}
        empty={t('page.empty')}
        texts={{
          loadFailed: t('page.loadFailed'),
          retry: t('page.retry'),
          total: (n) => t('page.total', { count: n }),
        }}
        data-testid="export-files"
        columns={[
          {
            title: t('col.file'),
            key: 'file',
            render: (_: unknown, f) => (
              <Space orientation="vertical" size={0}>
                <Typography.Text strong>{f.fileName}</Typography.Text>
                <Typography.Text type="secondary" style={{ fontSize: 12 }}>
                  {t(`kind.${f.kind}`)} · {f.title}
                  {f.kind === 'casebook'
                    ? ` · ${t(`print.${String(f.params.mode) === 'blank' ? 'blank' : 'filled'}`)}`
                    : ''}
                </Typography.Text>
              </Space>
            ),
          },
          {
            title: t('col.status'),
            key: 'status',
            width: 170,
            render: (_: unknown, f) =>
              isLive(f) ? (
                <Space orientation="vertical" size={0} style={{ width: '100%' }}>
                  <Tag color={STATUS_COLOR[f.status]}>{t(`status.${f.status}`)}</Tag>
                  <Progress size="small" percent={f.progress} />
                </Space>
              ) : f.status === 'failed' ? (
                <Tooltip title={f.errorMessage}>
                  <Tag color="error" data-testid={`export-status-${f.id}`}>
                    {t('status.failed')}
                  </Tag>
                </Tooltip>
              ) : (
                <Tag color={STATUS_COLOR[f.status]} data-testid={`export-status-${f.id}`}>
                  {t(`status.${f.status}`)}
                </Tag>
              ),
          },
          { title: t('col.size'), dataIndex: 'size', width: 90, render: (v: number | null) => fileSize(v) },
          {
            title: t('col.created'),
            dataIndex: 'createTime',
            width: 150,
            render: (v: string) => dayjs(v).format('YYYY-MM-DD HH:mm'),
          },
          {
            title: t('col.finished'),
            dataIndex: 'finishTime',
            width: 150,
            render: (v: string | null) => (v ? dayjs(v).format('YYYY-MM-DD HH:mm') : '—'),
          },
          {
            title: t('col.actions'),
            key: 'actions',
            width: 230,
            render: (_: unknown, f) => (
              <Space size={4}>
                <Button
                  size="small"
                  type="link"
                  icon={<DownloadOutlined />}
                  disabled={f.status !== 'done'}
                  onClick={() => void exportsApi.download(f)}
                  data-testid={`export-download-${f.id}`}
                >
                  {t('download')}
                </Button>
                <Popconfirm
                  title={t('deleteConfirm', { name: f.fileName })}
                  onConfirm={() => void remove(f)}
                  okText={t('delete')}
                  cancelText={t('cancel')}
                >
                  <Button
                    size="small"
                    type="link"
                    danger
                    icon={<DeleteOutlined />}
                    data-testid={`export-delete-${f.id}`}
                  >
                    {t('delete')}
                  </Button>
                </Popconfirm>
              </Space>
            ),
          },
        ]}
      />
    </Card>
  );
}

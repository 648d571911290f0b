import { useState } from 'react';
import { App, Button, Space, Table, Tag, Typography } from 'antd';
import type { TableColumnsType } from 'antd';
import { FilePdfOutlined } from '@ant-design/icons';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { Link } from 'react-router';
import { useTranslation } from 'react-i18next';
import dayjs from 'dayjs';
import type { IsfKindView, SourceFileView } from '@esource/shared';
import { usePms } from '../../session';
import { ReasonDialog } from '../../subjects';
import { FileStatusTag, fmtSize, reviewPath } from '../../documents';
import { afterIsfChange, isfApi, versionsQuery } from '../api/isf-api';

/** Every version of one document at one site, newest first: open, and (data manager) remove with a reason. */
export function VersionsTable({ kind, siteId }: { kind: IsfKindView; siteId: number }) {
  const { t } = useTranslation('isf');
  const has = usePms();
  const { message } = App.useApp();
  const qc = useQueryClient();
  const q = useQuery(versionsQuery(kind.id, siteId));
  const [removing, setRemoving] = useState<SourceFileView | null>(null);
  const columns: TableColumnsType<SourceFileView> = [
    { title: t('col.version'), key: 'v', width: 90, render: (_: unknown, r) => <Tag>{t('versionNo', { n: r.isfVersion })}</Tag> },
    {
      title: t('col.file'),
      key: 'file',
      ellipsis: true,
      render: (_: unknown, r) => (
        <Space size={4}>
          {r.kind === 'pdf' ? <FilePdfOutlined /> : null}
          <Link to={reviewPath(r)} data-testid={`isf-version-${r.id}`}>
            {r.fileName}
          </Link>
        </Space>
      ),
    },
    { title: t('col.size'), key: 'size', dataIndex: 'size', width: 100, render: fmtSize },
    {
      title: t('col.state'),
      key: 'status',
      width: 240,
      render: (_: unknown, r) => (
        <Space orientation="vertical" size={0}>
          <FileStatusTag status={r.status} />
          {r.reason || r.errorMessage ? (
            <Typography.Text type="danger" ellipsis={{ tooltip: r.reason ?? r.errorMessage }} style={{ maxWidth: 220, fontSize: 12 }}>
              {r.reason ?? r.errorMessage}
            </Typography.Text>
          ) : null}
        </Space>
      ),
    },
    { title: t('col.uploadedBy'), key: 'by', dataIndex: 'createdBy', width: 140, ellipsis: true },
    { title: t('col.uploaded'), key: 'time', width: 150, render: (_: unknown, r) => dayjs(r.createTime).format('YYYY-MM-DD HH:mm') },
    {
      title: t('col.actions'),
      key: 'actions',
      width: 150,
      render: (_: unknown, r) => (
        <Space size={0}>
          <Link to={reviewPath(r)}>
            <Button size="small" type="link">
              {t('action.view')}
            </Button>
          </Link>
          {has('isf:file:delete') && r.status !== 0 ? (
            <Button size="small" type="link" danger onClick={() => setRemoving(r)} data-testid={`isf-delete-${r.id}`}>
              {t('action.delete')}
            </Button>
          ) : null}
        </Space>
      ),
    },
  ];
  return (
    <div className="isf-versions">
      <Table<SourceFileView> size="small" rowKey="id" columns={columns} dataSource={q.data ?? []} loading={q.isFetching} pagination={false} data-testid={`isf-versions-${kind.id}-${siteId}`} />
      {removing ? (
        <ReasonDialog
          title={t('delete.title', { n: removing.isfVersion, kind: kind.label })}
          description={t('delete.intro')}
          okText={t('delete.ok')}
          danger
          testId="isf-delete"
          onClose={() => setRemoving(null)}
          onSubmit={async (reason) => {
            await isfApi.deleteFile(removing.id, removing.version, reason);
            void message.success(t('delete.done', { n: removing.isfVersion }));
            setRemoving(null);
            await afterIsfChange(qc);
          }}
        />
      ) : null}
    </div>
  );
}

import { useState } from 'react';
import { App, Button, Card, Input, Tag, Typography } from 'antd';
import type { TableColumnsType } from 'antd';
import { UndoOutlined } from '@ant-design/icons';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useSearchParams } from 'react-router';
import { useTranslation } from 'react-i18next';
import dayjs from 'dayjs';
import { can, LIMITS, type SubjectRow } from '@esource/shared';
import { useSession, useAccess } from '../../session';
import { recyclePageQuery, subjectsApi } from '../api/subjects-api';
import { ReasonDialog } from '../components/subject-dialogs';
import { StatusTag } from '../components/status-tag';
import { intParam } from '../subject-logic';
import { PagedTable } from '../../../components/paged-table';

/** /project/failedPtsList: deleted subjects (status 0) with the reason; restore returns them to their previous status. */
export default function RecycleBinPage() {
  const { t } = useTranslation('subjects');
  const { message } = App.useApp();
  const qc = useQueryClient();
  const env = useSession((s) => s.env);
  const projectId = useSession((s) => s.project?.id ?? null);
  const access = useAccess();
  const canRestore = Boolean(access && can(access.pms, { anyOf: ['patient:page:restore'] }));
  const [params, setParams] = useSearchParams();
  const pageNumber = intParam(params.get('pageNumber'), LIMITS.firstPage);
  const setPage = (n: number) =>
    setParams((p) => ({ ...Object.fromEntries(p), pageNumber: String(n) }), { replace: true });
  const [pageSize, setPageSize] = useState<number>(LIMITS.defaultPageSize);
  const [keyword, setKeyword] = useState('');
  const [restoring, setRestoring] = useState<SubjectRow | null>(null);
  const q = useQuery(recyclePageQuery({ env, projectId }, keyword, pageNumber, pageSize));

  const columns: TableColumnsType<SubjectRow> = [
    { title: t('col.ptsNo'), dataIndex: 'ptsNo', key: 'ptsNo', width: 130 },
    {
      title: t('col.site'),
      key: 'site',
      width: 200,
      render: (_: unknown, r) => (
        <span>
          <Tag>{r.orgNo ?? r.siteId}</Tag>
          {r.siteName}
        </span>
      ),
    },
    { title: t('col.status'), key: 'status', width: 120, render: () => <StatusTag status={0} /> },
    {
      title: t('col.deleteTime'),
      dataIndex: 'deleteTime',
      key: 'deleteTime',
      width: 160,
      render: (v: string | null) => (v ? dayjs(v).format('YYYY-MM-DD HH:mm') : '—'),
    },
    {
      title: t('col.deleteReason'),
      dataIndex: 'deleteReason',
      key: 'deleteReason',
      ellipsis: true,
      render: (v: string | null) => v ?? '—',
    },
  ];
  if (canRestore)
    columns.push({
      title: t('col.actions'),
      key: 'actions',
      width: 120,
      render: (_: unknown, r) => (
        <Button
          size="small"
          icon={<UndoOutlined />}
          onClick={() => setRestoring(r)}
          data-testid={`subject-restore-${r.ptsNo}`}
        >
          {t('restore.button')}
        </Button>
      ),
    });

  return (
    <div data-testid="recycle-bin-page">
      <Card
        size="small"
        title={
          <span>
            {t('recycle.title')} <Tag color="blue">{env}</Tag>
          </span>
        }
      >
        <Typography.Paragraph type="secondary">{t('recycle.hint')}</Typography.Paragraph>
        <Input.Search
          allowClear
          placeholder={t('filter.keyword')}
          style={{ width: 240, marginBottom: 12 }}
          onSearch={(v) => {
            setKeyword(v.trim());
            setPage(1);
          }}
          data-testid="recycle-search"
        />
        <PagedTable<SubjectRow>
          query={q}
          page={pageNumber}
          pageSize={pageSize}
          onPage={(p, s) => {
            setPage(p);
            setPageSize(s);
          }}
          empty={t('recycle.empty')}
          texts={{ loadFailed: t('loadFailed'), retry: t('retry'), total: (n) => t('total', { count: n }) }}
          rowKey="ptsId"
          columns={columns}
          data-testid="recycle-table"
        />
      </Card>
      {restoring ? (
        <ReasonDialog
          title={t('restore.title', { no: restoring.ptsNo })}
          description={t('restore.description')}
          okText={t('restore.button')}
          testId="subject-restore"
          onClose={() => setRestoring(null)}
          onSubmit={async (reason) => {
            await subjectsApi.restore(restoring.ptsId, reason);
            void message.success(t('restore.done', { no: restoring.ptsNo }));
            setRestoring(null);
            await qc.invalidateQueries({ queryKey: ['subjects'] });
          }}
        />
      ) : null}
    </div>
  );
}

import { useState } from 'react';
import { Alert, App, Button, Card, Empty, Popconfirm, Space, Table, Tag, Typography } from 'antd';
import type { TableProps } from 'antd';
import { DisconnectOutlined, LinkOutlined } from '@ant-design/icons';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useTranslation } from 'react-i18next';
import dayjs from 'dayjs';
import type { EdcLinkRow } from '@esource/shared';
import { useSession } from '../../session';
import { edcLinkApi, edcLinkKey, edcLinksQuery } from '../api/edc-link-api';
import { LinkForm } from '../components/link-form';

const ENV_COLOR: Record<string, string> = { DEV: 'default', UAT: 'orange', PRO: 'green' };
const time = (v: string | null) => (v ? dayjs(v).format('YYYY-MM-DD HH:mm') : '—');

/**
 * Associate EDC (/edc-link; the user menu, login type 1): the EDCs of every project environment the user is a
 * member of, with their own link to each. Linking asks for the user's own EDC credentials (tested at the EDC on
 * save); syncs the user starts then use them, so the EDC's audit trail names the person.
 */
export default function EdcLinkPage() {
  const { t } = useTranslation('edcLink');
  const { message } = App.useApp();
  const qc = useQueryClient();
  const userId = useSession((s) => s.user?.id ?? null);
  const q = useQuery(edcLinksQuery(userId));
  const [open, setOpen] = useState<number | null>(null);
  const unlink = useMutation({
    mutationFn: (configId: number) => edcLinkApi.remove(configId),
    onSuccess: async () => {
      void message.success(t('unlinked'));
      await qc.invalidateQueries({ queryKey: edcLinkKey });
    },
    onError: (e) => void message.error(e instanceof Error ? e.message : String(e)),
  });
  const rows = q.data ?? [];

  const columns: TableProps<EdcLinkRow>['columns'] = [
    {
      title: t('col.project'),
      key: 'project',
      render: (_: unknown, r) => (
        <Space orientation="vertical" size={0}>
          <Typography.Text strong>{r.projectNo}</Typography.Text>
          <Typography.Text type="secondary">{r.projectName}</Typography.Text>
        </Space>
      ),
    },
    {
      title: t('col.env'),
      dataIndex: 'env',
      width: 120,
      render: (e: string) => <Tag color={ENV_COLOR[e]}>{t(`env.${e}`, { defaultValue: e })}</Tag>,
    },
    {
      title: t('col.kind'),
      dataIndex: 'kind',
      width: 120,
      render: (k: number) => <Tag color="blue">{t(`kind.${k}`, { defaultValue: String(k) })}</Tag>,
    },
    {
      title: t('col.name'),
      key: 'name',
      render: (_: unknown, r) => (
        <Space size={4} wrap>
          <span>{r.name}</span>
          {r.enabled ? null : <Tag>{t('disabled')}</Tag>}
        </Space>
      ),
    },
    {
      title: t('col.address'),
      dataIndex: 'baseUrl',
      ellipsis: true,
      render: (u: string) => (
        <Typography.Text copyable style={{ overflowWrap: 'anywhere' }}>
          {u}
        </Typography.Text>
      ),
    },
    {
      title: t('col.state'),
      key: 'state',
      width: 240,
      render: (_: unknown, r) =>
        r.linked ? (
          <Space
            orientation="vertical"
            size={0}
            data-testid={`edc-link-state-${r.configId}`}
            data-linked="true"
          >
            <Tag color="green" icon={<LinkOutlined />}>
              {t('linkedAs', { login: r.login })}
            </Tag>
            <Typography.Text type="secondary" style={{ fontSize: 12 }}>
              {t('verifiedAt', { time: time(r.verifiedAt) })}
            </Typography.Text>
          </Space>
        ) : (
          <Tag data-testid={`edc-link-state-${r.configId}`} data-linked="false">
            {t('notLinked')}
          </Tag>
        ),
    },
    {
      title: t('col.actions'),
      key: 'actions',
      width: 200,
      render: (_: unknown, r) => (
        <Space size={4}>
          <Button
            type="link"
            size="small"
            icon={<LinkOutlined />}
            onClick={() => setOpen(open === r.configId ? null : r.configId)}
            data-testid={`edc-link-open-${r.configId}`}
          >
            {r.linked ? t('relink') : t('link')}
          </Button>
          {r.linked ? (
            <Popconfirm
              title={t('unlinkConfirm', { name: r.name })}
              description={t('unlinkHint')}
              okText={t('unlink')}
              cancelText={t('form.cancel')}
              okButtonProps={{ danger: true, 'data-testid': 'edc-unlink-ok' }}
              onConfirm={() => unlink.mutate(r.configId)}
            >
              <Button
                type="link"
                size="small"
                danger
                icon={<DisconnectOutlined />}
                data-testid={`edc-unlink-${r.configId}`}
              >
                {t('unlink')}
              </Button>
            </Popconfirm>
          ) : null}
        </Space>
      ),
    },
  ];

  return (
    <Card data-testid="edc-link-page">
      <Alert
        type="info"
        showIcon
        title={t('intro')}
        description={t('introMore')}
        style={{ marginBottom: 16 }}
      />
      {q.isError ? (
        <Alert
          type="error"
          showIcon
          title={q.error instanceof Error ? q.error.message : t('loadFailed')}
          style={{ marginBottom: 16 }}
          action={<Button onClick={() => void q.refetch()}>{t('retry')}</Button>}
        />
      ) : null}
      {!q.isPending && !q.isError && rows.length === 0 ? (
        <Empty
          image={Empty.PRESENTED_IMAGE_SIMPLE}
          data-testid="edc-link-empty"
          description={
            <Space orientation="vertical" size={2}>
              <Typography.Text strong>{t('empty')}</Typography.Text>
              <Typography.Text type="secondary">{t('emptyHint')}</Typography.Text>
            </Space>
          }
        />
      ) : (
        <Table<EdcLinkRow>
          rowKey="configId"
          size="middle"
          loading={q.isPending && userId !== null}
          columns={columns}
          dataSource={rows}
          pagination={false}
          scroll={{ x: 1000 }}
          data-testid="edc-link-table"
          expandable={{
            showExpandColumn: false,
            expandedRowKeys: open === null ? [] : [open],
            expandedRowRender: (r) => (
              <LinkForm key={`${r.configId}:${r.login ?? ''}`} row={r} onDone={() => setOpen(null)} />
            ),
          }}
        />
      )}
    </Card>
  );
}

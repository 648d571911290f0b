import { App, Button, Popconfirm, Space, Table, Tag, Tooltip, Typography } from 'antd';
import type { TableColumnsType } from 'antd';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useTranslation } from 'react-i18next';
import dayjs from 'dayjs';
import type { DictionaryKind, DictionaryView } from '@esource/shared';
import { afterDictionaryChange, dictionariesApi } from '../api/dictionaries-api';

const fmtTime = (v: string) => dayjs(v).format('YYYY-MM-DD HH:mm');

/**
 * The versions of one kind, newest first: the active one marked; a click shows a version's terms; an administrator
 * with the import permission may make an earlier version active again (confirmed, audited).
 */
export function VersionsTable({
  kind,
  versions,
  loading,
  selectedId,
  onSelect,
  canActivate,
}: {
  kind: DictionaryKind;
  versions: DictionaryView[];
  loading: boolean;
  selectedId: number | null;
  onSelect: (id: number) => void;
  canActivate: boolean;
}) {
  const { t } = useTranslation('dictionaries');
  const { message } = App.useApp();
  const qc = useQueryClient();
  const activate = useMutation({
    mutationFn: (id: number) => dictionariesApi.activate(id),
    onSuccess: (d) => {
      void message.success(t('activated', { version: d.version, kind: t(`kindOne.${kind}`) }));
      void afterDictionaryChange(qc);
    },
    onError: (err) => void message.error(t('actionFailed', { message: err.message })),
  });

  const columns: TableColumnsType<DictionaryView> = [
    {
      title: t('col.version'),
      key: 'version',
      width: 170,
      fixed: 'left',
      render: (_: unknown, v) => (
        <Space size={6}>
          <Typography.Text strong>{v.version}</Typography.Text>
          {v.active ? (
            <Tag color="green" data-testid={`dict-active-${v.version}`}>
              {t('active')}
            </Tag>
          ) : null}
        </Space>
      ),
    },
    { title: t('col.name'), key: 'name', dataIndex: 'name', ellipsis: { showTitle: true } },
    {
      title: t('col.terms'),
      key: 'terms',
      dataIndex: 'termCount',
      width: 90,
      align: 'right',
      render: (n: number) => n.toLocaleString(),
    },
    {
      title: t('col.source'),
      key: 'source',
      width: 220,
      render: (_: unknown, v) =>
        v.source ? (
          <Tooltip title={v.source}>
            <Typography.Text ellipsis style={{ maxWidth: 200 }}>
              {v.source}
            </Typography.Text>
          </Tooltip>
        ) : (
          '—'
        ),
    },
    {
      title: t('col.importedBy'),
      key: 'by',
      dataIndex: 'createdBy',
      width: 130,
      ellipsis: true,
      render: (v: string | null) => v ?? '—',
    },
    { title: t('col.importedAt'), key: 'at', width: 150, render: (_: unknown, v) => fmtTime(v.createTime) },
    {
      title: t('col.status'),
      key: 'status',
      width: 200,
      fixed: 'right',
      render: (_: unknown, v) => (
        <Space size={4}>
          <Button
            type="link"
            size="small"
            onClick={() => onSelect(v.id)}
            data-testid={`dict-view-${v.version}`}
          >
            {t('viewTerms')}
          </Button>
          {!v.active && canActivate ? (
            <Popconfirm
              title={t('activateConfirm', { version: v.version, kind: t(`kindOne.${kind}`) })}
              onConfirm={() => activate.mutate(v.id)}
              okButtonProps={{ 'data-testid': 'dict-activate-ok' }}
            >
              <Button
                type="link"
                size="small"
                loading={activate.isPending && activate.variables === v.id}
                data-testid={`dict-activate-${v.version}`}
              >
                {t('activate')}
              </Button>
            </Popconfirm>
          ) : null}
        </Space>
      ),
    },
  ];

  return (
    <Table<DictionaryView>
      size="small"
      rowKey="id"
      loading={loading}
      pagination={false}
      tableLayout="fixed"
      scroll={{ x: 1100 }}
      columns={columns}
      dataSource={versions}
      rowClassName={(v) => (v.id === selectedId ? 'ant-table-row-selected' : '')}
      onRow={(v) => ({ onClick: () => onSelect(v.id), style: { cursor: 'pointer' } })}
      locale={{ emptyText: t('noVersions', { kind: t(`kindOne.${kind}`) }) }}
      data-testid="dict-versions"
    />
  );
}

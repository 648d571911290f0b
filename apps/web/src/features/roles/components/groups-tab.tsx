import { useState } from 'react';
import { App, Button, Empty, Popconfirm, Result, Space, Table, Tag, Typography } from 'antd';
import type { TableProps } from 'antd';
import { PlusOutlined } from '@ant-design/icons';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useTranslation } from 'react-i18next';
import { can, type Permission, type PermissionGroupRow } from '@esource/shared';
import { groupsQuery, rolesApi } from '../api/roles-api';
import { GroupFormDialog } from './group-form-dialog';
import { useAccess } from '../../session';

/** Permission groups (spec §6): login time windows (enforced at login) and a reviewer. */
export function GroupsTab() {
  const { t } = useTranslation('roles');
  const { message } = App.useApp();
  const access = useAccess();
  const has = (p: Permission) => Boolean(access && can(access.pms, { anyOf: [p] }));
  const qc = useQueryClient();
  const q = useQuery(groupsQuery());
  const [editing, setEditing] = useState<{ group: PermissionGroupRow | null } | null>(null);
  const remove = useMutation({
    mutationFn: (id: number) => rolesApi.removeGroup(id),
    onSuccess: () => {
      void message.success(t('deleted'));
      void qc.invalidateQueries({ queryKey: ['roles', 'groups'] });
    },
  });

  const days = (ds: number[]) => {
    const sorted = [...ds].sort((a, b) => a - b);
    if (sorted.join() === '1,2,3,4,5,6,7') return t('groups.everyDay');
    if (sorted.join() === '1,2,3,4,5') return t('groups.weekdays');
    return sorted.map((d) => t(`weekdayShort.${d}`)).join(' ');
  };

  const columns: TableProps<PermissionGroupRow>['columns'] = [
    { title: t('groups.name'), dataIndex: 'name', width: 180 },
    {
      title: t('fields.description'),
      dataIndex: 'description',
      ellipsis: true,
      render: (v: string | null) => v ?? '—',
    },
    {
      title: t('groups.windows'),
      dataIndex: 'loginWindows',
      width: 300,
      render: (ws: PermissionGroupRow['loginWindows']) =>
        ws.length === 0 ? (
          <Typography.Text type="secondary">{t('groups.anyTime')}</Typography.Text>
        ) : (
          <Space orientation="vertical" size={2}>
            {ws.map((w, i) => (
              <span key={i}>
                <Tag style={{ marginInlineEnd: 6 }}>{days(w.days)}</Tag>
                {w.start} – {w.end}
              </span>
            ))}
          </Space>
        ),
    },
    { title: t('groups.timezone'), dataIndex: 'timezone', width: 150 },
    { title: t('groups.reviewer'), dataIndex: 'reviewerName', width: 140, render: (v: string | null) => v ?? '—' },
    { title: t('fields.userCount'), dataIndex: 'userCount', width: 90, align: 'right' },
    {
      title: t('actions'),
      key: 'actions',
      width: 150,
      render: (_: unknown, g) => (
        <Space size={2}>
          {has('system:permission-group:update') ? (
            <Button type="link" size="small" onClick={() => setEditing({ group: g })}>
              {t('edit')}
            </Button>
          ) : null}
          {has('system:permission-group:delete') ? (
            <Popconfirm
              title={t('groups.deleteConfirm', { name: g.name })}
              onConfirm={() => remove.mutate(g.id)}
              okButtonProps={{ danger: true }}
            >
              <Button type="link" size="small" danger>
                {t('delete')}
              </Button>
            </Popconfirm>
          ) : null}
        </Space>
      ),
    },
  ];

  return (
    <div data-testid="groups-tab">
      <div style={{ display: 'flex', justifyContent: 'flex-end', marginBottom: 16 }}>
        {has('system:permission-group:add') ? (
          <Button type="primary" icon={<PlusOutlined />} onClick={() => setEditing({ group: null })} data-testid="groups-add">
            {t('groups.add')}
          </Button>
        ) : null}
      </div>
      {q.isError ? (
        <Result
          status="error"
          title={t('loadFailed')}
          subTitle={q.error.message}
          extra={<Button onClick={() => void q.refetch()}>{t('retry')}</Button>}
        />
      ) : (
        <Table<PermissionGroupRow>
          rowKey="id"
          size="middle"
          loading={q.isFetching}
          dataSource={q.data ?? []}
          columns={columns}
          pagination={false}
          scroll={{ x: 1000 }}
          locale={{ emptyText: <Empty image={Empty.PRESENTED_IMAGE_SIMPLE} description={t('groups.empty')} /> }}
          data-testid="groups-table"
        />
      )}
      <GroupFormDialog open={editing !== null} group={editing?.group ?? null} onClose={() => setEditing(null)} />
    </div>
  );
}

import { useState } from 'react';
import { App, Button, Input, Popconfirm, Select, Space, Tag, Tooltip, Typography } from 'antd';
import type { TableProps } from 'antd';
import { CheckOutlined, PlusOutlined } from '@ant-design/icons';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useTranslation } from 'react-i18next';
import { can, LIMITS, type Permission, type RoleRow } from '@esource/shared';
import { rolesApi, rolesPageQuery } from '../api/roles-api';
import { countByModule } from '../lib/permission-tree';
import { usePermissionLabel } from '../lib/use-permission-label';
import { RoleFormDialog } from './role-form-dialog';
import { useAccess } from '../../session';
import { PagedTable } from '../../../components/paged-table';

const TOOLBAR = {
  display: 'flex',
  justifyContent: 'space-between',
  gap: 8,
  flexWrap: 'wrap',
  marginBottom: 16,
} as const;

const Flag = ({ on, testId }: { on: boolean; testId?: string }) =>
  on ? (
    <CheckOutlined style={{ color: '#389e0d' }} data-testid={testId} />
  ) : (
    <span style={{ color: '#bfbfbf' }}>—</span>
  );

/** Roles (spec §6): code, name, kind, DM flag, DEV / UAT / PRO flags, holders; add, edit, delete. */
export function RolesTab() {
  const { t, i18n } = useTranslation('roles');
  const { message } = App.useApp();
  const access = useAccess();
  const has = (p: Permission) => Boolean(access && can(access.pms, { anyOf: [p] }));
  const label = usePermissionLabel();
  const qc = useQueryClient();
  const [page, setPage] = useState<number>(LIMITS.firstPage);
  const [pageSize, setPageSize] = useState<number>(LIMITS.defaultPageSize);
  const [keyword, setKeyword] = useState<string | undefined>();
  const [kind, setKind] = useState<string | undefined>();
  const [editing, setEditing] = useState<{ role: RoleRow | null } | null>(null);
  const q = useQuery(rolesPageQuery({ pageNumber: page, pageSize, keyword, kind }));
  const en = i18n.language === 'en_US';

  const remove = useMutation({
    mutationFn: (id: number) => rolesApi.remove(id),
    onSuccess: () => {
      void message.success(t('deleted'));
      void qc.invalidateQueries({ queryKey: ['roles'] });
    },
  });

  const columns: TableProps<RoleRow>['columns'] = [
    {
      title: t('fields.code'),
      dataIndex: 'code',
      width: 130,
      render: (v: string) => <Typography.Text code>{v}</Typography.Text>,
    },
    {
      title: t('fields.name'),
      dataIndex: 'name',
      width: 180,
      render: (v: string, r) => (
        <div>
          <div>{en && r.nameEn ? r.nameEn : v}</div>
          {r.description ? (
            <Typography.Text type="secondary" style={{ fontSize: 12 }} ellipsis={{ tooltip: r.description }}>
              {r.description}
            </Typography.Text>
          ) : null}
        </div>
      ),
    },
    {
      title: t('fields.kind'),
      dataIndex: 'kind',
      width: 100,
      render: (v: string) => (
        <Tag color={v === 'system' ? 'purple' : 'blue'}>{t(`kind.${v}`, { defaultValue: v })}</Tag>
      ),
    },
    {
      title: t('flags.isDmShort'),
      dataIndex: 'isDm',
      width: 64,
      align: 'center',
      render: (v: boolean) => <Flag on={v} />,
    },
    {
      title: 'DEV',
      dataIndex: 'envDev',
      width: 64,
      align: 'center',
      render: (v: boolean) => <Flag on={v} />,
    },
    {
      title: 'UAT',
      dataIndex: 'envUat',
      width: 64,
      align: 'center',
      render: (v: boolean) => <Flag on={v} />,
    },
    {
      title: 'PRO',
      dataIndex: 'envPro',
      width: 64,
      align: 'center',
      render: (v: boolean) => <Flag on={v} />,
    },
    {
      title: t('fields.permissions'),
      dataIndex: 'permissions',
      render: (v: string[]) =>
        v.length === 0 ? (
          <Typography.Text type="secondary">{t('noPermissions')}</Typography.Text>
        ) : (
          <Tooltip title={<div style={{ maxHeight: 320, overflow: 'auto' }}>{v.join(', ')}</div>}>
            <Typography.Paragraph ellipsis={{ rows: 2 }} style={{ marginBottom: 0 }}>
              {countByModule(v)
                .map((m) => `${label('module', m.module)} · ${m.count}`)
                .join(en ? ', ' : '，')}
            </Typography.Paragraph>
          </Tooltip>
        ),
    },
    { title: t('fields.userCount'), dataIndex: 'userCount', width: 90, align: 'right' },
    {
      title: t('actions'),
      key: 'actions',
      width: 130,
      render: (_: unknown, r) => (
        <Space size={2}>
          {has('system:role:update') ? (
            <Button type="link" size="small" onClick={() => setEditing({ role: r })} data-testid="role-edit">
              {t('edit')}
            </Button>
          ) : null}
          {has('system:role:delete') && r.userCount > 0 ? (
            // the server refuses to delete a role users hold: no confirm with an OK that cannot succeed
            <Tooltip title={t('deleteInUse', { count: r.userCount })}>
              <Button type="link" size="small" danger disabled data-testid="role-delete">
                {t('delete')}
              </Button>
            </Tooltip>
          ) : has('system:role:delete') ? (
            <Popconfirm
              title={t('deleteConfirm', { name: en && r.nameEn ? r.nameEn : r.name })}
              onConfirm={() => remove.mutate(r.id)}
              okButtonProps={{ danger: true }}
            >
              <Button type="link" size="small" danger data-testid="role-delete">
                {t('delete')}
              </Button>
            </Popconfirm>
          ) : null}
        </Space>
      ),
    },
  ];

  return (
    <div data-testid="roles-tab">
      <div style={TOOLBAR}>
        <Space wrap>
          <Input.Search
            allowClear
            placeholder={t('searchPlaceholder')}
            style={{ width: 240 }}
            maxLength={20}
            onSearch={(v) => {
              setKeyword(v.trim() || undefined);
              setPage(1);
            }}
          />
          <Select
            allowClear
            placeholder={t('fields.kind')}
            style={{ width: 140 }}
            value={kind}
            onChange={(v: string | undefined) => {
              setKind(v);
              setPage(1);
            }}
            options={['project', 'system'].map((k) => ({ value: k, label: t(`kind.${k}`) }))}
          />
        </Space>
        {has('system:role:add') ? (
          <Button
            type="primary"
            icon={<PlusOutlined />}
            onClick={() => setEditing({ role: null })}
            data-testid="roles-add"
          >
            {t('add')}
          </Button>
        ) : null}
      </div>
      <PagedTable<RoleRow>
        query={q}
        page={page}
        pageSize={pageSize}
        onPage={(p, s) => {
          setPage(p);
          setPageSize(s);
        }}
        empty={t('empty')}
        texts={{ loadFailed: t('loadFailed'), retry: t('retry'), total: (n) => t('total', { count: n }) }}
        rowKey="id"
        columns={columns}
        scroll={{ x: 1100 }}
        data-testid="roles-table"
      />
      <RoleFormDialog open={editing !== null} role={editing?.role ?? null} onClose={() => setEditing(null)} />
    </div>
  );
}

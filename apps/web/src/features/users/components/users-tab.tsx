import { useState } from 'react';
import { App, Button, Input, Popconfirm, Select, Space, Tag, Tooltip, Typography } from 'antd';
import type { TableProps } from 'antd';
import {
  DownloadOutlined,
  ExportOutlined,
  ImportOutlined,
  MailOutlined,
  PlusOutlined,
  ReloadOutlined,
} from '@ant-design/icons';
import { useQuery } from '@tanstack/react-query';
import { useTranslation } from 'react-i18next';
import {
  LIMITS,
  LOGIN_TYPES,
  USER_SORT_FIELDS,
  type UserAddResponse,
  type UserListRow,
} from '@esource/shared';
import {
  fileStamp,
  saveBlob,
  systemRoleOptionsQuery,
  usersApi,
  usersListQuery,
  type UserListFilters,
} from '../api/users-api';
import { usePms } from '../../session';
import { usePageParam } from '../../../lib/use-page-param';
import { UserFormDialog } from './user-form-dialog';
import { ImportDialog } from './import-dialog';
import { PagedTable } from '../../../components/paged-table';
import {
  fmtTime,
  InitialPasswordDialog,
  SendMessageDialog,
  UserDetailDrawer,
  UserStatusDialog,
} from './user-dialogs';
import { orgsPageQuery } from '../../orgs';

type SortField = (typeof USER_SORT_FIELDS)[number];

const TOOLBAR = {
  display: 'flex',
  justifyContent: 'space-between',
  alignItems: 'flex-start',
  gap: 8,
  flexWrap: 'wrap',
  marginBottom: 16,
} as const;

/** The user list of module 2 (spec §2 User Management): search, filters, sort, paging, and every action. */
export function UsersTab() {
  const { t, i18n } = useTranslation('users');
  const { message } = App.useApp();
  const has = usePms();
  const [page, setPage] = usePageParam();
  const [pageSize, setPageSize] = useState<number>(LIMITS.defaultPageSize);
  const [filters, setFilters] = useState<UserListFilters>({});
  const [keywordInput, setKeywordInput] = useState('');
  const [selected, setSelected] = useState<UserListRow[]>([]);
  const [formUser, setFormUser] = useState<{ id: number | null } | null>(null);
  const [added, setAdded] = useState<UserAddResponse | null>(null);
  const [statusUser, setStatusUser] = useState<UserListRow | null>(null);
  const [detailId, setDetailId] = useState<number | null>(null);
  const [messageTo, setMessageTo] = useState<UserListRow[] | null>(null);
  const [importOpen, setImportOpen] = useState(false);
  const [exporting, setExporting] = useState(false);

  const q = useQuery(usersListQuery({ ...filters, pageNumber: page, pageSize, lang: i18n.language }));
  const orgs = useQuery(orgsPageQuery({ pageNumber: 1, pageSize: 200 }));
  const roles = useQuery(systemRoleOptionsQuery(has('system:role:query')));
  // role names in the interface language (the list carries the Chinese name only)
  const en = i18n.language === 'en_US';
  const roleName = new Map(
    (roles.data?.content ?? []).map((r) => [r.id, en && r.nameEn ? r.nameEn : r.name]),
  );

  const change = (patch: Partial<UserListFilters>) => {
    setFilters((f) => ({ ...f, ...patch }));
    setPage(LIMITS.firstPage);
  };

  const template = () =>
    void usersApi.template().then(
      (b) => saveBlob(b, `${t('templateFileName')}.xlsx`),
      () => undefined,
    );
  const doExport = () => {
    setExporting(true);
    usersApi
      .export(filters)
      .then((b) => {
        saveBlob(b, `${t('exportFileName')}-${fileStamp()}.xlsx`);
        void message.success(t('exported'));
      })
      .catch(() => undefined)
      .finally(() => setExporting(false));
  };

  const sortOrderOf = (f: SortField) =>
    filters.sortField === f
      ? filters.sortOrder === 'asc'
        ? ('ascend' as const)
        : ('descend' as const)
      : null;

  // sorting only: antd calls this on a page change too, after the pager's own handler (which keeps the page)
  const onTableChange: TableProps<UserListRow>['onChange'] = (_p, _f, sorter, extra) => {
    if (extra.action !== 'sort') return;
    const s = Array.isArray(sorter) ? sorter[0] : sorter;
    const field = typeof s?.field === 'string' ? (s.field as SortField) : undefined;
    if (s?.order && field && (USER_SORT_FIELDS as readonly string[]).includes(field))
      change({ sortField: field, sortOrder: s.order === 'ascend' ? 'asc' : 'desc' });
    else change({ sortField: undefined, sortOrder: undefined });
  };

  const columns: TableProps<UserListRow>['columns'] = [
    {
      title: t('fields.account'),
      dataIndex: 'account',
      sorter: true,
      sortOrder: sortOrderOf('account'),
      width: 150,
      ellipsis: true,
      render: (v: string, r) => (
        <Typography.Link onClick={() => setDetailId(r.id)} data-testid="user-account-link">
          {v}
        </Typography.Link>
      ),
    },
    {
      title: t('fields.name'),
      dataIndex: 'name',
      sorter: true,
      sortOrder: sortOrderOf('name'),
      width: 140,
      ellipsis: true,
    },
    { title: t('fields.phone'), dataIndex: 'phone', width: 130 },
    {
      title: t('fields.org'),
      dataIndex: 'orgName',
      sorter: true,
      sortOrder: sortOrderOf('orgName'),
      width: 230,
      ellipsis: true,
      render: (v: string | null, r) => (
        <>
          {v ?? '—'}
          {r.deptName ? <Typography.Text type="secondary"> / {r.deptName}</Typography.Text> : null}
        </>
      ),
    },
    {
      title: t('fields.loginTypes'),
      dataIndex: 'loginTypes',
      width: 200,
      render: (v: number[]) => (
        <Space size={[4, 4]} wrap>
          {v.map((lt) => (
            <Tag key={lt} style={{ marginInlineEnd: 0 }}>
              {t(`loginType.${lt}`)}
            </Tag>
          ))}
        </Space>
      ),
    },
    {
      title: t('fields.systemRole'),
      dataIndex: 'systemRoleName',
      width: 140,
      ellipsis: true,
      render: (v: string | null, r) => roleName.get(r.systemRoleId ?? -1) ?? v ?? '—',
    },
    {
      title: t('fields.status'),
      dataIndex: 'status',
      width: 110,
      sorter: true,
      sortOrder: sortOrderOf('status'),
      render: (v: number, r) => (
        <Space size={4}>
          <Tag color={v === 1 ? 'green' : 'default'}>{t(`status.${v}`)}</Tag>
          {r.locked ? <Tag color="red">{t('locked')}</Tag> : null}
        </Space>
      ),
    },
    {
      title: t('fields.lastLoginTime'),
      dataIndex: 'lastLoginTime',
      width: 170,
      sorter: true,
      sortOrder: sortOrderOf('lastLoginTime'),
      render: fmtTime,
    },
    {
      title: t('fields.createTime'),
      dataIndex: 'createTime',
      width: 170,
      sorter: true,
      sortOrder: sortOrderOf('createTime'),
      render: fmtTime,
    },
    {
      title: t('actions'),
      key: 'actions',
      fixed: 'right',
      // View, Edit, Disable, Invite in English on one line (210 cut "Invite" off)
      width: 260,
      render: (_: unknown, r) => (
        <Space size={2} wrap={false}>
          <Button type="link" size="small" onClick={() => setDetailId(r.id)}>
            {t('view')}
          </Button>
          {has('system:user:update') ? (
            <Button
              type="link"
              size="small"
              onClick={() => setFormUser({ id: r.id })}
              data-testid="user-edit"
            >
              {t('edit')}
            </Button>
          ) : null}
          {has('system:user:status') ? (
            <Button
              type="link"
              size="small"
              danger={r.status === 1}
              onClick={() => setStatusUser(r)}
              data-testid="user-status"
            >
              {r.status === 1 ? t('disable') : t('enable')}
            </Button>
          ) : null}
          {has('system:user:invite') && r.status === 1 ? (
            <Popconfirm
              title={t('inviteConfirm', { account: r.account })}
              onConfirm={() => {
                void usersApi.invite(r.id).then(
                  (res) => setAdded(res),
                  () => undefined,
                );
              }}
            >
              <Button type="link" size="small" data-testid="user-invite">
                {t('invite')}
              </Button>
            </Popconfirm>
          ) : null}
          {has('system:user:message') ? (
            <Tooltip title={t('sendMessage')}>
              <Button type="link" size="small" icon={<MailOutlined />} onClick={() => setMessageTo([r])} />
            </Tooltip>
          ) : null}
        </Space>
      ),
    },
  ];

  return (
    <div data-testid="users-tab">
      <div style={TOOLBAR}>
        <Space wrap size={[8, 8]}>
          <Input.Search
            allowClear
            value={keywordInput}
            onChange={(e) => setKeywordInput(e.target.value)}
            onSearch={(v) => change({ keyword: v.trim() || undefined })}
            placeholder={t('searchPlaceholder')}
            style={{ width: 260 }}
            data-testid="users-search"
          />
          <Select
            allowClear
            placeholder={t('fields.status')}
            style={{ width: 120 }}
            value={filters.status}
            onChange={(v: number | undefined) => change({ status: v })}
            options={[1, 0].map((s) => ({ value: s, label: t(`status.${s}`) }))}
          />
          <Select
            allowClear
            showSearch={{ optionFilterProp: 'label' }}
            placeholder={t('fields.org')}
            style={{ width: 200 }}
            value={filters.orgId}
            onChange={(v: number | undefined) => change({ orgId: v })}
            options={(orgs.data?.content ?? []).map((o) => ({ value: o.id, label: o.name }))}
          />
          <Select
            allowClear
            placeholder={t('fields.loginType')}
            style={{ width: 160 }}
            value={filters.loginType}
            onChange={(v: number | undefined) => change({ loginType: v })}
            options={LOGIN_TYPES.map((lt) => ({ value: lt, label: t(`loginType.${lt}`) }))}
          />
          <Tooltip title={t('resetFilters')}>
            <Button
              icon={<ReloadOutlined />}
              onClick={() => {
                setKeywordInput('');
                setFilters({});
                setPage(LIMITS.firstPage);
              }}
            />
          </Tooltip>
        </Space>
        <Space wrap size={[8, 8]} style={{ marginLeft: 'auto' }}>
          {has('system:user:message') ? (
            <Button
              icon={<MailOutlined />}
              disabled={selected.length === 0}
              onClick={() => setMessageTo(selected)}
            >
              {t('sendMessage')}
              {selected.length ? ` (${selected.length})` : ''}
            </Button>
          ) : null}
          {has('system:user:import') ? (
            <>
              <Button icon={<DownloadOutlined />} onClick={template} data-testid="users-template">
                {t('downloadTemplate')}
              </Button>
              <Button
                icon={<ImportOutlined />}
                onClick={() => setImportOpen(true)}
                data-testid="users-import"
              >
                {t('import')}
              </Button>
            </>
          ) : null}
          {has('system:user:export') ? (
            <Button
              icon={<ExportOutlined />}
              loading={exporting}
              onClick={doExport}
              data-testid="users-export"
            >
              {t('export')}
            </Button>
          ) : null}
          {has('system:user:add') ? (
            <Button
              type="primary"
              icon={<PlusOutlined />}
              onClick={() => setFormUser({ id: null })}
              data-testid="users-add"
            >
              {t('add')}
            </Button>
          ) : null}
        </Space>
      </div>

      <PagedTable<UserListRow>
        query={q}
        page={page}
        pageSize={pageSize}
        onPage={(p, s) => {
          setPage(p);
          setPageSize(s);
        }}
        empty={
          filters.keyword || filters.orgId || filters.status !== undefined || filters.loginType
            ? t('noMatch')
            : t('empty')
        }
        texts={{ loadFailed: t('loadFailed'), retry: t('retry'), total: (n) => t('total', { count: n }) }}
        rowKey="id"
        columns={columns}
        onChange={onTableChange}
        rowSelection={
          has('system:user:message')
            ? { selectedRowKeys: selected.map((u) => u.id), onChange: (_k, rows) => setSelected(rows) }
            : undefined
        }
        data-testid="users-table"
      />

      <UserFormDialog
        open={formUser !== null}
        userId={formUser?.id ?? null}
        onClose={() => setFormUser(null)}
        onAdded={setAdded}
      />
      <InitialPasswordDialog added={added} onClose={() => setAdded(null)} />
      <UserStatusDialog user={statusUser} onClose={() => setStatusUser(null)} />
      <UserDetailDrawer userId={detailId} onClose={() => setDetailId(null)} />
      <SendMessageDialog users={messageTo} onClose={() => setMessageTo(null)} />
      <ImportDialog open={importOpen} onClose={() => setImportOpen(false)} onTemplate={template} />
    </div>
  );
}

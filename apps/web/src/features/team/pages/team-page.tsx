import { useState } from 'react';
import { App, Button, Card, Input, Popconfirm, Select, Space, Tag, Tooltip } from 'antd';
import type { TableColumnsType } from 'antd';
import {
  DownloadOutlined,
  EditOutlined,
  MailOutlined,
  StopOutlined,
  UserAddOutlined,
  UsergroupAddOutlined,
  CheckCircleOutlined,
} from '@ant-design/icons';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useSearchParams } from 'react-router';
import { useTranslation } from 'react-i18next';
import { can, LIMITS, type MemberRow, type Permission } from '@esource/shared';
import { useSession, useAccess } from '../../session';
import { roleOptionsQuery, teamApi, teamPageQuery, teamSitesQuery, type TeamFilters } from '../api/team-api';
import { MemberDialog, MessageDialog, roleLabel, type MemberDialogMode } from '../components/member-dialog';
import { saveBlob } from '../member-form';
import { PagedTable } from '../../../components/paged-table';

/** /project/user-manage (team:member:query): the project's team in this environment. */
export default function TeamPage() {
  const { t } = useTranslation('team');
  const { message } = App.useApp();
  const qc = useQueryClient();
  const env = useSession((s) => s.env);
  const language = useSession((s) => s.language);
  const project = useSession((s) => s.project);
  const myId = useSession((s) => s.user?.id ?? null);
  const projectId = project?.id ?? null;
  const scope = { env, projectId };
  const access = useAccess();
  const allowed = (p: Permission) => Boolean(access && can(access.pms, { anyOf: [p] }));

  const [params, setParams] = useSearchParams();
  const pageNumber = Math.max(1, Number(params.get('pageNumber')) || LIMITS.firstPage);
  const setPage = (n: number) =>
    setParams(
      (prev) => {
        const next = new URLSearchParams(prev);
        next.set('pageNumber', String(n));
        return next;
      },
      { replace: true },
    );
  const [pageSize, setPageSize] = useState<number>(LIMITS.defaultPageSize);
  const [filters, setFilters] = useState<TeamFilters>({ keyword: '' });
  const [selected, setSelected] = useState<MemberRow[]>([]);
  const [dialog, setDialog] = useState<
    { mode: MemberDialogMode; member?: MemberRow } | { mode: 'message' } | null
  >(null);
  const [exporting, setExporting] = useState(false);

  const q = useQuery(teamPageQuery(scope, filters, pageNumber, pageSize));
  const roles = useQuery(roleOptionsQuery(scope));
  const sites = useQuery(teamSitesQuery(scope));
  const filter = (patch: Partial<TeamFilters>) => {
    setFilters((f) => ({ ...f, ...patch }));
    setPage(1);
  };
  const refresh = () => qc.invalidateQueries({ queryKey: ['team'] });
  const canUpdate = allowed('team:member:update');
  const canMessage = canUpdate || allowed('team:member:invite');

  const toggle = async (m: MemberRow) => {
    await teamApi.setStatus(m.id, m.status === 1 ? 0 : 1);
    void message.success(
      m.status === 1 ? t('status.disabled', { name: m.name }) : t('status.enabled', { name: m.name }),
    );
    await refresh();
  };

  const doExport = async () => {
    setExporting(true);
    try {
      const blob = await teamApi.exportExcel(filters);
      saveBlob(blob, `${project?.no || 'project'}-team-${env}.xlsx`);
    } finally {
      setExporting(false);
    }
  };

  const columns: TableColumnsType<MemberRow> = [
    { title: t('col.account'), dataIndex: 'account', key: 'account', width: 140 },
    { title: t('col.name'), dataIndex: 'name', key: 'name', width: 170 },
    { title: t('col.org'), dataIndex: 'orgName', key: 'org', render: (v: string | null) => v ?? '—' },
    {
      title: t('col.role'),
      key: 'role',
      width: 190,
      render: (_: unknown, r) => {
        const opt = roles.data?.find((x) => x.id === r.roleId);
        return <Tag color="geekblue">{opt ? roleLabel(opt, language) : r.roleName}</Tag>;
      },
    },
    {
      title: t('col.sites'),
      key: 'sites',
      render: (_: unknown, r) =>
        r.allSites ? (
          <Tag color="purple">{t('scope.all')}</Tag>
        ) : (
          <Space size={[4, 4]} wrap>
            {r.sites.map((s) => (
              <Tooltip key={s.id} title={s.name}>
                <Tag>{s.siteNo}</Tag>
              </Tooltip>
            ))}
          </Space>
        ),
    },
    {
      title: t('col.status'),
      dataIndex: 'status',
      key: 'status',
      width: 100,
      render: (v: number) => (
        <Tag color={v === 1 ? 'green' : 'default'}>{t(`statusLabel.${v}`, { defaultValue: String(v) })}</Tag>
      ),
    },
  ];
  if (canUpdate)
    columns.push({
      title: t('col.actions'),
      key: 'actions',
      width: 190,
      render: (_: unknown, r) => (
        <Space size={0}>
          <Button
            type="link"
            size="small"
            icon={<EditOutlined />}
            onClick={() => setDialog({ mode: 'edit', member: r })}
            data-testid={`member-edit-${r.account}`}
          >
            {t('edit.button')}
          </Button>
          {/* the server refuses disabling oneself (no self-lockout) */}
          {r.userId === myId ? null : (
            <Popconfirm
              title={
                r.status === 1
                  ? t('status.confirmDisable', { name: r.name })
                  : t('status.confirmEnable', { name: r.name })
              }
              onConfirm={() => void toggle(r)}
            >
              <Button
                type="link"
                size="small"
                danger={r.status === 1}
                icon={r.status === 1 ? <StopOutlined /> : <CheckCircleOutlined />}
                data-testid={`member-toggle-${r.account}`}
              >
                {r.status === 1 ? t('status.disable') : t('status.enable')}
              </Button>
            </Popconfirm>
          )}
        </Space>
      ),
    });

  const filtered = Boolean(
    filters.keyword || filters.roleId || filters.siteId || filters.status !== undefined,
  );

  return (
    <div data-testid="team-page">
      <Card
        size="small"
        title={
          <Space>
            <span>{t('title')}</span>
            <Tag color="blue">{env}</Tag>
          </Space>
        }
        extra={
          <Space wrap>
            {allowed('team:member:add') ? (
              <Button
                type="primary"
                icon={<UserAddOutlined />}
                onClick={() => setDialog({ mode: 'add' })}
                data-testid="member-add"
              >
                {t('add.button')}
              </Button>
            ) : null}
            {allowed('team:member:invite') ? (
              <Button
                icon={<UsergroupAddOutlined />}
                onClick={() => setDialog({ mode: 'invite' })}
                data-testid="member-invite"
              >
                {t('invite.button')}
              </Button>
            ) : null}
            {canMessage ? (
              <Button
                icon={<MailOutlined />}
                disabled={selected.length === 0}
                onClick={() => setDialog({ mode: 'message' })}
                data-testid="member-message"
              >
                {t('message.button', { count: selected.length })}
              </Button>
            ) : null}
            {allowed('team:member:query') ? (
              <Button
                icon={<DownloadOutlined />}
                loading={exporting}
                onClick={() => void doExport()}
                data-testid="member-export"
              >
                {t('export')}
              </Button>
            ) : null}
          </Space>
        }
      >
        <div style={{ display: 'flex', gap: 12, flexWrap: 'wrap', marginBottom: 12 }}>
          <Input.Search
            allowClear
            placeholder={t('searchPlaceholder')}
            style={{ width: 260 }}
            onSearch={(v) => filter({ keyword: v.trim() })}
            data-testid="member-search"
          />
          <Select
            allowClear
            placeholder={t('filter.role')}
            style={{ width: 200 }}
            value={filters.roleId}
            onChange={(v: number | undefined) => filter({ roleId: v })}
            options={(roles.data ?? []).map((r) => ({ value: r.id, label: roleLabel(r, language) }))}
            data-testid="filter-role"
          />
          <Select
            allowClear
            placeholder={t('filter.site')}
            style={{ width: 220 }}
            value={filters.siteId}
            onChange={(v: number | undefined) => filter({ siteId: v })}
            options={(sites.data ?? []).map((s) => ({ value: s.id, label: `${s.siteNo} ${s.name}` }))}
            data-testid="filter-site"
          />
          <Select
            allowClear
            placeholder={t('filter.status')}
            style={{ width: 130 }}
            value={filters.status}
            onChange={(v: number | undefined) => filter({ status: v })}
            options={[1, 0].map((s) => ({ value: s, label: t(`statusLabel.${s}`) }))}
            data-testid="filter-member-status"
          />
        </div>
        <PagedTable<MemberRow>
          query={q}
          page={pageNumber}
          pageSize={pageSize}
          onPage={(p, s) => {
            setPage(p);
            setPageSize(s);
          }}
          empty={filtered ? t('noMatch') : t('empty', { env })}
          texts={{ loadFailed: t('loadFailed'), retry: t('retry'), total: (n) => t('total', { count: n }) }}
          rowKey="id"
          columns={columns}
          data-testid="team-table"
          rowSelection={
            canMessage
              ? { selectedRowKeys: selected.map((m) => m.id), onChange: (_k, rows) => setSelected(rows) }
              : undefined
          }
        />
      </Card>
      {dialog && dialog.mode !== 'message' ? (
        <MemberDialog
          mode={dialog.mode}
          member={dialog.member}
          onClose={() => setDialog(null)}
          onSaved={(m) => {
            setDialog(null);
            void message.success(
              dialog.mode === 'invite'
                ? t('invite.done', { name: m.name })
                : dialog.mode === 'add'
                  ? t('add.done', { name: m.name })
                  : t('edit.done', { name: m.name }),
            );
            void refresh();
          }}
        />
      ) : null}
      {dialog?.mode === 'message' ? (
        <MessageDialog
          members={selected}
          onClose={() => setDialog(null)}
          onSent={(n) => {
            setDialog(null);
            setSelected([]);
            void message.success(t('message.done', { count: n }));
          }}
        />
      ) : null}
    </div>
  );
}

import { useState } from 'react';
import { Alert, App, Button, Card, Flex, Input, Select, Space, Tag, Tooltip, Typography } from 'antd';
import type { TableColumnsType, TableProps } from 'antd';
import {
  CopyOutlined,
  DeleteOutlined,
  EditOutlined,
  LoginOutlined,
  PlusOutlined,
  PoweroffOutlined,
  SwapOutlined,
} from '@ant-design/icons';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useNavigate, useSearchParams } from 'react-router';
import { useTranslation } from 'react-i18next';
import dayjs from 'dayjs';
import { can, LIMITS, type Permission, type ProjectDetail, type ProjectListRow } from '@esource/shared';
import { useSession, useAccess } from '../../session';
import { openProjectQuery, projectListQuery, type SortField } from '../api/project-manage-api';
import { ProjectDialog } from '../components/project-dialog';
import { ProjectFields } from '../components/project-fields';
import { PagedTable } from '../../../components/paged-table';
import {
  CopyProjectDialog,
  DeleteProjectDialog,
  PROJECT_STATUSES,
  StatusDialog,
} from '../components/project-actions';

export const STATUS_COLOR: Record<number, string> = { 0: 'default', 1: 'green', 2: 'orange', 3: 'red' };

type Dialog =
  | { kind: 'create' }
  | { kind: 'edit' }
  | { kind: 'copy' }
  | { kind: 'status'; closing: boolean }
  | { kind: 'delete' }
  | null;

/** /project/ProjectManage (project:info:query): the user's projects, and the management of the open one. */
export default function ProjectManagePage() {
  const { t } = useTranslation('projectManage');
  const { message } = App.useApp();
  const navigate = useNavigate();
  const qc = useQueryClient();
  const env = useSession((s) => s.env);
  const language = useSession((s) => s.language);
  const openId = useSession((s) => s.project?.id ?? null);
  const access = useAccess();
  const allowed = (p: Permission) => Boolean(access && can(access.pms, { anyOf: [p] }));

  const [params, setParams] = useSearchParams();
  const pageNumber = Math.max(1, Number(params.get('pageNumber')) || LIMITS.firstPage);
  const [pageSize, setPageSize] = useState<number>(LIMITS.defaultPageSize);
  const [keyword, setKeyword] = useState('');
  const [status, setStatus] = useState<number | undefined>();
  const [scene, setScene] = useState<number | undefined>();
  const [sort, setSort] = useState<{ field: SortField; order: 'asc' | 'desc' }>({
    field: 'no',
    order: 'asc',
  });
  const [dialog, setDialog] = useState<Dialog>(null);

  const setPage = (n: number) =>
    setParams(
      (prev) => {
        const next = new URLSearchParams(prev);
        next.set('pageNumber', String(n));
        return next;
      },
      { replace: true },
    );

  const list = useQuery(
    projectListQuery(env, {
      pageNumber,
      pageSize,
      keyword,
      status,
      scene,
      sortField: sort.field,
      sortOrder: sort.order,
    }),
  );
  const detail = useQuery(openProjectQuery(env, openId));
  const open = detail.data;
  const closed = open?.status === 3;

  const refresh = async () => {
    await Promise.all([
      qc.invalidateQueries({ queryKey: ['project-manage'] }),
      qc.invalidateQueries({ queryKey: ['projects'] }),
      // the project label and the (possibly cut-down) permissions come from pmsInfo
      qc.invalidateQueries({ queryKey: ['pmsInfo'] }),
    ]);
  };

  const enter = (id: number) => void navigate(`/project/ProjectManage?proId=${id}`);
  const filtered = Boolean(keyword || status !== undefined || scene !== undefined);

  const order = (f: SortField) => (sort.field === f ? (sort.order === 'asc' ? 'ascend' : 'descend') : null);
  const columns: TableColumnsType<ProjectListRow> = [
    { title: t('col.no'), dataIndex: 'no', key: 'no', sorter: true, sortOrder: order('no'), width: 160 },
    {
      title: t('col.name'),
      dataIndex: 'name',
      key: 'name',
      sorter: true,
      sortOrder: order('name'),
      // no width: the name takes what the other columns leave (at least FLEX_COLUMN_MIN); a long unbroken name
      // ends in an ellipsis with the whole name on hover instead of widening the column
      render: (v: string, r) => (
        <Flex gap={6} align="center" style={{ minWidth: 0 }}>
          <Typography.Text
            ellipsis={{ tooltip: v }}
            style={{ minWidth: 0 }}
            data-testid={`project-name-${r.no}`}
          >
            {v}
          </Typography.Text>
          {r.id === openId ? <Tag color="blue">{t('current')}</Tag> : null}
        </Flex>
      ),
    },
    {
      title: t('col.scene'),
      dataIndex: 'scene',
      key: 'scene',
      width: 160,
      render: (v: number) => t(`scene.${v}`, { defaultValue: String(v) }),
    },
    {
      title: t('col.status'),
      dataIndex: 'status',
      key: 'status',
      width: 110,
      sorter: true,
      sortOrder: order('status'),
      render: (v: number) => (
        <Tag color={STATUS_COLOR[v] ?? 'default'}>{t(`status.${v}`, { defaultValue: String(v) })}</Tag>
      ),
    },
    {
      title: t('col.role'),
      dataIndex: 'roleName',
      key: 'role',
      width: 150,
      // the list carries the role's Chinese name only; English shows its code with the name on hover
      render: (v: string | null, r) =>
        v === null ? (
          '—'
        ) : language === 'zh_CN' || !r.roleCode ? (
          v
        ) : (
          <Tooltip title={v}>{r.roleCode}</Tooltip>
        ),
    },
    {
      title: t('col.createTime'),
      dataIndex: 'createTime',
      key: 'createTime',
      width: 170,
      sorter: true,
      sortOrder: order('createTime'),
      render: (v: string) => dayjs(v).format('YYYY-MM-DD HH:mm'),
    },
    {
      title: t('col.actions'),
      key: 'actions',
      width: 120,
      render: (_: unknown, r) =>
        r.id === openId ? (
          <Typography.Text type="secondary">{t('isOpen')}</Typography.Text>
        ) : (
          <Button
            type="link"
            size="small"
            icon={<LoginOutlined />}
            onClick={() => enter(r.id)}
            data-testid={`enter-${r.no}`}
          >
            {t('enter')}
          </Button>
        ),
    },
  ];

  const onTableChange: TableProps<ProjectListRow>['onChange'] = (pg, _filters, sorter, extra) => {
    if (extra.action === 'sort') {
      const s = Array.isArray(sorter) ? sorter[0] : sorter;
      const field = (s?.columnKey as SortField | undefined) ?? 'no';
      setSort(
        s?.order ? { field, order: s.order === 'descend' ? 'desc' : 'asc' } : { field: 'no', order: 'asc' },
      );
      setPage(1);
      return;
    }
    if (pg.pageSize && pg.pageSize !== pageSize) {
      setPageSize(pg.pageSize);
      setPage(1);
    } else if (pg.current) setPage(pg.current);
  };

  const saved = (text: string) => async () => {
    void message.success(text);
    setDialog(null);
    await refresh();
  };

  return (
    <div data-testid="project-manage-page">
      {open ? (
        <Card
          size="small"
          style={{ marginBottom: 16 }}
          data-testid="open-project-card"
          title={
            <Space>
              <span>{t('openProject')}</span>
              <Tag color={STATUS_COLOR[open.status] ?? 'default'} data-testid="open-project-status">
                {t(`status.${open.status}`)}
              </Tag>
            </Space>
          }
        >
          {/* the name (up to 100 characters, maybe without a space) wraps on its own line beside the buttons,
              which wrap below it on a narrow page: neither covers the other */}
          <Flex justify="space-between" align="flex-start" gap={12} wrap style={{ marginBottom: 12 }}>
            <Typography.Text
              strong
              style={{ flex: '1 1 280px', minWidth: 0, overflowWrap: 'anywhere', fontSize: 15 }}
              data-testid="open-project-name"
            >{`${open.no} · ${open.name}`}</Typography.Text>
            <Space wrap data-testid="open-project-actions">
              {allowed('project:info:update') ? (
                <Button
                  icon={<EditOutlined />}
                  onClick={() => setDialog({ kind: 'edit' })}
                  data-testid="project-edit"
                >
                  {t('edit.button')}
                </Button>
              ) : null}
              {allowed('project:info:copy') ? (
                <Button
                  icon={<CopyOutlined />}
                  onClick={() => setDialog({ kind: 'copy' })}
                  data-testid="project-copy"
                >
                  {t('copy.button')}
                </Button>
              ) : null}
              {allowed('project:info:status') ? (
                <Button
                  icon={<SwapOutlined />}
                  onClick={() => setDialog({ kind: 'status', closing: false })}
                  data-testid="project-status"
                >
                  {t('status.button')}
                </Button>
              ) : null}
              {allowed('project:info:status') && !closed ? (
                <Button
                  danger
                  icon={<PoweroffOutlined />}
                  onClick={() => setDialog({ kind: 'status', closing: true })}
                  data-testid="project-close"
                >
                  {t('status.closeButton')}
                </Button>
              ) : null}
              {allowed('project:info:delete') ? (
                <Button
                  danger
                  icon={<DeleteOutlined />}
                  onClick={() => setDialog({ kind: 'delete' })}
                  data-testid="project-delete"
                >
                  {t('delete.button')}
                </Button>
              ) : null}
            </Space>
          </Flex>
          {closed ? (
            <Alert
              type="info"
              showIcon
              style={{ marginBottom: 12 }}
              title={t('closedNotice')}
              data-testid="closed-notice"
            />
          ) : null}
          <ProjectFields project={open} canUpdate={allowed('project:info:update')} onChanged={refresh} />
        </Card>
      ) : null}

      <Card size="small" data-testid="project-list-card">
        <div style={{ display: 'flex', gap: 12, flexWrap: 'wrap', marginBottom: 12, alignItems: 'center' }}>
          <Input.Search
            allowClear
            placeholder={t('searchPlaceholder')}
            style={{ width: 280 }}
            onSearch={(v) => {
              setKeyword(v.trim());
              setPage(1);
            }}
            data-testid="project-search"
          />
          <Select
            allowClear
            placeholder={t('filter.status')}
            style={{ width: 150 }}
            value={status}
            onChange={(v: number | undefined) => {
              setStatus(v);
              setPage(1);
            }}
            options={PROJECT_STATUSES.map((s) => ({ value: s, label: t(`status.${s}`) }))}
            data-testid="filter-status"
          />
          <Select
            allowClear
            placeholder={t('filter.scene')}
            style={{ width: 190 }}
            value={scene}
            onChange={(v: number | undefined) => {
              setScene(v);
              setPage(1);
            }}
            options={[1, 2].map((s) => ({ value: s, label: t(`scene.${s}`) }))}
            data-testid="filter-scene"
          />
          <span style={{ flex: 1 }} />
          {allowed('project:info:add') ? (
            <Button
              type="primary"
              icon={<PlusOutlined />}
              onClick={() => setDialog({ kind: 'create' })}
              data-testid="project-create"
            >
              {t('create.button')}
            </Button>
          ) : null}
        </div>
        <PagedTable<ProjectListRow>
          query={list}
          page={pageNumber}
          pageSize={pageSize}
          empty={filtered ? t('noMatch') : t('noProjects', { env })}
          texts={{ loadFailed: t('loadFailed'), retry: t('retry'), total: (n) => t('total', { count: n }) }}
          rowKey="id"
          columns={columns}
          onChange={onTableChange}
          data-testid="project-table"
        />
      </Card>

      {dialog?.kind === 'create' ? (
        <ProjectDialog
          mode="create"
          onClose={() => setDialog(null)}
          onSaved={(p: ProjectDetail) => {
            setDialog(null);
            void refresh();
            void message.success({
              content: (
                <span data-testid="project-created">
                  {t('create.done', { no: p.no })}{' '}
                  <Button
                    size="small"
                    type="link"
                    onClick={() => enter(p.id)}
                    data-testid="project-created-enter"
                  >
                    {t('enter')}
                  </Button>
                </span>
              ),
              duration: 6,
            });
          }}
        />
      ) : null}
      {dialog?.kind === 'edit' && open ? (
        <ProjectDialog
          mode="edit"
          project={open}
          onClose={() => setDialog(null)}
          onSaved={() => void saved(t('edit.done'))()}
          reload={async () => (await detail.refetch()).data}
        />
      ) : null}
      {dialog?.kind === 'copy' && open ? (
        <CopyProjectDialog
          project={open}
          onClose={() => setDialog(null)}
          onDone={(p) => void saved(t('copy.done', { no: p.no }))()}
        />
      ) : null}
      {dialog?.kind === 'status' && open ? (
        <StatusDialog
          project={open}
          closing={dialog.closing}
          onClose={() => setDialog(null)}
          onDone={(p) => void saved(t('status.done', { status: t(`status.${p.status}`) }))()}
        />
      ) : null}
      {dialog?.kind === 'delete' && open ? (
        <DeleteProjectDialog
          project={open}
          onClose={() => setDialog(null)}
          onDone={() => {
            setDialog(null);
            void message.success(t('delete.done', { no: open.no }));
            void refresh();
            void navigate('/overview');
          }}
        />
      ) : null}
    </div>
  );
}

import { useEffect, useState } from 'react';
import {
  App,
  Button,
  Card,
  Col,
  Empty,
  Form,
  Input,
  List,
  Modal,
  Popconfirm,
  Row,
  Space,
  Typography,
} from 'antd';
import type { TableProps } from 'antd';
import { ApartmentOutlined, CheckOutlined, CloseOutlined, PlusOutlined } from '@ant-design/icons';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useTranslation } from 'react-i18next';
import { can, LIMITS, type DeptRow, type OrgRow, type Permission } from '@esource/shared';
import { deptsQuery, orgsApi, orgsPageQuery, type OrgInput } from '../api/orgs-api';
import { useAccess } from '../../session';
import { PagedTable } from '../../../components/paged-table';
import { LimitedInput, LimitedTextArea } from '../../../components/limited-input';

function useHas() {
  const access = useAccess();
  return (p: Permission) => Boolean(access && can(access.pms, { anyOf: [p] }));
}

/** Organisation dictionary (name ≤ 30) with the departments of the selected organisation beside it. */
export function OrgsTab() {
  const { t } = useTranslation('orgs');
  const { message } = App.useApp();
  const has = useHas();
  const qc = useQueryClient();
  const [page, setPage] = useState<number>(LIMITS.firstPage);
  const [pageSize, setPageSize] = useState<number>(LIMITS.defaultPageSize);
  const [keyword, setKeyword] = useState<string | undefined>();
  const [selected, setSelected] = useState<OrgRow | null>(null);
  const [editing, setEditing] = useState<{ org: OrgRow | null } | null>(null);
  const q = useQuery(orgsPageQuery({ pageNumber: page, pageSize, keyword }));

  const remove = useMutation({
    mutationFn: (id: number) => orgsApi.remove(id),
    onSuccess: (_r, id) => {
      void message.success(t('deleted'));
      if (selected?.id === id) setSelected(null);
      void qc.invalidateQueries({ queryKey: ['orgs'] });
      void qc.invalidateQueries({ queryKey: ['users', 'orgOptions'] });
    },
  });

  const columns: TableProps<OrgRow>['columns'] = [
    { title: t('fields.name'), dataIndex: 'name', ellipsis: true },
    { title: t('fields.code'), dataIndex: 'code', width: 120, render: (v: string | null) => v ?? '—' },
    {
      title: t('fields.address'),
      dataIndex: 'address',
      ellipsis: true,
      render: (v: string | null) => v ?? '—',
    },
    { title: t('fields.deptCount'), dataIndex: 'deptCount', width: 130, align: 'right' },
    {
      title: t('actions'),
      key: 'actions',
      width: 140,
      render: (_: unknown, o) => (
        <Space size={2} onClick={(e) => e.stopPropagation()}>
          {has('system:org:update') ? (
            <Button type="link" size="small" onClick={() => setEditing({ org: o })}>
              {t('edit')}
            </Button>
          ) : null}
          {has('system:org:delete') ? (
            <Popconfirm
              title={t('deleteConfirm', { name: o.name })}
              onConfirm={() => remove.mutate(o.id)}
              okButtonProps={{ danger: true }}
            >
              <Button type="link" size="small" danger data-testid="org-delete">
                {t('delete')}
              </Button>
            </Popconfirm>
          ) : null}
        </Space>
      ),
    },
  ];

  return (
    <div data-testid="orgs-tab">
      <Row gutter={16}>
        <Col xs={24} xl={15}>
          <div
            style={{
              display: 'flex',
              justifyContent: 'space-between',
              gap: 8,
              marginBottom: 16,
              flexWrap: 'wrap',
            }}
          >
            <Input.Search
              allowClear
              placeholder={t('searchPlaceholder')}
              style={{ width: 260 }}
              maxLength={50}
              onSearch={(v) => {
                setKeyword(v.trim() || undefined);
                setPage(1);
              }}
            />
            {has('system:org:add') ? (
              <Button
                type="primary"
                icon={<PlusOutlined />}
                onClick={() => setEditing({ org: null })}
                data-testid="orgs-add"
              >
                {t('add')}
              </Button>
            ) : null}
          </div>
          <PagedTable<OrgRow>
            query={q}
            page={page}
            pageSize={pageSize}
            onPage={(p, s) => {
              setPage(p);
              setPageSize(s);
            }}
            empty={keyword ? t('noMatch') : t('empty')}
            texts={{ loadFailed: t('loadFailed'), retry: t('retry'), total: (n) => t('total', { count: n }) }}
            rowKey="id"
            columns={columns}
            onRow={(o) => ({ onClick: () => setSelected(o), style: { cursor: 'pointer' } })}
            rowClassName={(o) => (o.id === selected?.id ? 'ant-table-row-selected' : '')}
            data-testid="orgs-table"
          />
        </Col>
        <Col xs={24} xl={9}>
          <DeptPanel org={selected} />
        </Col>
      </Row>
      <OrgFormDialog open={editing !== null} org={editing?.org ?? null} onClose={() => setEditing(null)} />
    </div>
  );
}

function OrgFormDialog({ open, org, onClose }: { open: boolean; org: OrgRow | null; onClose: () => void }) {
  const { t } = useTranslation('orgs');
  const [form] = Form.useForm<OrgInput>();
  const qc = useQueryClient();
  useEffect(() => {
    if (!open) return;
    form.resetFields();
    if (org)
      form.setFieldsValue({ name: org.name, code: org.code ?? undefined, address: org.address ?? undefined });
  }, [open, org, form]);
  const save = useMutation({
    mutationFn: (v: OrgInput) => {
      const input = { name: v.name, code: v.code || undefined, address: v.address || undefined };
      return org ? orgsApi.update({ ...input, id: org.id }) : orgsApi.add(input);
    },
    onSuccess: () => {
      void qc.invalidateQueries({ queryKey: ['orgs'] });
      void qc.invalidateQueries({ queryKey: ['users', 'orgOptions'] });
      onClose();
    },
  });
  return (
    <Modal
      open={open}
      title={org ? t('editTitle') : t('addTitle')}
      onCancel={onClose}
      onOk={() => form.submit()}
      okText={t('save')}
      confirmLoading={save.isPending}
    >
      <Form form={form} layout="vertical" onFinish={(v) => save.mutate(v)}>
        <Form.Item
          name="name"
          label={t('fields.name')}
          rules={[
            { required: true, whitespace: true, message: t('validation.nameRequired') },
            { max: LIMITS.orgNameMax, message: t('validation.nameMax', { max: LIMITS.orgNameMax }) },
          ]}
        >
          <LimitedInput max={LIMITS.orgNameMax} data-testid="org-name" />
        </Form.Item>
        <Form.Item name="code" label={t('fields.code')} rules={[{ max: 50 }]}>
          <LimitedInput max={50} />
        </Form.Item>
        <Form.Item name="address" label={t('fields.address')} rules={[{ max: 200 }]}>
          <LimitedTextArea max={200} rows={2} />
        </Form.Item>
      </Form>
    </Modal>
  );
}

/** The departments of one organisation: list, add, rename in place, delete. */
function DeptPanel({ org }: { org: OrgRow | null }) {
  const { t } = useTranslation('orgs');
  const { message } = App.useApp();
  const has = useHas();
  const qc = useQueryClient();
  const q = useQuery(deptsQuery(org?.id ?? null));
  const [newName, setNewName] = useState('');
  const [renaming, setRenaming] = useState<{ id: number; name: string } | null>(null);
  const refresh = () => {
    void qc.invalidateQueries({ queryKey: ['orgs'] });
    void qc.invalidateQueries({ queryKey: ['users', 'deptOptions'] });
  };
  const add = useMutation({
    mutationFn: (name: string) => orgsApi.addDept(org!.id, name),
    onSuccess: () => {
      setNewName('');
      refresh();
    },
  });
  const rename = useMutation({
    mutationFn: (d: { id: number; name: string }) => orgsApi.updateDept(d.id, d.name),
    onSuccess: () => {
      setRenaming(null);
      refresh();
    },
  });
  const remove = useMutation({
    mutationFn: (id: number) => orgsApi.removeDept(id),
    onSuccess: () => {
      void message.success(t('deleted'));
      refresh();
    },
  });

  return (
    <Card
      size="small"
      title={
        <Space>
          <ApartmentOutlined />
          {org ? t('deptsOf', { name: org.name }) : t('depts')}
        </Space>
      }
      data-testid="dept-panel"
    >
      {!org ? (
        <Empty image={Empty.PRESENTED_IMAGE_SIMPLE} description={t('chooseOrg')} />
      ) : (
        <>
          {has('system:dept:add') ? (
            <Space.Compact style={{ width: '100%', marginBottom: 12 }}>
              <LimitedInput
                max={50}
                value={newName}
                placeholder={t('deptNamePlaceholder')}
                onChange={(e) => setNewName(e.target.value)}
                onPressEnter={() =>
                  newName.trim() && newName.trim().length <= 50 && add.mutate(newName.trim())
                }
                data-testid="dept-new-name"
              />
              <Button
                type="primary"
                icon={<PlusOutlined />}
                disabled={!newName.trim() || newName.trim().length > 50}
                loading={add.isPending}
                onClick={() => add.mutate(newName.trim())}
              >
                {t('addDept')}
              </Button>
            </Space.Compact>
          ) : null}
          <List<DeptRow>
            size="small"
            loading={q.isFetching}
            dataSource={q.data ?? []}
            locale={{ emptyText: <Empty image={Empty.PRESENTED_IMAGE_SIMPLE} description={t('noDepts')} /> }}
            renderItem={(d) =>
              renaming?.id === d.id ? (
                <List.Item>
                  <Space.Compact style={{ width: '100%' }}>
                    <LimitedInput
                      max={50}
                      autoFocus
                      value={renaming.name}
                      onChange={(e) => setRenaming({ id: d.id, name: e.target.value })}
                      onPressEnter={() =>
                        renaming.name.trim() &&
                        renaming.name.trim().length <= 50 &&
                        rename.mutate({ id: d.id, name: renaming.name.trim() })
                      }
                    />
                    <Button
                      icon={<CheckOutlined />}
                      disabled={!renaming.name.trim() || renaming.name.trim().length > 50}
                      loading={rename.isPending}
                      onClick={() => rename.mutate({ id: d.id, name: renaming.name.trim() })}
                      aria-label={t('save')}
                    />
                    <Button
                      icon={<CloseOutlined />}
                      onClick={() => setRenaming(null)}
                      aria-label={t('cancel')}
                    />
                  </Space.Compact>
                </List.Item>
              ) : (
                <List.Item
                  actions={[
                    has('system:dept:update') ? (
                      <Typography.Link key="rename" onClick={() => setRenaming({ id: d.id, name: d.name })}>
                        {t('rename')}
                      </Typography.Link>
                    ) : null,
                    has('system:dept:delete') ? (
                      <Popconfirm
                        key="delete"
                        title={t('deleteDeptConfirm', { name: d.name })}
                        onConfirm={() => remove.mutate(d.id)}
                        okButtonProps={{ danger: true }}
                      >
                        <Typography.Link type="danger">{t('delete')}</Typography.Link>
                      </Popconfirm>
                    ) : null,
                  ].filter(Boolean)}
                >
                  {d.name}
                </List.Item>
              )
            }
          />
        </>
      )}
    </Card>
  );
}

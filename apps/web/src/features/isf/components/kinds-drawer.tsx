import { useEffect, useState } from 'react';
import { Alert, App, Button, Drawer, Form, Input, InputNumber, Modal, Popconfirm, Radio, Select, Space, Switch, Table, Tag, Typography } from 'antd';
import type { TableColumnsType } from 'antd';
import { PlusOutlined } from '@ant-design/icons';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useTranslation } from 'react-i18next';
import type { IsfKindView } from '@esource/shared';
import { useSession } from '../../session';
import { mySitesQuery } from '../../subjects';
import { afterIsfChange, isfApi, kindsQuery } from '../api/isf-api';

/** The data manager's list of the ISF's document kinds: add, edit, remove. */
export function KindsDrawer({ open, onClose }: { open: boolean; onClose: () => void }) {
  const { t } = useTranslation('isf');
  const { message } = App.useApp();
  const qc = useQueryClient();
  const env = useSession((s) => s.env);
  const projectId = useSession((s) => s.project?.id ?? null);
  const scope = { env, projectId };
  const kinds = useQuery({ ...kindsQuery(scope), enabled: open && projectId !== null });
  const sites = useQuery(mySitesQuery(scope));
  const [editing, setEditing] = useState<IsfKindView | 'new' | null>(null);
  const siteName = (id: number) => sites.data?.find((s) => s.id === id)?.name ?? String(id);

  const remove = async (k: IsfKindView) => {
    try {
      await isfApi.deleteKind(k.id, k.version);
      void message.success(t('kinds.deleted'));
    } catch {
      // the API client has shown the server's message (a stale version)
    } finally {
      await afterIsfChange(qc);
    }
  };

  const columns: TableColumnsType<IsfKindView> = [
    { title: t('kinds.sort'), key: 'sort', dataIndex: 'sort', width: 70 },
    {
      title: t('kinds.name'),
      key: 'name',
      render: (_: unknown, k) => (
        <Space orientation="vertical" size={0}>
          <Typography.Text strong>{k.name}</Typography.Text>
          {k.nameEn ? <Typography.Text type="secondary">{k.nameEn}</Typography.Text> : null}
        </Space>
      ),
    },
    { title: t('kinds.required'), key: 'required', width: 90, render: (_: unknown, k) => (k.required ? <Tag color="blue">{t('tag.required')}</Tag> : <Tag>{t('tag.optional')}</Tag>) },
    {
      title: t('kinds.sites'),
      key: 'sites',
      width: 200,
      render: (_: unknown, k) =>
        k.siteIds === null ? (
          t('kinds.everySite')
        ) : (
          <Typography.Text ellipsis={{ tooltip: k.siteIds.map(siteName).join(', ') }} style={{ maxWidth: 190 }}>
            {k.siteIds.map(siteName).join(', ')}
          </Typography.Text>
        ),
    },
    {
      title: t('col.actions'),
      key: 'actions',
      width: 140,
      render: (_: unknown, k) => (
        <Space size={0}>
          <Button size="small" type="link" onClick={() => setEditing(k)} data-testid={`isf-kind-edit-${k.id}`}>
            {t('action.edit')}
          </Button>
          <Popconfirm title={t('kinds.deleteConfirm', { name: k.label })} onConfirm={() => void remove(k)} okButtonProps={{ danger: true }}>
            <Button size="small" type="link" danger data-testid={`isf-kind-delete-${k.id}`}>
              {t('action.delete')}
            </Button>
          </Popconfirm>
        </Space>
      ),
    },
  ];

  return (
    <Drawer open={open} onClose={onClose} title={t('kinds.title')} size={760} destroyOnHidden data-testid="isf-kinds-drawer">
      <Typography.Paragraph type="secondary">{t('kinds.intro')}</Typography.Paragraph>
      <Button type="primary" icon={<PlusOutlined />} onClick={() => setEditing('new')} style={{ marginBottom: 12 }} data-testid="isf-kind-add">
        {t('kinds.add')}
      </Button>
      <Table<IsfKindView> size="small" rowKey="id" columns={columns} dataSource={kinds.data ?? []} loading={kinds.isFetching} pagination={false} locale={{ emptyText: t('kinds.empty') }} data-testid="isf-kinds-table" />
      <KindForm kind={editing} sites={(sites.data ?? []).map((s) => ({ value: s.id, label: `${s.siteNo} ${s.name}` }))} onClose={() => setEditing(null)} />
    </Drawer>
  );
}

interface FormValues {
  name: string;
  nameEn?: string;
  required: boolean;
  scope: 'all' | 'some';
  siteIds?: number[];
  sort: number;
}

function KindForm({ kind, sites, onClose }: { kind: IsfKindView | 'new' | null; sites: { value: number; label: string }[]; onClose: () => void }) {
  const { t } = useTranslation('isf');
  const { message } = App.useApp();
  const qc = useQueryClient();
  const [form] = Form.useForm<FormValues>();
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const scopeValue = Form.useWatch('scope', form);
  const existing = kind !== null && kind !== 'new' ? kind : null;

  useEffect(() => {
    if (kind === null) return;
    setError(null);
    form.setFieldsValue(
      existing
        ? { name: existing.name, nameEn: existing.nameEn ?? '', required: existing.required, scope: existing.siteIds ? 'some' : 'all', siteIds: existing.siteIds ?? [], sort: existing.sort }
        : { name: '', nameEn: '', required: true, scope: 'all', siteIds: [], sort: 0 },
    );
  }, [kind, existing, form]);

  const submit = async () => {
    let v: FormValues;
    try {
      v = await form.validateFields();
    } catch {
      return;
    }
    setBusy(true);
    setError(null);
    try {
      await isfApi.saveKind({
        ...(existing ? { id: existing.id, version: existing.version } : {}),
        name: v.name,
        nameEn: v.nameEn ?? null,
        required: v.required,
        siteIds: v.scope === 'all' ? null : (v.siteIds ?? []),
        sort: v.sort ?? 0,
      });
      void message.success(t('kinds.saved'));
      await afterIsfChange(qc);
      onClose();
    } catch (e) {
      setError(e instanceof Error ? e.message : String(e));
    } finally {
      setBusy(false);
    }
  };

  return (
    <Modal
      open={kind !== null}
      title={existing ? t('kinds.edit') : t('kinds.add')}
      okText={t('kinds.save')}
      cancelText={t('kinds.cancel')}
      confirmLoading={busy}
      onOk={() => void submit()}
      onCancel={onClose}
      okButtonProps={{ 'data-testid': 'isf-kind-save' }}
      destroyOnHidden
      forceRender
    >
      <Form form={form} layout="vertical" data-testid="isf-kind-form">
        <Form.Item name="name" label={t('kinds.name')} rules={[{ required: true, whitespace: true, message: t('kinds.nameRequired') }]}>
          <Input maxLength={100} showCount data-testid="isf-kind-name" />
        </Form.Item>
        <Form.Item name="nameEn" label={t('kinds.nameEn')} extra={t('kinds.nameEnHint')}>
          <Input maxLength={100} showCount data-testid="isf-kind-name-en" />
        </Form.Item>
        <Space size={32} align="start">
          <Form.Item name="required" label={t('kinds.required')} valuePropName="checked">
            <Switch data-testid="isf-kind-required" />
          </Form.Item>
          <Form.Item name="sort" label={t('kinds.sort')}>
            <InputNumber min={0} max={9999} precision={0} />
          </Form.Item>
        </Space>
        <Form.Item name="scope" label={t('kinds.sites')}>
          <Radio.Group
            options={[
              { value: 'all', label: t('kinds.allSites') },
              { value: 'some', label: t('kinds.someSites') },
            ]}
          />
        </Form.Item>
        {scopeValue === 'some' ? (
          <Form.Item name="siteIds" rules={[{ required: true, type: 'array', min: 1, message: t('kinds.sitesRequired') }]}>
            <Select mode="multiple" options={sites} placeholder={t('kinds.sitesPlaceholder')} showSearch={{ optionFilterProp: 'label' }} data-testid="isf-kind-sites" />
          </Form.Item>
        ) : null}
      </Form>
      {error ? <Alert type="error" showIcon title={error} data-testid="isf-kind-error" /> : null}
    </Modal>
  );
}

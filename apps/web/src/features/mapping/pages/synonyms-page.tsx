import { useState } from 'react';
import { App, Button, Card, Form, Input, Modal, Select, Space, Tag, Typography } from 'antd';
import type { TableProps } from 'antd';
import { DeleteOutlined, EditOutlined, PlusOutlined, ReloadOutlined } from '@ant-design/icons';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useTranslation } from 'react-i18next';
import { useLocation } from 'react-router';
import dayjs from 'dayjs';
import { LIMITS, type SynonymRow } from '@esource/shared';
import { ApiError } from '../../../lib/api-client';
import { PagedTable } from '../../../components/paged-table';
import { LimitedInput, maxRule } from '../../../components/limited-input';
import { usePms, useSession } from '../../session';
import { mappingApi, synonymsQuery, type SynonymKind } from '../api/mapping-api';

/**
 * Synonym configuration (/ocrConfig/same, /textConfig/same: global; /project/…: the open project's): a term and
 * the words that mean the same in OCR text or in source records (a code rule with 'use synonyms' matches them).
 * Paged, filtered by term; add and edit in a dialog, delete after a confirmation; a term used twice is refused.
 */
export default function SynonymsPage() {
  const { t } = useTranslation('mapping');
  const { message } = App.useApp();
  const qc = useQueryClient();
  const { pathname } = useLocation();
  const kind: SynonymKind = pathname.includes('/ocrConfig/') ? 'ocr' : 'text';
  const project = pathname.startsWith('/project/');
  const env = useSession((s) => s.env);
  const projectId = useSession((s) => s.project?.id ?? null);
  const has = usePms();
  const canEdit = has('source:config:update');
  const [term, setTerm] = useState('');
  const [pageNumber, setPage] = useState<number>(LIMITS.firstPage);
  const [pageSize, setPageSize] = useState<number>(LIMITS.defaultPageSize);
  const [editing, setEditing] = useState<SynonymRow | 'new' | null>(null);
  const q = useQuery(synonymsQuery({ env, projectId }, kind, project, term, pageNumber, pageSize));

  const remove = (r: SynonymRow) =>
    Modal.confirm({
      title: t('synonyms.deleteTitle'),
      content: t('synonyms.deleteContent', { term: r.term }),
      okText: t('delete.ok'),
      okButtonProps: { danger: true, 'data-testid': 'synonym-delete-ok' },
      cancelText: t('cancel'),
      onOk: async () => {
        await mappingApi.removeSynonym(kind, project, r.id);
        void message.success(t('synonyms.deleted', { term: r.term }));
        await qc.invalidateQueries({ queryKey: ['mapping', 'synonyms'] });
      },
    });

  const columns: TableProps<SynonymRow>['columns'] = [
    { title: t('synonyms.term'), dataIndex: 'term', width: 220, render: (v: string) => <span data-testid={`synonym-term-${v}`}>{v}</span> },
    {
      title: t('synonyms.synonyms'),
      key: 'synonyms',
      render: (_: unknown, r) =>
        r.synonyms.length ? (
          <Space size={[4, 4]} wrap>
            {r.synonyms.map((s) => (
              <Tag key={s}>{s}</Tag>
            ))}
          </Space>
        ) : (
          <Typography.Text type="secondary">—</Typography.Text>
        ),
    },
    {
      title: t('synonyms.scope'),
      key: 'scope',
      width: 110,
      render: (_: unknown, r) => <Tag color={r.projectId ? 'blue' : 'default'}>{t(r.projectId ? 'synonyms.project' : 'synonyms.global')}</Tag>,
    },
    {
      title: t('item.updated'),
      key: 'updated',
      width: 170,
      render: (_: unknown, r) => (
        <div>
          <div>{r.updatedBy ?? '—'}</div>
          <Typography.Text type="secondary" style={{ fontSize: 12 }}>
            {dayjs(r.updateTime).format('YYYY-MM-DD HH:mm')}
          </Typography.Text>
        </div>
      ),
    },
    ...(canEdit
      ? [
          {
            title: t('actions'),
            key: 'actions',
            width: 120,
            fixed: 'right' as const,
            render: (_: unknown, r: SynonymRow) => (
              <Space size={0}>
                <Button type="link" size="small" icon={<EditOutlined />} onClick={() => setEditing(r)} data-testid={`synonym-edit-${r.term}`}>
                  {t('edit')}
                </Button>
                <Button
                  type="link"
                  size="small"
                  danger
                  icon={<DeleteOutlined />}
                  onClick={() => remove(r)}
                  aria-label={t('delete.ok')}
                  data-testid={`synonym-delete-${r.term}`}
                />
              </Space>
            ),
          },
        ]
      : []),
  ];

  return (
    <Card data-testid="synonyms-page">
      <Typography.Paragraph type="secondary">{t(`synonyms.intro.${kind}`)}</Typography.Paragraph>
      <div style={{ display: 'flex', flexWrap: 'wrap', gap: 12, marginBottom: 16, alignItems: 'center' }}>
        <Input.Search
          allowClear
          placeholder={t('synonyms.filter')}
          style={{ width: 260 }}
          onSearch={(v) => {
            setTerm(v.trim());
            setPage(LIMITS.firstPage);
          }}
          data-testid="synonym-filter"
        />
        <span style={{ flex: 1 }} />
        <Button icon={<ReloadOutlined />} onClick={() => void q.refetch()} aria-label={t('refresh')} />
        {canEdit ? (
          <Button type="primary" icon={<PlusOutlined />} onClick={() => setEditing('new')} data-testid="synonym-add">
            {t('synonyms.add')}
          </Button>
        ) : null}
      </div>
      <PagedTable<SynonymRow>
        query={q}
        page={pageNumber}
        pageSize={pageSize}
        onPage={(p, s) => {
          setPage(p);
          setPageSize(s);
        }}
        empty={term ? t('synonyms.emptyFiltered') : t('synonyms.empty')}
        texts={{ loadFailed: t('synonyms.loadFailed'), retry: t('retry'), total: (n) => t('synonyms.total', { count: n }) }}
        rowKey="id"
        columns={columns}
        data-testid="synonym-table"
      />
      {editing ? (
        <SynonymDialog
          row={editing === 'new' ? null : editing}
          onClose={() => setEditing(null)}
          onSave={async (b) => {
            await mappingApi.saveSynonym(kind, project, b);
            void message.success(t('synonyms.saved', { term: b.term }));
            setEditing(null);
            await qc.invalidateQueries({ queryKey: ['mapping', 'synonyms'] });
          }}
        />
      ) : null}
    </Card>
  );
}

function SynonymDialog({
  row,
  onClose,
  onSave,
}: {
  row: SynonymRow | null;
  onClose: () => void;
  onSave: (b: { id?: number; version?: number; term: string; synonyms: string[] }) => Promise<void>;
}) {
  const { t } = useTranslation('mapping');
  const [form] = Form.useForm<{ term: string; synonyms: string[] }>();
  const [busy, setBusy] = useState(false);
  const [general, setGeneral] = useState<string | null>(null);
  const submit = async () => {
    const v = await form.validateFields();
    setBusy(true);
    setGeneral(null);
    try {
      await onSave({ ...(row ? { id: row.id, version: row.version } : {}), term: v.term.trim(), synonyms: v.synonyms ?? [] });
    } catch (e) {
      if (e instanceof ApiError && e.detail.length) {
        form.setFields(
          e.detail
            .filter((d) => d.field === 'term' || d.field.startsWith('synonyms'))
            .map((d) => ({ name: d.field === 'term' ? 'term' : 'synonyms', errors: [d.message] })),
        );
        if (!e.detail.some((d) => d.field === 'term' || d.field.startsWith('synonyms'))) setGeneral(e.message);
      } else if (e instanceof ApiError && /DUPLICATE|EXISTS/i.test(e.errorCode)) form.setFields([{ name: 'term', errors: [e.message] }]);
      else setGeneral(e instanceof Error ? e.message : String(e));
    } finally {
      setBusy(false);
    }
  };
  return (
    <Modal
      open
      title={row ? t('synonyms.editTitle', { term: row.term }) : t('synonyms.add')}
      onCancel={onClose}
      onOk={() => void submit()}
      okText={t('save')}
      cancelText={t('cancel')}
      confirmLoading={busy}
      okButtonProps={{ 'data-testid': 'synonym-save' }}
      destroyOnHidden
    >
      {general ? <Typography.Paragraph type="danger">{general}</Typography.Paragraph> : null}
      <Form form={form} layout="vertical" initialValues={{ term: row?.term ?? '', synonyms: row?.synonyms ?? [] }}>
        <Form.Item name="term" label={t('synonyms.term')} rules={[{ required: true, whitespace: true, message: t('synonyms.termRequired') }, maxRule(100)]}>
          <LimitedInput max={100} data-testid="synonym-term" />
        </Form.Item>
        <Form.Item
          name="synonyms"
          label={t('synonyms.synonyms')}
          extra={t('synonyms.synonymsHint')}
          rules={[
            {
              validator: (_, v: string[] | undefined) =>
                (v ?? []).some((s) => s.length > 100)
                  ? Promise.reject(new Error(t('synonyms.tooLong')))
                  : (v ?? []).length > 100
                    ? Promise.reject(new Error(t('synonyms.tooMany')))
                    : Promise.resolve(),
            },
          ]}
        >
          <Select mode="tags" tokenSeparators={[',', '，']} open={false} suffix={null} placeholder={t('synonyms.synonymsPlaceholder')} data-testid="synonym-synonyms" />
        </Form.Item>
      </Form>
    </Modal>
  );
}

import { useState } from 'react';
import { App, Button, Card, Form, Input, Modal, Typography } from 'antd';
import type { TableColumnsType } from 'antd';
import { DeleteOutlined, ImportOutlined, PlusOutlined, ReloadOutlined } from '@ant-design/icons';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useTranslation } from 'react-i18next';
import dayjs from 'dayjs';
import {
  DEID_KEYWORD_MAX,
  DEID_NOTE_MAX,
  LIMITS,
  keywordProblem,
  type DeidKeywordRow,
} from '@esource/shared';
import { ApiError } from '../../../lib/api-client';
import { PagedTable } from '../../../components/paged-table';
import { LimitedInput, maxRule } from '../../../components/limited-input';
import { useSession } from '../../session';
import { afterDeidConfigChange, deidConfigApi, keywordsQuery } from '../api/deid-config-api';
import { ImportDialog } from './import-dialog';

/**
 * The project's keywords: paged (50/100/200), searched by text, newest first, with the count against the limit. Data
 * managers add one (duplicate refused at the field), delete one after a confirmation, or import many from pasted text.
 */
export function KeywordTable({ canEdit }: { canEdit: boolean }) {
  const { t } = useTranslation('deidConfig');
  const { message, modal } = App.useApp();
  const qc = useQueryClient();
  const env = useSession((s) => s.env);
  const projectId = useSession((s) => s.project?.id ?? null);
  const [keyword, setKeyword] = useState('');
  const [pageNumber, setPage] = useState<number>(LIMITS.firstPage);
  const [pageSize, setPageSize] = useState<number>(LIMITS.defaultPageSize);
  const [adding, setAdding] = useState(false);
  const [importing, setImporting] = useState(false);
  const q = useQuery(keywordsQuery({ env, projectId }, keyword, pageNumber, pageSize));

  const remove = (r: DeidKeywordRow) => {
    void modal.confirm({
      title: t('keywords.deleteTitle'),
      content: t('keywords.deleteContent', { keyword: r.keyword }),
      okText: t('keywords.delete'),
      okButtonProps: { danger: true, 'data-testid': 'deid-keyword-delete-ok' },
      cancelText: t('cancel'),
      onOk: async () => {
        try {
          await deidConfigApi.deleteKeyword(r.id);
          void message.success(t('keywords.deleted', { keyword: r.keyword }));
        } catch (e) {
          void message.error(e instanceof Error ? e.message : String(e));
        }
        await afterDeidConfigChange(qc);
      },
    });
  };

  const columns: TableColumnsType<DeidKeywordRow> = [
    {
      title: t('keywords.keyword'),
      dataIndex: 'keyword',
      width: 260,
      ellipsis: true,
      render: (v: string) => <span data-testid={`deid-keyword-${v}`}>{v}</span>,
    },
    { title: t('keywords.note'), dataIndex: 'note', ellipsis: true, render: (v: string | null) => v ?? '—' },
    {
      title: t('keywords.createdBy'),
      dataIndex: 'createdBy',
      width: 150,
      ellipsis: true,
      render: (v: string | null) => v ?? '—',
    },
    {
      title: t('keywords.createTime'),
      dataIndex: 'createTime',
      width: 160,
      render: (v: string) => dayjs(v).format('YYYY-MM-DD HH:mm'),
    },
    ...(canEdit
      ? [
          {
            title: t('keywords.actions'),
            key: 'actions',
            width: 90,
            fixed: 'right' as const,
            render: (_: unknown, r: DeidKeywordRow) => (
              <Button
                type="link"
                size="small"
                danger
                icon={<DeleteOutlined />}
                onClick={() => remove(r)}
                data-testid={`deid-keyword-delete-${r.keyword}`}
              >
                {t('keywords.delete')}
              </Button>
            ),
          },
        ]
      : []),
  ];

  const data = q.data;
  return (
    <Card title={t('keywords.title')} size="small" data-testid="deid-keywords">
      <Typography.Paragraph type="secondary">{t('keywords.help')}</Typography.Paragraph>
      <div className="deid-toolbar">
        <Input.Search
          allowClear
          placeholder={t('keywords.filter')}
          style={{ width: 260 }}
          onSearch={(v) => {
            setKeyword(v.trim());
            setPage(LIMITS.firstPage);
          }}
          data-testid="deid-keyword-filter"
        />
        {data ? (
          <Typography.Text type="secondary">
            {t('keywords.count', { count: data.total, max: data.max })}
          </Typography.Text>
        ) : null}
        <span className="deid-toolbar-spacer" />
        <Button icon={<ReloadOutlined />} onClick={() => void q.refetch()} aria-label={t('refresh')} />
        {canEdit ? (
          <>
            <Button
              icon={<ImportOutlined />}
              onClick={() => setImporting(true)}
              data-testid="deid-keyword-import"
            >
              {t('keywords.import')}
            </Button>
            <Button
              type="primary"
              icon={<PlusOutlined />}
              onClick={() => setAdding(true)}
              data-testid="deid-keyword-add"
            >
              {t('keywords.add')}
            </Button>
          </>
        ) : null}
      </div>
      <PagedTable<DeidKeywordRow>
        query={q}
        page={pageNumber}
        pageSize={pageSize}
        onPage={(p, s) => {
          setPage(p);
          setPageSize(s);
        }}
        empty={keyword ? t('keywords.emptyFiltered') : t('keywords.empty')}
        texts={{
          loadFailed: t('keywords.loadFailed'),
          retry: t('retry'),
          total: (n) => t('keywords.total', { count: n }),
        }}
        rowKey="id"
        columns={columns}
        data-testid="deid-keyword-table"
      />
      {adding ? (
        <AddDialog
          onClose={() => setAdding(false)}
          onAdded={async (k) => {
            setAdding(false);
            void message.success(t('keywords.added', { keyword: k }));
            await afterDeidConfigChange(qc);
          }}
        />
      ) : null}
      {importing ? (
        <ImportDialog
          onClose={() => setImporting(false)}
          onDone={async (r) => {
            setImporting(false);
            void message.success(t('import.done', r));
            await afterDeidConfigChange(qc);
          }}
        />
      ) : null}
    </Card>
  );
}

function AddDialog({
  onClose,
  onAdded,
}: {
  onClose: () => void;
  onAdded: (keyword: string) => Promise<void>;
}) {
  const { t } = useTranslation('deidConfig');
  const [form] = Form.useForm<{ keyword: string; note?: string }>();
  const [busy, setBusy] = useState(false);
  const [general, setGeneral] = useState<string | null>(null);
  const submit = async () => {
    const v = await form.validateFields();
    setBusy(true);
    setGeneral(null);
    try {
      const row = await deidConfigApi.addKeyword(v.keyword.trim(), v.note?.trim() || undefined);
      await onAdded(row.keyword);
    } catch (e) {
      const fields =
        e instanceof ApiError ? e.detail.filter((d) => d.field === 'keyword' || d.field === 'note') : [];
      if (fields.length)
        form.setFields(fields.map((d) => ({ name: d.field as 'keyword' | 'note', errors: [d.message] })));
      else setGeneral(e instanceof Error ? e.message : String(e));
    } finally {
      setBusy(false);
    }
  };
  return (
    <Modal
      open
      title={t('keywords.add')}
      onCancel={onClose}
      onOk={() => void submit()}
      okText={t('keywords.save')}
      cancelText={t('cancel')}
      confirmLoading={busy}
      okButtonProps={{ 'data-testid': 'deid-keyword-save' }}
      destroyOnHidden
    >
      {general ? <Typography.Paragraph type="danger">{general}</Typography.Paragraph> : null}
      <Form form={form} layout="vertical">
        <Form.Item
          name="keyword"
          label={t('keywords.keyword')}
          rules={[
            { required: true, whitespace: true, message: t('keywords.keywordRequired') },
            maxRule(DEID_KEYWORD_MAX),
            {
              validator: (_, v: string | undefined) =>
                v && keywordProblem(v.trim()) === 'control'
                  ? Promise.reject(new Error(t('keywords.keywordControl')))
                  : Promise.resolve(),
            },
          ]}
        >
          <LimitedInput max={DEID_KEYWORD_MAX} data-testid="deid-keyword-input" />
        </Form.Item>
        <Form.Item name="note" label={t('keywords.note')} rules={[maxRule(DEID_NOTE_MAX)]}>
          <LimitedInput max={DEID_NOTE_MAX} data-testid="deid-keyword-note" />
        </Form.Item>
      </Form>
    </Modal>
  );
}

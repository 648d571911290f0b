import { useState } from 'react';
import { App, Badge, Button, Card, DatePicker, Descriptions, Drawer, Input, Select, Space, Tag, Typography } from 'antd';
import type { TableProps } from 'antd';
import { CheckOutlined, ReloadOutlined } from '@ant-design/icons';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useTranslation } from 'react-i18next';
import dayjs, { type Dayjs } from 'dayjs';
import { LIMITS, MESSAGE_KINDS, type MessageKind, type MessageListRequest, type MessageRow } from '@esource/shared';
import { PagedTable } from '../../../components/paged-table';
import { useSession } from '../../session';
import { afterRead, messagesApi, messagesQuery } from '../api/messages-api';
import { messageText } from '../message-text';

type ReadFilter = 'all' | 'unread' | 'read';
const KIND_COLOR: Record<string, string> = { system: 'blue', team: 'green', invite: 'gold', query: 'red', feedback: 'purple' };
const time = (v: string | null) => (v ? dayjs(v).format('YYYY-MM-DD HH:mm') : '—');

/**
 * The message centre (/messages): the user's messages in this environment, unread first in weight, with
 * filters (read state, kind, sending days, keyword), 50/100/200 paging, a detail drawer (opening marks the
 * message read) and mark read / mark all read. The top bar's badge counts the same messages.
 */
export default function MessagesPage() {
  const { t } = useTranslation('messages');
  const { message } = App.useApp();
  const qc = useQueryClient();
  const env = useSession((s) => s.env);
  const [read, setRead] = useState<ReadFilter>('all');
  const [kind, setKind] = useState<MessageKind | undefined>();
  const [range, setRange] = useState<[Dayjs, Dayjs] | null>(null);
  const [keyword, setKeyword] = useState<string | undefined>();
  const [pageNumber, setPage] = useState<number>(LIMITS.firstPage);
  const [pageSize, setPageSize] = useState<number>(LIMITS.defaultPageSize);
  const [open, setOpen] = useState<MessageRow | null>(null);

  const req: MessageListRequest = {
    pageNumber,
    pageSize,
    ...(read === 'all' ? {} : { isRead: read === 'read' }),
    ...(kind ? { kind } : {}),
    ...(range
      ? {
          from: range[0].format('YYYY-MM-DD'),
          to: range[1].format('YYYY-MM-DD'),
          timeZone: Intl.DateTimeFormat().resolvedOptions().timeZone,
        }
      : {}),
    ...(keyword ? { keyword } : {}),
  };
  const q = useQuery(messagesQuery(req, env));
  const unread = q.data?.unread ?? 0;
  const filtered = read !== 'all' || kind !== undefined || range !== null || keyword !== undefined;
  const first = <T,>(set: (v: T) => void) => (v: T) => {
    set(v);
    setPage(LIMITS.firstPage);
  };

  const markRead = useMutation({
    mutationFn: (ids: number[]) => messagesApi.read(ids),
    onSuccess: () => afterRead(qc),
  });
  const markAll = useMutation({
    mutationFn: messagesApi.readAll,
    onSuccess: async (r) => {
      void message.success(t('allRead', { count: r.updated }));
      await afterRead(qc);
    },
  });
  const show = (m: MessageRow) => {
    setOpen(m);
    if (!m.isRead) markRead.mutate([m.id]);
  };

  const columns: TableProps<MessageRow>['columns'] = [
    {
      title: t('fields.state'),
      key: 'state',
      width: 100,
      render: (_: unknown, m) =>
        m.isRead ? (
          <Typography.Text type="secondary">{t('read')}</Typography.Text>
        ) : (
          <Badge status="processing" text={t('unread')} />
        ),
    },
    {
      title: t('fields.title'),
      key: 'title',
      render: (_: unknown, m) => {
        const text = messageText(m, t);
        return (
          <Button
            type="link"
            style={{ padding: 0, fontWeight: m.isRead ? 400 : 600, height: 'auto', textAlign: 'start', whiteSpace: 'normal' }}
            onClick={() => show(m)}
            data-testid={`message-open-${m.id}`}
          >
            {text.title}
          </Button>
        );
      },
    },
    {
      title: t('fields.kind'),
      dataIndex: 'kind',
      width: 120,
      render: (k: string) => <Tag color={KIND_COLOR[k] ?? 'default'}>{t(`kinds.${k}`, { defaultValue: k })}</Tag>,
    },
    {
      title: t('fields.project'),
      key: 'project',
      width: 200,
      ellipsis: true,
      render: (_: unknown, m) => (m.projectNo ? `${m.projectNo} ${m.projectName ?? ''}` : '—'),
    },
    {
      title: t('fields.sender'),
      key: 'sender',
      width: 140,
      ellipsis: true,
      render: (_: unknown, m) => m.senderName ?? m.senderAccount ?? t('systemSender'),
    },
    { title: t('fields.time'), dataIndex: 'createTime', width: 160, render: time },
    {
      title: t('fields.actions'),
      key: 'actions',
      width: 120,
      render: (_: unknown, m) =>
        m.isRead ? null : (
          <Button
            type="link"
            size="small"
            onClick={() => markRead.mutate([m.id])}
            data-testid={`message-read-${m.id}`}
          >
            {t('markRead')}
          </Button>
        ),
    },
  ];

  const text = open ? messageText(open, t) : null;
  return (
    <Card data-testid="messages-page">
      <div style={{ display: 'flex', flexWrap: 'wrap', gap: 12, marginBottom: 16, alignItems: 'center' }}>
        <Select<ReadFilter>
          value={read}
          onChange={first(setRead)}
          style={{ width: 130 }}
          aria-label={t('filters.read')}
          data-testid="messages-filter-read"
          options={(['all', 'unread', 'read'] as const).map((v) => ({ value: v, label: t(`filters.${v}`) }))}
        />
        <Select<MessageKind>
          allowClear
          value={kind}
          onChange={first(setKind)}
          placeholder={t('filters.kind')}
          style={{ width: 150 }}
          data-testid="messages-filter-kind"
          options={MESSAGE_KINDS.map((k) => ({ value: k, label: t(`kinds.${k}`) }))}
        />
        <DatePicker.RangePicker
          value={range}
          onChange={(v) => first(setRange)(v && v[0] && v[1] ? [v[0], v[1]] : null)}
          placeholder={[t('filters.from'), t('filters.to')]}
          data-testid="messages-filter-dates"
        />
        <Input.Search
          allowClear
          maxLength={50}
          placeholder={t('filters.keyword')}
          style={{ width: 240 }}
          onSearch={(v) => first(setKeyword)(v.trim() || undefined)}
          data-testid="messages-filter-keyword"
        />
        <span style={{ flex: 1 }} />
        <Space>
          <Typography.Text type="secondary" data-testid="messages-unread">
            {t('unreadCount', { count: unread })}
          </Typography.Text>
          <Button icon={<ReloadOutlined />} onClick={() => void q.refetch()} aria-label={t('refresh')} />
          <Button
            icon={<CheckOutlined />}
            disabled={unread === 0}
            loading={markAll.isPending}
            onClick={() => markAll.mutate()}
            data-testid="messages-read-all"
          >
            {t('markAllRead')}
          </Button>
        </Space>
      </div>
      <PagedTable<MessageRow>
        query={q}
        page={pageNumber}
        pageSize={pageSize}
        onPage={(p, s) => {
          setPage(p);
          setPageSize(s);
        }}
        empty={filtered ? t('emptyFiltered') : t('empty')}
        texts={{ loadFailed: t('loadFailed'), retry: t('retry'), total: (n) => t('total', { count: n }) }}
        rowKey="id"
        columns={columns}
        rowClassName={(m) => (m.isRead ? '' : 'message-unread')}
        data-testid="messages-table"
      />
      <Drawer
        open={open !== null}
        onClose={() => setOpen(null)}
        title={text?.title}
        size={520}
        destroyOnHidden
        rootClassName="message-drawer"
      >
        {open && text ? (
          <>
            <Descriptions column={1} size="small" style={{ marginBottom: 16 }}>
              <Descriptions.Item label={t('fields.kind')}>
                <Tag color={KIND_COLOR[open.kind] ?? 'default'}>{t(`kinds.${open.kind}`, { defaultValue: open.kind })}</Tag>
              </Descriptions.Item>
              <Descriptions.Item label={t('fields.sender')}>
                {open.senderName ? `${open.senderName} (${open.senderAccount ?? ''})` : t('systemSender')}
              </Descriptions.Item>
              <Descriptions.Item label={t('fields.time')}>{time(open.createTime)}</Descriptions.Item>
              {open.projectNo ? (
                <Descriptions.Item label={t('fields.project')}>
                  {open.projectNo} {open.projectName}
                </Descriptions.Item>
              ) : null}
            </Descriptions>
            <Typography.Paragraph style={{ whiteSpace: 'pre-wrap' }} data-testid="message-content">
              {text.content || <Typography.Text type="secondary">{t('noContent')}</Typography.Text>}
            </Typography.Paragraph>
          </>
        ) : null}
      </Drawer>
    </Card>
  );
}

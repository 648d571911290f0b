import { useState } from 'react';
import { App, Button, Card, DatePicker, Input, Select, Space, Tag, Tooltip, Typography } from 'antd';
import type { TableProps } from 'antd';
import { ExportOutlined, PictureOutlined, ReloadOutlined } from '@ant-design/icons';
import { useQuery } from '@tanstack/react-query';
import { useTranslation } from 'react-i18next';
import dayjs, { type Dayjs } from 'dayjs';
import {
  FEEDBACK_CATEGORIES,
  FEEDBACK_STATUSES,
  type FeedbackCategory,
  type FeedbackRow,
  type FeedbackStatus,
} from '@esource/shared';
import { PagedTable, useUrlPaging } from '../../../components/paged-table';
import { saveBlob } from '../../../lib/download';
import { usePms } from '../../session';
import { feedbackApi, feedbackPageQuery, type FeedbackListFilters } from '../api/feedback-api';
import { CategoryTag, StatusTag } from '../components/feedback-tags';
import { FeedbackDrawer } from '../components/feedback-drawer';

const time = (v: string) => dayjs(v).format('YYYY-MM-DD HH:mm');
const stamp = () => dayjs().format('YYYYMMDD-HHmm');

/**
 * /system/feedback: the feedback users sent (system:feedback:query) — status, category, sending days and keyword
 * filters, by sending time, 50/100/200 paging, export of the filtered list; a row opens the detail with the screenshot,
 * where system:feedback:reply answers, closes and reopens.
 */
export default function FeedbackPage() {
  const { t } = useTranslation('feedback');
  const { message } = App.useApp();
  const has = usePms();
  const paging = useUrlPaging();
  const [filters, setFilters] = useState<FeedbackListFilters>({});
  const [openId, setOpenId] = useState<number | null>(null);
  const [exporting, setExporting] = useState(false);
  const q = useQuery(
    feedbackPageQuery({ ...filters, pageNumber: paging.pageNumber, pageSize: paging.pageSize }),
  );
  // (the sort order hides no rows)
  const { sortOrder: _sortOrder, ...narrowing } = filters;
  const filtered = Object.values(narrowing).some((v) => v !== undefined);
  const range: [Dayjs, Dayjs] | null =
    filters.from && filters.to ? [dayjs(filters.from), dayjs(filters.to)] : null;

  const change = (patch: Partial<FeedbackListFilters>) => {
    setFilters((f) => ({ ...f, ...patch }));
    paging.first();
  };
  const doExport = () => {
    setExporting(true);
    feedbackApi
      .export(filters)
      .then((b) => {
        saveBlob(b, `${t('exportFileName')}-${stamp()}.xlsx`);
        void message.success(t('exported'));
      })
      .catch(() => undefined)
      .finally(() => setExporting(false));
  };

  const columns: TableProps<FeedbackRow>['columns'] = [
    {
      title: t('fields.time'),
      dataIndex: 'createTime',
      key: 'time',
      width: 156,
      sorter: true,
      sortOrder: filters.sortOrder === 'asc' ? 'ascend' : 'descend',
      sortDirections: ['descend', 'ascend', 'descend'],
      render: time,
    },
    {
      title: t('fields.category'),
      dataIndex: 'category',
      width: 96,
      render: (c: FeedbackCategory) => <CategoryTag category={c} />,
    },
    {
      title: t('fields.content'),
      dataIndex: 'content',
      ellipsis: true,
      render: (v: string, r) => (
        <Typography.Link onClick={() => setOpenId(r.id)} data-testid={`feedback-open-${r.id}`} title={v}>
          <Typography.Text type="secondary" style={{ marginInlineEnd: 6 }}>
            #{r.id}
          </Typography.Text>
          {r.hasScreenshot ? (
            <PictureOutlined style={{ marginInlineEnd: 6 }} aria-label={t('fields.screenshot')} />
          ) : null}
          {v}
        </Typography.Link>
      ),
    },
    {
      title: t('fields.sender'),
      key: 'sender',
      width: 130,
      ellipsis: true,
      render: (_: unknown, r) => (
        <span title={`${r.userName} (${r.userAccount})`}>
          {r.userName} <Typography.Text type="secondary">({r.userAccount})</Typography.Text>
        </span>
      ),
    },
    {
      title: t('fields.page'),
      dataIndex: 'pagePath',
      width: 120,
      ellipsis: true,
      render: (v: string | null) =>
        v ? (
          <Typography.Text type="secondary" title={v}>
            {v}
          </Typography.Text>
        ) : (
          '—'
        ),
    },
    { title: t('fields.env'), dataIndex: 'env', width: 60, render: (v: string) => <Tag>{v}</Tag> },
    {
      title: t('fields.status'),
      dataIndex: 'status',
      width: 96,
      // who acted last and when, on the status
      render: (s: FeedbackStatus, r) =>
        r.replyCount > 0 ? (
          <Tooltip title={t('lastAction', { name: r.updatedByName ?? '—', time: time(r.updateTime) })}>
            <span>
              <StatusTag status={s} />
            </span>
          </Tooltip>
        ) : (
          <StatusTag status={s} />
        ),
    },
    {
      title: t('fields.actions'),
      key: 'actions',
      width: 80,
      fixed: 'right',
      render: (_: unknown, r) => (
        <Button
          type="link"
          size="small"
          style={{ paddingInline: 0 }}
          onClick={() => setOpenId(r.id)}
          data-testid={`feedback-action-${r.id}`}
        >
          {has('system:feedback:reply') && r.status !== 'closed' ? t('answerAction') : t('view')}
        </Button>
      ),
    },
  ];

  return (
    <Card data-testid="feedback-page">
      <div style={{ display: 'flex', flexWrap: 'wrap', gap: 12, marginBottom: 16, alignItems: 'center' }}>
        <Select<FeedbackStatus>
          allowClear
          value={filters.status}
          onChange={(v) => change({ status: v })}
          placeholder={t('filters.status')}
          style={{ width: 120 }}
          data-testid="feedback-filter-status"
          options={FEEDBACK_STATUSES.map((s) => ({ value: s, label: t(`status.${s}`) }))}
        />
        <Select<FeedbackCategory>
          allowClear
          value={filters.category}
          onChange={(v) => change({ category: v })}
          placeholder={t('filters.category')}
          style={{ width: 130 }}
          data-testid="feedback-filter-category"
          options={FEEDBACK_CATEGORIES.map((c) => ({ value: c, label: t(`category.${c}`) }))}
        />
        <DatePicker.RangePicker
          value={range}
          onChange={(v) => {
            const r: [Dayjs, Dayjs] | null = v?.[0] && v[1] ? [v[0], v[1]] : null;
            change({
              from: r ? r[0].format('YYYY-MM-DD') : undefined,
              to: r ? r[1].format('YYYY-MM-DD') : undefined,
            });
          }}
          placeholder={[t('filters.from'), t('filters.to')]}
          style={{ width: 240 }}
          data-testid="feedback-filter-dates"
        />
        <Input.Search
          allowClear
          maxLength={50}
          placeholder={t('filters.keyword')}
          style={{ width: 230 }}
          onSearch={(v) => change({ keyword: v.trim() || undefined })}
          data-testid="feedback-filter-keyword"
        />
        <span style={{ flex: 1 }} />
        <Space>
          <Button icon={<ReloadOutlined />} onClick={() => void q.refetch()} aria-label={t('refresh')} />
          <Button
            icon={<ExportOutlined />}
            loading={exporting}
            onClick={doExport}
            data-testid="feedback-export"
          >
            {t('export')}
          </Button>
        </Space>
      </div>
      <PagedTable<FeedbackRow>
        query={q}
        page={paging.pageNumber}
        pageSize={paging.pageSize}
        onPage={paging.onPage}
        empty={filtered ? t('emptyFiltered') : t('empty')}
        texts={{ loadFailed: t('loadFailed'), retry: t('retry'), total: (n) => t('total', { count: n }) }}
        rowKey="id"
        columns={columns}
        onChange={(_p, _f, sorter, extra) => {
          if (extra.action !== 'sort') return;
          const s = Array.isArray(sorter) ? sorter[0] : sorter;
          change({ sortOrder: s?.order === 'ascend' ? 'asc' : 'desc' });
        }}
        data-testid="feedback-table"
      />
      <FeedbackDrawer id={openId} canReply={has('system:feedback:reply')} onClose={() => setOpenId(null)} />
    </Card>
  );
}

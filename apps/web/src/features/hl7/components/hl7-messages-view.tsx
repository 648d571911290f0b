import { useState } from 'react';
import { Alert, Badge, Button, Card, DatePicker, Input, Select, Space, Statistic, Tooltip, Typography } from 'antd';
import type { TableColumnsType } from 'antd';
import { ReloadOutlined } from '@ant-design/icons';
import { useQuery } from '@tanstack/react-query';
import { useTranslation } from 'react-i18next';
import dayjs, { type Dayjs } from 'dayjs';
import { HL7_MESSAGE_STATUSES, LIMITS, type Hl7MessageRow, type Hl7MessageStatus } from '@esource/shared';
import { PagedTable } from '../../../components/paged-table';
import { hl7CountQuery, hl7ListQuery, type Hl7Where } from '../api/hl7-api';
import { DEAD_LETTER, HL7_STATUS_KEY, hasFilters, listRequest, senderOf, type Hl7Filters } from '../hl7-logic';
import { Hl7MessageDrawer } from './hl7-message-drawer';
import { AckTag, Hl7Reason, Hl7StatusTag } from './hl7-tags';
import '../hl7.css';

const TIME_ZONE = Intl.DateTimeFormat().resolvedOptions().timeZone;

/**
 * The HL7 v2 message list of a scope (the project's, or the system's messages with no project): counts of dead
 * letters and unprocessed messages at the top, filters (status, type prefix, control id, receiving dates), 50/100/200
 * paging, a drawer with the raw message, and replay of a dead letter for users who may (`canReplay`).
 */
export function Hl7MessagesView({ where, canReplay }: { where: Hl7Where; canReplay: boolean }) {
  const { t } = useTranslation('hl7');
  const [filters, setFilters] = useState<Hl7Filters>({});
  const [typeText, setTypeText] = useState('');
  const [controlText, setControlText] = useState('');
  const [range, setRange] = useState<[Dayjs, Dayjs] | null>(null);
  const [pageNumber, setPage] = useState<number>(LIMITS.firstPage);
  const [pageSize, setPageSize] = useState<number>(LIMITS.defaultPageSize);
  const [open, setOpen] = useState<Hl7MessageRow | null>(null);

  const q = useQuery(hl7ListQuery(where, listRequest(filters, pageNumber, pageSize, TIME_ZONE)));
  const counts = useQuery(hl7CountQuery(where));
  const filtered = hasFilters(filters);
  const apply = (patch: Partial<Hl7Filters>) => {
    setFilters((f) => {
      const next: Hl7Filters = {};
      for (const [k, v] of Object.entries({ ...f, ...patch })) if (v !== undefined) Object.assign(next, { [k]: v });
      return next;
    });
    setPage(LIMITS.firstPage);
  };
  const clear = () => {
    setFilters({});
    setTypeText('');
    setControlText('');
    setRange(null);
    setPage(LIMITS.firstPage);
  };
  const dead = counts.data?.deadLetters ?? 0;

  const columns: TableColumnsType<Hl7MessageRow> = [
    {
      title: t('col.receivedAt'),
      dataIndex: 'receivedAt',
      width: 160,
      render: (v: string, r) => (
        <Button type="link" style={{ padding: 0, height: 'auto' }} onClick={() => setOpen(r)} data-testid={`hl7-open-${r.id}`}>
          {dayjs(v).format('YYYY-MM-DD HH:mm:ss')}
        </Button>
      ),
    },
    {
      title: t('col.sender'),
      key: 'sender',
      width: 190,
      render: (_: unknown, r) => (
        <div style={{ minWidth: 0 }}>
          <Typography.Text ellipsis={{ tooltip: senderOf(r) }} style={{ display: 'block' }}>
            {senderOf(r) || '—'}
          </Typography.Text>
          {r.connectionName ? (
            <Typography.Text type="secondary" ellipsis={{ tooltip: r.connectionName }} style={{ display: 'block', fontSize: 12 }}>
              {r.connectionName}
            </Typography.Text>
          ) : null}
        </div>
      ),
    },
    {
      // type above, control id below: both visible without widening the table
      title: t('col.message'),
      key: 'message',
      width: 170,
      render: (_: unknown, r) => (
        <div style={{ minWidth: 0 }}>
          <Typography.Text ellipsis={{ tooltip: r.messageType }} style={{ display: 'block' }}>
            {r.messageType || '—'}
          </Typography.Text>
          <Typography.Text type="secondary" className="hl7-mono" ellipsis={{ tooltip: r.controlId }} style={{ display: 'block', fontSize: 12 }}>
            {r.controlId || '—'}
          </Typography.Text>
        </div>
      ),
    },
    { title: t('col.status'), dataIndex: 'status', width: 110, render: (s: number) => <Hl7StatusTag status={s} /> },
    {
      title: t('col.error'),
      key: 'error',
      render: (_: unknown, r) => <Hl7Reason code={r.errorCode} detail={r.errorDetail} />,
    },
    { title: t('col.ack'), dataIndex: 'ackCode', width: 70, render: (a: string | null) => <AckTag code={a} /> },
    { title: t('col.records'), dataIndex: 'records', width: 90, align: 'right' },
    {
      title: t('col.actions'),
      key: 'actions',
      width: canReplay ? 130 : 80,
      fixed: 'right',
      render: (_: unknown, r) => (
        <Space size={0}>
          <Button size="small" type="link" onClick={() => setOpen(r)} data-testid={`hl7-view-${r.id}`}>
            {t('view')}
          </Button>
          {canReplay && r.status === DEAD_LETTER ? (
            <Button size="small" type="link" onClick={() => setOpen(r)} data-testid={`hl7-replay-${r.id}`}>
              {t('replay.button')}
            </Button>
          ) : null}
        </Space>
      ),
    },
  ];

  return (
    <Card size="small" data-testid="hl7-page">
      <div className="hl7-head">
        <Space size={32} wrap>
          <Tooltip title={t('summary.deadHint')}>
            <Button
              type="text"
              className="hl7-stat"
              onClick={() => apply({ status: DEAD_LETTER })}
              data-testid="hl7-dead-count"
              aria-label={t('summary.showDead')}
            >
              <Statistic
                title={t('summary.dead')}
                value={counts.isError ? '—' : dead}
                loading={counts.isPending}
                styles={{ content: { color: dead > 0 ? 'var(--ant-color-error, #ff4d4f)' : undefined } }}
                prefix={<Badge status={dead > 0 ? 'error' : 'success'} />}
              />
            </Button>
          </Tooltip>
          <Tooltip title={t('summary.receivedHint')}>
            <Button type="text" className="hl7-stat" onClick={() => apply({ status: 0 })} data-testid="hl7-received-count" aria-label={t('summary.showReceived')}>
              <Statistic title={t('summary.received')} value={counts.isError ? '—' : (counts.data?.received ?? 0)} loading={counts.isPending} />
            </Button>
          </Tooltip>
        </Space>
        <Typography.Paragraph type="secondary" className="hl7-intro">
          {t(where.scope === 'system' ? 'intro.system' : 'intro.project')}
          {canReplay ? null : (
            <>
              {' '}
              <Typography.Text type="secondary" strong data-testid="hl7-read-only">
                {t('readOnly')}
              </Typography.Text>
            </>
          )}
        </Typography.Paragraph>
      </div>
      <div className="hl7-filters">
        <Select<Hl7MessageStatus>
          allowClear
          value={filters.status}
          onChange={(v) => apply({ status: v })}
          placeholder={t('filters.status')}
          style={{ width: 150 }}
          data-testid="hl7-filter-status"
          options={HL7_MESSAGE_STATUSES.map((s) => ({ value: s, label: t(`status.${HL7_STATUS_KEY[s]}`) }))}
        />
        <Input.Search
          allowClear
          maxLength={20}
          value={typeText}
          onChange={(e) => setTypeText(e.target.value)}
          onSearch={(v) => apply({ messageType: v.trim() || undefined })}
          placeholder={t('filters.type')}
          style={{ width: 180 }}
          data-testid="hl7-filter-type"
        />
        <Input.Search
          allowClear
          maxLength={200}
          value={controlText}
          onChange={(e) => setControlText(e.target.value)}
          onSearch={(v) => apply({ controlId: v.trim() || undefined })}
          placeholder={t('filters.controlId')}
          style={{ width: 200 }}
          data-testid="hl7-filter-control"
        />
        <DatePicker.RangePicker
          value={range}
          onChange={(v) => {
            const r: [Dayjs, Dayjs] | null = v && v[0] && v[1] ? [v[0], v[1]] : null;
            setRange(r);
            apply({ range: r ? [r[0].format('YYYY-MM-DD'), r[1].format('YYYY-MM-DD')] : undefined });
          }}
          placeholder={[t('filters.from'), t('filters.to')]}
          data-testid="hl7-filter-dates"
        />
        {filtered ? (
          <Button type="link" onClick={clear} data-testid="hl7-filter-clear">
            {t('filters.clear')}
          </Button>
        ) : null}
        <span style={{ flex: 1 }} />
        <Button
          icon={<ReloadOutlined />}
          onClick={() => {
            void q.refetch();
            void counts.refetch();
          }}
          aria-label={t('refresh')}
          data-testid="hl7-refresh"
        />
      </div>
      {q.isError && q.data ? <Alert type="warning" showIcon title={t('refreshFailed')} description={q.error.message} style={{ marginBottom: 12 }} /> : null}
      <PagedTable<Hl7MessageRow>
        query={q}
        page={pageNumber}
        pageSize={pageSize}
        onPage={(p, s) => {
          setPage(p);
          setPageSize(s);
        }}
        empty={filtered ? t('emptyFiltered') : t(where.scope === 'system' ? 'emptySystem' : 'empty')}
        texts={{ loadFailed: t('loadFailed'), retry: t('retry'), total: (n) => t('total', { count: n }) }}
        rowKey="id"
        columns={columns}
        rowClassName={(r) => (r.status === DEAD_LETTER ? 'hl7-row-dead' : '')}
        data-testid="hl7-table"
      />
      {open ? <Hl7MessageDrawer where={where} row={open} canReplay={canReplay} onClose={() => setOpen(null)} /> : null}
    </Card>
  );
}

import { Fragment, useMemo, useState } from 'react';
import { App, Button, DatePicker, Descriptions, Form, Select, Space, Tag, Tooltip, Typography } from 'antd';
import type { TableProps } from 'antd';
import { ExportOutlined, SearchOutlined } from '@ant-design/icons';
import { useQuery } from '@tanstack/react-query';
import { useTranslation } from 'react-i18next';
import dayjs, { type Dayjs } from 'dayjs';
import { LIMITS, type AuditLogRow } from '@esource/shared';
import {
  auditApi,
  auditEventsQuery,
  auditPageQuery,
  auditUsersQuery,
  saveBlob,
  type AuditFilters,
  type AuditSource,
} from '../api/audit-api';
import { dateRangeProblem, rangeBounds } from '../lib/date-range';
import { PagedTable } from '../../../components/paged-table';

interface FilterValues {
  action?: string;
  userId?: number;
  start?: Dayjs | null;
  end?: Dayjs | null;
}

const zone = Intl.DateTimeFormat().resolvedOptions().timeZone;

/** A long audit value: two lines, expandable to the whole text. */
function Value({ v }: { v: string | null }) {
  if (v === null || v === '') return <Typography.Text type="secondary">—</Typography.Text>;
  return (
    <Typography.Paragraph
      ellipsis={{ rows: 2, expandable: 'collapsible' }}
      style={{ marginBottom: 0, overflowWrap: 'anywhere' }}
    >
      {/* a break opportunity after each comma: lists (permissions, sites) wrap between items */}
      {v.split(',').map((part, i, all) => (
        <Fragment key={i}>
          {part}
          {i < all.length - 1 ? (
            <>
              ,<wbr />
            </>
          ) : null}
        </Fragment>
      ))}
    </Typography.Paragraph>
  );
}

/**
 * One row as a sentence a monitor reads (issue 11): where (subject · visit · form, or the named object), then the
 * change "field: old → new" with option labels and names as the server resolved them in the viewer's language.
 */
function Record({ r }: { r: AuditLogRow }) {
  const { t } = useTranslation('audit');
  const d = r.display;
  const where = [
    d.subject ? t('record.subject', { no: d.subject }) : null,
    d.visit,
    d.form,
    d.target ? `${d.entity} ${d.target}` : d.subject || d.visit || d.form ? null : d.entity,
  ].filter((x): x is string => Boolean(x));
  return (
    <div data-testid="audit-record">
      {where.length ? <div>{where.join(' · ')}</div> : null}
      {d.changes?.length ? <Changes list={d.changes} /> : <Change d={d} />}
    </div>
  );
}

/** How many of an event's item changes show before "show all". */
const CHANGES_SHOWN = 5;

/** An event's item changes (a form's batch save is one event): each "item: old → new", its reason under it. */
function Changes({ list }: { list: NonNullable<AuditLogRow['display']['changes']> }) {
  const { t } = useTranslation('audit');
  const [all, setAll] = useState(false);
  const shown = all ? list : list.slice(0, CHANGES_SHOWN);
  return (
    <div data-testid="audit-changes">
      {list.length > 1 ? (
        <Typography.Text type="secondary">{t('record.items', { count: list.length })}</Typography.Text>
      ) : null}
      {shown.map((c, i) => (
        <div key={i}>
          <Change d={c} />
          {c.reason ? (
            <Typography.Text type="secondary" style={{ fontSize: 12 }}>
              {t('record.reason', { reason: c.reason })}
            </Typography.Text>
          ) : null}
        </div>
      ))}
      {list.length > CHANGES_SHOWN ? (
        <Button
          type="link"
          size="small"
          style={{ padding: 0 }}
          onClick={() => setAll(!all)}
          data-testid="audit-changes-toggle"
        >
          {all ? t('record.showFewer') : t('record.showAll', { count: list.length })}
        </Button>
      ) : null}
    </div>
  );
}

/** One change: "field: old → new" (or the value set, or "(empty)"). */
function Change({ d }: { d: { field: string | null; oldValue: string | null; newValue: string | null } }) {
  const { t } = useTranslation('audit');
  return d.field || d.oldValue || d.newValue ? (
    <div data-testid="audit-change" style={{ overflowWrap: 'anywhere' }}>
      {d.field ? <Typography.Text strong>{d.field}: </Typography.Text> : null}
      {d.oldValue !== null && d.oldValue !== '' ? (
        <>
          <Typography.Text type="secondary" delete>
            {d.oldValue}
          </Typography.Text>
          {' → '}
          {d.newValue !== null && d.newValue !== '' ? (
            <Typography.Text>{d.newValue}</Typography.Text>
          ) : (
            <Typography.Text type="secondary">{t('record.empty')}</Typography.Text>
          )}
        </>
      ) : d.newValue !== null && d.newValue !== '' ? (
        // a short value stays on the field's line; a long one (permission lists) wraps and collapses
        d.newValue.length > 80 ? (
          <Value v={d.newValue} />
        ) : (
          <Typography.Text>{d.newValue}</Typography.Text>
        )
      ) : (
        <Typography.Text type="secondary">{t('record.empty')}</Typography.Text>
      )}
    </div>
  ) : null;
}

/** The stored row's internals, on demand: ids, codes and the values as stored (masked as on screen). */
function TechnicalDetails({ r }: { r: AuditLogRow }) {
  const { t } = useTranslation('audit');
  const items: [string, string | number | null][] = [
    [t('record.entity'), r.entity],
    [t('record.entityId'), r.entityId],
    [t('record.fieldCode'), r.field],
    ...(r.changes?.length
      ? [[t('record.itemCodes'), r.changes.map((c) => c.field).join(', ')] as [string, string]]
      : []),
    [t('record.rawOld'), r.oldValue],
    [t('record.rawNew'), r.newValue],
    [t('record.siteId'), r.siteId],
    [t('record.subjectId'), r.subjectId],
    [t('record.ip'), r.ip],
    [t('record.requestId'), r.requestId],
    [t('record.seq'), r.seq],
  ];
  return (
    <Descriptions
      size="small"
      column={{ xs: 1, md: 2, xl: 3 }}
      title={<Typography.Text type="secondary">{t('record.technical')}</Typography.Text>}
      data-testid="audit-technical"
      items={items.map(([label, v], i) => ({
        key: i,
        label,
        children: (
          <span style={{ overflowWrap: 'anywhere' }}>{v === null || v === '' ? '—' : String(v)}</span>
        ),
      }))}
    />
  );
}

/**
 * An audit trail (spec §2 module 6, /project/auditLogs; issue 4 §7): event, user and date-range filters (≤ 90
 * days, start not after end), paging, and an Excel export of the same filters. Times show in the viewer's zone.
 */
export function AuditLogView({
  source,
  scope,
  canExport,
  canPickUser,
  testId,
}: {
  source: AuditSource;
  /** part of the cache key: the project or environment the trail belongs to */
  scope: string;
  canExport: boolean;
  canPickUser: boolean;
  testId: string;
}) {
  const { t, i18n } = useTranslation('audit');
  const { message } = App.useApp();
  const [form] = Form.useForm<FilterValues>();
  const [filters, setFilters] = useState<AuditFilters>({});
  const [page, setPage] = useState<number>(LIMITS.firstPage);
  const [pageSize, setPageSize] = useState<number>(LIMITS.defaultPageSize);
  const [userKw, setUserKw] = useState('');
  const [exporting, setExporting] = useState(false);
  const login = source.key === 'login';

  const q = useQuery(
    auditPageQuery(source, { ...filters, pageNumber: page, pageSize }, `${scope}:${i18n.language}`),
  );
  const events = useQuery(auditEventsQuery(source, scope, i18n.language));
  const users = useQuery(auditUsersQuery(source, scope, userKw, canPickUser));
  const eventLabel = useMemo(
    () => new Map((events.data ?? []).map((e) => [e.value, e.label])),
    [events.data],
  );
  // the server translates event names; where it has no label yet (it answers the code), a web label stands in
  const labelOf = (action: string) => {
    const server = eventLabel.get(action);
    return server && server !== action ? server : t(`events.${action}`, { defaultValue: action });
  };
  const eventOptions = (events.data ?? []).map((e) => ({ value: e.value, label: labelOf(e.value) }));

  const search = (v: FilterValues) => {
    setFilters({ action: v.action, userId: v.userId, ...rangeBounds(v.start, v.end) });
    setPage(LIMITS.firstPage);
  };

  const doExport = () => {
    setExporting(true);
    auditApi
      .export(source, filters)
      .then((b) => {
        saveBlob(b, `${t(`fileName.${source.key}`)}-${dayjs().format('YYYYMMDD-HHmm')}.xlsx`);
        void message.success(t('exported'));
      })
      .catch(() => undefined)
      .finally(() => setExporting(false));
  };

  const rangeRule = (which: 'start' | 'end') => ({
    validator: () => {
      const p = dateRangeProblem(
        form.getFieldValue('start') as Dayjs | null,
        form.getFieldValue('end') as Dayjs | null,
      );
      if (!p) return Promise.resolve();
      // the start carries "start after end", the end carries "more than 90 days"
      if ((p === 'startAfterEnd') !== (which === 'start')) return Promise.resolve();
      return Promise.reject(new Error(t(`validation.${p}`, { days: LIMITS.dateSpanDays })));
    },
  });

  const columns: TableProps<AuditLogRow>['columns'] = [
    {
      title: (
        <Tooltip title={t('timeZoneHint', { zone })}>
          <span>{t('cols.time')}</span>
        </Tooltip>
      ),
      dataIndex: 'createTime',
      width: 160,
      render: (v: string) => (
        <span style={{ whiteSpace: 'nowrap' }}>{dayjs(v).format('YYYY-MM-DD HH:mm:ss')}</span>
      ),
    },
    {
      title: t('cols.user'),
      dataIndex: 'userName',
      width: 110,
      ellipsis: true,
      render: (v: string | null) => v ?? '—',
    },
    {
      title: t('cols.env'),
      dataIndex: 'env',
      width: 70,
      render: (v: string | null) => (v ? <Tag>{v}</Tag> : '—'),
    },
    {
      title: t('cols.event'),
      dataIndex: 'action',
      width: 140,
      render: (v: string, r: AuditLogRow) => (
        <span>{r.display.event !== v ? r.display.event : labelOf(v)}</span>
      ),
    },
    ...(login
      ? [
          { title: t('cols.ip'), dataIndex: 'ip', width: 140, render: (v: string | null) => v ?? '—' },
          {
            title: t('cols.detail'),
            key: 'detail',
            render: (_: unknown, r: AuditLogRow) => (
              <Value v={[r.field, r.newValue].filter(Boolean).join(': ') || null} />
            ),
          },
        ]
      : [
          {
            title: t('cols.record'),
            key: 'record',
            render: (_: unknown, r: AuditLogRow) => <Record r={r} />,
          },
        ]),
    {
      title: t('cols.reason'),
      dataIndex: 'reason',
      width: 180,
      render: (_: string | null, r: AuditLogRow) => <Value v={r.display.reason} />,
    },
  ];

  const filtered = Boolean(filters.action || filters.userId || filters.startTime || filters.endTime);

  return (
    <div data-testid={testId}>
      <div
        style={{
          display: 'flex',
          justifyContent: 'space-between',
          alignItems: 'flex-start',
          gap: 8,
          flexWrap: 'wrap',
          marginBottom: 8,
        }}
      >
        <Form form={form} layout="inline" onFinish={search} style={{ rowGap: 8 }} data-testid="audit-filters">
          {(events.data?.length ?? 0) > 0 ? (
            <Form.Item name="action">
              <Select
                allowClear
                showSearch={{ optionFilterProp: 'label' }}
                placeholder={t('filters.event')}
                style={{ width: 200 }}
                options={eventOptions}
                data-testid="audit-event"
              />
            </Form.Item>
          ) : null}
          {canPickUser ? (
            <Form.Item name="userId">
              <Select
                allowClear
                showSearch={{ filterOption: false, onSearch: setUserKw }}
                placeholder={t('filters.user')}
                style={{ width: 200 }}
                loading={users.isFetching}
                options={(users.data ?? []).map((u) => ({ value: u.id, label: `${u.name} (${u.account})` }))}
                data-testid="audit-user"
              />
            </Form.Item>
          ) : null}
          <Form.Item name="start" rules={[rangeRule('start')]} dependencies={['end']}>
            <DatePicker placeholder={t('filters.start')} data-testid="audit-start" />
          </Form.Item>
          <Form.Item name="end" rules={[rangeRule('end')]} dependencies={['start']}>
            <DatePicker placeholder={t('filters.end')} data-testid="audit-end" />
          </Form.Item>
          <Form.Item>
            <Space>
              <Button type="primary" htmlType="submit" icon={<SearchOutlined />} data-testid="audit-search">
                {t('search')}
              </Button>
              <Button
                onClick={() => {
                  form.resetFields();
                  search({});
                }}
              >
                {t('reset')}
              </Button>
            </Space>
          </Form.Item>
        </Form>
        {canExport ? (
          <Button icon={<ExportOutlined />} loading={exporting} onClick={doExport} data-testid="audit-export">
            {t('export')}
          </Button>
        ) : null}
      </div>
      <PagedTable<AuditLogRow>
        query={q}
        page={page}
        pageSize={pageSize}
        onPage={(p, s) => {
          setPage(p);
          setPageSize(s);
        }}
        empty={filtered ? t('noMatch') : t('empty')}
        texts={{ loadFailed: t('loadFailed'), retry: t('retry'), total: (n) => t('total', { count: n }) }}
        rowKey="id"
        size="small"
        columns={columns}
        scroll={{ x: login ? 1000 : 1100 }}
        expandable={{
          expandedRowRender: (r) => <TechnicalDetails r={r} />,
          columnWidth: 36,
        }}
        onRow={() => ({ style: { verticalAlign: 'top' } })}
        data-testid="audit-table"
      />
    </div>
  );
}

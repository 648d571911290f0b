import { useState, type ReactNode } from 'react';
import {
  Alert,
  App,
  Button,
  Drawer,
  Empty,
  Flex,
  Input,
  Result,
  Select,
  Space,
  Switch,
  Tag,
  Typography,
} from 'antd';
import type { TableColumnsType } from 'antd';
import { ApiOutlined, ReloadOutlined, UserAddOutlined } from '@ant-design/icons';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useTranslation } from 'react-i18next';
import {
  EC_PARTICIPANT_STATUSES,
  LIMITS,
  type EcAddResult,
  type EcParticipantRow,
  type EcParticipantStatus,
} from '@esource/shared';
import { ApiError } from '../../../lib/api-client';
import { PagedTable } from '../../../components/paged-table';
import { econsentApi, participantPageQuery, type EcFilters } from '../api/econsent-api';
import { EcConfigModal } from './ec-config-modal';

const STATUS_COLOR: Record<EcParticipantStatus, string> = {
  pending: 'default',
  consented: 'green',
  withdrawn: 'orange',
  declined: 'red',
};

export interface EconsentDrawerProps {
  open: boolean;
  onClose: () => void;
  /** the project environment the list belongs to */
  scope: { env: string; projectId: number | null };
  /** the caller's sites, for the site filter */
  sites: { id: number; siteNo: string; name: string }[];
  /** may set up / change the e-consent connection (source:config:update) */
  canConfigure: boolean;
  /** how an added participant's subject is shown (a link to its page) */
  renderSubject?: (s: { ptsId: number; ptsNo: string }) => ReactNode;
  /** participants were added as subjects */
  onAdded: (r: EcAddResult) => void;
}

/**
 * "Import from e-consent" (issue 15 item 7): the participants the e-consent system lists for the caller's sites, those
 * already added marked with their subject, the others with why they cannot be added; the selected ones become subjects.
 */
export function EconsentDrawer({
  open,
  onClose,
  scope,
  sites,
  canConfigure,
  renderSubject,
  onAdded,
}: EconsentDrawerProps) {
  const { t } = useTranslation('econsent');
  const { message } = App.useApp();
  const qc = useQueryClient();
  const [filters, setFilters] = useState<EcFilters>({ added: false });
  const [page, setPage] = useState<number>(LIMITS.firstPage);
  const [pageSize, setPageSize] = useState<number>(LIMITS.defaultPageSize);
  const [selected, setSelected] = useState<string[]>([]);
  const [busy, setBusy] = useState(false);
  const [addError, setAddError] = useState<string | null>(null);
  const [configOpen, setConfigOpen] = useState(false);

  const q = useQuery({
    ...participantPageQuery(scope, filters, page, pageSize),
    enabled: open && scope.projectId !== null,
  });
  const err = q.error instanceof ApiError ? q.error : null;
  const notConfigured = err?.errorCode === 'EC_NOT_CONFIGURED';
  const filter = (patch: Partial<EcFilters>) => {
    setFilters((f) => ({ ...f, ...patch }));
    setPage(1);
    setSelected([]);
  };
  const reload = () => qc.invalidateQueries({ queryKey: ['econsent'] });

  const add = async () => {
    setBusy(true);
    setAddError(null);
    try {
      const r = await econsentApi.add(selected);
      setSelected([]);
      void message.success(
        t('added', {
          count: r.added.length,
          list: r.added.map((a) => `${a.screeningNo} → ${a.ptsNo}`).join(', '),
        }),
      );
      onAdded(r);
      await reload();
    } catch (e) {
      setAddError(e instanceof Error ? e.message : String(e));
      await reload();
    } finally {
      setBusy(false);
    }
  };

  const masked = q.data?.identifiersMasked ?? true;
  const columns: TableColumnsType<EcParticipantRow> = [
    { title: t('col.screeningNo'), dataIndex: 'screeningNo', key: 'screeningNo', width: 110 },
    {
      title: masked ? t('col.initials') : t('col.name'),
      key: 'name',
      width: 120,
      render: (_: unknown, r) => (
        <Space size={4} wrap>
          {!masked && r.name ? <span>{r.name}</span> : null}
          {r.initials ? (
            <Typography.Text type={masked ? undefined : 'secondary'}>{r.initials}</Typography.Text>
          ) : null}
          {!r.name && !r.initials ? '—' : null}
        </Space>
      ),
    },
    {
      title: t('col.sex'),
      dataIndex: 'sex',
      key: 'sex',
      width: 80,
      render: (v: string | null) => (v ? t(`sex.${v}`) : '—'),
    },
    {
      title: t('col.birthDate'),
      dataIndex: 'birthDate',
      key: 'birthDate',
      width: 105,
      render: (v: string | null) => v ?? '—',
    },
    {
      title: t('col.consentDate'),
      dataIndex: 'consentDate',
      key: 'consentDate',
      width: 108,
      render: (v: string | null) => v ?? '—',
    },
    {
      title: t('col.consentVersion'),
      dataIndex: 'consentVersion',
      key: 'consentVersion',
      width: 160,
      render: (v: string | null) => v ?? '—',
    },
    {
      title: t('col.site'),
      key: 'site',
      width: 150,
      render: (_: unknown, r) =>
        r.siteName ? (
          `${r.siteCode} ${r.siteName}`
        ) : (
          <Typography.Text type="warning">{r.siteCode}</Typography.Text>
        ),
    },
    {
      title: t('col.status'),
      dataIndex: 'status',
      key: 'status',
      width: 120,
      render: (v: EcParticipantStatus) => <Tag color={STATUS_COLOR[v]}>{t(`status.${v}`)}</Tag>,
    },
    {
      title: t('col.subject'),
      key: 'subject',
      width: 170,
      render: (_: unknown, r) =>
        r.subject ? (
          <span data-testid={`ec-subject-${r.screeningNo}`}>
            {renderSubject ? renderSubject(r.subject) : <Tag color="blue">{r.subject.ptsNo}</Tag>}
          </span>
        ) : r.refusal ? (
          <Typography.Text
            type="secondary"
            style={{ fontSize: 12 }}
            data-testid={`ec-refusal-${r.screeningNo}`}
          >
            {r.refusal}
          </Typography.Text>
        ) : (
          <Typography.Text type="success">{t('addable')}</Typography.Text>
        ),
    },
  ];

  const filtered = Boolean(
    filters.siteId || filters.status || filters.consented || filters.keyword || filters.added !== undefined,
  );
  const width = typeof window === 'undefined' ? 1240 : Math.min(1240, window.innerWidth);

  let body: ReactNode;
  if (notConfigured) {
    body = (
      <Empty description={t('notConfigured')} data-testid="ec-not-configured">
        {canConfigure ? (
          <Button
            type="primary"
            icon={<ApiOutlined />}
            onClick={() => setConfigOpen(true)}
            data-testid="ec-setup"
          >
            {t('setUp')}
          </Button>
        ) : (
          <Typography.Text type="secondary">{t('askAdmin')}</Typography.Text>
        )}
      </Empty>
    );
  } else if (err && !q.data) {
    body = (
      <Result
        status="warning"
        title={t('loadFailed')}
        subTitle={<span data-testid="ec-load-error">{err.message}</span>}
        extra={
          <Button icon={<ReloadOutlined />} onClick={() => void q.refetch()}>
            {t('retry')}
          </Button>
        }
      />
    );
  } else {
    body = (
      <>
        <Flex gap={12} wrap style={{ marginBottom: 12 }} align="center">
          <Input.Search
            allowClear
            placeholder={t('filter.keyword')}
            style={{ width: 220 }}
            onSearch={(v) => filter({ keyword: v.trim() || undefined })}
            data-testid="ec-search"
          />
          <Select
            allowClear
            placeholder={t('filter.site')}
            style={{ width: 200 }}
            value={filters.siteId}
            onChange={(v: number | undefined) => filter({ siteId: v })}
            options={sites.map((s) => ({ value: s.id, label: `${s.siteNo} ${s.name}` }))}
            data-testid="ec-filter-site"
          />
          <Select
            allowClear
            placeholder={t('filter.status')}
            style={{ width: 170 }}
            value={filters.status}
            onChange={(v: EcParticipantStatus | undefined) => filter({ status: v })}
            options={EC_PARTICIPANT_STATUSES.map((s) => ({ value: s, label: t(`status.${s}`) }))}
            data-testid="ec-filter-status"
          />
          <Space size={6}>
            <Switch
              size="small"
              checked={filters.consented === true}
              onChange={(v) => filter({ consented: v ? true : undefined })}
              data-testid="ec-filter-consented"
            />
            <span>{t('filter.consentedOnly')}</span>
          </Space>
          <Space size={6}>
            <Switch
              size="small"
              checked={filters.added === false}
              onChange={(v) => filter({ added: v ? false : undefined })}
              data-testid="ec-filter-not-added"
            />
            <span>{t('filter.notAdded')}</span>
          </Space>
        </Flex>
        {masked ? (
          <Typography.Paragraph type="secondary" style={{ fontSize: 12 }}>
            {t('masked')}
          </Typography.Paragraph>
        ) : null}
        {err ? <Alert type="warning" showIcon style={{ marginBottom: 12 }} title={err.message} /> : null}
        {addError ? (
          <Alert
            type="error"
            showIcon
            closable={{ onClose: () => setAddError(null) }}
            style={{ marginBottom: 12 }}
            title={addError}
            data-testid="ec-add-error"
          />
        ) : null}
        <PagedTable<EcParticipantRow>
          query={q}
          page={page}
          pageSize={pageSize}
          onPage={(p, s) => {
            setPage(p);
            setPageSize(s);
          }}
          empty={filtered ? t('noMatch') : t('empty')}
          texts={{ loadFailed: t('loadFailed'), retry: t('retry'), total: (n) => t('total', { count: n }) }}
          rowKey="participantId"
          size="small"
          columns={columns}
          rowSelection={{
            selectedRowKeys: selected,
            onChange: (keys) => setSelected(keys.map(String)),
            getCheckboxProps: (r) => ({
              disabled: r.subject !== null || r.refusal !== null,
              name: r.screeningNo,
            }),
            preserveSelectedRowKeys: true,
          }}
          data-testid="ec-table"
        />
      </>
    );
  }

  return (
    <Drawer
      open={open}
      onClose={onClose}
      size={width}
      destroyOnHidden
      title={
        <Space size={8} wrap>
          <span>{t('title')}</span>
          {q.data ? (
            <Tag color="purple" data-testid="ec-provider">
              {q.data.provider.name} · {t(`kind.${q.data.provider.kind}`)}
            </Tag>
          ) : null}
        </Space>
      }
      extra={
        canConfigure && !notConfigured ? (
          <Button icon={<ApiOutlined />} onClick={() => setConfigOpen(true)} data-testid="ec-config">
            {t('settings')}
          </Button>
        ) : null
      }
      footer={
        notConfigured || (err && !q.data) ? null : (
          <Flex justify="space-between" align="center" gap={12} wrap>
            <Typography.Text type="secondary" style={{ flex: '1 1 300px', fontSize: 12 }}>
              {t('addHint')}
            </Typography.Text>
            <Button
              type="primary"
              icon={<UserAddOutlined />}
              disabled={selected.length === 0}
              loading={busy}
              onClick={() => void add()}
              data-testid="ec-add"
            >
              {selected.length ? t('add', { count: selected.length }) : t('addNone')}
            </Button>
          </Flex>
        )
      }
      data-testid="ec-drawer"
    >
      {body}
      {configOpen ? (
        <EcConfigModal
          scope={scope}
          onClose={() => setConfigOpen(false)}
          onSaved={() => {
            setConfigOpen(false);
            void reload();
          }}
        />
      ) : null}
    </Drawer>
  );
}

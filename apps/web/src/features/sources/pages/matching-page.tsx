import { useState } from 'react';
import { Alert, App, Button, Card, Modal, Popconfirm, Select, Space, Tag, Typography } from 'antd';
import type { TableColumnsType } from 'antd';
import { ReloadOutlined } from '@ant-design/icons';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { Link } from 'react-router';
import { useTranslation } from 'react-i18next';
import { LIMITS, SOURCE_PATIENT_STATUS, type MatchQueueRow } from '@esource/shared';
import { PagedTable } from '../../../components/paged-table';
import { usePms, useSession } from '../../session';
import { mySitesQuery, subjectPageQuery } from '../../subjects';
import { afterSourceChange, matchQueueQuery, sourcesApi } from '../api/sources-api';
import { fmtTime } from '../components/task-table';
import '../sources.css';

type StatusKey = keyof typeof SOURCE_PATIENT_STATUS;
const STATUS_COLOR: Record<StatusKey, string> = { waiting: 'gold', matched: 'green', assigned: 'blue', dismissed: 'default' };
const statusKey = (n: number) =>
  (Object.entries(SOURCE_PATIENT_STATUS).find(([, v]) => v === n)?.[0] ?? 'waiting') as StatusKey;

/**
 * The matching queue (/project/sourceMatching): hospital patients an extraction found but could not match to a
 * subject by identifier. A user with source:extract:execute assigns one to a subject of the same site, or marks
 * it "not in this study" (with confirmation); everyone else reads.
 */
export default function MatchingPage() {
  const { t } = useTranslation('sources');
  const { message } = App.useApp();
  const has = usePms();
  const qc = useQueryClient();
  const env = useSession((s) => s.env);
  const projectId = useSession((s) => s.project?.id ?? null);
  const scope = { env, projectId };
  const canRun = has('source:extract:execute');
  const [siteId, setSiteId] = useState<number | undefined>();
  const [status, setStatus] = useState<number | 'all'>(SOURCE_PATIENT_STATUS.waiting);
  const [pageNumber, setPage] = useState<number>(LIMITS.firstPage);
  const [pageSize, setPageSize] = useState<number>(LIMITS.defaultPageSize);
  const [assigning, setAssigning] = useState<MatchQueueRow | null>(null);
  const sites = useQuery(mySitesQuery(scope));
  const f = { ...(siteId ? { siteId } : {}), ...(status === 'all' ? {} : { status }) };
  const q = useQuery(matchQueueQuery(scope, f, pageNumber, pageSize));

  const dismiss = async (r: MatchQueueRow) => {
    try {
      await sourcesApi.dismiss(r.id);
      void message.success(t('match.dismissed'));
      await afterSourceChange(qc);
    } catch (e) {
      void message.error(e instanceof Error ? e.message : String(e));
    }
  };

  const columns: TableColumnsType<MatchQueueRow> = [
    {
      title: t('match.identifiers'),
      key: 'ids',
      width: 260,
      render: (_: unknown, r) => (
        <Space size={[4, 4]} wrap>
          {r.identifiers.length ? (
            r.identifiers.map((i, n) => (
              <Tag key={n} title={i.system}>
                {t(`idType.${i.type}`, { defaultValue: i.type })}: <code>{i.value}</code>
              </Tag>
            ))
          ) : (
            <code>{r.patientKey}</code>
          )}
        </Space>
      ),
    },
    { title: t('match.name'), dataIndex: 'name', width: 160, ellipsis: true, render: (v: string | null) => v ?? '—' },
    { title: t('match.birthDate'), dataIndex: 'birthDate', width: 120, render: (v: string | null) => v ?? '—' },
    {
      title: t('match.gender'),
      dataIndex: 'gender',
      width: 90,
      render: (v: string | null) => (v ? t(`gender.${v}`, { defaultValue: v }) : '—'),
    },
    { title: t('col.site'), dataIndex: 'siteName', width: 160, ellipsis: true },
    { title: t('col.connection'), dataIndex: 'connectionName', width: 160, ellipsis: true },
    { title: t('match.records'), dataIndex: 'records', width: 90 },
    {
      title: t('col.status'),
      key: 'status',
      width: 200,
      render: (_: unknown, r) => {
        const k = statusKey(r.status);
        return (
          <Space size={4} wrap>
            <Tag color={STATUS_COLOR[k]}>{t(`match.status.${k}`)}</Tag>
            {r.ptsId ? <Link to={`/project/sourceData?ptsId=${r.ptsId}`}>{r.ptsNo ?? r.ptsId}</Link> : null}
          </Space>
        );
      },
    },
    { title: t('match.found'), dataIndex: 'createTime', width: 170, render: fmtTime },
    ...(canRun
      ? [
          {
            title: t('actions'),
            key: 'actions',
            width: 210,
            fixed: 'right' as const,
            render: (_: unknown, r: MatchQueueRow) =>
              r.status === SOURCE_PATIENT_STATUS.waiting ? (
                <Space size={0}>
                  <Button size="small" type="link" onClick={() => setAssigning(r)} data-testid={`match-assign-${r.id}`}>
                    {t('match.assign')}
                  </Button>
                  <Popconfirm
                    title={t('match.dismissConfirm')}
                    description={t('match.dismissHint')}
                    onConfirm={() => void dismiss(r)}
                    okText={t('ok')}
                    cancelText={t('cancel')}
                  >
                    <Button size="small" type="link" danger data-testid={`match-dismiss-${r.id}`}>
                      {t('match.dismiss')}
                    </Button>
                  </Popconfirm>
                </Space>
              ) : null,
          },
        ]
      : []),
  ];

  return (
    <Card size="small" data-testid="matching-page">
      <Typography.Paragraph type="secondary">{t('match.intro')}</Typography.Paragraph>
      <div className="source-filters">
        <Select
          allowClear
          value={siteId}
          onChange={(v?: number) => {
            setSiteId(v);
            setPage(LIMITS.firstPage);
          }}
          placeholder={t('filters.site')}
          style={{ width: 220 }}
          loading={sites.isLoading}
          options={(sites.data ?? []).map((s) => ({ value: s.id, label: `${s.siteNo} ${s.name}` }))}
        />
        <Select<number | 'all'>
          value={status}
          onChange={(v) => {
            setStatus(v);
            setPage(LIMITS.firstPage);
          }}
          style={{ width: 180 }}
          data-testid="match-filter-status"
          options={[
            { value: 'all', label: t('match.status.all') },
            ...Object.entries(SOURCE_PATIENT_STATUS).map(([k, v]) => ({ value: v, label: t(`match.status.${k}`) })),
          ]}
        />
        <span style={{ flex: 1 }} />
        <Button icon={<ReloadOutlined />} onClick={() => void q.refetch()} aria-label={t('refresh')} />
      </div>
      <PagedTable<MatchQueueRow>
        query={q}
        page={pageNumber}
        pageSize={pageSize}
        onPage={(p, s) => {
          setPage(p);
          setPageSize(s);
        }}
        empty={status === SOURCE_PATIENT_STATUS.waiting && !siteId ? t('match.empty') : t('match.emptyFiltered')}
        texts={{ loadFailed: t('loadFailed'), retry: t('retry'), total: (n) => t('total', { count: n }) }}
        rowKey="id"
        columns={columns}
        data-testid="match-table"
      />
      {assigning ? <AssignDialog row={assigning} onClose={() => setAssigning(null)} /> : null}
    </Card>
  );
}

/** Assign a hospital patient to a subject of the same site, chosen by subject number. */
function AssignDialog({ row, onClose }: { row: MatchQueueRow; onClose: () => void }) {
  const { t } = useTranslation('sources');
  const { message } = App.useApp();
  const qc = useQueryClient();
  const env = useSession((s) => s.env);
  const projectId = useSession((s) => s.project?.id ?? null);
  const [keyword, setKeyword] = useState('');
  const [ptsId, setPtsId] = useState<number | undefined>();
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const subjects = useQuery(
    subjectPageQuery({ env, projectId }, { siteId: row.siteId, ...(keyword ? { keyword } : {}) }, 1, 50, false),
  );
  const submit = async () => {
    if (!ptsId) {
      setError(t('match.chooseSubject'));
      return;
    }
    setBusy(true);
    setError(null);
    try {
      await sourcesApi.assign(row.id, ptsId);
      void message.success(t('match.assigned'));
      await afterSourceChange(qc);
      onClose();
    } catch (e) {
      setError(e instanceof Error ? e.message : String(e));
    } finally {
      setBusy(false);
    }
  };
  return (
    <Modal
      open
      title={t('match.assignTitle', { key: row.identifiers[0]?.value ?? row.patientKey })}
      okText={t('match.assign')}
      cancelText={t('cancel')}
      onOk={() => void submit()}
      onCancel={onClose}
      confirmLoading={busy}
      okButtonProps={{ 'data-testid': 'match-assign-ok' }}
    >
      <Typography.Paragraph type="secondary">{t('match.assignHint', { site: row.siteName })}</Typography.Paragraph>
      <Select
        showSearch={{ filterOption: false, onSearch: (v) => setKeyword(v.trim()) }}
        style={{ width: '100%' }}
        value={ptsId}
        onChange={setPtsId}
        placeholder={t('match.subjectPlaceholder')}
        loading={subjects.isFetching}
        notFoundContent={t('match.noSubject')}
        options={(subjects.data?.content ?? []).map((s) => ({
          value: s.ptsId,
          label: `${s.ptsNo}${s.initials ? ` (${s.initials})` : ''}`,
        }))}
        data-testid="match-subject"
      />
      {error ? <Alert type="error" showIcon title={error} style={{ marginTop: 12 }} /> : null}
    </Modal>
  );
}

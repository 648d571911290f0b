import { useState } from 'react';
import { App, Button, Card, Checkbox, Input, Modal, Select, Space, Tag, Tooltip, Typography } from 'antd';
import type { TableProps } from 'antd';
import { CopyOutlined, PlusOutlined, ReloadOutlined, SettingOutlined, StopOutlined } from '@ant-design/icons';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useTranslation } from 'react-i18next';
import { Link, useNavigate } from 'react-router';
import dayjs from 'dayjs';
import {
  SHARE_REVIEWS,
  SHARE_STATUSES,
  type ShareReview,
  type ShareRow,
  type ShareStatus,
} from '@esource/shared';
import { PagedTable, useUrlPaging } from '../../../components/paged-table';
import { ApiError } from '../../../lib/api-client';
import { usePms, useSession } from '../../session';
import { SiteFilter, subjectDetailPath } from '../../subjects';
import { ddcApi, ddcKey, sharePageQuery, shareUrl, type ShareFilters } from '../api/ddc-api';
import { DdcHeader } from '../components/ddc-header';
import { ShareDialog } from '../components/share-dialog';
import { ShareLinkResult, copyText } from '../components/share-link-result';
import '../ddc.css';

const time = (v: string | null) => (v ? dayjs(v).format('YYYY-MM-DD HH:mm') : '—');
const STATUS_COLOR: Record<ShareStatus, string> = {
  active: 'green',
  used: 'blue',
  expired: 'default',
  revoked: 'red',
};
const REVIEW_COLOR: Record<ShareReview, string> = {
  pending: 'orange',
  accepted: 'cyan',
  corrected: 'purple',
};

/**
 * /DDC/share (spec §2 standalone route; issue 15 item 6): the shared-form links of the caller's sites — status, review,
 * site, keyword and "mine" filters, by creation or expiry, 50/100/200 paging — with copy (and QR code) and revoke for
 * active links, a new link with a subject, visit and form picker, and the way to the form the answers went to.
 */
export default function DdcSharePage() {
  const { t } = useTranslation('ddc');
  const { message } = App.useApp();
  const qc = useQueryClient();
  const navigate = useNavigate();
  const has = usePms();
  const env = useSession((s) => s.env);
  const language = useSession((s) => s.language);
  const loginType = useSession((s) => s.loginType);
  const projectId = useSession((s) => s.project?.id ?? null);
  const paging = useUrlPaging();
  const [filters, setFilters] = useState<ShareFilters>({});
  const [creating, setCreating] = useState(false);
  const [shown, setShown] = useState<{ code: string; expiresAt: string } | null>(null);
  const [revoking, setRevoking] = useState<ShareRow | null>(null);
  const q = useQuery(
    sharePageQuery(
      { env, projectId },
      { ...filters, pageNumber: paging.pageNumber, pageSize: paging.pageSize },
    ),
  );
  const { sortField: _f, sortOrder: _o, ...narrowing } = filters;
  const filtered = Object.values(narrowing).some((v) => v !== undefined && v !== false);

  const change = (patch: Partial<ShareFilters>) => {
    setFilters((f) => ({ ...f, ...patch }));
    paging.first();
  };
  const reveal = async (r: ShareRow, copy: boolean) => {
    try {
      const { code } = await ddcApi.code(r.id);
      if (copy) {
        const ok = await copyText(shareUrl(code));
        if (ok) void message.success(t('copied'));
        else setShown({ code, expiresAt: r.expiresAt });
      } else setShown({ code, expiresAt: r.expiresAt });
    } catch (e) {
      void message.error(e instanceof ApiError ? e.message : String(e));
      void qc.invalidateQueries({ queryKey: ddcKey });
    }
  };

  const sortOrderOf = (field: 'createTime' | 'expiresAt') =>
    (filters.sortField ?? 'createTime') === field
      ? filters.sortOrder === 'asc'
        ? 'ascend'
        : 'descend'
      : null;

  const columns: TableProps<ShareRow>['columns'] = [
    {
      title: t('fields.created'),
      dataIndex: 'createTime',
      key: 'createTime',
      width: 150,
      sorter: true,
      sortOrder: sortOrderOf('createTime'),
      sortDirections: ['descend', 'ascend', 'descend'],
      render: (v: string, r) => (
        <div>
          <div>{time(v)}</div>
          <Typography.Text type="secondary" style={{ fontSize: 12 }}>
            #{r.id} · {r.createdByName ?? '—'}
          </Typography.Text>
        </div>
      ),
    },
    {
      title: t('fields.subject'),
      key: 'subject',
      width: 150,
      render: (_: unknown, r) => (
        <div>
          <div data-testid={`share-subject-${r.id}`}>{r.ptsNo}</div>
          <Typography.Text type="secondary" style={{ fontSize: 12 }}>
            {r.siteName}
          </Typography.Text>
        </div>
      ),
    },
    {
      title: t('fields.form'),
      key: 'form',
      ellipsis: true,
      render: (_: unknown, r) => {
        const form = (language === 'en_US' ? r.formNameEn : null) ?? r.formName;
        const visit = (language === 'en_US' ? r.visitNameEn : null) ?? r.visitName;
        return (
          <div>
            <Link
              to={subjectDetailPath({ ptsId: r.ptsId, ptsNo: r.ptsNo, designVersionId: null }, loginType, {
                visitId: r.visitId,
                formId: r.formId,
                unscheduledId: r.unscheduledId,
                repeatNo: r.repeatNo,
              })}
              data-testid={`share-form-${r.id}`}
            >
              {form}
              {r.repeatNo > 1 ? ` #${r.repeatNo}` : ''}
            </Link>
            <div>
              <Typography.Text type="secondary" style={{ fontSize: 12 }}>
                {r.visitCode} {visit}
                {r.note ? ` · ${r.note}` : ''}
              </Typography.Text>
            </div>
          </div>
        );
      },
    },
    {
      title: t('fields.status'),
      key: 'status',
      width: 150,
      render: (_: unknown, r) => (
        <Space size={4} wrap>
          <Tooltip
            title={
              r.status === 'revoked'
                ? t('revokedBy', {
                    name: r.revokedByName ?? '—',
                    time: time(r.revokedAt),
                    reason: r.revokeReason ?? '—',
                  })
                : r.status === 'used'
                  ? t('usedAt', { time: time(r.usedAt) })
                  : undefined
            }
          >
            <Tag color={STATUS_COLOR[r.status]} data-testid={`share-status-${r.id}`}>
              {t(`status.${r.status}`)}
            </Tag>
          </Tooltip>
          {r.review ? (
            <Tooltip
              title={
                r.reviewedAt
                  ? t('reviewedBy', { name: r.reviewedByName ?? '—', time: time(r.reviewedAt) })
                  : t('review.tagHint')
              }
            >
              <Tag color={REVIEW_COLOR[r.review]} data-testid={`share-review-${r.id}`}>
                {t(`reviewState.${r.review}`)}
              </Tag>
            </Tooltip>
          ) : null}
        </Space>
      ),
    },
    {
      title: t('fields.expires'),
      dataIndex: 'expiresAt',
      key: 'expiresAt',
      width: 140,
      sorter: true,
      sortOrder: sortOrderOf('expiresAt'),
      sortDirections: ['ascend', 'descend', 'ascend'],
      render: (v: string) => time(v),
    },
    {
      title: t('fields.opened'),
      key: 'opened',
      width: 110,
      render: (_: unknown, r) =>
        r.openCount ? (
          <Tooltip title={t('lastOpened', { time: time(r.lastOpenedAt) })}>
            <span>{t('openCount', { count: r.openCount })}</span>
          </Tooltip>
        ) : (
          <Typography.Text type="secondary">{t('notOpened')}</Typography.Text>
        ),
    },
    {
      title: t('fields.actions'),
      key: 'actions',
      width: 150,
      fixed: 'right',
      render: (_: unknown, r) =>
        r.status === 'active' ? (
          <Space size={0}>
            <Button
              type="link"
              size="small"
              icon={<CopyOutlined />}
              onClick={() => void reveal(r, false)}
              data-testid={`share-show-${r.id}`}
            >
              {t('show')}
            </Button>
            <Button
              type="link"
              size="small"
              danger
              icon={<StopOutlined />}
              onClick={() => setRevoking(r)}
              data-testid={`share-revoke-${r.id}`}
            >
              {t('revoke.button')}
            </Button>
          </Space>
        ) : (
          <Typography.Text type="secondary">—</Typography.Text>
        ),
    },
  ];

  return (
    <div className="ddc-page" data-testid="ddc-share-page">
      <DdcHeader
        title={t('list.title')}
        extra={
          <>
            {has('crf:form:query') ? (
              <>
                <Button
                  icon={<SettingOutlined />}
                  onClick={() => void navigate('/project/microCrfConfig')}
                  data-testid="ddc-crf-config"
                >
                  {t('list.crfConfig')}
                </Button>
                <Button
                  icon={<SettingOutlined />}
                  onClick={() => void navigate('/project/microDCConfig')}
                  data-testid="ddc-dc-config"
                >
                  {t('list.dcConfig')}
                </Button>
              </>
            ) : null}
            <Button
              type="primary"
              icon={<PlusOutlined />}
              onClick={() => setCreating(true)}
              data-testid="ddc-new"
            >
              {t('list.new')}
            </Button>
          </>
        }
      />
      <div className="ddc-body">
        <Card>
          <Typography.Paragraph type="secondary">{t('list.intro')}</Typography.Paragraph>
          <div className="ddc-filters">
            <Select<ShareStatus>
              allowClear
              value={filters.status}
              onChange={(v) => change({ status: v })}
              placeholder={t('filters.status')}
              style={{ width: 130 }}
              data-testid="ddc-filter-status"
              options={SHARE_STATUSES.map((s) => ({ value: s, label: t(`status.${s}`) }))}
            />
            <Select<ShareReview>
              allowClear
              value={filters.review}
              onChange={(v) => change({ review: v })}
              placeholder={t('filters.review')}
              style={{ width: 150 }}
              data-testid="ddc-filter-review"
              options={SHARE_REVIEWS.map((s) => ({ value: s, label: t(`reviewState.${s}`) }))}
            />
            <SiteFilter
              value={filters.siteId}
              onChange={(siteId) => change({ siteId })}
              placeholder={t('filters.site')}
              testId="ddc-filter-site"
            />
            <Input.Search
              allowClear
              maxLength={50}
              placeholder={t('filters.keyword')}
              style={{ width: 240 }}
              onSearch={(v) => change({ keyword: v.trim() || undefined })}
              data-testid="ddc-filter-keyword"
            />
            <Checkbox
              checked={Boolean(filters.mine)}
              onChange={(e) => change({ mine: e.target.checked || undefined })}
              data-testid="ddc-filter-mine"
            >
              {t('filters.mine')}
            </Checkbox>
            <span style={{ flex: 1 }} />
            <Button icon={<ReloadOutlined />} onClick={() => void q.refetch()} aria-label={t('refresh')} />
          </div>
          <PagedTable<ShareRow>
            query={q}
            page={paging.pageNumber}
            pageSize={paging.pageSize}
            onPage={paging.onPage}
            empty={filtered ? t('list.emptyFiltered') : t('list.empty')}
            texts={{
              loadFailed: t('list.loadFailed'),
              retry: t('retry'),
              total: (n) => t('list.total', { count: n }),
            }}
            rowKey="id"
            columns={columns}
            onChange={(_p, _f, sorter, extra) => {
              if (extra.action !== 'sort') return;
              const s = Array.isArray(sorter) ? sorter[0] : sorter;
              const field = s?.columnKey === 'expiresAt' ? 'expiresAt' : 'createTime';
              change({ sortField: field, sortOrder: s?.order === 'ascend' ? 'asc' : 'desc' });
            }}
            data-testid="ddc-table"
          />
        </Card>
      </div>
      {creating ? <ShareDialog onClose={() => setCreating(false)} /> : null}
      {shown ? (
        <Modal
          open
          title={t('result.title')}
          footer={null}
          onCancel={() => setShown(null)}
          destroyOnHidden
          width={480}
        >
          <ShareLinkResult code={shown.code} expiresAt={shown.expiresAt} />
        </Modal>
      ) : null}
      {revoking ? <RevokeDialog row={revoking} onClose={() => setRevoking(null)} /> : null}
    </div>
  );
}

function RevokeDialog({ row, onClose }: { row: ShareRow; onClose: () => void }) {
  const { t } = useTranslation('ddc');
  const { message } = App.useApp();
  const qc = useQueryClient();
  const [reason, setReason] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const ok = async () => {
    setBusy(true);
    setError(null);
    try {
      await ddcApi.revoke(row.id, reason.trim() || undefined);
      void qc.invalidateQueries({ queryKey: ddcKey });
      void message.success(t('revoke.done'));
      onClose();
    } catch (e) {
      setError(e instanceof ApiError ? e.message : String(e));
      void qc.invalidateQueries({ queryKey: ddcKey });
    } finally {
      setBusy(false);
    }
  };
  return (
    <Modal
      open
      title={t('revoke.title', { id: row.id })}
      okText={t('revoke.button')}
      cancelText={t('cancel')}
      okButtonProps={{ danger: true, 'data-testid': 'share-revoke-ok' }}
      confirmLoading={busy}
      onOk={() => void ok()}
      onCancel={onClose}
      destroyOnHidden
    >
      <Typography.Paragraph>{t('revoke.text')}</Typography.Paragraph>
      <Input.TextArea
        value={reason}
        onChange={(e) => setReason(e.target.value)}
        maxLength={500}
        rows={3}
        placeholder={t('revoke.reason')}
        data-testid="share-revoke-reason"
      />
      {error ? (
        <Typography.Paragraph type="danger" style={{ marginTop: 8 }}>
          {error}
        </Typography.Paragraph>
      ) : null}
    </Modal>
  );
}

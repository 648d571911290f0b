import { useState } from 'react';
import { Button, Card, Input, Progress, Segmented, Space, Statistic, Switch, Tag, Tooltip, Typography } from 'antd';
import type { TableColumnsType } from 'antd';
import { ReloadOutlined, SettingOutlined } from '@ant-design/icons';
import { useQuery } from '@tanstack/react-query';
import { Link } from 'react-router';
import { useTranslation } from 'react-i18next';
import dayjs from 'dayjs';
import { SDV_SHARE, type VerificationRow } from '@esource/shared';
import { PagedTable, useUrlPaging } from '../../../components/paged-table';
import { usePms, useSession } from '../../session';
import { SiteFilter, subjectDetailPath } from '../../subjects';
import { verificationPageQuery, type VerificationFilters } from '../api/verification-api';
import { RiskDrawer } from '../components/risk-drawer';
import { RISK_COLOR } from '../components/subject-risk';
import '../verification.css';

/**
 * SDV/SDR review (spec §2 /project/verification): the completed forms of the caller's sites with their source data
 * verification progress — by default those the site's risk level selects that still need it (never verified, partly,
 * or a verified value changed) — with the totals, filters, 50/100/200 paging and a link that opens each form beside
 * its source. Whoever manages sites sets their risk levels here.
 */
export default function VerificationPage() {
  const { t } = useTranslation('verification');
  const has = usePms();
  const env = useSession((s) => s.env);
  const loginType = useSession((s) => s.loginType);
  const projectId = useSession((s) => s.project?.id ?? null);
  const scope = { env, projectId };
  const [filters, setFilters] = useState<VerificationFilters>({ state: 'remaining', requiredOnly: true });
  const [ptsNo, setPtsNo] = useState('');
  const paging = useUrlPaging();
  const { pageNumber, pageSize } = paging;
  const [riskOpen, setRiskOpen] = useState(false);
  const q = useQuery(verificationPageQuery(scope, filters, pageNumber, pageSize));
  const sum = q.data?.summary;
  const filter = (f: Partial<VerificationFilters>) => {
    setFilters((x) => ({ ...x, ...f }));
    paging.first();
  };

  const columns: TableColumnsType<VerificationRow> = [
    { title: t('col.subject'), key: 'pts', dataIndex: 'ptsNo', width: 110 },
    {
      title: t('col.site'),
      key: 'site',
      width: 240,
      render: (_: unknown, r) => (
        <Space size={4}>
          <Typography.Text ellipsis={{ tooltip: r.siteName }} style={{ maxWidth: 120 }}>
            {r.siteName}
          </Typography.Text>
          {r.subjectRiskLevel !== null ? (
            <Tooltip title={t('subjectRisk.ownHint', { share: SDV_SHARE[r.riskLevel] })}>
              <Tag color={RISK_COLOR[r.riskLevel]} data-testid={`verify-risk-${r.instanceId}`}>
                {t('subjectRisk.short', { level: t(`riskShort.${r.riskLevel}`) })}
              </Tag>
            </Tooltip>
          ) : (
            <Tag color={RISK_COLOR[r.riskLevel]} data-testid={`verify-risk-${r.instanceId}`}>
              {t(`riskShort.${r.riskLevel}`)}
            </Tag>
          )}
        </Space>
      ),
    },
    { title: t('col.visit'), key: 'visit', dataIndex: 'visitName', width: 150, ellipsis: true },
    { title: t('col.form'), key: 'form', render: (_: unknown, r) => `${r.formName}${r.repeatNo > 1 ? ` #${r.repeatNo}` : ''}` },
    {
      title: t('col.sdv'),
      key: 'sdv',
      width: 260,
      render: (_: unknown, r) => (
        <div>
          <Progress percent={r.items ? Math.round((r.verified / r.items) * 100) : 0} size="small" style={{ width: 160, margin: 0 }} />
          <Space size={6} wrap>
            <Typography.Text type="secondary" style={{ whiteSpace: 'nowrap' }}>
              {t('bar.count', { verified: r.verified, items: r.items })}
            </Typography.Text>
            {r.lost ? (
              <Tooltip title={t('col.lostHint')}>
                <Tag color="orange" style={{ marginInlineEnd: 0 }}>
                  {t('bar.lost', { count: r.lost })}
                </Tag>
              </Tooltip>
            ) : null}
          </Space>
        </div>
      ),
    },
    { title: t('col.sdr'), key: 'sdr', width: 100, render: (_: unknown, r) => (r.reviewed ? <Tag color="green">{t('col.reviewed')}</Tag> : <Typography.Text type="secondary">—</Typography.Text>) },
    { title: t('col.required'), key: 'required', width: 130, render: (_: unknown, r) => (r.required ? <Tag color="blue">{t('col.requiredYes')}</Tag> : <Typography.Text type="secondary">{t('col.requiredNo')}</Typography.Text>) },
    { title: t('col.updated'), key: 'updated', width: 150, render: (_: unknown, r) => dayjs(r.updateTime).format('YYYY-MM-DD HH:mm') },
    {
      title: t('col.actions'),
      key: 'actions',
      width: 110,
      fixed: 'right',
      render: (_: unknown, r) => (
        <Link
          to={subjectDetailPath({ ptsId: r.ptsId, ptsNo: r.ptsNo, designVersionId: r.designVersionId }, loginType, {
            visitId: r.visitId,
            formId: r.formId,
            ...(r.unscheduledId ? { unscheduledId: r.unscheduledId } : {}),
            ...(r.repeatNo > 1 ? { repeatNo: r.repeatNo } : {}),
          })}
          data-testid={`verify-open-${r.instanceId}`}
        >
          {t('col.open')}
        </Link>
      ),
    },
  ];

  return (
    <Card
      size="small"
      data-testid="verification-page"
      extra={
        has('research:page:update') ? (
          <Button icon={<SettingOutlined />} onClick={() => setRiskOpen(true)} data-testid="risk-open">
            {t('risk.button')}
          </Button>
        ) : null
      }
      title={t('title')}
    >
      <Typography.Paragraph type="secondary">{t('intro')}</Typography.Paragraph>
      <Space size={32} wrap style={{ marginBottom: 12 }}>
        <Statistic title={t('sum.forms')} value={sum?.forms ?? 0} />
        <Statistic title={t('sum.done')} value={sum?.done ?? 0} suffix={`/ ${sum?.forms ?? 0}`} />
        <Statistic title={t('sum.items')} value={sum && sum.items ? Math.round((sum.verified / sum.items) * 100) : 0} suffix="%" />
      </Space>
      <div className="verification-filters">
        <Segmented
          value={filters.state}
          onChange={(v) => filter({ state: v })}
          options={(['remaining', 'done', 'all'] as const).map((s) => ({ value: s, label: t(`state.${s}`) }))}
          data-testid="verify-state"
        />
        <SiteFilter value={filters.siteId} onChange={(v) => filter({ siteId: v })} placeholder={t('filter.site')} />
        <Input.Search allowClear value={ptsNo} maxLength={50} onChange={(e) => setPtsNo(e.target.value)} onSearch={(v) => filter({ ptsNo: v.trim() || undefined })} placeholder={t('filter.ptsNo')} style={{ width: 170 }} data-testid="verify-ptsno" />
        <Space size={6}>
          <Switch checked={filters.requiredOnly} onChange={(v) => filter({ requiredOnly: v })} data-testid="verify-required" />
          <span>{t('filter.requiredOnly')}</span>
        </Space>
        <Tooltip title={t('refresh')}>
          <Button icon={<ReloadOutlined />} onClick={() => void q.refetch()} aria-label={t('refresh')} />
        </Tooltip>
      </div>
      <PagedTable<VerificationRow>
        rowKey="instanceId"
        query={q}
        page={pageNumber}
        pageSize={pageSize}
        onPage={paging.onPage}
        columns={columns}
        empty={t(`empty.${filters.state}`)}
        texts={{ loadFailed: t('loadFailed'), retry: t('retry'), total: (n) => t('total', { count: n }) }}
        data-testid="verification-table"
      />
      <RiskDrawer open={riskOpen} onClose={() => setRiskOpen(false)} />
    </Card>
  );
}

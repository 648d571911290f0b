import { useState } from 'react';
import { App, Button, Drawer, Empty, Select, Table, Tabs, Tag, Typography } from 'antd';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { Link } from 'react-router';
import { useTranslation } from 'react-i18next';
import { SDV_SHARE, SUBJECT_RISK_LIST_MAX, type SiteDetailRow, type SubjectRiskRow } from '@esource/shared';
import { useSession } from '../../session';
import { mySitesQuery, subjectDetailPath } from '../../subjects';
import { afterVerificationChange, subjectRisksQuery, verificationApi } from '../api/verification-api';
import { RISK_COLOR, SubjectRiskDialog } from './subject-risk';

/**
 * The risk levels (spec §3: high, middle, low) that set the share of forms that need SDV: the sites', and the subjects
 * that have a level of their own (which overrides their site's; set on the subject's page or in the subject list).
 */
export function RiskDrawer({ open, onClose }: { open: boolean; onClose: () => void }) {
  const { t } = useTranslation('verification');
  const { message } = App.useApp();
  const qc = useQueryClient();
  const env = useSession((s) => s.env);
  const loginType = useSession((s) => s.loginType);
  const projectId = useSession((s) => s.project?.id ?? null);
  const sites = useQuery(mySitesQuery({ env, projectId }));
  const subjects = useQuery(subjectRisksQuery({ env, projectId }, open));
  const [editing, setEditing] = useState<SubjectRiskRow | null>(null);
  const change = async (site: SiteDetailRow, riskLevel: number) => {
    try {
      await verificationApi.setRisk(site.id, riskLevel);
      void message.success(t('risk.saved', { site: site.name }));
    } finally {
      await Promise.all([qc.invalidateQueries({ queryKey: ['sites'] }), qc.invalidateQueries({ queryKey: ['subjects'] }), afterVerificationChange(qc)]);
    }
  };
  const overrides = subjects.data ?? [];
  return (
    <Drawer open={open} onClose={onClose} title={t('risk.title')} size={640} destroyOnHidden data-testid="risk-drawer">
      <Typography.Paragraph type="secondary">{t('risk.intro', { high: SDV_SHARE[1], middle: SDV_SHARE[2], low: SDV_SHARE[3] })}</Typography.Paragraph>
      <Tabs
        items={[
          {
            key: 'sites',
            label: t('risk.sitesTab'),
            children: (
              <Table<SiteDetailRow>
                size="small"
                rowKey="id"
                pagination={false}
                loading={sites.isFetching}
                dataSource={sites.data ?? []}
                columns={[
                  { title: t('col.site'), key: 'site', render: (_: unknown, s) => `${s.siteNo} ${s.name}` },
                  {
                    title: t('risk.level'),
                    key: 'risk',
                    width: 200,
                    render: (_: unknown, s) => (
                      <Select
                        value={s.riskLevel}
                        style={{ width: 180 }}
                        onChange={(v: number) => void change(s, v)}
                        options={[1, 2, 3].map((l) => ({ value: l, label: t(`risk.${l}`, { share: SDV_SHARE[l] }) }))}
                        data-testid={`risk-${s.siteNo}`}
                      />
                    ),
                  },
                ]}
              />
            ),
          },
          {
            key: 'subjects',
            label: <span data-testid="risk-subjects-tab">{t('risk.subjectsTab', { count: overrides.length })}</span>,
            children: (
              <>
                <Typography.Paragraph type="secondary">{t('risk.subjectsIntro')}</Typography.Paragraph>
                {subjects.isError ? (
                  <Typography.Text type="danger">{subjects.error.message}</Typography.Text>
                ) : (
                  <Table<SubjectRiskRow>
                    size="small"
                    rowKey="ptsId"
                    pagination={false}
                    loading={subjects.isFetching}
                    dataSource={overrides}
                    locale={{ emptyText: <Empty image={Empty.PRESENTED_IMAGE_SIMPLE} description={t('risk.subjectsEmpty')} /> }}
                    footer={overrides.length >= SUBJECT_RISK_LIST_MAX ? () => t('risk.subjectsCapped', { max: SUBJECT_RISK_LIST_MAX }) : undefined}
                    columns={[
                      {
                        title: t('col.subject'),
                        key: 'pts',
                        width: 120,
                        render: (_: unknown, r) => (
                          <Link to={subjectDetailPath(r, loginType)} onClick={onClose}>
                            {r.ptsNo}
                          </Link>
                        ),
                      },
                      {
                        title: t('col.site'),
                        key: 'site',
                        render: (_: unknown, r) => (
                          <span>
                            {r.siteName} <Tag color={RISK_COLOR[r.siteRiskLevel]}>{t(`riskShort.${r.siteRiskLevel}`)}</Tag>
                          </span>
                        ),
                      },
                      { title: t('risk.own'), key: 'own', width: 110, render: (_: unknown, r) => <Tag color={RISK_COLOR[r.riskLevel]}>{t(`riskShort.${r.riskLevel}`)}</Tag> },
                      {
                        title: t('col.actions'),
                        key: 'actions',
                        width: 100,
                        render: (_: unknown, r) => (
                          <Button size="small" onClick={() => setEditing(r)} data-testid={`risk-subject-${r.ptsNo}`}>
                            {t('risk.change')}
                          </Button>
                        ),
                      },
                    ]}
                    data-testid="risk-subjects"
                  />
                )}
              </>
            ),
          },
        ]}
      />
      {editing ? <SubjectRiskDialog subject={editing} onClose={() => setEditing(null)} /> : null}
    </Drawer>
  );
}

import { App, Drawer, Select, Table, Typography } from 'antd';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useTranslation } from 'react-i18next';
import { SDV_SHARE, type SiteDetailRow } from '@esource/shared';
import { useSession } from '../../session';
import { mySitesQuery } from '../../subjects';
import { afterVerificationChange, verificationApi } from '../api/verification-api';

/** The sites' risk levels (spec §3: high, middle, low), which set the share of their forms that need SDV. */
export function RiskDrawer({ open, onClose }: { open: boolean; onClose: () => void }) {
  const { t } = useTranslation('verification');
  const { message } = App.useApp();
  const qc = useQueryClient();
  const env = useSession((s) => s.env);
  const projectId = useSession((s) => s.project?.id ?? null);
  const sites = useQuery(mySitesQuery({ env, projectId }));
  const change = async (site: SiteDetailRow, riskLevel: number) => {
    try {
      await verificationApi.setRisk(site.id, riskLevel);
      void message.success(t('risk.saved', { site: site.name }));
    } finally {
      await Promise.all([qc.invalidateQueries({ queryKey: ['sites'] }), afterVerificationChange(qc)]);
    }
  };
  return (
    <Drawer open={open} onClose={onClose} title={t('risk.title')} size={560} destroyOnHidden data-testid="risk-drawer">
      <Typography.Paragraph type="secondary">{t('risk.intro', { high: SDV_SHARE[1], middle: SDV_SHARE[2], low: SDV_SHARE[3] })}</Typography.Paragraph>
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
    </Drawer>
  );
}

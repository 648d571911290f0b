import { useState } from 'react';
import { Alert, App, Button, Card, Empty, Result, Space, Table, Tag, Typography } from 'antd';
import type { TableColumnsType } from 'antd';
import { CalendarOutlined, EditOutlined, PlusOutlined } from '@ant-design/icons';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useTranslation } from 'react-i18next';
import { can, type Permission, type SiteDetailRow } from '@esource/shared';
import { useSession, useAccess } from '../../session';
import { sitesQuery } from '../api/sites-api';
import { SiteDialog } from '../components/site-dialog';
import { SiteScheduleDrawer } from '../components/site-schedule-drawer';

/** /project/centerList (research:page:query): the open project's sites in the current environment. */
export default function SitesPage() {
  const { t } = useTranslation('sites');
  const { message } = App.useApp();
  const qc = useQueryClient();
  const env = useSession((s) => s.env);
  const projectId = useSession((s) => s.project?.id ?? null);
  const access = useAccess();
  const allowed = (p: Permission) => Boolean(access && can(access.pms, { anyOf: [p] }));
  const q = useQuery(sitesQuery(env, projectId));
  const [dialog, setDialog] = useState<{ site?: SiteDetailRow } | null>(null);
  const [schedule, setSchedule] = useState<SiteDetailRow | null>(null);

  const columns: TableColumnsType<SiteDetailRow> = [
    { title: t('col.siteNo'), dataIndex: 'siteNo', key: 'siteNo', width: 140 },
    { title: t('col.name'), dataIndex: 'name', key: 'name' },
    { title: t('col.org'), dataIndex: 'orgName', key: 'org' },
    {
      title: t('col.pi'),
      dataIndex: 'piName',
      key: 'pi',
      width: 200,
      render: (v: string | null) => v ?? '—',
    },
    {
      title: t('col.status'),
      dataIndex: 'status',
      key: 'status',
      width: 110,
      render: (v: number) => (
        <Tag color={v === 1 ? 'green' : 'default'}>{t(`status.${v}`, { defaultValue: String(v) })}</Tag>
      ),
    },
  ];
  const canEdit = allowed('research:page:update');
  columns.push({
    title: t('col.actions'),
    key: 'actions',
    width: canEdit ? 220 : 140,
    render: (_: unknown, r) => (
      <Space size={0}>
        <Button
          type="link"
          size="small"
          icon={<CalendarOutlined />}
          onClick={() => setSchedule(r)}
          data-testid={`site-schedule-${r.siteNo}`}
        >
          {t('schedule.button')}
        </Button>
        {canEdit ? (
          <Button
            type="link"
            size="small"
            icon={<EditOutlined />}
            onClick={() => setDialog({ site: r })}
            data-testid={`site-edit-${r.siteNo}`}
          >
            {t('edit.button')}
          </Button>
        ) : null}
      </Space>
    ),
  });

  return (
    <div data-testid="sites-page">
      <Card
        size="small"
        title={
          <Space>
            <span>{t('title')}</span>
            <Tag color="blue" data-testid="sites-env">
              {env}
            </Tag>
          </Space>
        }
        extra={
          allowed('research:page:add') ? (
            <Button
              type="primary"
              icon={<PlusOutlined />}
              onClick={() => setDialog({})}
              data-testid="site-add"
            >
              {t('add.button')}
            </Button>
          ) : null
        }
      >
        <Typography.Paragraph type="secondary" style={{ marginTop: 0 }}>
          {t('explain', { env })}
        </Typography.Paragraph>
        {access && access.loginType === 3 ? (
          <Alert type="info" showIcon style={{ marginBottom: 12 }} title={t('ownSitesOnly')} />
        ) : null}
        {q.isError ? (
          <Result
            status="warning"
            title={t('loadFailed')}
            extra={<Button onClick={() => void q.refetch()}>{t('retry')}</Button>}
          />
        ) : (
          <Table<SiteDetailRow>
            rowKey="id"
            size="middle"
            columns={columns}
            dataSource={q.data ?? []}
            loading={q.isFetching}
            pagination={false}
            data-testid="sites-table"
            locale={{
              emptyText: <Empty image={Empty.PRESENTED_IMAGE_SIMPLE} description={t('empty', { env })} />,
            }}
          />
        )}
      </Card>
      {schedule ? <SiteScheduleDrawer site={schedule} onClose={() => setSchedule(null)} /> : null}
      {dialog ? (
        <SiteDialog
          site={dialog.site}
          onClose={() => setDialog(null)}
          onSaved={(s) => {
            setDialog(null);
            void message.success(
              dialog.site ? t('edit.done', { no: s.siteNo }) : t('add.done', { no: s.siteNo }),
            );
            void qc.invalidateQueries({ queryKey: ['sites'] });
          }}
        />
      ) : null}
    </div>
  );
}

import {
  Button,
  Descriptions,
  Drawer,
  Empty,
  Result,
  Skeleton,
  Space,
  Table,
  Tag,
  Tooltip,
  Typography,
} from 'antd';
import type { TableColumnsType } from 'antd';
import { useQuery } from '@tanstack/react-query';
import { useTranslation } from 'react-i18next';
import dayjs from 'dayjs';
import { visitLabel, type SiteDetailRow, type SiteSchedule, type VisitRow } from '@esource/shared';
import { useSession } from '../../session';
import { siteScheduleQuery } from '../api/sites-api';

type FormRef = SiteSchedule['forms'][number];

/** "−3 / +7": the window around a visit's day, in days; null when the visit has no window. */
export function windowText(v: Pick<VisitRow, 'windowBefore' | 'windowAfter'>): string | null {
  if (v.windowBefore === 0 && v.windowAfter === 0) return null;
  return `−${v.windowBefore} / +${v.windowAfter}`;
}

/**
 * One site's visit schedule in the current environment (GET /pro/site/schedule/get): the design version in force
 * and its visits with day, window and forms. With no version published to this environment there is no schedule,
 * and the drawer says so rather than showing an empty table.
 */
export function SiteScheduleDrawer({ site, onClose }: { site: SiteDetailRow; onClose: () => void }) {
  const { t } = useTranslation('sites');
  const env = useSession((s) => s.env);
  const projectId = useSession((s) => s.project?.id ?? null);
  const language = useSession((s) => s.language);
  const q = useQuery(siteScheduleQuery(env, projectId, site.id));
  const d = q.data;

  const stageName = new Map((d?.stages ?? []).map((s) => [s.id, s.name]));
  const formById = new Map((d?.forms ?? []).map((f) => [f.id, f]));
  const formName = (f: FormRef) => (language === 'en_US' && f.nameEn ? f.nameEn : f.name);
  const hasStages = (d?.visits ?? []).some((v) => v.stageId !== null);

  const columns: TableColumnsType<VisitRow> = [
    {
      title: t('schedule.col.code'),
      dataIndex: 'code',
      key: 'code',
      width: 90,
      render: (v: string) => <Typography.Text strong>{v}</Typography.Text>,
    },
    {
      title: t('schedule.col.name'),
      dataIndex: 'name',
      key: 'name',
      width: 160,
      render: (_: string, r) => (
        <Space size={4} wrap>
          <span>{visitLabel(r, language)}</span>
          {r.unscheduled ? <Tag color="orange">{t('schedule.unscheduled')}</Tag> : null}
        </Space>
      ),
    },
    ...(hasStages
      ? [
          {
            title: t('schedule.col.stage'),
            dataIndex: 'stageId',
            key: 'stage',
            width: 120,
            render: (v: number | null) =>
              v === null ? (
                <Typography.Text type="secondary">{t('schedule.noStage')}</Typography.Text>
              ) : (
                (stageName.get(v) ?? '—')
              ),
          },
        ]
      : []),
    {
      title: (
        <Tooltip title={t('schedule.dayHelp')}>
          <span>{t('schedule.col.day')}</span>
        </Tooltip>
      ),
      dataIndex: 'dayOffset',
      key: 'day',
      width: 80,
      align: 'right',
      render: (v: number, r) => (r.unscheduled ? <Typography.Text type="secondary">—</Typography.Text> : v),
    },
    {
      title: (
        <Tooltip title={t('schedule.windowHelp')}>
          <span>{t('schedule.col.window')}</span>
        </Tooltip>
      ),
      key: 'window',
      width: 110,
      render: (_: unknown, r) => {
        if (r.unscheduled) return <Typography.Text type="secondary">—</Typography.Text>;
        const w = windowText(r);
        return w ? (
          <span style={{ whiteSpace: 'nowrap' }}>{t('schedule.windowDays', { range: w })}</span>
        ) : (
          <Typography.Text type="secondary">{t('schedule.noWindow')}</Typography.Text>
        );
      },
    },
    {
      title: t('schedule.col.forms'),
      dataIndex: 'formIds',
      key: 'forms',
      render: (ids: number[]) =>
        ids.length === 0 ? (
          <Typography.Text type="secondary">{t('schedule.noForms')}</Typography.Text>
        ) : (
          <Space size={[4, 4]} wrap>
            {ids.map((id) => {
              const f = formById.get(id);
              return (
                <Tooltip key={id} title={f?.code}>
                  <Tag style={{ marginInlineEnd: 0 }}>{f ? formName(f) : `#${id}`}</Tag>
                </Tooltip>
              );
            })}
          </Space>
        ),
    },
  ];

  let body;
  if (q.isPending) body = <Skeleton active />;
  else if (q.isError)
    body = (
      <Result
        status="error"
        title={t('schedule.loadFailed')}
        subTitle={q.error.message}
        extra={<Button onClick={() => void q.refetch()}>{t('retry')}</Button>}
        data-testid="site-schedule-error"
      />
    );
  else if (!d?.version)
    body = (
      <Empty
        image={Empty.PRESENTED_IMAGE_SIMPLE}
        description={
          <Space orientation="vertical" size={4}>
            <span>{t('schedule.noVersion', { env })}</span>
            <Typography.Text type="secondary">{t('schedule.noVersionHint', { env })}</Typography.Text>
          </Space>
        }
        data-testid="site-schedule-empty"
      />
    );
  else
    body = (
      <Space orientation="vertical" size={16} style={{ width: '100%' }}>
        <Descriptions size="small" bordered column={2} data-testid="site-schedule-version">
          <Descriptions.Item label={t('schedule.version')}>
            <Space size={6} wrap>
              <Typography.Text strong>{d.version.name}</Typography.Text>
              <Typography.Text type="secondary">
                {t('schedule.versionNo', { no: d.version.versionNo })}
              </Typography.Text>
            </Space>
          </Descriptions.Item>
          <Descriptions.Item label={t('schedule.publishedAt')}>
            {d.version.publishedAt
              ? dayjs(d.version.publishedAt).format('YYYY-MM-DD HH:mm')
              : t('schedule.notPublished')}
          </Descriptions.Item>
          <Descriptions.Item label={t('schedule.publishedEnvs')}>
            {d.version.publishedEnvs.length ? (
              <Space size={4}>
                {d.version.publishedEnvs.map((e) => (
                  <Tag key={e} color={e === env ? 'blue' : undefined}>
                    {e}
                  </Tag>
                ))}
              </Space>
            ) : (
              t('schedule.notPublished')
            )}
          </Descriptions.Item>
          <Descriptions.Item label={t('schedule.counts')}>
            {t('schedule.countsValue', { visits: d.visits.length, forms: d.forms.length })}
          </Descriptions.Item>
        </Descriptions>
        <Table<VisitRow>
          rowKey="id"
          size="small"
          columns={columns}
          dataSource={d.visits}
          pagination={false}
          data-testid="site-schedule-table"
          locale={{
            emptyText: <Empty image={Empty.PRESENTED_IMAGE_SIMPLE} description={t('schedule.noVisits')} />,
          }}
        />
      </Space>
    );

  return (
    <Drawer
      open
      size={880}
      destroyOnHidden
      onClose={onClose}
      title={
        <Space size={8} wrap>
          <span>{t('schedule.title')}</span>
          <Typography.Text type="secondary">
            {site.siteNo} · {site.name}
          </Typography.Text>
          <Tag color="blue">{env}</Tag>
        </Space>
      }
      data-testid="site-schedule"
    >
      {body}
    </Drawer>
  );
}

import { useState } from 'react';
import { Button, Card, Progress, Space, Tag, Tooltip, Typography } from 'antd';
import {
  CheckCircleFilled,
  CloseCircleFilled,
  CloseOutlined,
  DownOutlined,
  ExclamationCircleFilled,
  LoadingOutlined,
  UpOutlined,
} from '@ant-design/icons';
import { useQueries, useQueryClient } from '@tanstack/react-query';
import { Link } from 'react-router';
import { useTranslation } from 'react-i18next';
import {
  LIMITS,
  PROGRESS_STATUS,
  progressGroupState,
  type LoginType,
  type ProgressGroupState,
  type ProgressItem,
  type ProgressType,
} from '@esource/shared';
import { progressApi, progressTypesFor, progressViewLink } from './api/progress-api';
import { useSession } from '../session';

const STATE_COLOR: Record<ProgressGroupState, string> = {
  processing: 'processing',
  allSuccess: 'success',
  partial: 'warning',
  allError: 'error',
};

function StatusIcon({ status }: { status: number }) {
  if (status === PROGRESS_STATUS.processing) return <LoadingOutlined style={{ color: '#1668dc' }} />;
  if (status === PROGRESS_STATUS.success) return <CheckCircleFilled style={{ color: '#52c41a' }} />;
  return <CloseCircleFilled style={{ color: '#ff4d4f' }} />;
}

/** Bar of a group: the done/total counts of its items when they report them, else the share of finished items. */
export function groupPercent(items: ProgressItem[]): number {
  let done = 0;
  let total = 0;
  for (const i of items) {
    const counts = i.extraInfoMap ? Object.values(i.extraInfoMap) : [];
    if (counts.length === 0) {
      total += 1;
      done += i.status === PROGRESS_STATUS.processing ? 0 : 1;
    } else if (i.status !== PROGRESS_STATUS.processing) {
      for (const c of counts) {
        total += c.total;
        done += c.total;
      }
    } else {
      for (const c of counts) {
        total += c.total;
        done += Math.min(c.done, c.total);
      }
    }
  }
  return total === 0 ? 0 : Math.round((done / total) * 100);
}

/**
 * Collapsible progress notice (spec §2, §3, §4, §7): polls /proProgressDisplay/list every 5 s for the types
 * of the user's login type, shows a group per type only while it has items, with its state (all success,
 * some error, all error, processing); closing a group marks its items read.
 */
export function ProgressPanel({
  loginType,
  projectId,
}: {
  loginType: LoginType | null;
  projectId: number | null;
}) {
  const { t } = useTranslation('progress');
  const qc = useQueryClient();
  const [collapsed, setCollapsed] = useState(false);
  const token = useSession((s) => s.token);
  const types = projectId === null || !token ? [] : progressTypesFor(loginType);
  const results = useQueries({
    queries: types.map((type) => ({
      queryKey: ['progress', projectId, type],
      queryFn: () => progressApi.list(type),
      refetchInterval: LIMITS.progressPollMs,
      retry: false,
    })),
  });
  const groups = types
    .map((type, i) => ({ type, items: results[i]?.data ?? [] }))
    .filter((g): g is { type: ProgressType; items: ProgressItem[] } => g.items.length > 0);
  if (groups.length === 0) return null;

  const close = async (type: ProgressType, items: ProgressItem[]) => {
    const ids = items.map((i) => i.id);
    qc.setQueryData<ProgressItem[]>(['progress', projectId, type], []);
    try {
      await progressApi.markRead(ids);
    } finally {
      await qc.invalidateQueries({ queryKey: ['progress', projectId, type] });
    }
  };

  return (
    <div
      className="esource-progress-panel"
      data-testid="progress-panel"
      style={{ position: 'fixed', right: 24, bottom: 24, width: 380, zIndex: 1000 }}
    >
      <Space orientation="vertical" style={{ width: '100%' }} size={8}>
        {groups.map(({ type, items }) => {
          const state = progressGroupState(items) ?? 'processing';
          const percent = groupPercent(items);
          return (
            <Card
              key={type}
              size="small"
              data-testid={`progress-group-${type}`}
              data-state={state}
              style={{ boxShadow: '0 6px 24px rgba(0,0,0,.12)' }}
              title={
                <Space size={8}>
                  {state === 'processing' ? (
                    <LoadingOutlined />
                  ) : state === 'allSuccess' ? (
                    <CheckCircleFilled style={{ color: '#52c41a' }} />
                  ) : state === 'allError' ? (
                    <CloseCircleFilled style={{ color: '#ff4d4f' }} />
                  ) : (
                    <ExclamationCircleFilled style={{ color: '#faad14' }} />
                  )}
                  <span>{t(`type.${type}`)}</span>
                  <Tag color={STATE_COLOR[state]} style={{ marginInlineEnd: 0 }}>
                    {t(`state.${state}`)}
                  </Tag>
                </Space>
              }
              extra={
                <Space size={0}>
                  <Tooltip title={collapsed ? t('expand') : t('collapse')}>
                    <Button
                      type="text"
                      size="small"
                      icon={collapsed ? <UpOutlined /> : <DownOutlined />}
                      onClick={() => setCollapsed((c) => !c)}
                      data-testid="progress-toggle"
                    />
                  </Tooltip>
                  <Tooltip title={t('close')}>
                    <Button
                      type="text"
                      size="small"
                      icon={<CloseOutlined />}
                      onClick={() => void close(type, items)}
                      data-testid={`progress-close-${type}`}
                    />
                  </Tooltip>
                </Space>
              }
              styles={{
                body: collapsed
                  ? { display: 'none' }
                  : { maxHeight: 280, overflowY: 'auto', padding: '8px 12px' },
              }}
            >
              <Progress
                percent={percent}
                size="small"
                status={state === 'allError' ? 'exception' : state === 'processing' ? 'active' : 'normal'}
              />
              {items.map((item) => {
                const link = progressViewLink(item, loginType);
                return (
                  <div
                    key={item.id}
                    data-testid="progress-row"
                    style={{
                      display: 'flex',
                      alignItems: 'center',
                      gap: 8,
                      padding: '6px 0',
                      borderTop: '1px solid #f3f3f3',
                    }}
                  >
                    <StatusIcon status={item.status} />
                    <Typography.Text ellipsis style={{ flex: 1 }} title={item.displayInformation}>
                      {item.displayInformation}
                    </Typography.Text>
                    {item.extraInfoMap
                      ? Object.entries(item.extraInfoMap).map(([k, v]) => (
                          <Tag key={k} style={{ marginInlineEnd: 0 }} title={k}>
                            {v.done}/{v.total}
                          </Tag>
                        ))
                      : null}
                    {link ? (
                      <Link to={link} data-testid="progress-view">
                        {t('view')}
                      </Link>
                    ) : null}
                  </div>
                );
              })}
            </Card>
          );
        })}
      </Space>
    </div>
  );
}

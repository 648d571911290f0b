import { Descriptions, Drawer, Empty, Result, Skeleton, Table, Tag, Typography } from 'antd';
import { useQuery } from '@tanstack/react-query';
import { useTranslation } from 'react-i18next';
import { edcLogDetailQuery } from '../api/edc-api';
import { fmtTime } from './sync-bits';

const ACTION_COLOR: Record<string, string> = {
  sent: 'green',
  removed: 'purple',
  refused: 'red',
  conflict: 'orange',
  error: 'red',
};

export function ActionTag({ action }: { action: string }) {
  const { t } = useTranslation('edc');
  return <Tag color={ACTION_COLOR[action] ?? 'default'}>{t(`action.${action}`)}</Tag>;
}

/** A request or response as the EDC saw it: monospace, scrolled, never wider than the drawer. */
function Exchange({ title, text, testId }: { title: string; text: string | null; testId: string }) {
  const { t } = useTranslation('edc');
  return (
    <div style={{ marginTop: 16 }}>
      <Typography.Title level={5}>{title}</Typography.Title>
      {text ? (
        <pre
          data-testid={testId}
          style={{
            fontFamily: 'ui-monospace, SFMono-Regular, Menlo, Consolas, monospace',
            fontSize: 12,
            background: 'rgba(0,0,0,0.04)',
            padding: 12,
            borderRadius: 6,
            maxHeight: 320,
            overflow: 'auto',
            whiteSpace: 'pre-wrap',
            overflowWrap: 'anywhere',
            margin: 0,
          }}
        >
          {text}
        </pre>
      ) : (
        <Typography.Text type="secondary">{t('log.noText')}</Typography.Text>
      )}
    </div>
  );
}

/** One EDC log entry: what happened, the item changes (old → new) and the exchange with the EDC. */
export function EdcLogDrawer({ id, onClose }: { id: number | null; onClose: () => void }) {
  const { t } = useTranslation('edc');
  const q = useQuery(edcLogDetailQuery(id));
  const d = q.data;
  return (
    <Drawer
      open={id !== null}
      onClose={onClose}
      size={820}
      destroyOnHidden
      title={t('log.detailTitle', { id: id ?? '' })}
      data-testid="edc-log-drawer"
    >
      {q.isError ? (
        <Result status="warning" title={t('loadFailed')} subTitle={q.error.message} />
      ) : !d ? (
        <Skeleton active />
      ) : (
        <>
          <Descriptions
            size="small"
            column={2}
            bordered
            items={[
              { key: 'time', label: t('col.time'), children: fmtTime(d.createTime) },
              { key: 'run', label: t('col.run'), children: `#${d.runId}` },
              { key: 'subject', label: t('col.subject'), children: d.ptsNo ?? '—' },
              { key: 'site', label: t('col.site'), children: d.siteName ?? '—' },
              { key: 'data', label: t('col.data'), span: 2, children: d.dataName ?? '—' },
              { key: 'action', label: t('col.action'), children: <ActionTag action={d.action} /> },
              {
                key: 'result',
                label: t('col.result'),
                children: (
                  <Tag color={d.status === 2 ? 'success' : 'error'}>
                    {t(d.status === 2 ? 'log.ok' : 'log.failed')}
                  </Tag>
                ),
              },
              { key: 'http', label: t('col.http'), children: d.httpStatus ?? '—' },
              { key: 'by', label: t('col.by'), children: d.createdByName ?? '—' },
              ...(d.reason
                ? [
                    {
                      key: 'reason',
                      label: t('col.reason'),
                      span: 2,
                      children: (
                        <Typography.Text type="danger" data-testid="edc-log-reason">
                          {d.reason}
                        </Typography.Text>
                      ),
                    },
                  ]
                : []),
            ]}
          />
          <Typography.Title level={5} style={{ marginTop: 16 }}>
            {t('log.changes', { count: d.changes.length })}
          </Typography.Title>
          <Table
            size="small"
            rowKey={(r) => r.item}
            pagination={false}
            dataSource={d.changes}
            locale={{
              emptyText: <Empty image={Empty.PRESENTED_IMAGE_SIMPLE} description={t('log.noChanges')} />,
            }}
            data-testid="edc-log-changes"
            columns={[
              { title: t('log.col.local'), key: 'local', render: (_: unknown, c) => c.local || '—' },
              { title: t('log.col.item'), key: 'item', dataIndex: 'item', width: 180 },
              {
                title: t('log.col.change'),
                key: 'change',
                width: 300,
                render: (_: unknown, c) => (
                  <span style={{ overflowWrap: 'anywhere' }}>
                    {c.old !== null ? (
                      <Typography.Text type="secondary" delete>
                        {c.old}
                      </Typography.Text>
                    ) : (
                      <Typography.Text type="secondary">{t('log.emptyVal')}</Typography.Text>
                    )}
                    {' → '}
                    {c.new !== null ? (
                      <Typography.Text strong>{c.new}</Typography.Text>
                    ) : (
                      <Typography.Text type="secondary">{t('log.emptyVal')}</Typography.Text>
                    )}
                  </span>
                ),
              },
            ]}
          />
          <Exchange title={t('log.request')} text={d.request} testId="edc-log-request" />
          <Exchange title={t('log.response')} text={d.response} testId="edc-log-response" />
        </>
      )}
    </Drawer>
  );
}

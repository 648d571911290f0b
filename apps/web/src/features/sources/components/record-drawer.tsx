import { useState } from 'react';
import { Alert, Button, Descriptions, Drawer, Skeleton, Space, Table, Tabs, Tag, Typography } from 'antd';
import { useQuery } from '@tanstack/react-query';
import { useTranslation } from 'react-i18next';
import dayjs from 'dayjs';
import type { SourceRecordDetail } from '@esource/shared';
import { useSession } from '../../session';
import { recordDetailQuery } from '../api/sources-api';
import { formatValue, hl7Segments, prettyRaw } from '../source-logic';
import { DocTypeTag } from './source-tags';

const time = (v: string | null) => (v ? dayjs(v).format('YYYY-MM-DD HH:mm') : '—');

/**
 * One source record as it came from the hospital: its facts, the raw payload (pretty JSON for FHIR and SQL rows,
 * segment per line for HL7 v2) and its versions, oldest first, each openable (the raw of that version).
 */
export function RecordDrawer({ id, onClose }: { id: number | null; onClose: () => void }) {
  const { t } = useTranslation('sources');
  const env = useSession((s) => s.env);
  const projectId = useSession((s) => s.project?.id ?? null);
  const [version, setVersion] = useState<number | undefined>();
  const q = useQuery(recordDetailQuery({ env, projectId }, id, version));
  const r = q.data;
  return (
    <Drawer
      open={id !== null}
      onClose={() => {
        setVersion(undefined);
        onClose();
      }}
      size={760}
      destroyOnHidden
      title={r ? (r.display ?? r.code ?? r.resourceType) : t('record.title')}
      data-testid="record-drawer"
    >
      {q.isError ? (
        <Alert type="error" showIcon title={t('record.loadFailed')} description={q.error.message} />
      ) : !r ? (
        <Skeleton active />
      ) : (
        <>
          <Descriptions
            size="small"
            column={2}
            style={{ marginBottom: 12 }}
            items={[
              { key: 'type', label: t('col.docType'), children: <DocTypeTag docType={r.docType} /> },
              { key: 'resource', label: t('col.resourceType'), children: <code>{r.resourceType}</code> },
              {
                key: 'code',
                label: t('col.code'),
                children: r.code ? (
                  <Typography.Text copyable>{r.code}</Typography.Text>
                ) : (
                  '—'
                ),
              },
              { key: 'system', label: t('col.codeSystem'), children: <Typography.Text ellipsis>{r.codeSystem ?? '—'}</Typography.Text> },
              { key: 'value', label: t('col.value'), children: <span data-testid="record-value">{formatValue(r, true)}</span> },
              { key: 'date', label: t('col.date'), children: r.effectiveAt ? time(r.effectiveAt) : (r.effectiveDate ?? '—') },
              { key: 'status', label: t('col.status'), children: r.status ?? '—' },
              { key: 'connection', label: t('col.connection'), children: r.connectionName },
              {
                key: 'version',
                label: t('col.version'),
                children: (
                  <Space size={4}>
                    <Tag color={r.version > 1 ? 'orange' : 'default'}>v{r.shownVersion}</Tag>
                    {r.shownVersion < r.version ? (
                      <Typography.Text type="warning">{t('record.olderVersion', { latest: r.version })}</Typography.Text>
                    ) : null}
                  </Space>
                ),
              },
              { key: 'external', label: t('record.externalId'), children: <Typography.Text ellipsis copyable>{r.externalId}</Typography.Text> },
            ]}
          />
          <Tabs
            items={[
              { key: 'raw', label: t('record.raw', { format: t(`rawFormat.${r.rawFormat}`) }), children: <RawView record={r} /> },
              {
                key: 'versions',
                label: t('record.versions', { count: r.versions.length }),
                children: (
                  <Table
                    size="small"
                    rowKey="version"
                    pagination={false}
                    dataSource={[...r.versions].sort((a, b) => a.version - b.version)}
                    data-testid="record-versions"
                    columns={[
                      { title: t('col.version'), dataIndex: 'version', width: 80, render: (v: number) => `v${v}` },
                      {
                        title: t('record.change'),
                        dataIndex: 'changeKind',
                        width: 100,
                        render: (k: string) => t(`changeKind.${k}`, { defaultValue: k }),
                      },
                      { title: t('col.value'), key: 'value', render: (_: unknown, v) => formatValue(v) },
                      { title: t('col.date'), dataIndex: 'effectiveAt', width: 150, render: time },
                      { title: t('record.seen'), dataIndex: 'createTime', width: 150, render: time },
                      {
                        title: '',
                        key: 'open',
                        width: 90,
                        render: (_: unknown, v) =>
                          v.version === r.shownVersion ? (
                            <Tag>{t('record.shown')}</Tag>
                          ) : (
                            <Button size="small" type="link" onClick={() => setVersion(v.version)}>
                              {t('record.showVersion')}
                            </Button>
                          ),
                      },
                    ]}
                  />
                ),
              },
            ]}
          />
        </>
      )}
    </Drawer>
  );
}

function RawView({ record }: { record: SourceRecordDetail }) {
  const { t } = useTranslation('sources');
  if (record.rawFormat === 'hl7v2') {
    return (
      <pre className="source-raw" data-testid="record-raw">
        {hl7Segments(record.raw).map((seg, i) => (
          <div key={i}>
            <b>{seg.slice(0, 3)}</b>
            {seg.slice(3)}
          </div>
        ))}
      </pre>
    );
  }
  return (
    <>
      <Typography.Paragraph type="secondary" style={{ marginBottom: 8 }}>
        {t('record.rawHint')}
      </Typography.Paragraph>
      <pre className="source-raw" data-testid="record-raw">
        {prettyRaw(record.rawFormat, record.raw)}
      </pre>
    </>
  );
}

import { useState } from 'react';
import { Alert, Button, Descriptions, Drawer, Result, Skeleton, Space, Tag, Typography } from 'antd';
import { HistoryOutlined } from '@ant-design/icons';
import { useQuery } from '@tanstack/react-query';
import type { TFunction } from 'i18next';
import { Link } from 'react-router';
import { useTranslation } from 'react-i18next';
import dayjs from 'dayjs';
import { SOURCE_DOC_TYPES } from '@esource/shared';
import { useSession } from '../../session';
import { sourceRecordQuery } from '../api/prefill-api';
import { prettyRaw } from '../../sources';
import { documentRegionPath } from '../../../lib/routing/document-links';

export interface SourceRecordDrawerProps {
  recordId: number;
  /** the version the value was filled from; absent: the newest */
  version?: number;
  onClose: () => void;
}

/** A source document type (1..8) as the source-data screens name it ('sources' namespace). */
export function docTypeName(t: TFunction, docType: number | null | undefined): string {
  const key = docType ? SOURCE_DOC_TYPES[docType - 1] : undefined;
  return key ? t(`sources:docType.${key}`) : '—';
}

/**
 * The source record behind a value, as it came from the hospital: what it says (type, code, value, date), the
 * version the value was filled from, a flag when the hospital has changed the record since, and the raw payload
 * (the FHIR resource, the HL7 v2 segments or the SQL row).
 */
export function SourceRecordDrawer({ recordId, version, onClose }: SourceRecordDrawerProps) {
  const { t } = useTranslation('prefill');
  const env = useSession((s) => s.env);
  const projectId = useSession((s) => s.project?.id ?? null);
  const [shown, setShown] = useState<number | undefined>(version);
  const q = useQuery(sourceRecordQuery({ env, projectId }, recordId, shown));
  const r = q.data;
  const newer = r ? r.version < r.latestVersion : false;
  return (
    <Drawer
      open
      size={640}
      onClose={onClose}
      destroyOnHidden
      title={t('record.title', { id: recordId })}
      data-testid="source-record-drawer"
    >
      {q.isError ? (
        <Result
          status="warning"
          title={t('record.loadFailed')}
          subTitle={q.error.message}
          extra={<Button onClick={() => void q.refetch()}>{t('retry')}</Button>}
        />
      ) : !r ? (
        <Skeleton active />
      ) : (
        <div data-testid="source-record">
          {newer ? (
            <Alert
              type="warning"
              showIcon
              style={{ marginBottom: 12 }}
              data-testid="source-record-changed"
              title={t('record.changed', { version: r.version, latest: r.latestVersion })}
              action={
                <Button size="small" icon={<HistoryOutlined />} onClick={() => setShown(r.latestVersion)}>
                  {t('record.showLatest')}
                </Button>
              }
            />
          ) : shown !== undefined && version !== undefined && shown !== version ? (
            <Alert
              type="info"
              showIcon
              style={{ marginBottom: 12 }}
              title={t('record.showingLatest', { version: r.version, filled: version })}
              action={
                <Button size="small" onClick={() => setShown(version)}>
                  {t('record.showFilled')}
                </Button>
              }
            />
          ) : null}
          <Descriptions column={1} size="small" bordered styles={{ label: { width: 160 } }}>
            <Descriptions.Item label={t('record.docType')}>
              <Space size={6} wrap>
                <Tag color="blue">{docTypeName(t, r.docType)}</Tag>
                <Typography.Text type="secondary">{r.resourceType}</Typography.Text>
              </Space>
            </Descriptions.Item>
            <Descriptions.Item label={t('record.code')}>
              {r.code ? (
                <span data-testid="source-record-code">
                  {r.code}
                  {r.codeSystem ? <Typography.Text type="secondary"> · {r.codeSystem}</Typography.Text> : null}
                </span>
              ) : (
                '—'
              )}
            </Descriptions.Item>
            <Descriptions.Item label={t('record.display')}>{r.display ?? '—'}</Descriptions.Item>
            <Descriptions.Item label={t('record.value')}>
              <span data-testid="source-record-value">
                {r.valueNum !== null ? r.valueNum : (r.valueText ?? '—')}
                {r.unit ? ` ${r.unit}` : ''}
              </span>
            </Descriptions.Item>
            <Descriptions.Item label={t('record.date')}>
              {r.effectiveAt ? dayjs(r.effectiveAt).format('YYYY-MM-DD HH:mm') : (r.effectiveDate ?? '—')}
            </Descriptions.Item>
            <Descriptions.Item label={t('record.version')}>
              <span data-testid="source-record-version">
                {t('record.versionOf', { version: r.version, latest: r.latestVersion })}
              </span>
              {r.changeKind ? <Tag style={{ marginInlineStart: 8 }}>{r.changeKind}</Tag> : null}
              {r.status ? <Tag>{r.status}</Tag> : null}
            </Descriptions.Item>
            <Descriptions.Item label={t('record.subject')}>{r.ptsNo ?? '—'}</Descriptions.Item>
            {r.sourceFileId ? (
              <Descriptions.Item label={t(`rawFormat.${r.rawFormat}`)}>
                <Space size={8} wrap>
                  <span>{t('record.document', { page: (r.region?.page ?? 0) + 1 })}</span>
                  <Link to={documentRegionPath(r.sourceFileId, r.region)} data-testid="source-record-document">
                    {t('record.openDocument')}
                  </Link>
                </Space>
              </Descriptions.Item>
            ) : null}
            <Descriptions.Item label={t('record.externalId')}>
              <Typography.Text copyable style={{ wordBreak: 'break-all' }}>
                {r.externalId}
              </Typography.Text>
            </Descriptions.Item>
            <Descriptions.Item label={t('record.stored')}>
              {dayjs(r.createTime).format('YYYY-MM-DD HH:mm:ss')}
            </Descriptions.Item>
          </Descriptions>
          <Typography.Title level={5} style={{ marginTop: 16 }}>
            {t('record.raw', { format: t(`rawFormat.${r.rawFormat}`) })}
          </Typography.Title>
          <pre className="prefill-raw" data-testid="source-record-raw">
            {prettyRaw(r.rawFormat, r.raw)}
          </pre>
        </div>
      )}
    </Drawer>
  );
}

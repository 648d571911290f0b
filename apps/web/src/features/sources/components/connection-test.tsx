import { useState } from 'react';
import { Alert, Button, Descriptions, Form, Input, Modal, Result, Space, Table, Tag, Typography } from 'antd';
import { useQueryClient } from '@tanstack/react-query';
import { useTranslation } from 'react-i18next';
import type { ConnectionTestResult, ConnectionView } from '@esource/shared';
import { afterSourceChange, sourcesApi } from '../api/sources-api';

/**
 * "Test connection": reaches the source and reports what it found — the server's FHIR version and software, the
 * patients an identifier matched, the resources (or SQL rows) by type — or the failure as the server gives it
 * (e.g. the FHIR OperationOutcome text). Nothing is stored.
 */
export function ConnectionTestDialog({ connection, onClose }: { connection: ConnectionView; onClose: () => void }) {
  const { t } = useTranslation('sources');
  const qc = useQueryClient();
  const [identifierValue, setValue] = useState('');
  const [busy, setBusy] = useState(false);
  const [result, setResult] = useState<ConnectionTestResult | null>(null);
  const [error, setError] = useState<string | null>(null);
  const run = async () => {
    setBusy(true);
    setError(null);
    setResult(null);
    try {
      const r = await sourcesApi.testConnection({
        id: connection.id,
        ...(identifierValue.trim() ? { identifierValue: identifierValue.trim() } : {}),
      });
      setResult(r);
      await afterSourceChange(qc);
    } catch (e) {
      setError(e instanceof Error ? e.message : String(e));
    } finally {
      setBusy(false);
    }
  };
  return (
    <Modal open width={640} title={t('test.title', { name: connection.name })} onCancel={onClose} footer={null}>
      <div data-testid="connection-test">
        <Typography.Paragraph type="secondary">{t('test.description')}</Typography.Paragraph>
        <Form layout="vertical" onFinish={() => void run()}>
          <Form.Item label={t('test.identifier')} extra={t('test.identifierHint')}>
            <Space.Compact style={{ width: '100%' }}>
              <Input
                value={identifierValue}
                onChange={(e) => setValue(e.target.value)}
                maxLength={100}
                allowClear
                data-testid="connection-test-identifier"
              />
              <Button type="primary" htmlType="submit" loading={busy} data-testid="connection-test-run">
                {t('test.run')}
              </Button>
            </Space.Compact>
          </Form.Item>
        </Form>
        {error ? (
          <Alert type="error" showIcon title={t('test.requestFailed')} description={error} data-testid="connection-test-error" />
        ) : null}
        {result ? <TestResult r={result} /> : null}
        <div style={{ display: 'flex', justifyContent: 'flex-end', marginTop: 16 }}>
          <Button onClick={onClose}>{t('close')}</Button>
        </div>
      </div>
    </Modal>
  );
}

function TestResult({ r }: { r: ConnectionTestResult }) {
  const { t } = useTranslation('sources');
  if (!r.ok)
    return (
      <Alert
        type="error"
        showIcon
        data-testid="connection-test-failed"
        title={t('test.failed', { ms: r.elapsedMs })}
        description={
          <div style={{ whiteSpace: 'pre-wrap' }}>
            {r.message ?? t('test.noReason')}
          </div>
        }
      />
    );
  return (
    <div data-testid="connection-test-ok">
      <Result
        status="success"
        style={{ padding: '8px 0' }}
        title={t('test.ok', { ms: r.elapsedMs })}
        subTitle={r.message ?? undefined}
      />
      <Descriptions
        size="small"
        column={1}
        bordered
        items={[
          { key: 'ver', label: t('test.fhirVersion'), children: r.fhirVersion ?? '—' },
          { key: 'sw', label: t('test.software'), children: r.software ?? '—' },
          {
            key: 'patients',
            label: t('test.patients'),
            children: (
              <span data-testid="connection-test-patients">
                {r.patientsMatched === null ? t('test.noLookup') : r.patientsMatched}
              </span>
            ),
          },
        ]}
      />
      {r.counts.length ? (
        <Table
          style={{ marginTop: 12 }}
          size="small"
          rowKey="type"
          pagination={false}
          dataSource={r.counts}
          data-testid="connection-test-counts"
          columns={[
            { title: t('test.type'), dataIndex: 'type' },
            {
              title: t('test.count'),
              dataIndex: 'count',
              width: 160,
              render: (n: number, c) => (
                <span>
                  {n}
                  {c.more ? <Tag style={{ marginInlineStart: 6 }}>{t('test.more')}</Tag> : null}
                </span>
              ),
            },
          ]}
        />
      ) : null}
    </div>
  );
}

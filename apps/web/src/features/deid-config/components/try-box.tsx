import { useState } from 'react';
import { Alert, Button, Card, Space, Table, Tag, Tooltip, Typography } from 'antd';
import type { TableColumnsType } from 'antd';
import { useTranslation } from 'react-i18next';
import {
  DEID_TEST_TEXT_MAX,
  type DeidSpanKind,
  type DeidTestResult,
  type DeidTestSpan,
} from '@esource/shared';
import { LimitedTextArea } from '../../../components/limited-input';
import { deidConfigApi } from '../api/deid-config-api';
import { highlightPieces, kindCounts } from '../deid-config-logic';

/** One colour per kind of span (antd preset colours): the highlight and the legend tag agree. */
const KIND_COLOR: Record<DeidSpanKind, string> = {
  idCard: 'red',
  phone: 'volcano',
  landline: 'volcano',
  medicalRecordNo: 'orange',
  inpatientNo: 'orange',
  outpatientNo: 'orange',
  subjectIdentifier: 'red',
  personName: 'magenta',
  address: 'purple',
  email: 'geekblue',
  birthDate: 'gold',
  date: 'gold',
  hospital: 'cyan',
  doctor: 'magenta',
  keyword: 'blue',
};

/**
 * The try-out: pasted text is sent to the server, which runs automatic de-identification's detection with the saved
 * keywords and policy; the answer is shown as the text with every stretch that would be hidden highlighted (its kind
 * and rule on hover), a count per kind and a list. Every reader of the configuration may try it.
 */
export function TryBox() {
  const { t } = useTranslation('deidConfig');
  const [text, setText] = useState('');
  const [result, setResult] = useState<DeidTestResult | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const kindLabel = (k: DeidSpanKind) => t(`kind.${k}`);

  const run = async () => {
    setBusy(true);
    setError(null);
    try {
      setResult(await deidConfigApi.test(text));
    } catch (e) {
      setResult(null);
      setError(e instanceof Error ? e.message : String(e));
    } finally {
      setBusy(false);
    }
  };

  const columns: TableColumnsType<DeidTestSpan> = [
    { title: t('test.colText'), dataIndex: 'text', ellipsis: true, render: (v: string) => <code>{v}</code> },
    {
      title: t('test.colKind'),
      dataIndex: 'kind',
      width: 180,
      render: (k: DeidSpanKind) => <Tag color={KIND_COLOR[k]}>{kindLabel(k)}</Tag>,
    },
    {
      title: t('test.colReason'),
      dataIndex: 'reason',
      width: 200,
      render: (v: string) => <Typography.Text type="secondary">{v}</Typography.Text>,
    },
  ];

  const empty = text.trim() === '';
  return (
    <Card title={t('test.title')} size="small" data-testid="deid-test">
      <Typography.Paragraph type="secondary">{t('test.help')}</Typography.Paragraph>
      <LimitedTextArea
        max={DEID_TEST_TEXT_MAX}
        value={text}
        onChange={(e) => setText(e.target.value)}
        rows={6}
        placeholder={t('test.placeholder', { max: DEID_TEST_TEXT_MAX })}
        data-testid="deid-test-text"
      />
      <Space style={{ marginTop: 16 }}>
        <Button
          type="primary"
          loading={busy}
          disabled={empty || text.length > DEID_TEST_TEXT_MAX}
          onClick={() => void run()}
          data-testid="deid-test-run"
        >
          {t('test.run')}
        </Button>
        <Button
          disabled={busy || (empty && !result)}
          onClick={() => {
            setText('');
            setResult(null);
            setError(null);
          }}
        >
          {t('test.clear')}
        </Button>
      </Space>
      {error ? <Alert type="error" showIcon style={{ marginTop: 12 }} title={error} /> : null}
      {result ? (
        <div className="deid-test-result" data-testid="deid-test-result">
          <Typography.Text type="secondary" style={{ fontSize: 12 }}>
            {t('test.used', { count: result.keywords })}
          </Typography.Text>
          <div className="deid-test-text" data-testid="deid-test-highlight">
            {highlightPieces(result.text, result.spans).map((p, i) =>
              p.span ? (
                <Tooltip
                  key={i}
                  title={t('test.spanTitle', { kind: kindLabel(p.span.kind), reason: p.span.reason })}
                >
                  <mark className={`deid-mark deid-mark-${KIND_COLOR[p.span.kind]}`} data-kind={p.span.kind}>
                    {p.text}
                  </mark>
                </Tooltip>
              ) : (
                <span key={i}>{p.text}</span>
              ),
            )}
          </div>
          {result.spans.length ? (
            <>
              <Space size={[4, 4]} wrap style={{ margin: '8px 0' }}>
                <Typography.Text strong>{t('test.found', { count: result.spans.length })}</Typography.Text>
                {kindCounts(result.spans).map((c) => (
                  <Tag key={c.kind} color={KIND_COLOR[c.kind]}>
                    {kindLabel(c.kind)} × {c.count}
                  </Tag>
                ))}
              </Space>
              <Table<DeidTestSpan>
                size="small"
                rowKey={(s) => `${s.start}:${s.end}`}
                columns={columns}
                dataSource={result.spans}
                pagination={result.spans.length > 10 ? { pageSize: 10, showSizeChanger: false } : false}
              />
            </>
          ) : (
            <Alert
              type="info"
              showIcon
              style={{ marginTop: 8 }}
              title={t('test.nothing')}
              data-testid="deid-test-nothing"
            />
          )}
        </div>
      ) : null}
    </Card>
  );
}

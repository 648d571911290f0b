import { useState } from 'react';
import { Alert, Button, Card, Descriptions, Select, Space, Table, Tag, Typography } from 'antd';
import { ExperimentOutlined } from '@ant-design/icons';
import { useQuery } from '@tanstack/react-query';
import { useTranslation } from 'react-i18next';
import dayjs from 'dayjs';
import type { FormOption, MappingRuleInput, MappingTestResult, SourceRecordBrief } from '@esource/shared';
import { ApiError } from '../../../lib/api-client';
import { useSession } from '../../session';
import { readableNumber, SubjectSelect } from '../../prefill';
import { scheduleQuery } from '../../subjects';
import { mappingApi } from '../api/mapping-api';

export interface RuleTestProps {
  /** the rule as the editor holds it now (null: the editor has errors) */
  currentRule: () => Promise<MappingRuleInput | null>;
  /** a refused test's field messages go back to the editor */
  onFieldErrors: (detail: readonly { field: string; message: string }[]) => void;
  options: readonly FormOption[];
  unit: string | null;
}

const recDate = (r: Pick<SourceRecordBrief, 'effectiveAt' | 'effectiveDate'>) =>
  r.effectiveAt ? dayjs(r.effectiveAt).format('YYYY-MM-DD HH:mm') : (r.effectiveDate ?? '—');
const recValue = (r: Pick<SourceRecordBrief, 'valueNum' | 'valueText' | 'unit'>) =>
  `${r.valueNum !== null ? readableNumber(r.valueNum) : (r.valueText ?? '—')}${r.unit ? ` ${r.unit}` : ''}`;

/**
 * 'Test against a subject': runs the rule as it is in the editor (unsaved) on one subject visit's source records and
 * shows what pre-fill would fill and why — the records that matched, which were in the window, the one chosen, the
 * unit conversion, or the problem that keeps the value out.
 */
export function RuleTest({ currentRule, onFieldErrors, options, unit }: RuleTestProps) {
  const { t } = useTranslation('mapping');
  const env = useSession((s) => s.env);
  const language = useSession((s) => s.language);
  const projectId = useSession((s) => s.project?.id ?? null);
  const [ptsId, setPts] = useState<number | undefined>();
  const [visit, setVisit] = useState<string | undefined>();
  const [busy, setBusy] = useState(false);
  const [result, setResult] = useState<MappingTestResult | null>(null);
  const [error, setError] = useState<string | null>(null);
  const visits = useQuery(scheduleQuery({ env, projectId }, ptsId ?? null));

  const run = async () => {
    if (!ptsId || !visit) return;
    const rule = await currentRule();
    if (!rule) return;
    const [visitId, unscheduledId] = visit.split(':').map(Number) as [number, number];
    setBusy(true);
    setError(null);
    setResult(null);
    try {
      setResult(await mappingApi.test({ ptsId, visitId, unscheduledId, rule }));
    } catch (e) {
      if (e instanceof ApiError && e.detail.length) onFieldErrors(e.detail);
      setError(e instanceof Error ? e.message : String(e));
    } finally {
      setBusy(false);
    }
  };

  const valueText = (v: unknown) => {
    if (v === null || v === undefined || v === '') return '—';
    const label = (x: unknown) => {
      const o = options.find((op) => op.value === x);
      return o ? (language === 'en_US' && o.labelEn ? o.labelEn : o.label) : String(x);
    };
    return Array.isArray(v) ? v.map(label).join(', ') : label(v);
  };

  return (
    <Card size="small" title={t('test.title')} data-testid="rule-test">
      <Typography.Paragraph type="secondary" style={{ fontSize: 12 }}>
        {t('test.intro')}
      </Typography.Paragraph>
      <Space wrap>
        <SubjectSelect
          value={ptsId}
          onChange={(v) => {
            setPts(v);
            setVisit(undefined);
            setResult(null);
          }}
          testId="rule-test-subject"
        />
        <Select<string>
          value={visit}
          onChange={(v) => {
            setVisit(v);
            setResult(null);
          }}
          disabled={!ptsId}
          loading={visits.isFetching}
          placeholder={t('test.visit')}
          style={{ width: 220 }}
          options={(visits.data ?? []).map((v) => ({
            value: `${v.visitId}:${v.unscheduledId}`,
            label: `${v.code} ${language === 'en_US' && v.nameEn ? v.nameEn : v.name}${v.planned ? ` · ${v.planned}` : ''}`,
          }))}
          data-testid="rule-test-visit"
        />
        <Button icon={<ExperimentOutlined />} onClick={() => void run()} loading={busy} disabled={!ptsId || !visit} data-testid="rule-test-run">
          {t('test.run')}
        </Button>
      </Space>
      {error ? <Alert type="error" showIcon style={{ marginTop: 12 }} title={error} data-testid="rule-test-error" /> : null}
      {result ? (
        <div style={{ marginTop: 12 }} data-testid="rule-test-result">
          {result.problem ? (
            <Alert
              type="error"
              showIcon
              style={{ marginBottom: 8 }}
              title={result.problemMessage ?? result.problem}
              description={result.problemDetail ?? undefined}
              data-testid="rule-test-problem"
            />
          ) : result.record ? (
            <Alert
              type="success"
              showIcon
              style={{ marginBottom: 8 }}
              title={
                <span data-testid="rule-test-value">
                  {t('test.wouldFill', { value: `${valueText(result.value)}${unit ? ` ${unit}` : ''}` })}
                </span>
              }
            />
          ) : (
            <Alert type="info" showIcon style={{ marginBottom: 8 }} title={t('test.nothing')} data-testid="rule-test-nothing" />
          )}
          <Descriptions column={2} size="small" bordered>
            <Descriptions.Item label={t('test.matched')}>
              <span data-testid="rule-test-matched">{t('test.matchedCount', { matched: result.matched, inWindow: result.inWindow })}</span>
            </Descriptions.Item>
            <Descriptions.Item label={t('test.window')}>
              {result.window ? t('test.windowText', result.window) : t('test.noWindow')}
            </Descriptions.Item>
            <Descriptions.Item label={t('test.selected')} span={2}>
              {result.record
                ? `${result.record.code ?? result.record.resourceType}${result.record.display ? ` ${result.record.display}` : ''} · ${recValue(result.record)} · ${recDate(result.record)}`
                : '—'}
            </Descriptions.Item>
            <Descriptions.Item label={t('test.conversion')} span={2}>
              {result.conversion
                ? t('test.conversionText', {
                    from: `${readableNumber(result.conversion.fromValue)} ${result.conversion.fromUnit}`,
                    to: result.conversion.toUnit,
                  })
                : t('test.noConversion')}
            </Descriptions.Item>
          </Descriptions>
          {result.records.length ? (
            <Table
              size="small"
              style={{ marginTop: 8 }}
              rowKey={(r) => `${r.id}-${r.version}`}
              pagination={false}
              scroll={{ y: 240 }}
              dataSource={result.records}
              rowClassName={(r) => (result.record && r.id === result.record.id ? 'mapping-test-chosen' : '')}
              columns={[
                { title: t('test.recDate'), key: 'date', width: 140, render: (_: unknown, r) => recDate(r) },
                {
                  title: t('test.recCode'),
                  key: 'code',
                  ellipsis: true,
                  render: (_: unknown, r) => `${r.code ?? r.resourceType}${r.display ? ` ${r.display}` : ''}`,
                },
                { title: t('test.recValue'), key: 'value', width: 120, render: (_: unknown, r) => recValue(r) },
                {
                  title: t('test.recWindow'),
                  key: 'in',
                  width: 110,
                  render: (_: unknown, r) =>
                    result.record && r.id === result.record.id ? (
                      <Tag color="green">{t('test.chosen')}</Tag>
                    ) : r.inWindow ? (
                      <Tag color="blue">{t('test.inWindow')}</Tag>
                    ) : (
                      <Tag>{t('test.outside')}</Tag>
                    ),
                },
              ]}
            />
          ) : null}
        </div>
      ) : null}
    </Card>
  );
}

import { useEffect, useState } from 'react';
import { Alert, App, Button, Descriptions, Drawer, Empty, Form, Input, Radio, Result, Space, Spin, Table, Tag, Timeline, Typography } from 'antd';
import type { TableColumnsType } from 'antd';
import { LinkOutlined } from '@ant-design/icons';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { Link } from 'react-router';
import { useTranslation } from 'react-i18next';
import dayjs from 'dayjs';
import { SOURCE_DOC_TYPES, type CandidateSource, type CandidateView } from '@esource/shared';
import { documentRegionPath } from '../../../lib/routing/document-links';
import { usePms, useSession } from '../../session';
import { subjectDetailPath } from '../../subjects';
import { afterSafetyChange, candidateDetailQuery, candidateHistoryQuery, candidateSourcesQuery, safetyApi } from '../api/safety-api';
import { GradeTag } from './grade-tag';
import { JudgeFields, fieldsOf, initialFields } from './judge-form';

const fmtTime = (v: string) => dayjs(v).format('YYYY-MM-DD HH:mm');

/** The term as the reader's language has it: the CTCAE term of a graded lab, else the generator's term. */
export function candidateTerm(c: CandidateView, language: string): string {
  const judged = (c.fields as { term?: string } | null)?.term;
  if (judged) return judged;
  return c.detail.ctcaeTerm ? (language === 'en_US' ? c.detail.ctcaeTerm.en : c.detail.ctcaeTerm.zh) : c.term;
}

function Found({ c }: { c: CandidateView }) {
  const { t } = useTranslation('safety');
  const d = c.detail;
  const range = d.low != null || d.high != null ? `${d.low ?? '…'} – ${d.high ?? '…'}` : null;
  return (
    <Descriptions size="small" column={2} bordered data-testid="judge-found">
      <Descriptions.Item label={t('col.origin')}>{t(`origin.${c.origin}`)}</Descriptions.Item>
      <Descriptions.Item label={t('col.period')}>{[c.startDate ?? '?', c.endDate].filter(Boolean).join(' → ')}</Descriptions.Item>
      {c.code ? <Descriptions.Item label={t('col.code')} span={2}>{`${c.code}${c.codeSystem ? ` (${c.codeSystem})` : ''}`}</Descriptions.Item> : null}
      {d.value != null ? (
        <>
          <Descriptions.Item label={t('found.worst')}>{`${d.value} ${d.unit ?? ''}`}</Descriptions.Item>
          <Descriptions.Item label={t('found.range')}>
            {range ?? '—'} {d.rangeSource ? <Tag>{t(`found.rangeSource.${d.rangeSource}`)}</Tag> : null}
          </Descriptions.Item>
          <Descriptions.Item label={t('col.grade')}>
            <GradeTag grade={d.grade} outOfRange />
          </Descriptions.Item>
          <Descriptions.Item label={t('found.results')}>{d.results ?? 1}</Descriptions.Item>
        </>
      ) : null}
      {c.category === 'cm' ? (
        <>
          <Descriptions.Item label={t('field.dose')}>{d.dose != null ? `${d.dose} ${d.doseUnit ?? ''}` : '—'}</Descriptions.Item>
          <Descriptions.Item label={t('field.route')}>{d.route ?? '—'}</Descriptions.Item>
          <Descriptions.Item label={t('field.frequency')}>{d.frequency ?? '—'}</Descriptions.Item>
          <Descriptions.Item label={t('field.indication')}>{d.indication ?? '—'}</Descriptions.Item>
        </>
      ) : null}
      {d.formName ? <Descriptions.Item label={t('found.item')} span={2}>{`${d.formName} · ${d.itemLabel ?? ''}`}</Descriptions.Item> : null}
      {c.suggested ? <Descriptions.Item label={t('found.suggested')} span={2}>{`${c.suggested.code} ${c.suggested.term}`}</Descriptions.Item> : null}
    </Descriptions>
  );
}

function Sources({ c }: { c: CandidateView }) {
  const { t } = useTranslation('safety');
  const { t: ts } = useTranslation('sources');
  const { message } = App.useApp();
  const qc = useQueryClient();
  const has = usePms();
  const q = useQuery(candidateSourcesQuery(c.id));
  const unlink = async (recordId: number) => {
    try {
      await safetyApi.link(c.id, recordId, true);
      await afterSafetyChange(qc);
    } catch (e) {
      void message.error((e as Error).message);
    }
  };
  const columns: TableColumnsType<CandidateSource> = [
    { title: t('src.date'), key: 'date', dataIndex: 'effectiveDate', width: 100 },
    { title: t('src.type'), key: 'type', width: 110, render: (_: unknown, r) => ts(`docType.${SOURCE_DOC_TYPES[r.docType - 1] ?? 'test'}`) },
    { title: t('src.item'), key: 'item', width: 200, render: (_: unknown, r) => <Typography.Text ellipsis={{ tooltip: r.display }}>{r.display ?? r.code ?? r.resourceType}</Typography.Text> },
    {
      title: t('src.value'),
      key: 'value',
      width: 150,
      render: (_: unknown, r) => (
        <Space size={4}>
          <span>{r.valueNum ?? r.valueText ?? ''} {r.unit ?? ''}</span>
          {r.outOfRange ? <Tag color="red">{r.valueNum != null && r.high != null && r.valueNum > r.high ? '↑' : '↓'}</Tag> : null}
        </Space>
      ),
    },
    { title: t('src.range'), key: 'range', width: 140, render: (_: unknown, r) => (r.low != null || r.high != null ? `${r.low ?? '…'} – ${r.high ?? '…'} ${r.rangeUnit ?? ''}` : '—') },
    { title: t('col.grade'), key: 'grade', width: 80, render: (_: unknown, r) => (r.outOfRange === null ? '—' : <GradeTag grade={r.grade} outOfRange={r.outOfRange} />) },
    {
      title: '',
      key: 'open',
      width: 90,
      render: (_: unknown, r) => (
        <Space size={4}>
          {r.sourceFileId ? (
            <Link to={documentRegionPath(r.sourceFileId, r.region)} target="_blank" data-testid={`judge-source-doc-${r.recordId}`}>
              <LinkOutlined /> {t('src.document')}
            </Link>
          ) : null}
          {r.link === 'linked' && has('clinical:judge:update') ? (
            <Typography.Link onClick={() => void unlink(r.recordId)}>{t('src.unlink')}</Typography.Link>
          ) : null}
        </Space>
      ),
    },
  ];
  return (
    <Table<CandidateSource>
      size="small"
      rowKey="recordId"
      loading={q.isFetching}
      dataSource={q.data ?? []}
      columns={columns}
      pagination={false}
      scroll={{ y: 240 }}
      locale={{ emptyText: <Empty image={Empty.PRESENTED_IMAGE_SIMPLE} description={q.isError ? t('loadFailed') : t(c.origin === 'ecrf' ? 'src.ecrf' : 'src.none')} /> }}
      data-testid="judge-sources"
    />
  );
}

/**
 * One candidate for judgement: what the generator found, the source records it links to (a document region opens
 * side by side), the reviewer's yes / no with the category's fields (coded to its dictionary), the reason when a
 * judgement is changed, where a "yes" was written, and every earlier judgement.
 */
export function JudgeDrawer({ id, onClose }: { id: number | null; onClose: () => void }) {
  const { t, i18n } = useTranslation('safety');
  const { message } = App.useApp();
  const qc = useQueryClient();
  const has = usePms();
  const loginType = useSession((s) => s.loginType);
  const q = useQuery(candidateDetailQuery(id));
  const history = useQuery(candidateHistoryQuery(id));
  const [form] = Form.useForm();
  const [decision, setDecision] = useState<'yes' | 'no' | null>(null);
  const [saving, setSaving] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const c = q.data;
  const canJudge = has('clinical:judge:update');
  const changing = c ? c.status !== 1 : false;

  useEffect(() => {
    if (!c) return;
    form.resetFields();
    form.setFieldsValue({ ...initialFields(c, i18n.language), reason: undefined });
    setDecision(c.status === 2 ? 'yes' : c.status === 3 ? 'no' : null);
    setError(null);
    // reset only when another candidate (or a new version of it) opens
  }, [c?.id, c?.version]);

  const submit = async () => {
    if (!c || !decision) return;
    setError(null);
    let values: Record<string, unknown>;
    try {
      values = (await form.validateFields()) as Record<string, unknown>;
    } catch {
      return;
    }
    const { reason, ...rest } = values as { reason?: string } & Record<string, unknown>;
    setSaving(true);
    try {
      await safetyApi.judge({ id: c.id, version: c.version, decision, ...(decision === 'yes' ? { fields: fieldsOf(c.category, rest) } : {}), ...(reason ? { reason } : {}) });
      void message.success(t(decision === 'yes' ? 'judge.savedYes' : 'judge.savedNo'));
      await afterSafetyChange(qc);
    } catch (e) {
      setError((e as Error).message);
    } finally {
      setSaving(false);
    }
  };

  return (
    <Drawer
      open={id !== null}
      onClose={onClose}
      size={860}
      destroyOnHidden
      title={c ? `${c.ptsNo} · ${t(`category.${c.category}`)} · ${candidateTerm(c, i18n.language)}` : t('judge.title')}
      data-testid="judge-drawer"
      extra={
        c ? (
          <Space>
            <Tag color={c.status === 1 ? 'gold' : c.status === 2 ? 'green' : 'default'}>{t(`status.${c.status}`)}</Tag>
            {c.sourceChanged ? <Tag color="orange">{t('sourceChanged')}</Tag> : null}
          </Space>
        ) : null
      }
    >
      {q.isLoading ? <Spin /> : null}
      {q.isError ? <Result status="warning" title={t('loadFailed')} subTitle={q.error.message} extra={<Button onClick={() => void q.refetch()}>{t('retry')}</Button>} /> : null}
      {c ? (
        <Space orientation="vertical" size="middle" style={{ width: '100%' }}>
          {c.sourceChanged ? <Alert type="warning" showIcon title={t('sourceChangedHint')} /> : null}
          <Typography.Title level={5} style={{ margin: 0 }}>
            {t('judge.found')}
          </Typography.Title>
          <Found c={c} />
          <Typography.Title level={5} style={{ margin: 0 }}>
            {t('judge.sources', { count: c.sourceCount })}
          </Typography.Title>
          <Sources c={c} />
          {c.written ? (
            <Alert
              type="success"
              showIcon
              title={
                <span>
                  {t('judge.written', { form: c.written.formName, visit: c.written.visitName, repeat: c.written.repeatNo })}{' '}
                  <Link
                    to={subjectDetailPath({ ptsId: c.ptsId, ptsNo: c.ptsNo, designVersionId: c.designVersionId }, loginType, {
                      visitId: c.written.visitId,
                      formId: c.written.formId,
                      ...(c.written.unscheduledId ? { unscheduledId: c.written.unscheduledId } : {}),
                      ...(c.written.repeatNo > 1 ? { repeatNo: c.written.repeatNo } : {}),
                    })}
                    data-testid="judge-written-link"
                  >
                    {t('judge.openForm')}
                  </Link>
                </span>
              }
            />
          ) : null}
          {c.notWritten ? <Alert type="info" showIcon title={t(`judge.notWritten.${c.notWritten}`)} /> : null}
          <Typography.Title level={5} style={{ margin: 0 }}>
            {t('judge.decision')}
          </Typography.Title>
          <Form form={form} layout="vertical" disabled={!canJudge} data-testid="judge-form">
            <Form.Item label={t('judge.question', { category: t(`category.${c.category}`) })} required>
              <Radio.Group value={decision} onChange={(e) => setDecision(e.target.value as 'yes' | 'no')} optionType="button" buttonStyle="solid" data-testid="judge-decision">
                <Radio.Button value="yes">
                  <span data-testid="judge-yes">{t('judge.yes')}</span>
                </Radio.Button>
                <Radio.Button value="no">
                  <span data-testid="judge-no">{t('judge.no')}</span>
                </Radio.Button>
              </Radio.Group>
            </Form.Item>
            {decision === 'yes' ? <JudgeFields category={c.category} form={form} disabled={!canJudge} /> : null}
            {changing ? (
              <Form.Item name="reason" label={t('judge.reason')} rules={[{ required: true, whitespace: true, message: t('judge.reasonRequired') }, { max: 500 }]}>
                <Input.TextArea rows={2} maxLength={500} showCount data-testid="judge-reason" />
              </Form.Item>
            ) : null}
            {error ? <Alert type="error" showIcon title={error} style={{ marginBottom: 12 }} data-testid="judge-error" /> : null}
            {canJudge ? (
              <Button type="primary" loading={saving} disabled={!decision} onClick={() => void submit()} data-testid="judge-submit">
                {changing ? t('judge.change') : t('judge.submit')}
              </Button>
            ) : (
              <Typography.Text type="secondary">{t('judge.readOnly')}</Typography.Text>
            )}
          </Form>
          {history.data?.length ? (
            <>
              <Typography.Title level={5} style={{ margin: 0 }}>
                {t('judge.history')}
              </Typography.Title>
              <Timeline
                items={history.data.map((h) => ({
                  color: h.decision === 'yes' ? 'green' : 'gray',
                  children: (
                    <div>
                      <Typography.Text strong>{t(`judge.${h.decision}`)}</Typography.Text> · {h.userName ?? ''} · {fmtTime(h.createTime)}
                      {h.reason ? <div>{t('judge.reasonWas', { reason: h.reason })}</div> : null}
                    </div>
                  ),
                }))}
              />
            </>
          ) : null}
        </Space>
      ) : null}
    </Drawer>
  );
}

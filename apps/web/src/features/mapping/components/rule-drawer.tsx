import { useMemo, useState } from 'react';
import {
  Alert,
  App,
  AutoComplete,
  Button,
  Descriptions,
  Drawer,
  Form,
  Input,
  Radio,
  Select,
  Space,
  Switch,
  Table,
  Tag,
  Typography,
} from 'antd';
import { DeleteOutlined, PlusOutlined, SaveOutlined } from '@ant-design/icons';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useTranslation } from 'react-i18next';
import { SOURCE_DOC_TYPES, type MappingFieldRow, type MappingRuleInput } from '@esource/shared';
import { ApiError } from '../../../lib/api-client';
import { LimitedInput, LimitedTextArea, maxRule } from '../../../components/limited-input';
import { useSession } from '../../session';
import { commValuesQuery, mappingApi } from '../api/mapping-api';
import {
  detailToFields,
  duplicateSources,
  formToInput,
  isChoice,
  LOINC,
  ruleToForm,
  type RuleFormValues,
} from '../mapping-logic';
import { RuleTest } from './rule-test';

export interface RuleDrawerProps {
  formId: number;
  field: MappingFieldRow;
  canEdit: boolean;
  onClose: () => void;
}

const SELECTIONS = ['nearest', 'first', 'last', 'worstHigh', 'worstLow'] as const;

/**
 * The rule that fills one item (issue 11 item 3): by code (LOINC or local codes, with synonyms) or by a FHIRPath
 * expression, which document types, the UCUM unit wanted, which record of the visit window, and for a coded item
 * the source value → option table (with the values seen at the hospital to pick from). It can be tested against a
 * subject before it is saved; the server's refusal (an expression that does not compile, a unit that is not UCUM, a
 * source mapped twice) is shown at its field or row.
 */
export function RuleDrawer({ formId, field, canEdit, onClose }: RuleDrawerProps) {
  const { t } = useTranslation('mapping');
  const { message } = App.useApp();
  const qc = useQueryClient();
  const env = useSession((s) => s.env);
  const language = useSession((s) => s.language);
  const projectId = useSession((s) => s.project?.id ?? null);
  const [form] = Form.useForm<RuleFormValues>();
  const initial = useMemo(() => ruleToForm(field), [field]);
  const method = Form.useWatch('method', form) ?? initial.method;
  const codes = Form.useWatch('codes', form);
  const choice = isChoice(field.type);
  const [general, setGeneral] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const label = language === 'en_US' && field.labelEn ? field.labelEn : field.label;
  const codesText = (codes ?? [])
    .filter((c) => c?.code?.trim())
    .map((c) => (c.system?.trim() ? `${c.system.trim()}|${c.code.trim()}` : c.code.trim()))
    .join(',');
  const seen = useQuery({ ...commValuesQuery({ env, projectId }, formId, field.variable, codesText), enabled: choice && projectId !== null });
  const optionLabel = (v: string) => {
    const o = field.options.find((x) => x.value === v);
    return o ? (language === 'en_US' && o.labelEn ? o.labelEn : o.label) : v;
  };

  const showServerErrors = (detail: readonly { field: string; message: string }[], fallback: string) => {
    const { fields, rest } = detailToFields(detail);
    if (fields.length) form.setFields(fields as Parameters<typeof form.setFields>[0]);
    setGeneral(rest[0] ?? fallback);
  };

  /** the rule as the editor holds it, or null (the editor marks what is wrong) */
  const currentRule = async (): Promise<MappingRuleInput | null> => {
    setGeneral(null);
    try {
      const v = await form.validateFields();
      const dups = duplicateSources(v.optionMap ?? []);
      if (dups.length) {
        form.setFields(dups.map((i) => ({ name: ['optionMap', i, 'source'], errors: [t('rule.duplicateSource')] })));
        return null;
      }
      return formToInput(v, formId, field.variable, choice);
    } catch {
      setGeneral(t('rule.fixErrors'));
      return null;
    }
  };

  const save = async () => {
    const rule = await currentRule();
    if (!rule) return;
    setBusy(true);
    try {
      await mappingApi.save({ ...rule, ...(field.rule ? { id: field.rule.id, version: field.rule.version } : {}) });
      void message.success(t('rule.saved', { item: label }));
      await qc.invalidateQueries({ queryKey: ['mapping', 'fields'] });
      onClose();
    } catch (e) {
      if (e instanceof ApiError && e.detail.length) showServerErrors(e.detail, e.message);
      else setGeneral(e instanceof Error ? e.message : String(e));
    } finally {
      setBusy(false);
    }
  };

  const addMapping = (source: string) => {
    const rows = form.getFieldValue('optionMap') as RuleFormValues['optionMap'] | undefined;
    if ((rows ?? []).some((r) => r.source?.trim().toLowerCase() === source.toLowerCase())) return;
    form.setFieldValue('optionMap', [...(rows ?? []), { source, value: '' }]);
  };

  return (
    <Drawer
      open
      size="min(880px, calc(100vw - 80px))"
      onClose={onClose}
      destroyOnHidden
      title={t(field.rule ? 'rule.editTitle' : 'rule.newTitle', { item: label })}
      data-testid="rule-drawer"
      extra={
        canEdit ? (
          <Space>
            <Button onClick={onClose}>{t('cancel')}</Button>
            <Button type="primary" icon={<SaveOutlined />} loading={busy} onClick={() => void save()} data-testid="rule-save">
              {t('rule.save')}
            </Button>
          </Space>
        ) : null
      }
    >
      <Descriptions size="small" column={4} style={{ marginBottom: 12 }}>
        <Descriptions.Item label={t('item.variable')}>{field.variable}</Descriptions.Item>
        <Descriptions.Item label={t('item.type')}>{t(`fieldType.${field.type}`, { defaultValue: field.type })}</Descriptions.Item>
        <Descriptions.Item label={t('item.unit')}>{field.unit ?? '—'}</Descriptions.Item>
        <Descriptions.Item label={t('item.rule')}>
          {field.rule ? t('rule.version', { version: field.rule.version }) : t('rule.none')}
        </Descriptions.Item>
      </Descriptions>
      {!canEdit ? <Alert type="info" showIcon style={{ marginBottom: 12 }} title={t('readOnly')} /> : null}
      {general ? (
        <Alert type="error" showIcon closable={{ onClose: () => setGeneral(null) }} style={{ marginBottom: 12 }} title={general} data-testid="rule-error" />
      ) : null}
      <Form<RuleFormValues>
        form={form}
        initialValues={initial}
        layout="horizontal"
        labelCol={{ flex: '150px' }}
        labelWrap
        disabled={!canEdit}
        data-testid="rule-form"
      >
        <Form.Item name="method" label={t('rule.method')}>
          <Radio.Group
            optionType="button"
            options={(['code', 'fhirpath'] as const).map((m) => ({
              value: m,
              label: <span data-testid={`rule-method-${m}`}>{t(`method.${m}`)}</span>,
            }))}
          />
        </Form.Item>
        {method === 'code' ? (
          <>
            <Form.Item label={t('rule.codes')} required>
              <Form.List
                name="codes"
                rules={[
                  {
                    validator: (_, rows: RuleFormValues['codes']) =>
                      (rows ?? []).some((r) => r?.code?.trim()) ? Promise.resolve() : Promise.reject(new Error(t('rule.codesRequired'))),
                  },
                ]}
              >
                {(rows, { add, remove }, { errors }) => (
                  <div data-testid="rule-codes">
                    {rows.map((r, i) => (
                      <Space key={r.key} align="start" style={{ display: 'flex', marginBottom: 6 }}>
                        <Form.Item name={[r.name, 'system']} noStyle>
                          <AutoComplete
                            style={{ width: 200 }}
                            placeholder={t('rule.systemAny')}
                            options={[
                              { value: LOINC, label: `LOINC (${LOINC})` },
                              { value: 'local', label: t('rule.systemLocal') },
                            ]}
                            data-testid={`rule-code-system-${i}`}
                          />
                        </Form.Item>
                        <Form.Item name={[r.name, 'code']} rules={[maxRule(100)]} style={{ marginBottom: 0 }}>
                          <LimitedInput max={100} style={{ width: 200 }} placeholder={t('rule.codePlaceholder')} data-testid={`rule-code-${i}`} />
                        </Form.Item>
                        {rows.length > 1 ? (
                          <Button type="text" icon={<DeleteOutlined />} onClick={() => remove(r.name)} aria-label={t('remove')} />
                        ) : null}
                      </Space>
                    ))}
                    <Button size="small" icon={<PlusOutlined />} onClick={() => add({ system: LOINC, code: '' })} data-testid="rule-code-add">
                      {t('rule.addCode')}
                    </Button>
                    <Form.ErrorList errors={errors} />
                  </div>
                )}
              </Form.List>
            </Form.Item>
            <Form.Item name="useSynonyms" label={t('rule.useSynonyms')} valuePropName="checked" extra={t('rule.useSynonymsHint')}>
              <Switch data-testid="rule-synonyms" />
            </Form.Item>
          </>
        ) : (
          <Form.Item
            name="expression"
            label={t('rule.expression')}
            extra={t('rule.expressionHint')}
            rules={[{ required: true, whitespace: true, message: t('rule.expressionRequired') }, maxRule(2000)]}
          >
            <LimitedTextArea
              max={2000}
              rows={3}
              style={{ fontFamily: 'monospace' }}
              placeholder="Observation.where(code.coding.code = '718-7').value.ofType(Quantity).value"
              data-testid="rule-expression"
            />
          </Form.Item>
        )}
        <Form.Item name="docTypes" label={t('rule.docTypes')} extra={t('rule.docTypesHint')}>
          <Select
            mode="multiple"
            allowClear
            placeholder={t('rule.docTypesAny')}
            options={SOURCE_DOC_TYPES.map((d, i) => ({ value: i + 1, label: t(`sources:docType.${d}`) }))}
            data-testid="rule-doc-types"
          />
        </Form.Item>
        {field.type === 'number' ? (
          <Form.Item name="unit" label={t('rule.unit')} extra={t('rule.unitHint')} rules={[maxRule(60)]}>
            <LimitedInput max={60} style={{ width: 240 }} placeholder={field.unit ?? ''} data-testid="rule-unit" />
          </Form.Item>
        ) : null}
        <Form.Item name="selection" label={t('rule.selection')}>
          <Select
            style={{ width: 260 }}
            options={SELECTIONS.map((s) => ({ value: s, label: t(`selection.${s}`) }))}
            data-testid="rule-selection"
          />
        </Form.Item>
        <Form.Item name="windowOnly" label={t('rule.windowOnly')} valuePropName="checked" extra={t('rule.windowOnlyHint')}>
          <Switch data-testid="rule-window-only" />
        </Form.Item>
        {choice ? (
          <Form.Item label={t('rule.optionMap')} extra={t('rule.optionMapHint')}>
            <Form.List name="optionMap">
              {(rows, { add, remove }) => (
                <div data-testid="rule-option-map">
                  {rows.length === 0 ? (
                    <Typography.Text type="secondary" style={{ display: 'block', marginBottom: 6 }}>
                      {t('rule.optionMapEmpty')}
                    </Typography.Text>
                  ) : null}
                  {rows.map((r, i) => (
                    <Space key={r.key} align="start" style={{ display: 'flex', marginBottom: 6 }} data-testid={`rule-option-row-${i}`}>
                      <Form.Item
                        name={[r.name, 'source']}
                        rules={[{ required: true, whitespace: true, message: t('rule.sourceRequired') }, maxRule(100)]}
                        style={{ marginBottom: 0 }}
                      >
                        <Input style={{ width: 220 }} placeholder={t('rule.sourceValue')} data-testid={`rule-option-source-${i}`} />
                      </Form.Item>
                      <span style={{ lineHeight: '32px' }}>→</span>
                      <Form.Item name={[r.name, 'value']} rules={[{ required: true, message: t('rule.optionRequired') }]} style={{ marginBottom: 0 }}>
                        <Select
                          style={{ width: 200 }}
                          placeholder={t('rule.option')}
                          options={field.options.map((o) => ({ value: o.value, label: `${optionLabel(o.value)} (${o.value})` }))}
                          data-testid={`rule-option-value-${i}`}
                        />
                      </Form.Item>
                      <Button type="text" icon={<DeleteOutlined />} onClick={() => remove(r.name)} aria-label={t('remove')} />
                    </Space>
                  ))}
                  <Button size="small" icon={<PlusOutlined />} onClick={() => add({ source: '', value: '' })} data-testid="rule-option-add">
                    {t('rule.addOption')}
                  </Button>
                  <div style={{ marginTop: 10 }}>
                    <Typography.Text type="secondary">{t('rule.seen')}</Typography.Text>
                    {seen.isError ? (
                      <Alert type="warning" showIcon style={{ marginTop: 6 }} title={seen.error.message} />
                    ) : (
                      <Table
                        size="small"
                        style={{ marginTop: 6 }}
                        loading={seen.isFetching}
                        pagination={false}
                        scroll={{ y: 200 }}
                        rowKey={(r) => `${r.codeSystem}|${r.code}|${r.valueText}`}
                        dataSource={seen.data?.sourceValues ?? []}
                        locale={{ emptyText: t('rule.seenEmpty') }}
                        columns={[
                          { title: t('rule.seenCode'), key: 'code', render: (_: unknown, r) => r.code ?? '—', width: 130 },
                          { title: t('rule.seenText'), key: 'text', ellipsis: true, render: (_: unknown, r) => r.valueText ?? r.display ?? '—' },
                          { title: t('rule.seenCount'), dataIndex: 'count', width: 80 },
                          {
                            title: '',
                            key: 'add',
                            width: 90,
                            render: (_: unknown, r) => {
                              const src = r.valueText ?? r.code;
                              return src && canEdit ? (
                                <Button size="small" type="link" onClick={() => addMapping(src)}>
                                  {t('rule.mapIt')}
                                </Button>
                              ) : null;
                            },
                          },
                        ]}
                      />
                    )}
                  </div>
                </div>
              )}
            </Form.List>
          </Form.Item>
        ) : null}
      </Form>
      <RuleTest
        currentRule={currentRule}
        onFieldErrors={(d) => showServerErrors(d, t('rule.fixErrors'))}
        options={field.options}
        unit={field.type === 'number' ? ((form.getFieldValue('unit') as string | undefined) || field.unit) : null}
      />
      {field.rule ? (
        <Typography.Paragraph type="secondary" style={{ fontSize: 12, marginTop: 12 }}>
          <Tag>{t('rule.version', { version: field.rule.version })}</Tag>
          {t('rule.updated', { who: field.rule.updatedBy ?? '—', when: field.rule.updateTime.slice(0, 16).replace('T', ' ') })}
        </Typography.Paragraph>
      ) : null}
    </Drawer>
  );
}

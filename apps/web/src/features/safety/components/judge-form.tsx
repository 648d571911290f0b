import { Checkbox, Col, Form, Input, InputNumber, Radio, Row, Select, Switch } from 'antd';
import type { FormInstance } from 'antd';
import { useTranslation } from 'react-i18next';
import {
  AE_ACTIONS,
  AE_OUTCOMES,
  AE_RELATEDNESS,
  AE_SERIOUS_CRITERIA,
  CM_FREQUENCIES,
  CM_ROUTES,
  SAFETY_DICTIONARY,
  type CandidateView,
  type SafetyCategory,
} from '@esource/shared';
import { DictionaryPicker } from '../../dictionaries';

/** YYYY, YYYY-MM or YYYY-MM-DD */
const PARTIAL_DATE = /^\d{4}(-(0[1-9]|1[0-2])(-(0[1-9]|[12]\d|3[01]))?)?$/;

/** The judgement's fields as the form starts: the reviewer's earlier judgement, else what the generator found. */
export function initialFields(c: CandidateView, language: string): Record<string, unknown> {
  if (c.fields) return c.fields;
  const en = language === 'en_US';
  const term = c.detail.ctcaeTerm ? (en ? c.detail.ctcaeTerm.en : c.detail.ctcaeTerm.zh) : c.term;
  const coded = c.suggested ?? undefined;
  switch (c.category) {
    case 'ae':
      return {
        term,
        coded,
        onset: c.startDate ?? undefined,
        end: c.endDate ?? undefined,
        ongoing: !c.endDate,
        grade: c.detail.grade ?? undefined,
        serious: false,
        criteria: [],
      };
    case 'cm':
      return {
        term,
        coded,
        dose: c.detail.dose ?? undefined,
        unit: c.detail.doseUnit ?? undefined,
        route: CM_ROUTES.find((r) => r === c.detail.route?.toUpperCase()),
        frequency: CM_FREQUENCIES.find((f) => f === c.detail.frequency),
        indication: c.detail.indication ?? undefined,
        start: c.startDate ?? undefined,
        end: c.endDate ?? undefined,
        ongoing: !c.endDate,
      };
    case 'mh':
      return { term, coded, onset: c.startDate ?? undefined, ongoing: !c.endDate };
    case 'pr':
    case 'hiss':
      return { term, coded, date: c.startDate ?? undefined };
  }
}

/** The fields a safety reviewer fills for a "yes", per category (AE, CM, PR/HISS, MH). */
export function JudgeFields({ category, form, disabled }: { category: SafetyCategory; form: FormInstance; disabled?: boolean }) {
  const { t } = useTranslation('safety');
  const serious = Form.useWatch('serious', form) as boolean | undefined;
  const ongoing = Form.useWatch('ongoing', form) as boolean | undefined;
  const date = (name: string, label: string, required = false) => (
    <Form.Item
      name={name}
      label={label}
      rules={[
        ...(required ? [{ required: true, message: t('validation.required') }] : []),
        { pattern: PARTIAL_DATE, message: t('validation.partialDate') },
      ]}
    >
      <Input placeholder="YYYY-MM-DD" maxLength={10} disabled={disabled} data-testid={`judge-${name}`} />
    </Form.Item>
  );
  const enumSelect = (name: string, values: readonly string[], prefix: string, required = false) => (
    <Form.Item name={name} label={t(`field.${name}`)} rules={required ? [{ required: true, message: t('validation.required') }] : []}>
      <Select
        allowClear={!required}
        disabled={disabled}
        options={values.map((v) => ({ value: v, label: t(`${prefix}.${v}`) }))}
        data-testid={`judge-${name}`}
      />
    </Form.Item>
  );
  const termItems = (
    <>
      <Form.Item name="term" label={t(`field.term_${category}`)} rules={[{ required: true, whitespace: true, message: t('validation.required') }, { max: 300 }]}>
        <Input maxLength={300} disabled={disabled} data-testid="judge-term" />
      </Form.Item>
      <Form.Item name="coded" label={t(`field.coded_${SAFETY_DICTIONARY[category]}`)} extra={t('field.codedHint')}>
        <DictionaryPicker kind={SAFETY_DICTIONARY[category]} disabled={disabled} placeholder={t('field.codedPlaceholder')} />
      </Form.Item>
    </>
  );

  if (category === 'ae') {
    return (
      <>
        {termItems}
        <Row gutter={12}>
          <Col span={8}>{date('onset', t('field.onset'), true)}</Col>
          <Col span={8}>{ongoing ? null : date('end', t('field.end'))}</Col>
          <Col span={8}>
            <Form.Item name="ongoing" label={t('field.ongoing')} valuePropName="checked">
              <Switch disabled={disabled} data-testid="judge-ongoing" />
            </Form.Item>
          </Col>
        </Row>
        <Row gutter={12}>
          <Col span={12}>
            <Form.Item name="grade" label={t('field.grade')} rules={[{ required: true, message: t('validation.required') }]} extra={t('field.gradeHint')}>
              <Radio.Group disabled={disabled} optionType="button" options={[1, 2, 3, 4, 5].map((g) => ({ value: g, label: String(g) }))} data-testid="judge-grade" />
            </Form.Item>
          </Col>
          <Col span={12}>
            <Form.Item name="serious" label={t('field.serious')} rules={[{ required: true, message: t('validation.required') }]}>
              <Radio.Group
                disabled={disabled}
                options={[
                  { value: true, label: t('yes') },
                  { value: false, label: t('no') },
                ]}
                data-testid="judge-serious"
              />
            </Form.Item>
          </Col>
        </Row>
        {serious ? (
          <Form.Item name="criteria" label={t('field.criteria')} rules={[{ required: true, type: 'array', min: 1, message: t('validation.criteria') }]}>
            <Checkbox.Group disabled={disabled} options={AE_SERIOUS_CRITERIA.map((c) => ({ value: c, label: t(`criteria.${c}`) }))} data-testid="judge-criteria" />
          </Form.Item>
        ) : null}
        {enumSelect('relatedness', AE_RELATEDNESS, 'relatedness', true)}
        <Row gutter={12}>
          <Col span={12}>{enumSelect('action', AE_ACTIONS, 'action', true)}</Col>
          <Col span={12}>{enumSelect('outcome', AE_OUTCOMES, 'outcome', true)}</Col>
        </Row>
      </>
    );
  }
  if (category === 'cm') {
    return (
      <>
        {termItems}
        <Row gutter={12}>
          <Col span={8}>
            <Form.Item name="dose" label={t('field.dose')}>
              <InputNumber min={0} max={1e7} style={{ width: '100%' }} disabled={disabled} data-testid="judge-dose" />
            </Form.Item>
          </Col>
          <Col span={8}>
            <Form.Item name="unit" label={t('field.unit')} rules={[{ max: 40 }]}>
              <Input maxLength={40} disabled={disabled} data-testid="judge-unit" />
            </Form.Item>
          </Col>
          <Col span={8}>{enumSelect('route', CM_ROUTES, 'route')}</Col>
        </Row>
        <Row gutter={12}>
          <Col span={12}>{enumSelect('frequency', CM_FREQUENCIES, 'frequency')}</Col>
          <Col span={12}>
            <Form.Item name="indication" label={t('field.indication')} rules={[{ max: 300 }]}>
              <Input maxLength={300} disabled={disabled} data-testid="judge-indication" />
            </Form.Item>
          </Col>
        </Row>
        <Row gutter={12}>
          <Col span={8}>{date('start', t('field.start'))}</Col>
          <Col span={8}>{ongoing ? null : date('end', t('field.end'))}</Col>
          <Col span={8}>
            <Form.Item name="ongoing" label={t('field.ongoing')} valuePropName="checked">
              <Switch disabled={disabled} />
            </Form.Item>
          </Col>
        </Row>
      </>
    );
  }
  if (category === 'mh') {
    return (
      <>
        {termItems}
        <Row gutter={12}>
          <Col span={12}>{date('onset', t('field.onset'))}</Col>
          <Col span={12}>
            <Form.Item name="ongoing" label={t('field.ongoing')} valuePropName="checked">
              <Switch disabled={disabled} />
            </Form.Item>
          </Col>
        </Row>
      </>
    );
  }
  return (
    <>
      {termItems}
      {date('date', t('field.date'))}
    </>
  );
}

/** The form's values as the judgement's fields (an ongoing record has no end). */
export function fieldsOf(category: SafetyCategory, v: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, x] of Object.entries(v)) if (x !== undefined && x !== null && x !== '') out[k] = x;
  if (out.ongoing === true) delete out.end;
  if (category === 'ae' && out.serious !== true) out.criteria = [];
  return out;
}

import { useState } from 'react';
import { Alert, Col, Form, InputNumber, Modal, Row, Select, Switch } from 'antd';
import { useTranslation } from 'react-i18next';
import type { FormRow, VisitRow } from '@esource/shared';
import { ApiError } from '../../../lib/api-client';
import { designApi, type StageRow } from '../api/design-api';
import { visitBody, visitFormValues, type VisitFormValues } from '../visit-plan';
import { LimitedInput, maxRule } from '../../../components/limited-input';

interface Props {
  versionId: number;
  visit?: VisitRow;
  nextOrder: number;
  stages: StageRow[];
  forms: FormRow[];
  language: string;
  onClose: () => void;
  onSaved: (v: VisitRow) => void;
}

const FIELDS = [
  'code',
  'name',
  'nameEn',
  'stageId',
  'sortOrder',
  'dayOffset',
  'windowBefore',
  'windowAfter',
  'formIds',
];

/** Add or edit a visit: code, name, stage, order, day offset, window −/+ days, unscheduled, assigned forms. */
export function VisitDialog({
  versionId,
  visit,
  nextOrder,
  stages,
  forms,
  language,
  onClose,
  onSaved,
}: Props) {
  const { t } = useTranslation('design');
  const [form] = Form.useForm<VisitFormValues>();
  const [busy, setBusy] = useState(false);
  const [general, setGeneral] = useState<string | null>(null);
  const unscheduled = Form.useWatch('unscheduled', form);

  const submit = async (v: VisitFormValues) => {
    setBusy(true);
    setGeneral(null);
    try {
      onSaved(
        visit
          ? await designApi.updateVisit(visitBody(v, { id: visit.id }))
          : await designApi.addVisit(visitBody(v, { versionId })),
      );
    } catch (e) {
      if (e instanceof ApiError) {
        const fields = e.detail
          .filter((d) => FIELDS.includes(d.field))
          .map((d) => ({ name: d.field as keyof VisitFormValues, errors: [d.message] }));
        if (e.errorCode === 'DUPLICATE' || e.errorCode === 'CONFLICT')
          fields.push({ name: 'code', errors: [t('visit.duplicateCode')] });
        form.setFields(fields);
        if (fields.length === 0) setGeneral(e.message);
      } else setGeneral(String(e));
    } finally {
      setBusy(false);
    }
  };

  return (
    <Modal
      open
      title={visit ? t('visit.editTitle', { code: visit.code }) : t('visit.addTitle')}
      okText={t('save')}
      onOk={() => form.submit()}
      confirmLoading={busy}
      onCancel={onClose}
      mask={{ closable: false }}
      width={640}
    >
      <div data-testid="visit-dialog">
        {general ? <Alert type="error" showIcon title={general} style={{ marginBottom: 16 }} /> : null}
        <Form<VisitFormValues>
          form={form}
          layout="vertical"
          initialValues={visitFormValues(visit, nextOrder)}
          onFinish={(v) => void submit(v)}
        >
          <Row gutter={16}>
            <Col span={8}>
              <Form.Item
                name="code"
                label={t('visit.code')}
                rules={[
                  { required: true, whitespace: true, message: t('rule.codeRequired') },
                  { max: 30, message: t('rule.max', { max: 30 }) },
                  { pattern: /^[A-Za-z0-9_-]+$/, message: t('rule.codeChars') },
                ]}
              >
                <LimitedInput max={30} data-testid="visit-code" autoComplete="off" />
              </Form.Item>
            </Col>
            <Col span={16}>
              <Form.Item
                name="name"
                label={t('visit.name')}
                rules={[
                  { required: true, whitespace: true, message: t('rule.nameRequired') },
                  { max: 50, message: t('rule.max', { max: 50 }) },
                ]}
              >
                <LimitedInput max={50} data-testid="visit-name" autoComplete="off" />
              </Form.Item>
            </Col>
            <Col span={8} />
            <Col span={16}>
              <Form.Item
                name="nameEn"
                label={t('visit.nameEn')}
                extra={t('visit.nameEnHelp')}
                rules={[maxRule(50)]}
              >
                <LimitedInput max={50} data-testid="visit-name-en" autoComplete="off" />
              </Form.Item>
            </Col>
            <Col span={16}>
              <Form.Item name="stageId" label={t('visit.stage')}>
                <Select
                  allowClear
                  placeholder={t('visit.noStage')}
                  options={stages.map((s) => ({ value: s.id, label: s.name }))}
                  data-testid="visit-stage"
                />
              </Form.Item>
            </Col>
            <Col span={8}>
              <Form.Item
                name="sortOrder"
                label={t('visit.order')}
                rules={[{ required: true, message: t('rule.orderRequired') }]}
              >
                <InputNumber min={0} precision={0} style={{ width: '100%' }} data-testid="visit-order" />
              </Form.Item>
            </Col>
            <Col span={24}>
              <Form.Item
                name="unscheduled"
                label={t('visit.unscheduled')}
                valuePropName="checked"
                extra={t('visit.unscheduledHelp')}
              >
                <Switch data-testid="visit-unscheduled" />
              </Form.Item>
            </Col>
            <Col span={8}>
              <Form.Item name="dayOffset" label={t('visit.dayOffset')} extra={t('visit.dayOffsetHelp')}>
                <InputNumber
                  min={-3650}
                  max={3650}
                  precision={0}
                  disabled={unscheduled}
                  style={{ width: '100%' }}
                  data-testid="visit-day"
                />
              </Form.Item>
            </Col>
            <Col span={8}>
              <Form.Item name="windowBefore" label={t('visit.windowBefore')}>
                <InputNumber
                  min={0}
                  max={365}
                  precision={0}
                  disabled={unscheduled}
                  style={{ width: '100%' }}
                  prefix="−"
                  data-testid="visit-before"
                />
              </Form.Item>
            </Col>
            <Col span={8}>
              <Form.Item name="windowAfter" label={t('visit.windowAfter')}>
                <InputNumber
                  min={0}
                  max={365}
                  precision={0}
                  disabled={unscheduled}
                  style={{ width: '100%' }}
                  prefix="+"
                  data-testid="visit-after"
                />
              </Form.Item>
            </Col>
            <Col span={24}>
              <Form.Item name="formIds" label={t('visit.forms')}>
                <Select
                  mode="multiple"
                  placeholder={t('visit.formsPlaceholder')}
                  notFoundContent={t('visit.noForms')}
                  options={forms.map((f) => ({
                    value: f.id,
                    label: `${f.code} · ${language === 'en_US' && f.nameEn ? f.nameEn : f.name}`,
                  }))}
                  data-testid="visit-forms"
                />
              </Form.Item>
            </Col>
          </Row>
        </Form>
      </div>
    </Modal>
  );
}

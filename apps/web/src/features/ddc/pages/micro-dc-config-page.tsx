import { useEffect, useState } from 'react';
import {
  App,
  Button,
  Card,
  Checkbox,
  Col,
  Form,
  Radio,
  Result,
  Row,
  Select,
  Skeleton,
  Switch,
  Tag,
  Typography,
} from 'antd';
import { SaveOutlined } from '@ant-design/icons';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useTranslation } from 'react-i18next';
import { SHARE_LIMITS, type MicroDcSettings } from '@esource/shared';
import { ApiError } from '../../../lib/api-client';
import { usePms, useSession } from '../../session';
import { dcConfigQuery, dcFormsQuery, ddcApi } from '../api/ddc-api';
import { ConfigMeta, ConfigNotices } from '../components/config-meta';
import { DdcHeader } from '../components/ddc-header';
import { hourChoices, validityText } from '../ddc-logic';
import '../ddc.css';

/**
 * /project/microDCConfig (docs/decisions.md "Shared forms"): the data-collection policy of shared links in this
 * project environment — whether staff may create them, which forms (all, or the listed form codes; a form with a file
 * item never), and the validity offered and the longest allowed. The links obey it when they are created.
 */
export default function MicroDcConfigPage() {
  const { t } = useTranslation('ddc');
  const { message } = App.useApp();
  const qc = useQueryClient();
  const has = usePms();
  const env = useSession((s) => s.env);
  const language = useSession((s) => s.language);
  const projectId = useSession((s) => s.project?.id ?? null);
  const q = useQuery(dcConfigQuery({ env, projectId }));
  const forms = useQuery(dcFormsQuery({ env, projectId }));
  const [form] = Form.useForm<MicroDcSettings>();
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<ApiError | null>(null);
  const canSave = has('crf:form:update');
  const mode = Form.useWatch('forms', form);
  const maxHours = Form.useWatch('maxHours', form) ?? SHARE_LIMITS.maxHours;

  useEffect(() => {
    if (q.data) form.setFieldsValue(q.data.settings);
  }, [q.data, form]);

  const save = async () => {
    if (!q.data) return;
    const v = await form.validateFields();
    setBusy(true);
    setError(null);
    try {
      const r = await ddcApi.saveDcConfig({ ...v, formCodes: v.formCodes ?? [], version: q.data.version });
      qc.setQueryData(dcConfigQuery({ env, projectId }).queryKey, r);
      void message.success(t('config.saved'));
    } catch (e) {
      if (e instanceof ApiError) setError(e);
      else throw e;
    } finally {
      setBusy(false);
    }
  };

  const all = hourChoices(SHARE_LIMITS.defaultHours, SHARE_LIMITS.maxHours);
  return (
    <div className="ddc-page" data-testid="micro-dc-config-page">
      <DdcHeader
        title={t('dcConfig.title')}
        backTo="/DDC/share"
        extra={
          canSave ? (
            <Button
              type="primary"
              icon={<SaveOutlined />}
              loading={busy}
              disabled={!q.data}
              onClick={() => void save()}
              data-testid="config-save"
            >
              {t('config.save')}
            </Button>
          ) : null
        }
      />
      <div className="ddc-body">
        {q.isError ? (
          <Result status="warning" title={t('config.loadFailed')} subTitle={q.error.message} />
        ) : !q.data ? (
          <Skeleton active />
        ) : (
          <Card className="ddc-config">
            <Typography.Paragraph type="secondary">{t('dcConfig.intro')}</Typography.Paragraph>
            <ConfigMeta version={q.data.version} by={q.data.updatedByName} at={q.data.updateTime} />
            <ConfigNotices canSave={canSave} error={error} onReload={() => void q.refetch().then(() => setError(null))} />
            <Form form={form} layout="vertical" disabled={!canSave} data-testid="dc-config-form">
              <Form.Item
                name="enabled"
                label={t('dcConfig.enabled')}
                valuePropName="checked"
                extra={t('dcConfig.enabledHint')}
              >
                <Switch data-testid="config-enabled" />
              </Form.Item>
              <Form.Item name="forms" label={t('dcConfig.forms')}>
                <Radio.Group
                  options={[
                    { value: 'all', label: t('dcConfig.formsAll') },
                    { value: 'listed', label: t('dcConfig.formsListed') },
                  ]}
                  data-testid="config-forms-mode"
                />
              </Form.Item>
              {mode === 'listed' ? (
                <Form.Item
                  name="formCodes"
                  rules={[{ required: true, type: 'array', min: 1, message: t('dcConfig.formsRequired') }]}
                >
                  <Checkbox.Group
                    style={{ display: 'flex', flexDirection: 'column', gap: 6 }}
                    data-testid="config-form-codes"
                  >
                    {(forms.data ?? []).map((f) => (
                      <Checkbox key={f.code} value={f.code} disabled={f.hasFile}>
                        <Tag>{f.code}</Tag>
                        {(language === 'en_US' ? f.nameEn : null) ?? f.name}
                        {f.hasFile ? (
                          <Typography.Text type="secondary"> · {t('dcConfig.hasFile')}</Typography.Text>
                        ) : null}
                      </Checkbox>
                    ))}
                  </Checkbox.Group>
                </Form.Item>
              ) : null}
              <Row gutter={16}>
                <Col xs={24} sm={12}>
                  <Form.Item
                    name="defaultHours"
                    label={t('dcConfig.defaultHours')}
                    dependencies={['maxHours']}
                    rules={[
                      ({ getFieldValue }) => ({
                        validator: (_r, v: number) =>
                          v <= getFieldValue('maxHours')
                            ? Promise.resolve()
                            : Promise.reject(new Error(t('dcConfig.defaultOverMax'))),
                      }),
                    ]}
                  >
                    <Select
                      options={all
                        .filter((h) => h <= maxHours)
                        .map((h) => ({ value: h, label: validityText(t, h) }))}
                      data-testid="config-default-hours"
                    />
                  </Form.Item>
                </Col>
                <Col xs={24} sm={12}>
                  <Form.Item name="maxHours" label={t('dcConfig.maxHours')}>
                    <Select
                      options={all.map((h) => ({ value: h, label: validityText(t, h) }))}
                      data-testid="config-max-hours"
                    />
                  </Form.Item>
                </Col>
              </Row>
            </Form>
          </Card>
        )}
      </div>
    </div>
  );
}

import { useEffect, useState } from 'react';
import {
  Alert,
  Button,
  Drawer,
  Form,
  Input,
  InputNumber,
  Radio,
  Select,
  Space,
  Switch,
  Typography,
} from 'antd';
import { ApiOutlined } from '@ant-design/icons';
import { useQueryClient } from '@tanstack/react-query';
import { useTranslation } from 'react-i18next';
import type { EdcConfigView } from '@esource/shared';
import { ApiError } from '../../../lib/api-client';
import { validFields } from '../../../lib/validate-form';
import { LimitedInput, maxRule } from '../../../components/limited-input';
import { edcApi, edcKey, type EdcConfigInput } from '../api/edc-api';
import { TestResult, useTestConnection } from './test-connection';

interface Values {
  kind: 1 | 3;
  name: string;
  baseUrl: string;
  studyOid?: string;
  targetEnv?: string;
  secret?: string;
  timeoutSec: number;
  schedule: 'off' | 'hourly' | 'daily';
  enabled: boolean;
}

/** The form's field of each field the server names in an error. */
const FIELD_OF: Record<string, keyof Values> = {
  kind: 'kind',
  name: 'name',
  baseUrl: 'baseUrl',
  studyOid: 'studyOid',
  targetEnv: 'targetEnv',
  secret: 'secret',
  timeoutMs: 'timeoutSec',
  schedule: 'schedule',
  enabled: 'enabled',
};

const valuesOf = (c: EdcConfigView | null): Values =>
  c
    ? {
        kind: c.kind === 3 ? 3 : 1,
        name: c.name,
        baseUrl: c.baseUrl,
        studyOid: c.studyOid ?? undefined,
        targetEnv: c.targetEnv ?? undefined,
        secret: undefined,
        timeoutSec: Math.round(c.timeoutMs / 1000),
        schedule: c.schedule ?? 'off',
        enabled: c.enabled,
      }
    : { kind: 1, name: '', baseUrl: '', timeoutSec: 30, schedule: 'off', enabled: true };

function inputOf(v: Values, version: number | undefined): EdcConfigInput {
  return {
    kind: v.kind,
    name: v.name.trim(),
    baseUrl: v.baseUrl.trim(),
    ...(v.kind === 1 && v.studyOid?.trim() ? { studyOid: v.studyOid.trim() } : {}),
    ...(v.kind === 1 && v.targetEnv?.trim() ? { targetEnv: v.targetEnv.trim() } : {}),
    ...(v.secret ? { secret: v.secret } : {}),
    timeoutMs: v.timeoutSec * 1000,
    schedule: v.schedule === 'off' ? null : v.schedule,
    enabled: v.enabled,
    ...(version !== undefined ? { version } : {}),
  };
}

/**
 * The EDC's settings (edc:sync:config): kind 1 (CDISC ODM over HTTP: base URL, study OID, environment, user:password)
 * or kind 3 (REDCap: API URL and token); the secret is never shown, an empty field keeps it. Errors appear on their
 * fields; "Test connection" tries the saved settings and shows what the EDC answered.
 */
export function EdcConfigDrawer({
  open,
  config,
  onClose,
  onSaved,
}: {
  open: boolean;
  config: EdcConfigView | null;
  onClose: () => void;
  onSaved: (c: EdcConfigView) => void;
}) {
  const { t } = useTranslation('edc');
  const qc = useQueryClient();
  const [form] = Form.useForm<Values>();
  const kind = Form.useWatch('kind', form) ?? (config?.kind === 3 ? 3 : 1);
  const [busy, setBusy] = useState(false);
  const [general, setGeneral] = useState<string | null>(null);
  const [saved, setSaved] = useState(false);
  const test = useTestConnection();
  const { reset: resetTest } = test;

  useEffect(() => {
    if (!open) return;
    form.resetFields();
    form.setFieldsValue(valuesOf(config));
    setGeneral(null);
    setSaved(false);
    resetTest();
    // the form is filled when the drawer opens, not whenever the configuration is read again
  }, [open]);

  const save = async () => {
    const v = await validFields(form);
    if (!v) return;
    setBusy(true);
    setGeneral(null);
    try {
      const next = await edcApi.saveConfig(inputOf(v, config?.version));
      // a new kind or address drops the item list read from the old EDC: it is not read again unasked
      if (next.targetItemsAt === null) qc.removeQueries({ queryKey: [...edcKey, 'items'] });
      await qc.invalidateQueries({ queryKey: edcKey, predicate: (q) => q.queryKey[1] !== 'items' });
      onSaved(next);
      form.setFieldsValue({ secret: undefined });
      setSaved(true);
      resetTest();
    } catch (e) {
      if (e instanceof ApiError) {
        const fields = e.detail.flatMap((d) => {
          const name = FIELD_OF[d.field];
          return name ? [{ name, errors: [d.message] }] : [];
        });
        form.setFields(fields);
        if (!fields.length || fields.length < e.detail.length) setGeneral(e.message);
      } else setGeneral(String(e));
    } finally {
      setBusy(false);
    }
  };

  const hasSecret = !!config?.hasSecret;
  const secretRules =
    kind === 1
      ? { pattern: /^[^:]+:.+$/, message: t('rule.basicSecret') }
      : { pattern: /^[0-9A-Fa-f]{32,64}$/, message: t('rule.token') };

  return (
    <Drawer
      open={open}
      onClose={onClose}
      size={620}
      title={config ? t('config.editTitle') : t('config.newTitle')}
      destroyOnHidden
      data-testid="edc-config-drawer"
      extra={
        <Space>
          <Button onClick={onClose}>{t('close')}</Button>
          <Button type="primary" loading={busy} onClick={() => void save()} data-testid="edc-config-save">
            {t('save')}
          </Button>
        </Space>
      }
    >
      {general ? (
        <Alert
          type="error"
          showIcon
          title={general}
          style={{ marginBottom: 16 }}
          data-testid="edc-config-error"
        />
      ) : null}
      {saved ? (
        <Alert
          type="success"
          showIcon
          title={t('config.saved')}
          style={{ marginBottom: 16 }}
          data-testid="edc-config-saved"
        />
      ) : null}
      <Form<Values>
        form={form}
        layout="vertical"
        initialValues={valuesOf(config)}
        onValuesChange={() => setSaved(false)}
      >
        <Form.Item name="kind" label={t('config.kind')} extra={t(`kindHint.${kind}`)}>
          <Select
            data-testid="edc-config-kind"
            options={[
              { value: 1, label: t('kind.1') },
              { value: 3, label: t('kind.3') },
            ]}
          />
        </Form.Item>
        <Form.Item
          name="name"
          label={t('config.name')}
          rules={[{ required: true, whitespace: true, message: t('rule.name') }, maxRule(100)]}
        >
          <LimitedInput
            max={100}
            placeholder={t('config.namePlaceholder')}
            data-testid="edc-config-name"
            autoComplete="off"
          />
        </Form.Item>
        <Form.Item
          name="baseUrl"
          label={t(`config.baseUrl.${kind}`)}
          rules={[
            { required: true, whitespace: true, message: t('rule.url') },
            { pattern: /^https?:\/\/[^\s/?#]+[^\s]*$/i, message: t('rule.url') },
            maxRule(500),
          ]}
        >
          <Input
            placeholder={t(`config.baseUrlPlaceholder.${kind}`)}
            data-testid="edc-config-url"
            autoComplete="off"
          />
        </Form.Item>
        {kind === 1 ? (
          <Space.Compact block style={{ gap: 12 }}>
            <Form.Item
              name="studyOid"
              label={t('config.studyOid')}
              style={{ flex: 2 }}
              rules={[
                { required: true, whitespace: true, message: t('rule.studyOid') },
                { pattern: /^[A-Za-z0-9_.\-:]+$/, message: t('rule.oid') },
                maxRule(100),
              ]}
            >
              <Input placeholder="e.g. Mediflex" data-testid="edc-config-study" autoComplete="off" />
            </Form.Item>
            <Form.Item
              name="targetEnv"
              label={t('config.targetEnv')}
              style={{ flex: 1 }}
              rules={[maxRule(50)]}
              extra={t('config.targetEnvHint')}
            >
              <Input placeholder="Prod" data-testid="edc-config-env" autoComplete="off" />
            </Form.Item>
          </Space.Compact>
        ) : null}
        <Form.Item
          name="secret"
          label={t(`config.secret.${kind}`)}
          extra={t(`config.secretHint.${kind}`)}
          rules={[
            ...(hasSecret ? [] : [{ required: true, message: t('rule.secret') }]),
            secretRules,
            maxRule(500),
          ]}
        >
          <Input.Password
            placeholder={hasSecret ? t('config.secretKept') : t(`config.secretPlaceholder.${kind}`)}
            autoComplete="new-password"
            data-testid="edc-config-secret"
          />
        </Form.Item>
        <Space size={24} wrap align="start">
          <Form.Item
            name="timeoutSec"
            label={t('config.timeout')}
            rules={[{ required: true, type: 'number', min: 1, max: 120, message: t('rule.timeout') }]}
          >
            <InputNumber
              min={1}
              max={120}
              precision={0}
              suffix={t('config.seconds')}
              style={{ width: 140 }}
              data-testid="edc-config-timeout"
            />
          </Form.Item>
          <Form.Item name="schedule" label={t('config.schedule')}>
            <Radio.Group
              optionType="button"
              data-testid="edc-config-schedule"
              options={(['off', 'hourly', 'daily'] as const).map((s) => ({
                value: s,
                label: t(`schedule.${s}`),
              }))}
            />
          </Form.Item>
          <Form.Item name="enabled" label={t('config.enabled')} valuePropName="checked">
            <Switch data-testid="edc-config-enabled" />
          </Form.Item>
        </Space>
      </Form>
      <div style={{ borderTop: '1px solid rgba(5,5,5,0.06)', paddingTop: 16 }}>
        <Space align="center" wrap>
          <Button
            icon={<ApiOutlined />}
            onClick={() => void test.run()}
            loading={test.busy}
            disabled={!config}
            data-testid="edc-config-test"
          >
            {t('config.test')}
          </Button>
          <Typography.Text type="secondary">
            {config ? t('config.testHint') : t('config.testAfterSave')}
          </Typography.Text>
        </Space>
        <TestResult result={test.result} error={test.error} />
      </div>
    </Drawer>
  );
}

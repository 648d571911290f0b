import { useState } from 'react';
import { Alert, Button, Form, Input, InputNumber, Modal, Radio, Skeleton, Switch, Typography } from 'antd';
import { useQuery } from '@tanstack/react-query';
import { useTranslation } from 'react-i18next';
import type { EcConfigView, EcProviderKind } from '@esource/shared';
import { ApiError } from '../../../lib/api-client';
import { ecConfigQuery, econsentApi, type EcConfigBody } from '../api/econsent-api';

interface Values {
  kind: EcProviderKind;
  name: string;
  baseUrl?: string;
  studyCode?: string;
  secret?: string;
  timeoutMs: number;
  enabled: boolean;
}

const FIELDS = ['kind', 'name', 'baseUrl', 'studyCode', 'secret', 'timeoutMs', 'enabled'] as const;

function initial(c: EcConfigView | null | undefined, devName: string): Values {
  return c
    ? {
        kind: c.kind,
        name: c.name,
        baseUrl: c.baseUrl ?? '',
        studyCode: c.studyCode ?? '',
        timeoutMs: c.timeoutMs,
        enabled: c.enabled,
      }
    : { kind: 'dev', name: devName, timeoutMs: 15_000, enabled: true };
}

/**
 * The project environment's e-consent connection (issue 15 item 7): the development list, or the HTTP adapter with its
 * address, study code and token (kept encrypted; never shown again — an empty field keeps it).
 */
export function EcConfigModal({
  scope,
  onClose,
  onSaved,
}: {
  scope: { env: string; projectId: number | null };
  onClose: () => void;
  onSaved: (c: EcConfigView) => void;
}) {
  const { t } = useTranslation('econsent');
  const cfg = useQuery(ecConfigQuery(scope, true));
  const [form] = Form.useForm<Values>();
  const kind = Form.useWatch('kind', form);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [test, setTest] = useState<{ ok: boolean; message: string } | null>(null);

  const save = async (v: Values) => {
    setBusy(true);
    setError(null);
    setTest(null);
    const body: EcConfigBody = {
      kind: v.kind,
      name: v.name.trim(),
      timeoutMs: v.timeoutMs,
      enabled: v.enabled,
      ...(v.kind === 'http' ? { baseUrl: v.baseUrl?.trim(), studyCode: v.studyCode?.trim() } : {}),
      ...(v.kind === 'http' && v.secret ? { secret: v.secret } : {}),
      ...(cfg.data ? { version: cfg.data.version } : {}),
    };
    try {
      const saved = await econsentApi.saveConfig(body);
      const r = await econsentApi.testConfig().catch(() => null);
      if (r && !r.ok) {
        // saved, but the system does not answer: say so and stay open
        setTest(r);
        await cfg.refetch();
        return;
      }
      onSaved(saved);
    } catch (e) {
      if (e instanceof ApiError && e.detail.length) {
        form.setFields(
          e.detail
            .filter((d) => (FIELDS as readonly string[]).includes(d.field))
            .map((d) => ({ name: d.field as keyof Values, errors: [d.message] })),
        );
      }
      setError(e instanceof Error ? e.message : String(e));
    } finally {
      setBusy(false);
    }
  };

  const runTest = async () => {
    setTest(null);
    try {
      setTest(await econsentApi.testConfig());
    } catch (e) {
      setTest({ ok: false, message: e instanceof Error ? e.message : String(e) });
    }
  };

  return (
    <Modal
      open
      title={t('config.title')}
      onCancel={onClose}
      okText={t('config.save')}
      onOk={() => form.submit()}
      confirmLoading={busy}
      width={600}
      mask={{ closable: false }}
      footer={(_, { OkBtn, CancelBtn }) => (
        <>
          {cfg.data ? (
            <Button onClick={() => void runTest()} data-testid="ec-config-test">
              {t('config.test')}
            </Button>
          ) : null}
          <CancelBtn />
          <OkBtn />
        </>
      )}
    >
      <div data-testid="ec-config-modal">
        {cfg.isLoading ? (
          <Skeleton active />
        ) : (
          <Form<Values>
            form={form}
            layout="vertical"
            initialValues={initial(cfg.data, t('config.devName'))}
            onFinish={(v) => void save(v)}
          >
            {error ? <Alert type="error" showIcon style={{ marginBottom: 12 }} title={error} /> : null}
            {test ? (
              <Alert
                type={test.ok ? 'success' : 'warning'}
                showIcon
                style={{ marginBottom: 12 }}
                title={test.message}
                data-testid="ec-config-test-result"
              />
            ) : null}
            <Form.Item
              name="kind"
              label={t('config.kind')}
              extra={kind === 'http' ? t('config.httpHelp') : t('config.devHelp')}
            >
              <Radio.Group data-testid="ec-config-kind">
                <Radio value="dev">{t('kind.dev')}</Radio>
                <Radio value="http">{t('kind.http')}</Radio>
              </Radio.Group>
            </Form.Item>
            <Form.Item
              name="name"
              label={t('config.name')}
              rules={[{ required: true, whitespace: true, message: t('rule.name') }, { max: 100 }]}
            >
              <Input maxLength={100} data-testid="ec-config-name" />
            </Form.Item>
            {kind === 'http' ? (
              <>
                <Form.Item
                  name="baseUrl"
                  label={t('config.baseUrl')}
                  extra={t('config.baseUrlHelp')}
                  rules={[
                    { required: true, message: t('rule.baseUrl') },
                    { pattern: /^https?:\/\/\S+$/i, message: t('rule.baseUrl') },
                  ]}
                >
                  <Input
                    maxLength={500}
                    placeholder="https://ec.hospital.example/api"
                    data-testid="ec-config-url"
                  />
                </Form.Item>
                <Form.Item
                  name="studyCode"
                  label={t('config.studyCode')}
                  rules={[{ required: true, message: t('rule.studyCode') }]}
                >
                  <Input maxLength={100} data-testid="ec-config-study" />
                </Form.Item>
                <Form.Item
                  name="secret"
                  label={t('config.secret')}
                  extra={cfg.data?.hasSecret ? t('config.secretKept') : t('config.secretHelp')}
                >
                  <Input.Password
                    autoComplete="new-password"
                    maxLength={500}
                    data-testid="ec-config-secret"
                  />
                </Form.Item>
              </>
            ) : null}
            <Form.Item name="timeoutMs" label={t('config.timeoutMs')}>
              <InputNumber min={1000} max={60_000} step={1000} style={{ width: 160 }} />
            </Form.Item>
            <Form.Item name="enabled" label={t('config.enabled')} valuePropName="checked">
              <Switch data-testid="ec-config-enabled" />
            </Form.Item>
            <Typography.Paragraph type="secondary" style={{ fontSize: 12, marginBottom: 0 }}>
              {t('config.scope', { env: scope.env })}
            </Typography.Paragraph>
          </Form>
        )}
      </div>
    </Modal>
  );
}

import { useState } from 'react';
import { Alert, Button, Form, Input, Space } from 'antd';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useTranslation } from 'react-i18next';
import type { EdcLinkRow } from '@esource/shared';
import { edcLinkApi, edcLinkKey } from '../api/edc-link-api';

interface Values {
  login: string;
  secret: string;
}

/**
 * Links (or re-links) the user's own account at one EDC: kind 1 a user name and password (HTTP Basic), kind 3 the
 * REDCap user name and their API token. The server tries them at the EDC on save and keeps them only when the EDC
 * accepts; a refusal shows the EDC's own reason here and nothing is saved.
 */
export function LinkForm({ row, onDone }: { row: EdcLinkRow; onDone: () => void }) {
  const { t } = useTranslation('edcLink');
  const qc = useQueryClient();
  const [form] = Form.useForm<Values>();
  const [error, setError] = useState<string | null>(null);
  const k = row.kind === 3 ? 3 : 1;
  const save = useMutation({
    mutationFn: (v: Values) => edcLinkApi.save({ configId: row.configId, login: v.login, secret: v.secret }),
    onMutate: () => setError(null),
    onSuccess: async () => {
      form.resetFields();
      await qc.invalidateQueries({ queryKey: edcLinkKey });
      onDone();
    },
    // the secret field is emptied either way: it never lingers in the page
    onError: (e) => {
      form.setFieldValue('secret', '');
      setError(e instanceof Error ? e.message : String(e));
    },
  });
  return (
    <div data-testid={`edc-link-form-${row.configId}`} style={{ padding: '4px 0' }}>
      <Form<Values>
        form={form}
        layout="inline"
        initialValues={{ login: row.login ?? '', secret: '' }}
        onFinish={(v) => save.mutate(v)}
        disabled={save.isPending}
        autoComplete="off"
      >
        <Form.Item
          name="login"
          label={t(`form.login.${k}`)}
          rules={[
            { required: true, whitespace: true, message: t('form.required') },
            { max: 100, message: t('form.tooLong', { max: 100 }) },
            { pattern: /^[^:]*$/, message: t('form.noColon') },
          ]}
        >
          <Input style={{ width: 200 }} autoComplete="off" data-testid="edc-link-login" />
        </Form.Item>
        <Form.Item
          name="secret"
          label={t(`form.secret.${k}`)}
          rules={[
            { required: true, message: t('form.required') },
            { max: 500, message: t('form.tooLong', { max: 500 }) },
            ...(k === 3 ? [{ pattern: /^[0-9A-Fa-f]{32,64}$/, message: t('form.token') }] : []),
          ]}
        >
          <Input.Password
            style={{ width: k === 3 ? 320 : 200 }}
            autoComplete="new-password"
            data-testid="edc-link-secret"
          />
        </Form.Item>
        <Form.Item>
          <Space>
            <Button type="primary" htmlType="submit" loading={save.isPending} data-testid="edc-link-save">
              {t('form.save')}
            </Button>
            <Button onClick={onDone} disabled={false} data-testid="edc-link-cancel">
              {t('form.cancel')}
            </Button>
          </Space>
        </Form.Item>
      </Form>
      <div style={{ marginTop: 8, color: 'var(--ant-color-text-secondary)' }}>{t(`form.hint.${k}`)}</div>
      {error ? (
        <Alert type="error" showIcon title={error} style={{ marginTop: 8 }} data-testid="edc-link-error" />
      ) : null}
    </div>
  );
}

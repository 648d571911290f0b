import { useState } from 'react';
import { Alert, App, Form, Input, Modal, Typography } from 'antd';
import { useQueryClient } from '@tanstack/react-query';
import { useTranslation } from 'react-i18next';
import { FACE_LOGIN, type WebauthnRegistrationResponse } from '@esource/shared';
import { ceremonyProblem } from '../../session';
import { ApiError } from '../../../lib/api-client';
import { serverFieldErrors, validFields } from '../../../lib/validate-form';
import { passkeysApi, suggestedDeviceName } from '../api/passkeys-api';

interface Values {
  deviceName: string;
  password: string;
}

/**
 * Add a passkey (face login): the current password re-authenticates (POST /passport/getfaceAttest, purpose register),
 * the device's own authenticator makes the passkey (Face ID, Windows Hello, Android face unlock — the face stays on
 * the device), and the server verifies and keeps it (POST /user/passkey/register).
 */
export function PasskeyEnrolDialog({ open, onClose }: { open: boolean; onClose: () => void }) {
  const { t } = useTranslation('profile');
  const { message } = App.useApp();
  const qc = useQueryClient();
  const [form] = Form.useForm<Values>();
  const [busy, setBusy] = useState(false);
  const [problem, setProblem] = useState<string | null>(null);

  const submit = async () => {
    const v = await validFields(form);
    if (!v) return;
    setBusy(true);
    setProblem(null);
    try {
      const attest = await passkeysApi.registerOptions(v.password);
      const { startRegistration } = await import('@simplewebauthn/browser');
      let credential: WebauthnRegistrationResponse;
      try {
        credential = (await startRegistration({
          optionsJSON: attest.options as unknown as Parameters<typeof startRegistration>[0]['optionsJSON'],
        })) as unknown as WebauthnRegistrationResponse;
      } catch (err) {
        const c = ceremonyProblem(err);
        setProblem(t(`passkeys.ceremony.${c.problem}`, { message: c.message }));
        return;
      }
      const row = await passkeysApi.register(attest.challengeId, v.deviceName.trim(), credential);
      await qc.invalidateQueries({ queryKey: ['passkeys'] });
      void message.success(t('passkeys.added', { name: row.deviceName }));
      close();
    } catch (e) {
      if (e instanceof ApiError && (e.errorCode === 'WRONG_PASSWORD' || e.errorCode === 'ACCOUNT_LOCKED')) {
        form.setFields([{ name: 'password', errors: [e.message] }]);
        return;
      }
      const onFields = serverFieldErrors<keyof Values>(e, (f) =>
        f === 'deviceName' ? 'deviceName' : f === 'password' ? 'password' : null,
      );
      if (onFields.length > 0) form.setFields(onFields);
      else setProblem(e instanceof Error ? e.message : String(e));
    } finally {
      setBusy(false);
    }
  };

  const close = () => {
    form.resetFields();
    setProblem(null);
    onClose();
  };

  return (
    <Modal
      open={open}
      title={t('passkeys.addTitle')}
      okText={t('passkeys.addOk')}
      cancelText={t('cancel')}
      confirmLoading={busy}
      onOk={() => void submit().catch(() => undefined)}
      onCancel={close}
      destroyOnHidden
      okButtonProps={{ 'data-testid': 'passkey-enrol-ok' }}
    >
      <Form<Values>
        form={form}
        layout="vertical"
        initialValues={{ deviceName: suggestedDeviceName(), password: '' }}
        data-testid="passkey-enrol-form"
      >
        <Typography.Paragraph type="secondary">{t('passkeys.addHint')}</Typography.Paragraph>
        <Form.Item
          name="deviceName"
          label={t('passkeys.deviceName')}
          extra={t('passkeys.deviceNameHint')}
          rules={[
            { required: true, whitespace: true, message: t('passkeys.deviceNameRequired') },
            { max: FACE_LOGIN.deviceNameMax, message: t('info.max', { max: FACE_LOGIN.deviceNameMax }) },
          ]}
        >
          <Input maxLength={FACE_LOGIN.deviceNameMax} showCount data-testid="passkey-enrol-name" />
        </Form.Item>
        <Form.Item
          name="password"
          label={t('passkeys.password')}
          extra={t('passkeys.passwordHint')}
          rules={[{ required: true, message: t('passkeys.passwordRequired') }]}
        >
          <Input.Password autoComplete="current-password" data-testid="passkey-enrol-password" />
        </Form.Item>
        {problem ? <Alert type="error" showIcon title={problem} data-testid="passkey-enrol-problem" /> : null}
      </Form>
    </Modal>
  );
}

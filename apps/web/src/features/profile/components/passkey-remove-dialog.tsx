import { useState } from 'react';
import { App, Form, Input, Modal, Typography } from 'antd';
import { useQueryClient } from '@tanstack/react-query';
import { useTranslation } from 'react-i18next';
import type { PasskeyRow } from '@esource/shared';
import { ApiError } from '../../../lib/api-client';
import { validFields } from '../../../lib/validate-form';
import { passkeysApi } from '../api/passkeys-api';

/** Remove a passkey (POST /user/passkey/remove): the current password confirms it, like adding one. */
export function PasskeyRemoveDialog({
  passkey,
  onClose,
}: {
  passkey: PasskeyRow | null;
  onClose: () => void;
}) {
  const { t } = useTranslation('profile');
  const { message } = App.useApp();
  const qc = useQueryClient();
  const [form] = Form.useForm<{ password: string }>();
  const [busy, setBusy] = useState(false);

  const submit = async () => {
    if (!passkey) return;
    const v = await validFields(form);
    if (!v) return;
    setBusy(true);
    try {
      await passkeysApi.remove(passkey.id, v.password);
      await qc.invalidateQueries({ queryKey: ['passkeys'] });
      void message.success(t('passkeys.removed', { name: passkey.deviceName }));
      close();
    } catch (e) {
      if (e instanceof ApiError && e.errorCode === 'NOT_FOUND') {
        await qc.invalidateQueries({ queryKey: ['passkeys'] });
      }
      form.setFields([{ name: 'password', errors: [e instanceof Error ? e.message : String(e)] }]);
    } finally {
      setBusy(false);
    }
  };

  const close = () => {
    form.resetFields();
    onClose();
  };

  return (
    <Modal
      open={passkey !== null}
      title={t('passkeys.removeTitle')}
      okText={t('passkeys.removeOk')}
      okButtonProps={{ danger: true, 'data-testid': 'passkey-remove-ok' }}
      cancelText={t('cancel')}
      confirmLoading={busy}
      onOk={() => void submit().catch(() => undefined)}
      onCancel={close}
      destroyOnHidden
    >
      <Typography.Paragraph>
        {t('passkeys.removeText', { name: passkey?.deviceName ?? '' })}
      </Typography.Paragraph>
      <Form form={form} layout="vertical" data-testid="passkey-remove-form">
        <Form.Item
          name="password"
          label={t('passkeys.password')}
          rules={[{ required: true, message: t('passkeys.passwordRequired') }]}
        >
          <Input.Password autoComplete="current-password" data-testid="passkey-remove-password" />
        </Form.Item>
      </Form>
    </Modal>
  );
}

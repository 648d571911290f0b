import { useState } from 'react';
import { App, Form, Modal } from 'antd';
import { useTranslation } from 'react-i18next';
import { ApiError } from '../../lib/api-client';
import {
  fieldOfError,
  PasswordChangeFields,
  updatePassword,
  type PasswordChangeValues,
} from './password-change-form';
import { validFields } from '../../lib/validate-form';

export { StrengthMeter, updatePassword } from './password-change-form';

/** Modify Password dialog (spec §2 user dropdown, §5 validation), for every login type. */
export default function ModifyPasswordDialog({
  open,
  userId,
  onClose,
}: {
  open: boolean;
  userId: number;
  onClose: () => void;
}) {
  const { t } = useTranslation('password');
  const { message } = App.useApp();
  const [form] = Form.useForm<PasswordChangeValues>();
  const [busy, setBusy] = useState(false);

  const submit = async () => {
    const v = await validFields(form);
    if (!v) return;
    setBusy(true);
    try {
      await updatePassword(userId, v.oldPwd, v.newPwd);
      void message.success(t('changed'));
      form.resetFields();
      onClose();
    } catch (e) {
      const field = e instanceof ApiError ? fieldOfError(e.errorCode) : 'newPwd';
      form.setFields([{ name: field, errors: [e instanceof ApiError ? e.message : t('failed')] }]);
    } finally {
      setBusy(false);
    }
  };

  return (
    <Modal
      open={open}
      title={t('title')}
      okText={t('ok')}
      cancelText={t('cancel')}
      confirmLoading={busy}
      onOk={() => void submit().catch(() => undefined)}
      onCancel={() => {
        form.resetFields();
        onClose();
      }}
      destroyOnHidden
      wrapClassName="modify-password-dialog"
    >
      <PasswordChangeFields form={form} />
    </Modal>
  );
}

import { useState } from 'react';
import { App, Form, Input, Modal } from 'antd';
import { useQueryClient } from '@tanstack/react-query';
import { useTranslation } from 'react-i18next';
import { serverFieldErrors, validFields } from '../../../lib/validate-form';
import { afterProfileChange, profileApi } from '../api/profile-api';

interface Values {
  name: string;
  mail: string;
}

/** Edit name and e-mail (POST /user/updatePersonalInfo); the server's field messages land on the fields. */
export function PersonalInfoDialog({
  open,
  userId,
  initial,
  onClose,
}: {
  open: boolean;
  userId: number;
  initial: { name: string; mail: string | null };
  onClose: () => void;
}) {
  const { t } = useTranslation('profile');
  const { message } = App.useApp();
  const qc = useQueryClient();
  const [form] = Form.useForm<Values>();
  const [busy, setBusy] = useState(false);

  const submit = async () => {
    const v = await validFields(form);
    if (!v) return;
    setBusy(true);
    try {
      await profileApi.updatePersonalInfo(userId, { name: v.name.trim(), mail: v.mail?.trim() ?? '' });
      await afterProfileChange(qc);
      void message.success(t('info.saved'));
      onClose();
    } catch (e) {
      const onFields = serverFieldErrors<keyof Values>(e, (f) => (f === 'mail' ? 'mail' : 'name'));
      if (onFields.length > 0) form.setFields(onFields);
      else void message.error(e instanceof Error ? e.message : String(e));
    } finally {
      setBusy(false);
    }
  };

  return (
    <Modal
      open={open}
      title={t('info.title')}
      okText={t('save')}
      cancelText={t('cancel')}
      confirmLoading={busy}
      onOk={() => void submit().catch(() => undefined)}
      onCancel={onClose}
      destroyOnHidden
      okButtonProps={{ 'data-testid': 'profile-info-save' }}
    >
      <Form<Values>
        form={form}
        layout="vertical"
        initialValues={{ name: initial.name, mail: initial.mail ?? '' }}
        data-testid="profile-info-form"
      >
        <Form.Item
          name="name"
          label={t('fields.name')}
          rules={[
            { required: true, whitespace: true, message: t('info.nameRequired') },
            { max: 50, message: t('info.max', { max: 50 }) },
          ]}
        >
          <Input maxLength={50} showCount autoComplete="name" data-testid="profile-info-name" />
        </Form.Item>
        <Form.Item
          name="mail"
          label={t('fields.mail')}
          rules={[
            { type: 'email', message: t('info.mailInvalid') },
            { max: 100, message: t('info.max', { max: 100 }) },
          ]}
        >
          <Input
            maxLength={100}
            autoComplete="email"
            placeholder="name@example.com"
            data-testid="profile-info-mail"
          />
        </Form.Item>
      </Form>
    </Modal>
  );
}

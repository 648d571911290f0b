import { useState } from 'react';
import { App, Form, Input, Modal, Progress, Typography } from 'antd';
import { useTranslation } from 'react-i18next';
import { passwordStrength } from '@esource/shared';
import { api, ApiError } from '../../lib/api-client';
import { sha256Hex } from '../../lib/sha256';
import {
  STRENGTH_COLOR,
  STRENGTH_LABEL,
  validateConfirmPassword,
  validateNewPassword,
} from './password-validation';

interface Values {
  newPwd: string;
  confirmPwd: string;
}

/** POST /user/updatePwd with the SHA-256 digest (spec §5, §7). */
export async function updatePassword(userId: number, newPwd: string): Promise<void> {
  await api.post<null>('/user/updatePwd', { newPwd: await sha256Hex(newPwd), userId }, { silent: true });
}

/** Meter of spec §5: bar = 33 × level; < 6 characters is 'not enough'. */
export function StrengthMeter({ value }: { value: string }) {
  const { t } = useTranslation('password');
  const s = passwordStrength(value);
  return (
    <div
      data-testid="password-meter"
      data-level={s.level}
      data-percent={s.percent}
      style={{ display: 'flex', alignItems: 'center', gap: 12 }}
    >
      <Progress
        percent={s.percent}
        showInfo={false}
        strokeColor={STRENGTH_COLOR[s.level]}
        size="small"
        style={{ flex: 1, margin: 0 }}
        aria-label={t('strength')}
      />
      <span
        style={{
          minWidth: 64,
          color: STRENGTH_COLOR[s.level] === '#d9d9d9' ? 'rgba(0,0,0,.45)' : STRENGTH_COLOR[s.level],
        }}
        data-testid="password-level"
      >
        {t(STRENGTH_LABEL[s.level])}
      </span>
    </div>
  );
}

/** Modify Password dialog (spec §2 user dropdown, §5 validation). */
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
  const [form] = Form.useForm<Values>();
  const newPwd = Form.useWatch('newPwd', form) ?? '';
  const [busy, setBusy] = useState(false);

  const submit = async () => {
    const v = await form.validateFields();
    setBusy(true);
    try {
      await updatePassword(userId, v.newPwd);
      void message.success(t('changed'));
      form.resetFields();
      onClose();
    } catch (e) {
      form.setFields([{ name: 'newPwd', errors: [e instanceof ApiError ? e.message : t('failed')] }]);
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
      <Form<Values> form={form} layout="vertical" requiredMark>
        <Typography.Paragraph type="secondary" data-testid="password-hint">
          {t('hint')}
        </Typography.Paragraph>
        <Form.Item
          name="newPwd"
          label={t('newPassword')}
          required
          rules={[
            {
              validator: (_r, value: string | undefined) => {
                const err = validateNewPassword(value);
                return err ? Promise.reject(new Error(t(err))) : Promise.resolve();
              },
            },
          ]}
        >
          <Input.Password
            autoComplete="new-password"
            placeholder={t('newPasswordPlaceholder')}
            data-testid="new-password"
            maxLength={64}
          />
        </Form.Item>
        <Form.Item label={t('strength')} style={{ marginTop: -8 }}>
          <StrengthMeter value={newPwd} />
        </Form.Item>
        <Form.Item
          name="confirmPwd"
          label={t('confirmPassword')}
          required
          dependencies={['newPwd']}
          rules={[
            ({ getFieldValue }) => ({
              validator: (_r, value: string | undefined) => {
                const err = validateConfirmPassword(getFieldValue('newPwd') as string | undefined, value);
                return err ? Promise.reject(new Error(t(err))) : Promise.resolve();
              },
            }),
          ]}
        >
          <Input.Password
            autoComplete="new-password"
            placeholder={t('confirmPasswordPlaceholder')}
            data-testid="confirm-password"
            maxLength={64}
          />
        </Form.Item>
      </Form>
    </Modal>
  );
}

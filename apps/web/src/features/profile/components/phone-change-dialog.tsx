import { useEffect, useState } from 'react';
import { Alert, App, Button, Form, Input, Modal, Space, Typography } from 'antd';
import { useQueryClient } from '@tanstack/react-query';
import { useTranslation } from 'react-i18next';
import { PHONE_PATTERN, SMS_CODE } from '@esource/shared';
import { ApiError } from '../../../lib/api-client';
import { validFields } from '../../../lib/validate-form';
import { afterProfileChange, profileApi } from '../api/profile-api';

interface Values {
  phone: string;
  code: string;
}

/** Which field a refusal belongs to: code problems under the code, the rest under the number. */
export function fieldOfPhoneError(errorCode: string): keyof Values {
  return errorCode.startsWith('SMS_CODE_') &&
    !['SMS_CODE_TOO_SOON', 'SMS_CODE_DAILY_LIMIT'].includes(errorCode)
    ? 'code'
    : 'phone';
}

/** Seconds left of a countdown that ends at `until` (ms), re-rendered every second. */
function useCountdown(until: number | null): number {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    if (until === null) return;
    const id = window.setInterval(() => setNow(Date.now()), 1000);
    return () => window.clearInterval(id);
  }, [until]);
  return until === null ? 0 : Math.max(0, Math.ceil((until - now) / 1000));
}

/**
 * Change phone number (spec §7): a code goes to the NEW number (POST /passport/sendCode4BindPhone), then the number
 * is bound with it (POST /user/changeBindPhone). The send button waits out the server's one-a-minute rule; every
 * refusal (wrong, expired, used code; too many requests; a number bound elsewhere) shows on its field, translated.
 */
export function PhoneChangeDialog({
  open,
  userId,
  current,
  onClose,
}: {
  open: boolean;
  userId: number;
  current: string;
  onClose: () => void;
}) {
  const { t } = useTranslation('profile');
  const { message } = App.useApp();
  const qc = useQueryClient();
  const [form] = Form.useForm<Values>();
  const [sending, setSending] = useState(false);
  const [saving, setSaving] = useState(false);
  const [sentTo, setSentTo] = useState<{ phone: string; masked: string } | null>(null);
  const [resendAt, setResendAt] = useState<number | null>(null);
  const wait = useCountdown(resendAt);

  const showError = (e: unknown, fallback: keyof Values) => {
    if (e instanceof ApiError)
      form.setFields([{ name: fieldOfPhoneError(e.errorCode), errors: [e.message] }]);
    else form.setFields([{ name: fallback, errors: [e instanceof Error ? e.message : String(e)] }]);
  };

  const send = async () => {
    let phone: string;
    try {
      phone = ((await form.validateFields(['phone'])) as Pick<Values, 'phone'>).phone.trim();
    } catch {
      return;
    }
    setSending(true);
    try {
      const r = await profileApi.sendBindPhoneCode(phone);
      setSentTo({ phone, masked: r.phone });
      setResendAt(Date.now() + r.resendIn * 1000);
      form.setFields([{ name: 'code', errors: [] }]);
    } catch (e) {
      showError(e, 'phone');
    } finally {
      setSending(false);
    }
  };

  const submit = async () => {
    const v = await validFields(form);
    if (!v) return;
    const phone = v.phone.trim();
    if (!sentTo || sentTo.phone !== phone) {
      form.setFields([{ name: 'code', errors: [t('phone.sendFirst')] }]);
      return;
    }
    setSaving(true);
    try {
      const r = await profileApi.changeBindPhone(userId, phone, v.code.trim());
      await afterProfileChange(qc);
      void message.success(t('phone.changed', { phone: r.phone }));
      close();
    } catch (e) {
      showError(e, 'code');
    } finally {
      setSaving(false);
    }
  };

  const close = () => {
    form.resetFields();
    setSentTo(null);
    setResendAt(null);
    onClose();
  };

  return (
    <Modal
      open={open}
      title={t('phone.title')}
      okText={t('phone.ok')}
      cancelText={t('cancel')}
      confirmLoading={saving}
      onOk={() => void submit().catch(() => undefined)}
      onCancel={close}
      destroyOnHidden
      okButtonProps={{ 'data-testid': 'phone-change-ok' }}
    >
      <Form<Values> form={form} layout="vertical" requiredMark data-testid="phone-change-form">
        <Form.Item label={t('phone.current')}>
          <Typography.Text data-testid="phone-change-current">{current || t('none')}</Typography.Text>
        </Form.Item>
        <Form.Item
          name="phone"
          label={t('phone.newPhone')}
          rules={[
            { required: true, whitespace: true, message: t('phone.phoneRequired') },
            { pattern: PHONE_PATTERN, message: t('phone.phoneInvalid') },
          ]}
        >
          <Input
            maxLength={11}
            inputMode="numeric"
            autoComplete="tel"
            placeholder={t('phone.newPhonePlaceholder')}
            data-testid="phone-change-phone"
          />
        </Form.Item>
        <Form.Item label={t('phone.code')} required>
          <Space.Compact style={{ width: '100%' }}>
            <Form.Item
              name="code"
              noStyle
              rules={[
                { required: true, whitespace: true, message: t('phone.codeRequired') },
                {
                  pattern: new RegExp(`^\\d{${SMS_CODE.digits}}$`),
                  message: t('phone.codeInvalid', { digits: SMS_CODE.digits }),
                },
              ]}
            >
              <Input
                maxLength={SMS_CODE.digits}
                inputMode="numeric"
                autoComplete="one-time-code"
                placeholder={t('phone.codePlaceholder', { digits: SMS_CODE.digits })}
                data-testid="phone-change-code"
              />
            </Form.Item>
            <Button
              onClick={() => void send()}
              loading={sending}
              disabled={wait > 0}
              style={{ minWidth: 132 }}
              data-testid="phone-change-send"
            >
              {wait > 0
                ? t('phone.resend', { seconds: wait })
                : sentTo
                  ? t('phone.sendAgain')
                  : t('phone.send')}
            </Button>
          </Space.Compact>
        </Form.Item>
        {sentTo ? (
          <Alert
            type="success"
            showIcon
            data-testid="phone-change-sent"
            title={t('phone.sent', { phone: sentTo.masked, minutes: SMS_CODE.ttlSeconds / 60 })}
          />
        ) : (
          <Typography.Text type="secondary">
            {t('phone.hint', { minutes: SMS_CODE.ttlSeconds / 60 })}
          </Typography.Text>
        )}
      </Form>
    </Modal>
  );
}

import { Form, Input, Progress, Typography } from 'antd';
import type { FormInstance } from 'antd';
import { useTranslation } from 'react-i18next';
import { passwordStrength } from '@esource/shared';
import { api } from '../../lib/api-client';
import { sha256Hex } from '../../lib/sha256';
import {
  STRENGTH_COLOR,
  STRENGTH_LABEL,
  validateConfirmPassword,
  validateNewPassword,
} from './password-validation';

export interface PasswordChangeValues {
  oldPwd: string;
  newPwd: string;
  confirmPwd: string;
}

/**
 * POST /user/updatePwd (spec §5, §7): the current and the new password as SHA-256 digests (the server verifies
 * the current one), and the user's own id.
 */
export async function updatePassword(userId: number, oldPwd: string, newPwd: string): Promise<void> {
  await api.post<null>(
    '/user/updatePwd',
    { oldPwd: await sha256Hex(oldPwd), newPwd: await sha256Hex(newPwd), userId },
    { silent: true },
  );
}

/** Meter of spec §5: bar = 33 × level; < 6 characters is 'not enough'. */
export function StrengthMeter({ value }: { value: string }) {
  const { t } = useTranslation('password');
  const s = passwordStrength(value);
  // a password that breaks the rules is "invalid" however varied it is: an empty red bar, never "strong"
  const color = s.invalid ? '#ff4d4f' : STRENGTH_COLOR[s.level];
  return (
    <div
      data-testid="password-meter"
      data-level={s.invalid ? 'invalid' : s.level}
      data-percent={s.invalid ? 0 : s.percent}
      style={{ display: 'flex', alignItems: 'center', gap: 12 }}
    >
      <Progress
        percent={s.invalid ? 0 : s.percent}
        showInfo={false}
        strokeColor={color}
        size="small"
        style={{ flex: 1, margin: 0 }}
        aria-label={t('strength')}
      />
      <span
        style={{
          minWidth: 64,
          color: color === '#d9d9d9' ? 'rgba(0,0,0,.45)' : color,
        }}
        data-testid="password-level"
      >
        {s.invalid ? t('levelInvalid') : t(STRENGTH_LABEL[s.level])}
      </span>
    </div>
  );
}

/**
 * The fields of a password change (spec §5): current password, new password with the strength meter and the
 * rules, and its confirmation. Used by the Modify Password dialog and the forced change screen.
 */
export function PasswordChangeFields({ form }: { form: FormInstance<PasswordChangeValues> }) {
  const { t } = useTranslation('password');
  const newPwd = Form.useWatch('newPwd', form) ?? '';
  return (
    <Form<PasswordChangeValues> form={form} layout="vertical" requiredMark>
      <Typography.Paragraph type="secondary" data-testid="password-hint">
        {t('hint')}
      </Typography.Paragraph>
      <Form.Item
        name="oldPwd"
        label={t('currentPassword')}
        rules={[{ required: true, message: t('currentRequired') }]}
      >
        <Input.Password
          autoComplete="current-password"
          placeholder={t('currentPasswordPlaceholder')}
          data-testid="current-password"
          maxLength={64}
        />
      </Form.Item>
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
  );
}

/** Puts a refused change on the field it is about: the current password when that was wrong. */
export function fieldOfError(errorCode: string): keyof PasswordChangeValues {
  return /CURRENT|OLD|BAD_CREDENTIALS|WRONG/.test(errorCode) ? 'oldPwd' : 'newPwd';
}

import { useState, type ReactNode } from 'react';
import { Alert, Descriptions, Form, Input, Modal, Typography } from 'antd';
import { useTranslation } from 'react-i18next';
import type { SignatureMeaning } from '@esource/shared';
import { sha256Hex } from '../../../lib/sha256';
import { useSession } from '../../session';

/**
 * The electronic-signature dialog (21 CFR Part 11 §11.50, §11.200): shows what is signed and the meaning of the
 * signature, the signer's account, and asks for the password again. The password is sent as its SHA-256 digest,
 * like a login; the server verifies it and counts wrong ones toward the lockout. Its message (wrong password with
 * the attempts left, locked account) is shown in the dialog, translated by the server.
 */
export function SignatureDialog({
  title,
  okText,
  meaning = 'investigatorApproval',
  onSign,
  onClose,
  children,
  okTestId = 'signature-ok',
}: {
  title: string;
  /** data-testid of the sign button */
  okTestId?: string;
  okText?: string;
  meaning?: SignatureMeaning;
  /** signs with the password digest; a rejection's message is shown in the dialog */
  onSign: (passwordDigest: string, meaning: SignatureMeaning) => Promise<void>;
  onClose: () => void;
  /** what is being signed */
  children?: ReactNode;
}) {
  const { t } = useTranslation('ecrf');
  const user = useSession((s) => s.user);
  const [form] = Form.useForm<{ password: string }>();
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);

  const submit = async () => {
    const { password } = await form.validateFields();
    setBusy(true);
    setError(null);
    try {
      await onSign(await sha256Hex(password), meaning);
    } catch (e) {
      setError(e instanceof Error ? e.message : String(e));
      form.setFieldValue('password', '');
    } finally {
      setBusy(false);
    }
  };

  return (
    <Modal
      open
      title={title}
      okText={okText ?? t('signature.sign')}
      cancelText={t('signature.cancel')}
      confirmLoading={busy}
      onOk={() => void submit().catch(() => undefined)}
      onCancel={onClose}
      destroyOnHidden
      wrapClassName="signature-dialog"
      okButtonProps={{ 'data-testid': okTestId }}
    >
      {children}
      <Descriptions size="small" column={1} bordered style={{ margin: '12px 0' }}>
        <Descriptions.Item label={t('signature.meaningLabel')}>
          <Typography.Text strong data-testid="signature-meaning">
            {t(`signature.meaning.${meaning}`)}
          </Typography.Text>
        </Descriptions.Item>
        <Descriptions.Item label={t('signature.signer')}>
          <span data-testid="signature-signer">{user ? `${user.name} (${user.account})` : '—'}</span>
        </Descriptions.Item>
      </Descriptions>
      <Form form={form} layout="vertical" onFinish={() => void submit().catch(() => undefined)}>
        <Form.Item
          name="password"
          label={t('signature.password')}
          rules={[{ required: true, message: t('signature.passwordRequired') }]}
          extra={t('signature.note')}
        >
          <Input.Password
            autoFocus
            autoComplete="current-password"
            placeholder={t('signature.passwordPlaceholder')}
            data-testid="signature-password"
            maxLength={64}
            onPressEnter={() => void submit().catch(() => undefined)}
          />
        </Form.Item>
      </Form>
      {error ? <Alert type="error" showIcon title={error} data-testid="signature-error" /> : null}
    </Modal>
  );
}

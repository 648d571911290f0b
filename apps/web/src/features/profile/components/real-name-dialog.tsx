import { useState } from 'react';
import { App, Form, Input, Modal, Typography } from 'antd';
import type { Rule } from 'antd/es/form';
import { useQueryClient } from '@tanstack/react-query';
import { useTranslation } from 'react-i18next';
import { REAL_NAME, realNameIdNumber, realNameName } from '@esource/shared';
import { serverFieldErrors, validFields } from '../../../lib/validate-form';
import { realNameApi } from '../api/passkeys-api';

interface Values {
  name: string;
  idNumber: string;
}

/**
 * The problem key of a resident ID number by the shared schema the server applies (GB 11643: format, birth date,
 * check digit), or null when it is valid.
 */
export function idNumberProblem(v: string): 'required' | 'format' | 'birthDate' | 'checksum' | null {
  if (!v.trim()) return 'required';
  const r = realNameIdNumber.safeParse(v);
  if (r.success) return null;
  const m = /idNumber_(format|birthDate|checksum)/.exec(r.error.issues[0]?.message ?? '');
  return (m?.[1] as 'format' | 'birthDate' | 'checksum' | undefined) ?? 'format';
}

/** Real-name verification: name and resident ID number, checked on the client as on the server, then by the provider. */
export function RealNameDialog({
  open,
  defaultName,
  remaining,
  onClose,
}: {
  open: boolean;
  defaultName: string;
  remaining: number;
  onClose: () => void;
}) {
  const { t } = useTranslation('profile');
  const { message } = App.useApp();
  const qc = useQueryClient();
  const [form] = Form.useForm<Values>();
  const [busy, setBusy] = useState(false);

  const idRule: Rule = {
    validator: (_r, v: string | undefined) => {
      const p = idNumberProblem(v ?? '');
      return p ? Promise.reject(new Error(t(`realname.idProblem.${p}`))) : Promise.resolve();
    },
  };
  const nameRule: Rule = {
    validator: (_r, v: string | undefined) =>
      !v?.trim()
        ? Promise.reject(new Error(t('realname.nameRequired')))
        : realNameName.safeParse(v).success
          ? Promise.resolve()
          : Promise.reject(new Error(t('realname.nameInvalid', { max: REAL_NAME.nameMax }))),
  };

  const submit = async () => {
    const v = await validFields(form);
    if (!v) return;
    setBusy(true);
    try {
      const r = await realNameApi.verify(v.name.trim(), v.idNumber.trim().toUpperCase());
      qc.setQueryData(['realName'], r);
      void message.success(t('realname.done', { id: r.idNumberMasked ?? '' }));
      close();
    } catch (e) {
      const onFields = serverFieldErrors<keyof Values>(e, (f) => (f === 'name' ? 'name' : 'idNumber'));
      // the provider's answer (does not match, verified elsewhere, limit) belongs to the number
      form.setFields(
        onFields.length > 0
          ? onFields
          : [{ name: 'idNumber', errors: [e instanceof Error ? e.message : String(e)] }],
      );
      await qc.invalidateQueries({ queryKey: ['realName'] });
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
      open={open}
      title={t('realname.title')}
      okText={t('realname.ok')}
      cancelText={t('cancel')}
      confirmLoading={busy}
      onOk={() => void submit().catch(() => undefined)}
      onCancel={close}
      destroyOnHidden
      okButtonProps={{ 'data-testid': 'realname-ok', disabled: remaining <= 0 }}
    >
      <Form<Values>
        form={form}
        layout="vertical"
        initialValues={{ name: defaultName, idNumber: '' }}
        data-testid="realname-form"
      >
        <Typography.Paragraph type="secondary">{t('realname.hint')}</Typography.Paragraph>
        <Form.Item name="name" label={t('realname.name')} rules={[nameRule]} required>
          <Input maxLength={REAL_NAME.nameMax} autoComplete="name" data-testid="realname-name" />
        </Form.Item>
        <Form.Item
          name="idNumber"
          label={t('realname.idNumber')}
          rules={[idRule]}
          required
          extra={t('realname.remaining', { count: remaining, max: REAL_NAME.perDay })}
        >
          <Input
            maxLength={18}
            autoComplete="off"
            spellCheck={false}
            placeholder={t('realname.idPlaceholder')}
            data-testid="realname-id"
          />
        </Form.Item>
      </Form>
    </Modal>
  );
}

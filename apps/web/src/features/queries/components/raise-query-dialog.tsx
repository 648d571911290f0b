import { useState } from 'react';
import { Alert, App, Input, Modal, Typography } from 'antd';
import { useQueryClient } from '@tanstack/react-query';
import { useTranslation } from 'react-i18next';
import { afterQueryChange, queriesApi, type RaiseInput } from '../api/queries-api';

/** A monitor or data manager asks a question on an item (or a form): the site sees it in its list and on the form. */
export function RaiseQueryDialog({ target, label, onClose }: { target: Omit<RaiseInput, 'text'> | null; label: string; onClose: () => void }) {
  const { t } = useTranslation('queries');
  const { message } = App.useApp();
  const qc = useQueryClient();
  const [text, setText] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const close = () => {
    setText('');
    setError(null);
    onClose();
  };
  const submit = async () => {
    if (!target) return;
    if (!text.trim()) {
      setError(t('raise.required'));
      return;
    }
    setBusy(true);
    try {
      await queriesApi.add({ ...target, text: text.trim() });
      void message.success(t('done.raise'));
      await afterQueryChange(qc);
      close();
    } catch (e) {
      setError(e instanceof Error ? e.message : String(e));
    } finally {
      setBusy(false);
    }
  };
  return (
    <Modal open={target !== null} title={t('raise.title', { item: label })} okText={t('do.raise')} cancelText={t('cancel')} confirmLoading={busy} onOk={() => void submit()} onCancel={close} okButtonProps={{ 'data-testid': 'raise-ok' }} destroyOnHidden>
      <Typography.Paragraph type="secondary">{t('raise.intro')}</Typography.Paragraph>
      <Input.TextArea rows={4} maxLength={1000} showCount value={text} onChange={(e) => setText(e.target.value)} placeholder={t('raise.placeholder')} data-testid="raise-text" />
      {error ? <Alert type="error" showIcon title={error} style={{ marginTop: 8 }} /> : null}
    </Modal>
  );
}

import { useState } from 'react';
import { Alert, Input, Modal, Typography } from 'antd';
import { useQueryClient } from '@tanstack/react-query';
import { useTranslation } from 'react-i18next';
import { SOURCE_FILE_STATUS, type SourceFileView } from '@esource/shared';
import { afterDocumentChange, documentsApi } from '../api/documents-api';

const REASON_MAX = 500;

/** Audit failed: the reviewer says why (required, at most 500 characters); the file goes back to the site. */
export function FailDialog({ file, onClose, onDone }: { file: Pick<SourceFileView, 'id' | 'version' | 'fileName'> | null; onClose: () => void; onDone?: () => void }) {
  const { t } = useTranslation('documents');
  const qc = useQueryClient();
  const [reason, setReason] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const close = () => {
    setReason('');
    setError(null);
    onClose();
  };
  const submit = async () => {
    if (!file) return;
    if (!reason.trim()) {
      setError(t('fail.required'));
      return;
    }
    setBusy(true);
    try {
      await documentsApi.setStatus(file.id, file.version, SOURCE_FILE_STATUS.auditFailed, reason.trim());
      await afterDocumentChange(qc);
      onDone?.();
      close();
    } catch (e) {
      setError(e instanceof Error ? e.message : String(e));
    } finally {
      setBusy(false);
    }
  };
  return (
    <Modal
      open={file !== null}
      title={t('fail.title')}
      okText={t('action.fail')}
      okButtonProps={{ danger: true, 'data-testid': 'fail-ok' }}
      cancelText={t('cancel')}
      confirmLoading={busy}
      onOk={() => void submit()}
      onCancel={close}
      destroyOnHidden
    >
      <Typography.Paragraph>{t('fail.intro', { name: file?.fileName ?? '' })}</Typography.Paragraph>
      <Input.TextArea
        value={reason}
        onChange={(e) => {
          setReason(e.target.value);
          setError(null);
        }}
        maxLength={REASON_MAX}
        showCount
        rows={4}
        placeholder={t('fail.placeholder')}
        data-testid="fail-reason"
      />
      {error ? <Alert type="error" showIcon title={error} style={{ marginTop: 8 }} data-testid="fail-error" /> : null}
    </Modal>
  );
}

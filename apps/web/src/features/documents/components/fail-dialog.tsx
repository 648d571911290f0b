import { useState } from 'react';
import { Alert, Input, Modal, Typography } from 'antd';
import { useQueryClient } from '@tanstack/react-query';
import { useTranslation } from 'react-i18next';
import { SOURCE_FILE_STATUS, type SourceFileView } from '@esource/shared';
import { afterDocumentChange, documentsApi } from '../api/documents-api';

const REASON_MAX = 500;

/**
 * Audit failed: the reviewer says why (required, at most 500 characters); the file goes back to the site. With
 * mode 'discard': an upload waiting for confirmation is discarded with the reason (it is kept, never deleted).
 */
export function FailDialog({
  file,
  onClose,
  onDone,
  mode = 'fail',
}: {
  file: Pick<SourceFileView, 'id' | 'version' | 'fileName'> | null;
  onClose: () => void;
  onDone?: () => void;
  mode?: 'fail' | 'discard';
}) {
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
      setError(t(`${mode}.required`));
      return;
    }
    setBusy(true);
    try {
      if (mode === 'discard') await documentsApi.discard(file.id, file.version, reason.trim());
      else await documentsApi.setStatus(file.id, file.version, SOURCE_FILE_STATUS.auditFailed, reason.trim());
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
      title={t(`${mode}.title`)}
      okText={t(`action.${mode}`)}
      okButtonProps={{ danger: true, 'data-testid': 'fail-ok' }}
      cancelText={t('cancel')}
      confirmLoading={busy}
      onOk={() => void submit()}
      onCancel={close}
      destroyOnHidden
    >
      <Typography.Paragraph>{t(`${mode}.intro`, { name: file?.fileName ?? '' })}</Typography.Paragraph>
      <Input.TextArea
        value={reason}
        onChange={(e) => {
          setReason(e.target.value);
          setError(null);
        }}
        maxLength={REASON_MAX}
        showCount
        rows={4}
        placeholder={t(`${mode}.placeholder`)}
        data-testid="fail-reason"
      />
      {error ? <Alert type="error" showIcon title={error} style={{ marginTop: 8 }} data-testid="fail-error" /> : null}
    </Modal>
  );
}

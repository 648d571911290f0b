import { useState } from 'react';
import { Alert, App, Modal, Typography, Upload } from 'antd';
import type { UploadFile } from 'antd';
import { InboxOutlined } from '@ant-design/icons';
import { useQueryClient } from '@tanstack/react-query';
import { useTranslation } from 'react-i18next';
import { LIMITS, type IsfKindView } from '@esource/shared';
import { uploadProblems } from '../../documents';
import { afterIsfChange, isfApi } from '../api/isf-api';

export interface UploadTarget {
  kind: IsfKindView;
  siteId: number;
  siteName: string;
  /** the version this upload becomes */
  next: number;
}

/**
 * A new version of an ISF document: one PNG/JPG (≤ 2 MB) or PDF (≤ 50 MB), checked here and again by the server by
 * its content; then de-identified automatically like a source document.
 */
export function IsfUploadDialog({ target, onClose }: { target: UploadTarget | null; onClose: () => void }) {
  const { t } = useTranslation('isf');
  const { t: td } = useTranslation('documents');
  const { message } = App.useApp();
  const qc = useQueryClient();
  const [files, setFiles] = useState<UploadFile[]>([]);
  const [busy, setBusy] = useState(false);
  const [serverError, setServerError] = useState<string | null>(null);
  const picked = files.map((f) => f.originFileObj).filter((f): f is NonNullable<typeof f> => Boolean(f));
  const problems = picked.length ? uploadProblems(picked, 0).map((p) => td(p.key, p.values)) : [];
  if (picked.length > 1) problems.unshift(t('upload.oneFile'));

  const close = () => {
    if (busy) return;
    setFiles([]);
    setServerError(null);
    onClose();
  };
  const submit = async () => {
    if (!target || picked.length !== 1 || problems.length) return;
    setBusy(true);
    setServerError(null);
    try {
      const f = await isfApi.upload(target.kind.id, target.siteId, picked[0]!);
      void message.success(t('upload.done', { n: f.isfVersion }));
      await afterIsfChange(qc);
      setFiles([]);
      onClose();
    } catch (e) {
      setServerError(e instanceof Error ? e.message : String(e));
    } finally {
      setBusy(false);
    }
  };

  return (
    <Modal
      open={target !== null}
      title={target ? t('upload.title', { kind: target.kind.label, site: target.siteName }) : ''}
      okText={t('upload.start')}
      cancelText={t('kinds.cancel')}
      confirmLoading={busy}
      okButtonProps={{ disabled: picked.length !== 1 || problems.length > 0, 'data-testid': 'isf-upload-ok' }}
      onOk={() => void submit()}
      onCancel={close}
      destroyOnHidden
      data-testid="isf-upload-dialog"
    >
      <Typography.Paragraph type="secondary">{t('upload.rules', { imageMb: LIMITS.imageMaxBytes / 1024 / 1024, pdfMb: LIMITS.pdfMaxBytes / 1024 / 1024 })}</Typography.Paragraph>
      {target ? <Typography.Paragraph>{t('upload.version', { n: target.next })}</Typography.Paragraph> : null}
      <Upload.Dragger
        maxCount={1}
        accept=".png,.jpg,.jpeg,.pdf,image/png,image/jpeg,application/pdf"
        fileList={files}
        beforeUpload={() => false}
        onChange={({ fileList }) => setFiles(fileList)}
        data-testid="isf-upload-files"
      >
        <p className="ant-upload-drag-icon">
          <InboxOutlined />
        </p>
        <p className="ant-upload-text">{t('upload.drop')}</p>
        <p className="ant-upload-hint">{t('upload.hint')}</p>
      </Upload.Dragger>
      {problems.length ? (
        <Alert
          type="error"
          showIcon
          style={{ marginTop: 8 }}
          data-testid="isf-upload-problems"
          title={
            <ul className="doc-problems">
              {problems.map((p, i) => (
                <li key={i}>{p}</li>
              ))}
            </ul>
          }
        />
      ) : null}
      {serverError ? <Alert type="error" showIcon title={serverError} data-testid="isf-upload-error" style={{ marginTop: 8 }} /> : null}
    </Modal>
  );
}

import { useState } from 'react';
import { App, Button, Space, Typography, Upload } from 'antd';
import { PaperClipOutlined, UploadOutlined } from '@ant-design/icons';
import { useTranslation } from 'react-i18next';
import { LIMITS, parseUploadRef, type CommonUploadResult } from '@esource/shared';
import { api } from '../../lib/api-client';

/**
 * An eCRF file item: the chosen image is uploaded at once (POST /common/upload, checked by content on the server) and
 * the item's value names it (`upl:<id>:<name>`); the file opens from the form (GET /common/file). An older value that
 * holds a file name only is shown as it is.
 */
export function FileItem({ value, onChange, disabled, testId, ariaLabel }: { value: string; onChange: (v: unknown) => void; disabled: boolean; testId?: string | undefined; ariaLabel?: string | undefined }) {
  const { t } = useTranslation('crf');
  const { message } = App.useApp();
  const [busy, setBusy] = useState(false);
  const ref = parseUploadRef(value);
  const name = ref?.name ?? value;
  const upload = async (file: File) => {
    if (file.size > LIMITS.imageMaxBytes) {
      void message.error(t('fileTooLarge', { name: file.name, mb: LIMITS.imageMaxBytes / 1024 / 1024 }));
      return;
    }
    setBusy(true);
    try {
      const fd = new FormData();
      fd.append('files', file, file.name);
      const [r] = await api.post<CommonUploadResult>('/common/upload', undefined, { multipart: fd, silent: true });
      if (r) onChange(r.ref);
    } catch (e) {
      void message.error(e instanceof Error ? e.message : String(e));
    } finally {
      setBusy(false);
    }
  };
  const open = async () => {
    if (!ref) return;
    const blob = await api.get<Blob>('/common/file', { id: ref.id }, { raw: true });
    const url = URL.createObjectURL(blob);
    window.open(url, '_blank', 'noopener');
    setTimeout(() => URL.revokeObjectURL(url), 60_000);
  };
  return (
    <Space data-testid={testId} wrap>
      <Upload
        disabled={disabled || busy}
        maxCount={1}
        showUploadList={false}
        accept=".png,.jpg,.jpeg,image/png,image/jpeg"
        beforeUpload={(file) => {
          void upload(file);
          return false;
        }}
      >
        <Button icon={<UploadOutlined />} disabled={disabled} loading={busy} aria-label={ariaLabel}>
          {t('chooseFile')}
        </Button>
      </Upload>
      {name ? (
        ref ? (
          <Typography.Link onClick={() => void open()} data-testid={testId ? `${testId}-name` : undefined}>
            <PaperClipOutlined /> {name}
          </Typography.Link>
        ) : (
          <Typography.Text data-testid={testId ? `${testId}-name` : undefined}>{name}</Typography.Text>
        )
      ) : (
        <Typography.Text type="secondary">{t('noFile')}</Typography.Text>
      )}
      {name && !disabled ? (
        <Button size="small" type="link" onClick={() => onChange(undefined)}>
          {t('removeFile')}
        </Button>
      ) : null}
    </Space>
  );
}

import { useState } from 'react';
import { Button } from 'antd';
import { UploadOutlined } from '@ant-design/icons';
import { useTranslation } from 'react-i18next';
import { usePms } from '../../session';
import { UploadDialog } from './upload-dialog';

/** The Upload button and its dialog, for users with source:file:upload (the server checks it again). */
export function UploadButton({ ptsId }: { ptsId?: number }) {
  const { t } = useTranslation('documents');
  const has = usePms();
  const [open, setOpen] = useState(false);
  if (!has('source:file:upload')) return null;
  return (
    <>
      <Button type="primary" icon={<UploadOutlined />} onClick={() => setOpen(true)} data-testid="upload-open">
        {t('upload.open')}
      </Button>
      <UploadDialog open={open} onClose={() => setOpen(false)} {...(ptsId ? { ptsId } : {})} />
    </>
  );
}

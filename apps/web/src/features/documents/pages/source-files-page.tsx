import { Card, Typography } from 'antd';
import { useTranslation } from 'react-i18next';
import { FileTable } from '../components/file-table';
import { UploadButton } from '../components/upload-button';
import '../documents.css';

/**
 * /project/sourceFile: every source document of the project the user reaches (their sites), with upload, the
 * automatic de-identification's progress, and the review and audit actions each file's status allows.
 */
export default function SourceFilesPage() {
  const { t } = useTranslation('documents');
  return (
    <Card size="small" data-testid="source-files-page">
      <Typography.Paragraph type="secondary">{t('list.intro')}</Typography.Paragraph>
      <FileTable extra={<UploadButton />} />
    </Card>
  );
}

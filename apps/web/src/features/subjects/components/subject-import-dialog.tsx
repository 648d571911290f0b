import { useState } from 'react';
import { App, Button, Modal, Space, Typography } from 'antd';
import { DownloadOutlined } from '@ant-design/icons';
import { useTranslation } from 'react-i18next';
import { SUBJECT_IMPORT_LIMITS, type SubjectImportResponse } from '@esource/shared';
import { useXlsxImport, XlsxImportPanel } from '../../../components/xlsx-import';
import { saveBlob, subjectsApi } from '../api/subjects-api';

/**
 * Import subjects from an .xlsx (issue 5): all or nothing. With any bad row the server imports nothing and names
 * every bad row and column; they are listed here so the file can be corrected in one go.
 */
export function SubjectImportDialog({
  onClose,
  onImported,
}: {
  onClose: () => void;
  onImported: (r: SubjectImportResponse) => void;
}) {
  const { t } = useTranslation('subjects');
  const { message } = App.useApp();
  const [templateBusy, setTemplateBusy] = useState(false);
  const imp = useXlsxImport((f: File) => subjectsApi.importPts(f), onImported);

  const template = () => {
    setTemplateBusy(true);
    subjectsApi
      .importTemplate()
      .then((b) => saveBlob(b, `${t('excel.templateFileName')}.xlsx`))
      .catch((e: unknown) => void message.error(e instanceof Error ? e.message : String(e)))
      .finally(() => setTemplateBusy(false));
  };

  return (
    <Modal
      open
      title={t('excel.importTitle')}
      width={760}
      onCancel={onClose}
      footer={
        <Space>
          <Button onClick={onClose}>{t('excel.cancel')}</Button>
          <Button
            type="primary"
            disabled={!imp.file}
            loading={imp.mutation.isPending}
            onClick={imp.submit}
            data-testid="subject-import-submit"
          >
            {t('excel.submit')}
          </Button>
        </Space>
      }
    >
      <Typography.Paragraph type="secondary">
        {t('excel.importHint', {
          rows: SUBJECT_IMPORT_LIMITS.maxRows,
          mb: SUBJECT_IMPORT_LIMITS.maxBytes / 1024 / 1024,
        })}
        <Button
          type="link"
          size="small"
          icon={<DownloadOutlined />}
          loading={templateBusy}
          onClick={template}
          data-testid="subject-import-template"
        >
          {t('excel.downloadTemplate')}
        </Button>
      </Typography.Paragraph>
      <XlsxImportPanel
        imp={imp}
        testIdPrefix="subject-import"
        labels={{
          drop: t('excel.importDrop'),
          failed: t('excel.importFailed'),
          nothing: t('excel.importNothing'),
          problemCount: (count, rows) => t('excel.importProblemCount', { count, rows }),
          row: t('excel.problemRow'),
          column: t('excel.problemColumn'),
          message: t('excel.problemMessage'),
        }}
        columnLabel={(c) => t(`excel.columns.${c}`, { defaultValue: c })}
      />
    </Modal>
  );
}

import { useState } from 'react';
import { Alert, App, Button, Modal, Space, Table, Typography, Upload } from 'antd';
import type { UploadFile } from 'antd';
import { DownloadOutlined, InboxOutlined } from '@ant-design/icons';
import { useMutation } from '@tanstack/react-query';
import { useTranslation } from 'react-i18next';
import { SUBJECT_IMPORT_LIMITS, type SubjectImportResponse } from '@esource/shared';
import { ApiError } from '../../../lib/api-client';
import { saveBlob, subjectsApi } from '../api/subjects-api';
import { parseImportProblems, type ImportProblem } from '../subject-excel';

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
  const [file, setFile] = useState<File | null>(null);
  const [problems, setProblems] = useState<ImportProblem[] | null>(null);
  const [failure, setFailure] = useState<string | null>(null);
  const [templateBusy, setTemplateBusy] = useState(false);

  const m = useMutation({
    mutationFn: (f: File) => subjectsApi.importPts(f),
    onMutate: () => {
      setProblems(null);
      setFailure(null);
    },
    onSuccess: (r) => onImported(r),
    onError: (err) => {
      if (err instanceof ApiError && err.detail.length > 0) {
        const list = parseImportProblems(err.detail);
        if (list.some((p) => p.row !== null)) setProblems(list);
        else setFailure(list.map((p) => p.message).join('; '));
      } else setFailure(err.message);
    },
  });

  const template = () => {
    setTemplateBusy(true);
    subjectsApi
      .importTemplate()
      .then((b) => saveBlob(b, `${t('excel.templateFileName')}.xlsx`))
      .catch((e: unknown) => void message.error(e instanceof Error ? e.message : String(e)))
      .finally(() => setTemplateBusy(false));
  };

  const fileList: UploadFile[] = file ? [{ uid: '1', name: file.name, size: file.size, status: 'done' }] : [];

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
            disabled={!file}
            loading={m.isPending}
            onClick={() => file && m.mutate(file)}
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
      <Upload.Dragger
        accept=".xlsx"
        maxCount={1}
        fileList={fileList}
        beforeUpload={(f) => {
          setFile(f);
          setProblems(null);
          setFailure(null);
          return false;
        }}
        onRemove={() => {
          setFile(null);
          return true;
        }}
        data-testid="subject-import-upload"
      >
        <p className="ant-upload-drag-icon">
          <InboxOutlined />
        </p>
        <p className="ant-upload-text">{t('excel.importDrop')}</p>
      </Upload.Dragger>
      {failure ? (
        <Alert
          type="error"
          showIcon
          title={t('excel.importFailed')}
          description={failure}
          style={{ marginTop: 16 }}
          data-testid="subject-import-failure"
        />
      ) : null}
      {problems ? (
        <div style={{ marginTop: 16 }} data-testid="subject-import-problems">
          <Alert
            type="error"
            showIcon
            title={t('excel.importNothing')}
            description={t('excel.importProblemCount', {
              count: problems.length,
              rows: new Set(problems.map((p) => p.row)).size,
            })}
            style={{ marginBottom: 12 }}
          />
          <Table<ImportProblem>
            size="small"
            rowKey={(p) => `${p.row}-${p.column}-${p.message}`}
            pagination={false}
            scroll={{ y: 300 }}
            dataSource={problems}
            columns={[
              {
                title: t('excel.problemRow'),
                dataIndex: 'row',
                width: 80,
                render: (r: number | null) => r ?? '—',
              },
              {
                title: t('excel.problemColumn'),
                dataIndex: 'column',
                width: 170,
                render: (c: string) => t(`excel.columns.${c}`, { defaultValue: c }),
              },
              { title: t('excel.problemMessage'), dataIndex: 'message' },
            ]}
          />
        </div>
      ) : null}
    </Modal>
  );
}

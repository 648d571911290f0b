import { useState } from 'react';
import { Alert, App, Button, Card, Progress, Space, Tooltip, Typography } from 'antd';
import { DownloadOutlined, FilePdfOutlined } from '@ant-design/icons';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useTranslation } from 'react-i18next';
import dayjs from 'dayjs';
import { SUBJECT_PDF_STATUS } from '@esource/shared';
import { afterDocumentChange, pdfApi, pdfStatusQuery } from '../api/documents-api';
import { FileTable } from './file-table';
import { UploadButton } from './upload-button';
import '../documents.css';

/** Saves a blob under a name (a download link clicked once). */
function saveBlob(blob: Blob, name: string) {
  const url = URL.createObjectURL(blob);
  const a = document.createElement('a');
  a.href = url;
  a.download = name;
  a.click();
  setTimeout(() => URL.revokeObjectURL(url), 1000);
}

/**
 * PDF synthesis (spec §7 queryProcessBarPdf, §8): the subject's de-identified files combined into one PDF by a job,
 * its progress while it runs, and the last finished PDF to download.
 */
function PdfSynthesis({ ptsId, ptsNo }: { ptsId: number; ptsNo: string }) {
  const { t } = useTranslation('documents');
  const { message } = App.useApp();
  const qc = useQueryClient();
  const q = useQuery(pdfStatusQuery(ptsId));
  const [busy, setBusy] = useState(false);
  const d = q.data;
  const start = async () => {
    setBusy(true);
    try {
      await pdfApi.start(ptsId);
      void message.info(t('pdf.started'));
    } catch {
      // the client showed the server's message ('PDF synthesis in progress, please try again later' …)
    } finally {
      setBusy(false);
      await afterDocumentChange(qc);
    }
  };
  const latest = d?.latest;
  return (
    <Card size="small" className="doc-pdf" data-testid="pdf-synthesis">
      <Space wrap size={12} style={{ width: '100%', justifyContent: 'space-between' }}>
        <Space size={8}>
          <FilePdfOutlined style={{ fontSize: 20, color: '#cf1322' }} />
          <Typography.Text strong>{t('pdf.title')}</Typography.Text>
          <Typography.Text type="secondary">{t('pdf.available', { count: d?.available ?? 0 })}</Typography.Text>
        </Space>
        <Space size={8}>
          {d?.lastDone ? (
            <Tooltip title={t('pdf.lastDone', { time: dayjs(d.lastDone.updateTime).format('YYYY-MM-DD HH:mm'), pages: d.lastDone.pages })}>
              <Button
                icon={<DownloadOutlined />}
                onClick={() => void pdfApi.download(d.lastDone!.id).then((b) => saveBlob(b, `${ptsNo}-source-documents.pdf`))}
                data-testid="pdf-download"
              >
                {t('pdf.download', { pages: d.lastDone.pages })}
              </Button>
            </Tooltip>
          ) : null}
          <Button type="primary" ghost loading={busy} disabled={!d || d.available === 0} onClick={() => void start()} data-testid="pdf-start">
            {t('pdf.start')}
          </Button>
        </Space>
      </Space>
      {latest && latest.status === SUBJECT_PDF_STATUS.running ? (
        <div style={{ marginTop: 8 }} data-testid="pdf-progress">
          <Typography.Text type="secondary">{t('pdf.running', { done: latest.done, pages: latest.pages })}</Typography.Text>
          <Progress percent={latest.percent} status="active" size="small" />
        </div>
      ) : null}
      {latest && latest.status === SUBJECT_PDF_STATUS.failed ? (
        <Alert style={{ marginTop: 8 }} type="error" showIcon title={t('pdf.failed')} description={latest.errorMessage} data-testid="pdf-failed" />
      ) : null}
    </Card>
  );
}

/** The subject's source documents (subject detail, tab "documents"): its files, upload for it, and its PDF. */
export function SubjectDocumentsTab({ ptsId, ptsNo }: { ptsId: number; ptsNo: string }) {
  return (
    <div className="doc-subject-tab" data-testid="subject-documents">
      <PdfSynthesis ptsId={ptsId} ptsNo={ptsNo} />
      <FileTable fixed={{ ptsId }} extra={<UploadButton ptsId={ptsId} />} />
    </div>
  );
}

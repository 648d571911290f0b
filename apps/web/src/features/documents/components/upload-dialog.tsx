import { useState } from 'react';
import { Alert, App, Form, Modal, Select, Typography, Upload } from 'antd';
import type { UploadFile } from 'antd';
import { InboxOutlined } from '@ant-design/icons';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useTranslation } from 'react-i18next';
import { LIMITS, SOURCE_FILE_STATUS } from '@esource/shared';
import { ApiError } from '../../../lib/api-client';
import { useSession } from '../../session';
import { subjectPageQuery } from '../../subjects';
import { afterDocumentChange, docTypesQuery, documentsApi } from '../api/documents-api';
import { uploadProblems } from '../document-logic';

interface Props {
  open: boolean;
  onClose: () => void;
  /** a subject chosen already (the subject's own file list) */
  ptsId?: number;
}

/**
 * Upload of a subject's source documents (spec §5, §9): PNG/JPG ≤ 2 MB, PDF ≤ 50 MB, 20 images per upload and 200
 * files per subject, checked here before sending and again by the server by content; all files or none are stored.
 * Each file is then de-identified automatically (progress in the panel and in the list).
 */
export function UploadDialog({ open, onClose, ptsId: fixed }: Props) {
  const { t } = useTranslation('documents');
  const { message } = App.useApp();
  const qc = useQueryClient();
  const env = useSession((s) => s.env);
  const projectId = useSession((s) => s.project?.id ?? null);
  const scope = { env, projectId };
  const [keyword, setKeyword] = useState('');
  const [ptsId, setPtsId] = useState<number | undefined>(fixed);
  const [docType, setDocType] = useState<number | undefined>();
  const [visitId, setVisitId] = useState<number | undefined>();
  const language = useSession((s) => s.language);
  const [files, setFiles] = useState<UploadFile[]>([]);
  const [busy, setBusy] = useState(false);
  const [serverError, setServerError] = useState<string | null>(null);
  const subjects = useQuery({
    ...subjectPageQuery(scope, keyword ? { keyword } : {}, LIMITS.firstPage, LIMITS.defaultPageSize, false),
    enabled: open && projectId !== null,
  });
  const types = useQuery(docTypesQuery(scope));
  const stages = useQuery({ queryKey: ['documents', 'stages', ptsId], queryFn: () => documentsApi.stages(ptsId!), enabled: open && ptsId !== undefined });
  const existing = useQuery({
    ...{ queryKey: ['documents', 'subjectCount', ptsId], queryFn: () => documentsApi.page({ ptsId: ptsId! }, 1, 50) },
    enabled: open && ptsId !== undefined,
  });
  const picked = files.map((f) => f.originFileObj).filter((f): f is NonNullable<typeof f> => Boolean(f));
  const problems = picked.length ? uploadProblems(picked, existing.data?.totalCount ?? 0) : [];

  const reset = () => {
    setFiles([]);
    setDocType(undefined);
    setVisitId(undefined);
    setServerError(null);
    if (!fixed) setPtsId(undefined);
  };

  const submit = async () => {
    setServerError(null);
    if (!ptsId || !docType) return;
    const p = uploadProblems(picked, existing.data?.totalCount ?? 0);
    if (p.length) return;
    setBusy(true);
    try {
      const r = await documentsApi.upload({ ptsId, docType, ...(visitId ? { visitId } : {}) }, picked);
      // the project may ask for each upload to be confirmed first (fileConfirmConfig: status -3)
      const waiting = r.files.some((f) => f.status === SOURCE_FILE_STATUS.waitingImport);
      void message.success(t(waiting ? 'upload.doneToConfirm' : 'upload.done', { count: r.files.length }));
      await afterDocumentChange(qc);
      reset();
      onClose();
    } catch (e) {
      // the server's reason when it gave one (too many files, a wrong type …); a lost connection, a time-out or a
      // server fault is the spec's 'Upload failed, please try again later', with what happened
      const transient = !(e instanceof ApiError) || e.code === 0 || e.code === 408 || e.code >= 500;
      const text = e instanceof Error ? e.message : String(e);
      setServerError(transient ? `${t('upload.failedLater')} (${text})` : text);
    } finally {
      setBusy(false);
    }
  };

  return (
    <Modal
      open={open}
      title={t('upload.title')}
      okText={t('upload.start')}
      cancelText={t('cancel')}
      confirmLoading={busy}
      okButtonProps={{ disabled: !ptsId || !docType || picked.length === 0 || problems.length > 0, 'data-testid': 'upload-ok' }}
      onOk={() => void submit()}
      onCancel={() => {
        if (busy) return;
        reset();
        onClose();
      }}
      width={620}
      destroyOnHidden
      data-testid="upload-dialog"
    >
      <Typography.Paragraph type="secondary">
        {t('upload.rules', {
          imageMb: LIMITS.imageMaxBytes / 1024 / 1024,
          pdfMb: LIMITS.pdfMaxBytes / 1024 / 1024,
          images: LIMITS.sourceUploadImages,
          files: LIMITS.fileCountMax,
        })}
      </Typography.Paragraph>
      <Form layout="vertical">
        <Form.Item label={t('col.subject')} required>
          <Select
            showSearch={{ filterOption: false, onSearch: setKeyword }}
            value={ptsId}
            disabled={fixed !== undefined}
            placeholder={t('upload.subjectPlaceholder')}
            onChange={(v: number) => {
              setPtsId(v);
              setVisitId(undefined);
            }}
            loading={subjects.isFetching}
            notFoundContent={subjects.isFetching ? null : t('upload.noSubject')}
            options={(subjects.data?.content ?? []).map((s) => ({ value: s.ptsId, label: `${s.ptsNo} · ${s.siteName}` }))}
            data-testid="upload-subject"
          />
        </Form.Item>
        <Form.Item label={t('col.docType')} required>
          <Select
            value={docType}
            placeholder={t('upload.docTypePlaceholder')}
            onChange={(v: number) => setDocType(v)}
            loading={types.isLoading}
            options={(types.data ?? []).map((x) => ({ value: x.value, label: x.label }))}
            data-testid="upload-doctype"
          />
        </Form.Item>
        <Form.Item label={t('upload.visit')} extra={t('upload.visitHint')}>
          <Select
            allowClear
            value={visitId}
            disabled={ptsId === undefined}
            placeholder={t('upload.visitPlaceholder')}
            onChange={(v?: number) => setVisitId(v)}
            loading={stages.isFetching}
            options={(stages.data ?? [])
              .filter((v) => v.unscheduledId === 0)
              .map((v) => ({ value: v.visitId, label: `${v.code} ${language === 'en_US' && v.nameEn ? v.nameEn : v.name}${v.planned ? ` · ${v.planned}` : ''}` }))}
            data-testid="upload-visit"
          />
        </Form.Item>
        <Form.Item label={t('upload.files')} required>
          <Upload.Dragger
            multiple
            accept=".png,.jpg,.jpeg,.pdf,image/png,image/jpeg,application/pdf"
            fileList={files}
            beforeUpload={() => false}
            onChange={({ fileList }) => setFiles(fileList)}
            data-testid="upload-files"
          >
            <p className="ant-upload-drag-icon">
              <InboxOutlined />
            </p>
            <p className="ant-upload-text">{t('upload.drop')}</p>
            <p className="ant-upload-hint">{t('upload.hint')}</p>
          </Upload.Dragger>
        </Form.Item>
      </Form>
      {existing.data && ptsId ? (
        <Typography.Paragraph type="secondary" data-testid="upload-existing">
          {t('upload.existing', { count: existing.data.totalCount, max: LIMITS.fileCountMax })}
        </Typography.Paragraph>
      ) : null}
      {problems.length ? (
        <Alert
          type="error"
          showIcon
          data-testid="upload-problems"
          title={t('upload.problems')}
          description={
            <ul className="doc-problems">
              {problems.map((p, i) => (
                <li key={i}>{t(p.key, p.values)}</li>
              ))}
            </ul>
          }
        />
      ) : null}
      {serverError ? <Alert type="error" showIcon title={serverError} data-testid="upload-error" style={{ marginTop: 8 }} /> : null}
    </Modal>
  );
}

import { useState } from 'react';
import { Alert, Button, Modal, Space, Table, Typography, Upload } from 'antd';
import { DownloadOutlined, InboxOutlined } from '@ant-design/icons';
import type { UploadFile } from 'antd';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useTranslation } from 'react-i18next';
import { USER_IMPORT_LIMITS, type UserImportResponse } from '@esource/shared';
import { ApiError } from '../../../lib/api-client';
import { usersApi } from '../api/users-api';
import { parseImportProblems, type ImportProblem } from '../lib/user-rules';

/**
 * Import users from an .xlsx (spec issue 4 §3): all or nothing. With any bad row the server imports nothing and
 * names every bad row and field; they are listed here. After a good import each initial password shows once.
 */
export function ImportDialog({
  open,
  onClose,
  onTemplate,
}: {
  open: boolean;
  onClose: () => void;
  onTemplate?: () => void;
}) {
  const { t } = useTranslation('users');
  const qc = useQueryClient();
  const [file, setFile] = useState<File | null>(null);
  const [problems, setProblems] = useState<ImportProblem[] | null>(null);
  const [failure, setFailure] = useState<string | null>(null);
  const [result, setResult] = useState<UserImportResponse | null>(null);

  const reset = () => {
    setFile(null);
    setProblems(null);
    setFailure(null);
    setResult(null);
  };
  const close = () => {
    reset();
    onClose();
  };

  const m = useMutation({
    mutationFn: (f: File) => usersApi.importExcel(f),
    onMutate: () => {
      setProblems(null);
      setFailure(null);
    },
    onSuccess: (r) => {
      setResult(r);
      void qc.invalidateQueries({ queryKey: ['users'] });
    },
    onError: (err) => {
      if (err instanceof ApiError && err.detail.length > 0) {
        const list = parseImportProblems(err.detail);
        if (list.some((p) => p.row !== null)) setProblems(list);
        else setFailure(list.map((p) => p.message).join('; '));
      } else setFailure(err.message);
    },
  });

  const fieldLabel = (f: string) => t(`columns.${f}`, { defaultValue: f });
  const fileList: UploadFile[] = file ? [{ uid: '1', name: file.name, size: file.size, status: 'done' }] : [];

  return (
    <Modal
      open={open}
      title={t('importTitle')}
      width={760}
      onCancel={close}
      footer={
        result ? (
          <Button type="primary" onClick={close}>
            {t('passwordNoted')}
          </Button>
        ) : (
          <Space>
            <Button onClick={close}>{t('cancel')}</Button>
            <Button
              type="primary"
              disabled={!file}
              loading={m.isPending}
              onClick={() => file && m.mutate(file)}
              data-testid="import-submit"
            >
              {t('import')}
            </Button>
          </Space>
        )
      }
    >
      {result ? (
        <div data-testid="import-result">
          <Alert
            type="success"
            showIcon
            title={t('importDone', { count: result.imported })}
            description={t('passwordOnce')}
            style={{ marginBottom: 16 }}
          />
          <Table
            size="small"
            rowKey="account"
            pagination={false}
            scroll={{ y: 320 }}
            dataSource={result.users}
            columns={[
              { title: t('fields.account'), dataIndex: 'account' },
              {
                title: t('initialPassword'),
                dataIndex: 'initialPassword',
                render: (v: string) => (
                  <Typography.Text code copyable>
                    {v}
                  </Typography.Text>
                ),
              },
            ]}
          />
        </div>
      ) : (
        <>
          <Typography.Paragraph type="secondary">
            {t('importHint', { rows: USER_IMPORT_LIMITS.maxRows, mb: USER_IMPORT_LIMITS.maxBytes / 1024 / 1024 })}
            {onTemplate ? (
              <Button type="link" size="small" icon={<DownloadOutlined />} onClick={onTemplate}>
                {t('downloadTemplate')}
              </Button>
            ) : null}
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
            data-testid="import-upload"
          >
            <p className="ant-upload-drag-icon">
              <InboxOutlined />
            </p>
            <p className="ant-upload-text">{t('importDrop')}</p>
          </Upload.Dragger>
          {failure ? (
            <Alert
              type="error"
              showIcon
              title={t('importFailed')}
              description={failure}
              style={{ marginTop: 16 }}
              data-testid="import-failure"
            />
          ) : null}
          {problems ? (
            <div style={{ marginTop: 16 }} data-testid="import-problems">
              <Alert
                type="error"
                showIcon
                title={t('importNothing')}
                description={t('importProblemCount', {
                  count: problems.length,
                  rows: new Set(problems.map((p) => p.row)).size,
                })}
                style={{ marginBottom: 12 }}
              />
              <Table<ImportProblem>
                size="small"
                rowKey={(p) => `${p.row}-${p.field}-${p.message}`}
                pagination={false}
                scroll={{ y: 300 }}
                dataSource={problems}
                columns={[
                  { title: t('problemRow'), dataIndex: 'row', width: 90, render: (r: number | null) => r ?? '—' },
                  {
                    title: t('problemField'),
                    dataIndex: 'field',
                    width: 180,
                    render: (f: string) => fieldLabel(f),
                  },
                  { title: t('problemMessage'), dataIndex: 'message' },
                ]}
              />
            </div>
          ) : null}
        </>
      )}
    </Modal>
  );
}

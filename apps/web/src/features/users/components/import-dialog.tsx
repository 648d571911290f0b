import { useState } from 'react';
import { Alert, Button, Modal, Space, Table, Typography } from 'antd';
import { DownloadOutlined } from '@ant-design/icons';
import { useQueryClient } from '@tanstack/react-query';
import { useTranslation } from 'react-i18next';
import { USER_IMPORT_LIMITS, type UserImportResponse } from '@esource/shared';
import { useXlsxImport, XlsxImportPanel } from '../../../components/xlsx-import';
import { usersApi } from '../api/users-api';

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
  const [result, setResult] = useState<UserImportResponse | null>(null);
  const imp = useXlsxImport(
    (f: File) => usersApi.importExcel(f),
    (r) => {
      setResult(r);
      void qc.invalidateQueries({ queryKey: ['users'] });
    },
  );

  const close = () => {
    imp.choose(null);
    setResult(null);
    onClose();
  };

  const fieldLabel = (f: string) => t(`columns.${f}`, { defaultValue: f });

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
              disabled={!imp.file}
              loading={imp.mutation.isPending}
              onClick={imp.submit}
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
            {t('importHint', {
              rows: USER_IMPORT_LIMITS.maxRows,
              mb: USER_IMPORT_LIMITS.maxBytes / 1024 / 1024,
            })}
            {onTemplate ? (
              <Button type="link" size="small" icon={<DownloadOutlined />} onClick={onTemplate}>
                {t('downloadTemplate')}
              </Button>
            ) : null}
          </Typography.Paragraph>
          <XlsxImportPanel
            imp={imp}
            testIdPrefix="import"
            labels={{
              drop: t('importDrop'),
              failed: t('importFailed'),
              nothing: t('importNothing'),
              problemCount: (count, rows) => t('importProblemCount', { count, rows }),
              row: t('problemRow'),
              column: t('problemField'),
              message: t('problemMessage'),
            }}
            columnLabel={fieldLabel}
          />
        </>
      )}
    </Modal>
  );
}

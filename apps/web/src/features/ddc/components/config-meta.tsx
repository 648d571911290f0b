import { Alert, Button, Typography } from 'antd';
import { ReloadOutlined } from '@ant-design/icons';
import { useTranslation } from 'react-i18next';
import dayjs from 'dayjs';
import type { ApiError } from '../../../lib/api-client';

/** Who saved a micro config last and when, or that the defaults are in force. */
export function ConfigMeta({ version, by, at }: { version: number; by: string | null; at: string | null }) {
  const { t } = useTranslation('ddc');
  return (
    <Typography.Paragraph type="secondary" style={{ fontSize: 12 }} data-testid="config-meta">
      {version === 0
        ? t('config.defaults')
        : t('config.lastSaved', {
            name: by ?? '—',
            time: at ? dayjs(at).format('YYYY-MM-DD HH:mm') : '—',
            version,
          })}
    </Typography.Paragraph>
  );
}

/**
 * Above a micro config form: read-only for a user without the right to save, and the last save's error; a stale
 * save (someone else saved meanwhile) offers to reload the current settings.
 */
export function ConfigNotices({
  canSave,
  error,
  onReload,
}: {
  canSave: boolean;
  error: ApiError | null;
  onReload: () => void;
}) {
  const { t } = useTranslation('ddc');
  return (
    <>
      {!canSave ? <Alert type="info" showIcon style={{ marginBottom: 12 }} title={t('config.readOnly')} /> : null}
      {error ? (
        <Alert
          type="error"
          showIcon
          style={{ marginBottom: 12 }}
          title={error.message}
          data-testid="config-error"
          action={
            error.errorCode === 'STALE_WRITE' ? (
              <Button size="small" icon={<ReloadOutlined />} onClick={onReload}>
                {t('config.reload')}
              </Button>
            ) : null
          }
        />
      ) : null}
    </>
  );
}

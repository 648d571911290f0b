import { Typography } from 'antd';
import { useTranslation } from 'react-i18next';
import dayjs from 'dayjs';

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

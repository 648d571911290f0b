import { App, Alert, Button, QRCode, Space, Typography } from 'antd';
import { CopyOutlined } from '@ant-design/icons';
import { useTranslation } from 'react-i18next';
import dayjs from 'dayjs';
import { shareUrl } from '../api/ddc-api';

/** Copies a text; false when the browser refuses (no clipboard outside a secure context). */
export async function copyText(text: string): Promise<boolean> {
  try {
    await navigator.clipboard.writeText(text);
    return true;
  } catch {
    return false;
  }
}

/** A link to hand to the participant: the address, copy, and a QR code to scan with their phone. */
export function ShareLinkResult({ code, expiresAt }: { code: string; expiresAt: string }) {
  const { t } = useTranslation('ddc');
  const { message } = App.useApp();
  const url = shareUrl(code);
  return (
    <div className="ddc-link-box" data-testid="share-result">
      <QRCode value={url} size={168} bordered={false} />
      <Typography.Paragraph className="ddc-link-text" copyable={false} data-testid="share-url">
        {url}
      </Typography.Paragraph>
      <Space wrap>
        <Button
          type="primary"
          icon={<CopyOutlined />}
          data-testid="share-copy"
          onClick={() =>
            void copyText(url).then((ok) =>
              ok ? message.success(t('copied')) : message.error(t('copyFailed')),
            )
          }
        >
          {t('copy')}
        </Button>
      </Space>
      <Alert
        type="info"
        showIcon
        title={t('result.validUntil', { time: dayjs(expiresAt).format('YYYY-MM-DD HH:mm') })}
        description={t('result.hint')}
      />
    </div>
  );
}

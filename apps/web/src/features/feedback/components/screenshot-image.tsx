import { useEffect, useState } from 'react';
import { Image, Skeleton, Typography } from 'antd';
import { useQuery } from '@tanstack/react-query';
import { useTranslation } from 'react-i18next';
import { feedbackApi, feedbackKey } from '../api/feedback-api';

/**
 * A feedback's screenshot. It is read with the session's headers (GET /feedback/screenshot answers only the sender
 * and feedback administrators), so it is fetched as a blob and shown from an object URL, released when it goes.
 */
export function ScreenshotImage({ id, height = 180 }: { id: number; height?: number }) {
  const { t } = useTranslation('feedback');
  const q = useQuery({
    queryKey: [...feedbackKey, 'screenshot', id],
    queryFn: () => feedbackApi.screenshot(id),
    staleTime: Infinity,
    retry: false,
  });
  const [url, setUrl] = useState<string | null>(null);
  useEffect(() => {
    if (!q.data) return undefined;
    const u = URL.createObjectURL(q.data);
    setUrl(u);
    return () => URL.revokeObjectURL(u);
  }, [q.data]);
  if (q.isError) return <Typography.Text type="secondary">{t('screenshotFailed')}</Typography.Text>;
  if (!url) return <Skeleton.Image active style={{ width: 240, height }} />;
  return (
    <Image
      src={url}
      alt={t('screenshotAlt', { id })}
      height={height}
      style={{
        objectFit: 'contain',
        maxWidth: '100%',
        border: '1px solid #f0f0f0',
        borderRadius: 6,
        background: '#fafafa',
      }}
      data-testid={`feedback-screenshot-${id}`}
    />
  );
}

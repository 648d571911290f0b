import { Empty, Typography } from 'antd';
import { useMatches } from 'react-router';
import { useTranslation } from 'react-i18next';

/**
 * The honest empty state of a route whose screen a later issue builds: it names what will be there and
 * does not pretend to work.
 */
export default function PlaceholderPage() {
  const matches = useMatches();
  const id = matches[matches.length - 1]?.id ?? '';
  const { t } = useTranslation(['routes', 'common']);
  return (
    <div
      style={{ padding: '48px 16px', display: 'flex', justifyContent: 'center' }}
      data-testid="placeholder-page"
      data-route={id}
    >
      <Empty
        image={Empty.PRESENTED_IMAGE_SIMPLE}
        description={
          <div style={{ maxWidth: 560 }}>
            <Typography.Title level={4} style={{ marginBottom: 8 }}>
              {t(`routes:${id}`)}
            </Typography.Title>
            <Typography.Paragraph type="secondary" style={{ marginBottom: 4 }}>
              {t('common:notBuiltYet')}
            </Typography.Paragraph>
            <Typography.Paragraph>{t(`routes:will.${id}`)}</Typography.Paragraph>
          </div>
        }
      />
    </div>
  );
}

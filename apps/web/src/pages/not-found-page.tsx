import { Button, Result } from 'antd';
import { useNavigate } from 'react-router';
import { useTranslation } from 'react-i18next';

/** /404: unknown paths land here (spec §2 route guard). */
export default function NotFoundPage() {
  const { t } = useTranslation('common');
  const navigate = useNavigate();
  return (
    <div
      style={{ minHeight: '100vh', display: 'flex', alignItems: 'center', justifyContent: 'center' }}
      data-testid="not-found"
    >
      <Result
        status="404"
        title="404"
        subTitle={t('notFound')}
        extra={
          <Button type="primary" onClick={() => void navigate('/')}>
            {t('backHome')}
          </Button>
        }
      />
    </div>
  );
}

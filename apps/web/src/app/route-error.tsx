import { Button, Result } from 'antd';
import { useRouteError } from 'react-router';
import { useTranslation } from 'react-i18next';
import { isChunkLoadError } from '../lib/chunk-load';

/** Error boundary of the router: a chunk that failed to load (often after a deploy) offers a reload. */
export function RouteError() {
  const err = useRouteError();
  const { t } = useTranslation('common');
  const chunk = isChunkLoadError(err);
  if (!chunk) console.error(err);
  return (
    <Result
      status={chunk ? 'warning' : 'error'}
      title={chunk ? t('chunkLoadTitle') : t('unexpectedTitle')}
      subTitle={chunk ? t('chunkLoadText') : err instanceof Error ? err.message : String(err)}
      extra={
        <Button type="primary" onClick={() => window.location.reload()}>
          {t('reload')}
        </Button>
      }
    />
  );
}

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
    <ErrorPanel
      title={chunk ? t('chunkLoadTitle') : t('unexpectedTitle')}
      text={chunk ? t('chunkLoadText') : err instanceof Error ? err.message : String(err)}
      action={t('reload')}
      onAction={() => window.location.reload()}
    />
  );
}

/** A light error panel for the entry chunk (antd's Result and its illustrations stay in the lazy chunks). */
export function ErrorPanel({
  title,
  text,
  action,
  onAction,
}: {
  title: string;
  text: string;
  action: string;
  onAction: () => void;
}) {
  return (
    <div role="alert" style={{ maxWidth: 520, margin: '96px auto', textAlign: 'center', padding: 24 }}>
      <div style={{ fontSize: 40, color: '#faad14', lineHeight: 1 }} aria-hidden>
        ⚠
      </div>
      <h2 style={{ fontSize: 20, fontWeight: 600, margin: '16px 0 8px' }}>{title}</h2>
      <p style={{ color: 'rgba(0,0,0,.55)', margin: '0 0 20px' }}>{text}</p>
      <button type="button" className="esource-plain-btn" onClick={onAction}>
        {action}
      </button>
    </div>
  );
}

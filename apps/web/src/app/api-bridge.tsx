import { useEffect } from 'react';
import { App } from 'antd';
import { useTranslation } from 'react-i18next';
import { configureApi } from '../lib/api-client';
import { sessionStore } from '../features/session/session-store';
import { sessionHeaders } from '../features/session/session-headers';
import { markSessionExpired } from '../features/session/session-actions';

/**
 * Plugs the session and antd's notification/message into the API client (spec §8): Error notifications with
 * the body's message, the no-permission message on 403, the Login Expired dialog on 401.
 */
export function ApiBridge() {
  const { notification, message } = App.useApp();
  const { t } = useTranslation(['common', 'errors']);
  useEffect(() => {
    configureApi({
      headers: () => sessionHeaders(sessionStore.get()),
      onError: (err) => {
        notification.error({
          key: `api-error-${err.errorCode}-${err.message}`,
          title: t('common:error'),
          description: err.message,
          duration: 6,
        });
      },
      onForbidden: () => {
        void message.error({ key: 'no-permission', content: t('errors:noPermission') });
      },
      onUnauthorized: () => markSessionExpired(),
      text: (k) => t(`errors:${k}`),
    });
  }, [notification, message, t]);
  return null;
}

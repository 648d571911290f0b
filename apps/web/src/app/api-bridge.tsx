import { useEffect } from 'react';
import { useTranslation } from 'react-i18next';
import { configureApi } from '../lib/api-client';
import { notify } from '../lib/notify';
import { sessionStore, sessionHeaders, markSessionExpired } from '../features/session';

/**
 * Plugs the session and the notifications into the API client (spec §8): Error notifications with the body's
 * message, the no-permission message on 403, the Login Expired dialog on 401.
 */
export function ApiBridge() {
  const { t } = useTranslation(['common', 'errors']);
  useEffect(() => {
    configureApi({
      headers: () => sessionHeaders(sessionStore.get()),
      onError: (err) =>
        notify.error(t('common:error'), err.message, `api-error-${err.errorCode}-${err.message}`),
      onForbidden: (err) => {
        // an initial password: the guard sends the user to the change screen (no "no permission" toast)
        if (err.errorCode === 'PASSWORD_CHANGE_REQUIRED') sessionStore.set({ passwordChangeRequired: true });
        // a function the project switched off (scene, configFiveFunction): the server's message names it
        else if (err.errorCode === 'PROJECT_FEATURE_OFF') notify.warn(err.message, 'feature-off');
        else notify.warn(t('errors:noPermission'), 'no-permission');
      },
      onUnauthorized: () => markSessionExpired(),
      text: (k) => t(`errors:${k}`),
    });
  }, [t]);
  return null;
}

import type { ReactNode } from 'react';
import { ConfigProvider } from 'antd';
import zhCN from 'antd/locale/zh_CN';
import enUS from 'antd/locale/en_US';
import { useTranslation } from 'react-i18next';
import { DEFAULT_LANGUAGE, LANGUAGES, type Language } from '@esource/shared';
import { THEME } from './theme';

export const ANTD_LOCALE: Record<Language, typeof zhCN> = { zh_CN: zhCN, en_US: enUS };

/**
 * A user whose system asks for less motion (an accessibility setting: vestibular disorders, or simply a slow machine)
 * gets dialogs, drawers and menus without antd's animations. The browser journeys ask for it too. (A global CSS rule
 * shortening every transition instead threw antd's popups off screen: their placement measures the element while it
 * transitions.)
 */
const REDUCED_MOTION =
  typeof window !== 'undefined' &&
  typeof window.matchMedia === 'function' &&
  window.matchMedia('(prefers-reduced-motion: reduce)').matches;
const APP_THEME = REDUCED_MOTION ? { ...THEME, token: { ...THEME.token, motion: false } } : THEME;

/**
 * antd's theme and locale (which follows the language). Lazy screens wrap themselves in it, so that the login
 * page, which does not use antd, does not load it.
 */
export function AntdProvider({ children }: { children: ReactNode }) {
  // the UI language (app-root sets it from the session); components import no feature, so not the session
  const { i18n } = useTranslation();
  const language = (LANGUAGES as readonly string[]).includes(i18n.language) ? (i18n.language as Language) : DEFAULT_LANGUAGE;
  return (
    <ConfigProvider locale={ANTD_LOCALE[language]} theme={APP_THEME}>
      {children}
    </ConfigProvider>
  );
}

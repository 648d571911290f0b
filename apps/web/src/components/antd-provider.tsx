import type { ReactNode } from 'react';
import { ConfigProvider } from 'antd';
import zhCN from 'antd/locale/zh_CN';
import enUS from 'antd/locale/en_US';
import type { Language } from '@esource/shared';
import { useSession } from '../features/session/session-store';
import { THEME } from './theme';

export const ANTD_LOCALE: Record<Language, typeof zhCN> = { zh_CN: zhCN, en_US: enUS };

/**
 * antd's theme and locale (which follows the language). Lazy screens wrap themselves in it, so that the login
 * page, which does not use antd, does not load it.
 */
export function AntdProvider({ children }: { children: ReactNode }) {
  const language = useSession((s) => s.language);
  return (
    <ConfigProvider locale={ANTD_LOCALE[language]} theme={THEME}>
      {children}
    </ConfigProvider>
  );
}

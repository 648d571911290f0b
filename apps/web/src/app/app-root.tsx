import { useEffect, useState } from 'react';
import { App as AntApp, ConfigProvider, theme as antdTheme } from 'antd';
import zhCN from 'antd/locale/zh_CN';
import enUS from 'antd/locale/en_US';
import { QueryClientProvider, type QueryClient } from '@tanstack/react-query';
import { I18nextProvider } from 'react-i18next';
import { RouterProvider } from 'react-router';
import { useSession } from '../features/session/session-store';
import { i18n, setLanguage } from '../i18n/i18n';
import { ApiBridge } from './api-bridge';
import type { AppRouter } from './router';

const THEME = {
  algorithm: antdTheme.defaultAlgorithm,
  token: { colorPrimary: '#1668dc', borderRadius: 6, fontSize: 14 },
  components: { Layout: { headerBg: '#ffffff', headerHeight: 56, headerPadding: '0 16px', siderBg: '#ffffff' } },
};

/** Providers around the router: antd (locale follows the language), TanStack Query, i18next. */
export function AppRoot({ router, queryClient }: { router: AppRouter; queryClient: QueryClient }) {
  const language = useSession((s) => s.language);
  const [, force] = useState(0);
  useEffect(() => {
    setLanguage(language);
    force((n) => n + 1);
  }, [language]);
  return (
    <I18nextProvider i18n={i18n}>
      <ConfigProvider locale={language === 'zh_CN' ? zhCN : enUS} theme={THEME}>
        <AntApp style={{ height: '100%' }}>
          <QueryClientProvider client={queryClient}>
            <ApiBridge />
            <RouterProvider router={router} />
          </QueryClientProvider>
        </AntApp>
      </ConfigProvider>
    </I18nextProvider>
  );
}

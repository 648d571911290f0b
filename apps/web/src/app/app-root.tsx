import { useEffect, useRef, useState } from 'react';
import { QueryClientProvider, type QueryClient } from '@tanstack/react-query';
import { I18nextProvider } from 'react-i18next';
import { RouterProvider } from 'react-router';
import { useSession, watchProjectVisits } from '../features/session';
import { i18n, setLanguage } from '../i18n/i18n';
import { ApiBridge } from './api-bridge';
import type { AppRouter } from './router';

/**
 * Providers around the router: TanStack Query and i18next. antd's provider (theme, locale) is applied by the
 * lazy screens that use antd (AntdProvider), so that the first screen stays light.
 */
export function AppRoot({ router, queryClient }: { router: AppRouter; queryClient: QueryClient }) {
  const language = useSession((s) => s.language);
  const [, force] = useState(0);
  const first = useRef(true);
  useEffect(() => {
    setLanguage(language);
    force((n) => n + 1);
    // server texts (names, messages) come in the request's language: fetch them again
    if (!first.current) void queryClient.invalidateQueries();
    first.current = false;
  }, [language, queryClient]);
  // the login log's project entries and departures (inProInfo / outProInfo)
  useEffect(() => watchProjectVisits(), []);
  return (
    <I18nextProvider i18n={i18n}>
      <QueryClientProvider client={queryClient}>
        <ApiBridge />
        <RouterProvider router={router} />
      </QueryClientProvider>
    </I18nextProvider>
  );
}

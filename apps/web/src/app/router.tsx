import { createBrowserRouter, createMemoryRouter, type RouteObject } from 'react-router';
import { ROUTES } from '../lib/routing/route-table';
import type { AppRoute } from '../lib/routing/route-types';
import { pageFor } from '../routes/route-pages';
import { withChunkTimeout } from '../lib/chunk-load';
import { RootGuard } from './root-guard';
import { PageSpinner } from '../components/page-spinner';
import { RouteError } from './route-error';

function toRouteObject(r: AppRoute): RouteObject {
  const page = pageFor(r);
  // standalone screens that use antd get its provider; the login page is plain and loads no antd
  const wrap = !r.shell && !r.login;
  return {
    id: r.id,
    path: r.path,
    handle: { routeId: r.id },
    ...(page
      ? {
          lazy: async () => {
            if (!wrap) return { Component: (await withChunkTimeout(page)).default };
            const [m, p] = await Promise.all([
              withChunkTimeout(page),
              withChunkTimeout(() => import('../components/antd-provider')),
            ]);
            const Page = m.default;
            const Provider = p.AntdProvider;
            return {
              Component: () => (
                <Provider>
                  <Page />
                </Provider>
              ),
            };
          },
        }
      : { element: null }),
  };
}

/** Router objects derived from the one route table (spec §2). */
export function buildRouteObjects(): RouteObject[] {
  return [
    {
      id: 'app',
      element: <RootGuard />,
      HydrateFallback: PageSpinner,
      errorElement: <RouteError />,
      children: [
        {
          id: 'shell',
          lazy: async () => {
            const m = await withChunkTimeout(() => import('../features/layout/app-layout'));
            return { Component: m.default };
          },
          children: ROUTES.filter((r) => r.shell).map(toRouteObject),
        },
        ...ROUTES.filter((r) => !r.shell).map(toRouteObject),
        // unknown paths: the guard sends them to /404
        { id: 'unknown', path: '*', element: null },
      ],
    },
  ];
}

export type AppRouter = ReturnType<typeof createBrowserRouter>;

export function createAppRouter(basename = '/', initialEntries?: string[]): AppRouter {
  const routes = buildRouteObjects();
  const base = basename === '/' ? undefined : basename.replace(/\/+$/, '');
  return initialEntries
    ? createMemoryRouter(routes, { basename: base, initialEntries })
    : createBrowserRouter(routes, { basename: base });
}

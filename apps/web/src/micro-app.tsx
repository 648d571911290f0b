// first: zod must be jitless before any schema is created (CSP without 'unsafe-eval'), also when a host imports this module directly
import './app/zod-jitless';
import { StrictMode } from 'react';
import { createRoot, type Root } from 'react-dom/client';
import type { QueryClient } from '@tanstack/react-query';
import { normalizeLanguage } from '@esource/shared';
import { AppRoot } from './app/app-root';
import { createAppRouter, type AppRouter } from './app/router';
import { createQueryClient } from './app/query-client';
import { initI18n } from './i18n/i18n';
import { sessionStore } from './features/session';
import { setStoragePrefix } from './lib/storage';
import './app/global.css';

/**
 * Micro-app lifecycle (qiankun style): the app runs standalone (main.tsx) or inside a host shell that calls
 * bootstrap → mount(props) → unmount(props). The base path is given by the host at mount time.
 */
export interface MountProps {
  /** element (or the host's wrapper) to render into; standalone uses #root */
  container?: Element | null;
  /** path prefix the host serves the app under, e.g. '/esource' */
  basePath?: string;
  /** hand over an existing session from the host */
  token?: string;
  language?: string;
  /** separate local storage keys from the host's */
  storagePrefix?: string;
  /** memory routing for tests: initial URL inside the app */
  initialPath?: string;
}

interface Mounted {
  root: Root;
  router: AppRouter;
  queryClient: QueryClient;
  node: Element;
}
const mounted = new Map<Element, Mounted>();

export async function bootstrap(): Promise<void> {
  // nothing to prepare: every mount builds its own router and query cache
}

function resolveContainer(props: MountProps): Element {
  const c = props.container ?? null;
  if (c) return c.querySelector('#esource-root') ?? c;
  const root = document.getElementById('root');
  if (!root) throw new Error('no container to mount into');
  return root;
}

export async function mount(props: MountProps = {}): Promise<void> {
  if (props.storagePrefix) {
    setStoragePrefix(props.storagePrefix);
    sessionStore.reload();
  }
  if (props.language) sessionStore.set({ language: normalizeLanguage(props.language) });
  if (props.token) sessionStore.set({ token: props.token, expired: false });
  initI18n(sessionStore.get().language);
  const node = resolveContainer(props);
  if (mounted.has(node)) return;
  const router = createAppRouter(props.basePath ?? '/', props.initialPath ? [props.initialPath] : undefined);
  const queryClient = createQueryClient();
  const root = createRoot(node);
  root.render(
    <StrictMode>
      <AppRoot router={router} queryClient={queryClient} />
    </StrictMode>,
  );
  mounted.set(node, { root, router, queryClient, node });
}

export async function unmount(props: MountProps = {}): Promise<void> {
  const targets = props.container ? [resolveContainer(props)] : [...mounted.keys()];
  for (const node of targets) {
    const m = mounted.get(node);
    if (!m) continue;
    m.root.unmount();
    m.router.dispose();
    m.queryClient.clear();
    mounted.delete(node);
  }
}

/** Lifecycles under the library name, where qiankun-style hosts look for them. */
export const LIFECYCLE_GLOBAL = 'esource-web';
export function exposeLifecycles(): void {
  (window as unknown as Record<string, unknown>)[LIFECYCLE_GLOBAL] = { bootstrap, mount, unmount };
}

// first: zod must be jitless before any schema is created (CSP without 'unsafe-eval')
import './app/zod-jitless';
import { bootstrap, exposeLifecycles, mount } from './micro-app';
import { startTracing } from './features/tracing/start-tracing';

export { bootstrap, mount, unmount } from './micro-app';

exposeLifecycles();
// standalone: mount into #root; inside a host the host calls mount() with its container and base path
if (!window.__POWERED_BY_QIANKUN__) {
  void bootstrap().then(() => mount());
}
startTracing();

/**
 * Starts browser tracing once the page is idle, so that the OpenTelemetry SDK never weighs on the first
 * screen (login budget). The SDK itself is in ./tracing (a lazy chunk).
 */
export function startTracing(): void {
  if (typeof window === 'undefined' || import.meta.env.MODE === 'test') return;
  const go = () => {
    import('./tracing').then((m) => m.initTracing()).catch(() => undefined);
  };
  if ('requestIdleCallback' in window) window.requestIdleCallback(go, { timeout: 3000 });
  else setTimeout(go, 1500);
}

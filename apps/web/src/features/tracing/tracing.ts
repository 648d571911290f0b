import { trace } from '@opentelemetry/api';
import { WebTracerProvider, BatchSpanProcessor, type ReadableSpan, type SpanExporter } from '@opentelemetry/sdk-trace-web';
import { ExportResultCode } from '@opentelemetry/core';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { registerInstrumentations } from '@opentelemetry/instrumentation';
import { FetchInstrumentation } from '@opentelemetry/instrumentation-fetch';
import { LIMITS } from '@esource/shared';
import { API_PREFIX } from '../../lib/api-client';
import { APP_VERSION } from '../../lib/build-flags';
import { sessionStore } from '../session';

export const TRACES_PATH = `${API_PREFIX}/v1/traces`;

interface TracingEnv {
  enabled?: boolean;
  serviceName?: string;
  environment?: string;
}

let provider: WebTracerProvider | null = null;

/** The session's token, or null when nobody is logged in (or the session has expired). */
function currentToken(): string | null {
  const s = sessionStore.get();
  return s.token && !s.expired ? s.token : null;
}

type ExportCallback = Parameters<SpanExporter['export']>[1];
const SUCCESS = { code: ExportResultCode.SUCCESS };

/**
 * The server takes traces from a logged-in session only (docs/security.md "Browser traces"): each export carries
 * the session's `token` header, read when it is sent; with no session the batch is dropped here, not sent.
 */
export class SessionSpanExporter implements SpanExporter {
  constructor(
    private readonly inner: SpanExporter,
    private readonly token: () => string | null = currentToken,
  ) {}
  export(spans: ReadableSpan[], done: ExportCallback): void {
    if (!this.token()) {
      done(SUCCESS);
      return;
    }
    this.inner.export(spans, done);
  }
  shutdown(): Promise<void> {
    return this.inner.shutdown();
  }
  forceFlush(): Promise<void> {
    return this.inner.forceFlush?.() ?? Promise.resolve();
  }
}

/**
 * Browser tracing (spec §7, §9): spans of every API call and route change, exported as OTLP/HTTP JSON to
 * /api/v1/traces through a batch processor (queue 100, batch 10, delay 500 ms, timeout 30 s). The server
 * says at /api/v1/traces/env whether tracing is on and how to name the service.
 */
export async function initTracing(): Promise<WebTracerProvider | null> {
  if (provider) return provider;
  let env: TracingEnv = {};
  try {
    const res = await fetch(`${TRACES_PATH}/env`, { headers: { accept: 'application/json' } });
    if (!res.ok) return null;
    const body = (await res.json()) as { data?: TracingEnv } & TracingEnv;
    env = body.data ?? body;
  } catch {
    return null;
  }
  if (env.enabled === false) return null;

  const exporter = new SessionSpanExporter(
    new OTLPTraceExporter({
      url: TRACES_PATH,
      timeoutMillis: LIMITS.tracing.exportTimeoutMillis,
      headers: async (): Promise<Record<string, string>> => {
        const token = currentToken();
        return token ? { token } : {};
      },
    }),
  );
  provider = new WebTracerProvider({
    resource: resourceFromAttributes({
      'service.name': env.serviceName ?? 'esource-web',
      'service.version': APP_VERSION,
      'deployment.environment': env.environment ?? 'unknown',
    }),
    spanProcessors: [
      new BatchSpanProcessor(exporter, {
        maxQueueSize: LIMITS.tracing.maxQueueSize,
        maxExportBatchSize: LIMITS.tracing.maxExportBatchSize,
        scheduledDelayMillis: LIMITS.tracing.scheduledDelayMillis,
        exportTimeoutMillis: LIMITS.tracing.exportTimeoutMillis,
      }),
    ],
  });
  provider.register();
  registerInstrumentations({
    tracerProvider: provider,
    instrumentations: [
      new FetchInstrumentation({
        ignoreUrls: [new RegExp(TRACES_PATH)],
        propagateTraceHeaderCorsUrls: [],
        clearTimingResources: true,
      }),
    ],
  });
  trackRouteChanges();
  return provider;
}

/** One short span per page (location) change. */
function trackRouteChanges(): void {
  const tracer = trace.getTracer('esource-web');
  let last = '';
  const record = () => {
    const path = window.location.pathname;
    if (path === last) return;
    last = path;
    const span = tracer.startSpan('route.change', { attributes: { 'url.path': path } });
    span.end();
  };
  record();
  const push = history.pushState.bind(history);
  const replace = history.replaceState.bind(history);
  history.pushState = (...args: Parameters<History['pushState']>) => {
    push(...args);
    record();
  };
  history.replaceState = (...args: Parameters<History['replaceState']>) => {
    replace(...args);
    record();
  };
  window.addEventListener('popstate', record);
}

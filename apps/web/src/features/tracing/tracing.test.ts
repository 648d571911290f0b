import { afterAll, describe, expect, it, vi } from 'vitest';
import { trace } from '@opentelemetry/api';
import { sessionStore } from '../session';

const calls: { url: string; init?: RequestInit }[] = [];
vi.stubGlobal(
  'fetch',
  vi.fn(async (input: RequestInfo | URL, init?: RequestInit) => {
    const url = typeof input === 'string' ? input : input instanceof URL ? input.href : input.url;
    calls.push({ url, init });
    if (url.endsWith('/api/v1/traces/env')) {
      return new Response(
        JSON.stringify({ code: 200, status: '1', data: { enabled: true, serviceName: 'esource-web-test' } }),
        {
          headers: { 'content-type': 'application/json' },
        },
      );
    }
    return new Response('{}', { status: 200, headers: { 'content-type': 'application/json' } });
  }),
);
afterAll(() => vi.unstubAllGlobals());

function field(o: unknown, path: string[]): unknown {
  let cur = o;
  for (const k of path) cur = (cur as Record<string, unknown> | undefined)?.[k];
  return cur;
}

describe('browser tracing (spec §7, §9)', () => {
  it('exports spans as OTLP/HTTP JSON to /api/v1/traces through a batch processor (100 / 10 / 500 ms / 30 s), with the session token; drops them when logged out', async () => {
    const { initTracing } = await import('./tracing');
    const provider = await initTracing();
    expect(provider).not.toBeNull();
    const processors = field(provider, ['_activeSpanProcessor', '_spanProcessors']) as unknown[];
    const batch = processors[0];
    expect(field(batch, ['_maxQueueSize'])).toBe(100);
    expect(field(batch, ['_maxExportBatchSize'])).toBe(10);
    expect(field(batch, ['_scheduledDelayMillis'])).toBe(500);
    expect(field(batch, ['_exportTimeoutMillis'])).toBe(30_000);

    // logged out: the batch is dropped in the browser, nothing is sent
    sessionStore.set({ token: null });
    trace.getTracer('test').startSpan('dropped-span').end();
    await provider!.forceFlush();
    expect(calls.filter((c) => c.url.endsWith('/api/v1/traces') && c.init?.method === 'POST')).toHaveLength(0);

    // logged in: sent with the session's token header
    sessionStore.set({ token: 'tok-123', expired: false });
    trace.getTracer('test').startSpan('unit-span').end();
    await provider!.forceFlush();
    const exported = calls.find((c) => c.url.endsWith('/api/v1/traces') && c.init?.method === 'POST');
    expect(exported).toBeTruthy();
    expect(new Headers(exported!.init!.headers).get('token')).toBe('tok-123');
    const body = JSON.parse(new TextDecoder().decode(exported!.init!.body as Uint8Array)) as {
      resourceSpans: {
        resource: { attributes: { key: string; value: { stringValue?: string } }[] };
        scopeSpans: { spans: { name: string }[] }[];
      }[];
    };
    const names = body.resourceSpans.flatMap((r) => r.scopeSpans.flatMap((s) => s.spans.map((x) => x.name)));
    expect(names).toContain('unit-span');
    expect(names).not.toContain('dropped-span');
    const service = body.resourceSpans[0]!.resource.attributes.find((a) => a.key === 'service.name');
    expect(service?.value.stringValue).toBe('esource-web-test');
    await provider!.shutdown();
  });
});

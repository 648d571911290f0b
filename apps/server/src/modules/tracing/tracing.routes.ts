/**
 * Browser tracing (spec §7): the web app exports OpenTelemetry spans as OTLP/HTTP JSON to /api/v1/traces. The
 * server accepts them and forwards them to OTEL_EXPORTER_OTLP_ENDPOINT when set; otherwise it counts and drops
 * them (no collector configured).
 */
import { z } from 'zod';
import { defineRoute, type RouteSpec } from '../../lib/route';
import type { AppDeps } from '../../app-deps';
import { AppError } from '../../lib/errors';

const otlpTraces = z.object({ resourceSpans: z.array(z.looseObject({})).max(1000) });

export const tracingStats = { received: 0, spans: 0, forwarded: 0, failed: 0 };

function countSpans(body: z.infer<typeof otlpTraces>): number {
  let n = 0;
  for (const rs of body.resourceSpans) {
    const scopes = (rs as { scopeSpans?: { spans?: unknown[] }[] }).scopeSpans ?? [];
    for (const s of scopes) n += s.spans?.length ?? 0;
  }
  return n;
}

export function tracingRoutes({ config }: AppDeps): RouteSpec[] {
  const envRoute = (method: 'GET' | 'POST') =>
    defineRoute({
      method,
      url: '/v1/traces/env',
      guard: { public: true },
      summary: 'Browser tracing settings (export path, batch settings, whether a collector receives them)',
      tags: ['tracing'],
      response: z.object({
        enabled: z.boolean(),
        exportPath: z.string(),
        forwarding: z.boolean(),
        serviceName: z.string(),
      }),
      handler: async () => ({
        enabled: process.env.WEB_TRACING !== 'off',
        exportPath: '/api/v1/traces',
        forwarding: Boolean(config.otlpEndpoint),
        serviceName: 'esource-web',
      }),
    });
  return [
    envRoute('GET'),
    envRoute('POST'),
    defineRoute({
      method: 'POST',
      url: '/v1/traces',
      guard: { public: true },
      summary: 'OTLP/HTTP JSON trace export from the browser; forwarded to the configured collector',
      tags: ['tracing'],
      bodyType: 'json',
      body: otlpTraces,
      rateLimit: { max: 600, timeWindow: '1 minute' },
      response: z.object({ accepted: z.number().int(), forwarded: z.boolean() }),
      handler: async ({ body }) => {
        const spans = countSpans(body);
        tracingStats.received += 1;
        tracingStats.spans += spans;
        if (!config.otlpEndpoint) return { accepted: spans, forwarded: false };
        const url = `${config.otlpEndpoint.replace(/\/$/, '')}/v1/traces`;
        try {
          const res = await fetch(url, {
            method: 'POST',
            headers: { 'content-type': 'application/json' },
            body: JSON.stringify(body),
            signal: AbortSignal.timeout(10_000),
          });
          if (!res.ok) throw new Error(`collector answered ${res.status}`);
          tracingStats.forwarded += 1;
          return { accepted: spans, forwarded: true };
        } catch {
          tracingStats.failed += 1;
          throw new AppError('INTERNAL', {});
        }
      },
    }),
  ];
}

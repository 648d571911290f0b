/**
 * Browser tracing (spec §7): the web app exports OpenTelemetry spans as OTLP/HTTP JSON to /api/v1/traces. The
 * server accepts them from a logged-in session only, validated as OTLP JSON (otlp.schema.ts), at most
 * TRACES_MAX_KB per export and TRACES_PER_MINUTE exports per session, and forwards them to
 * OTEL_EXPORTER_OTLP_ENDPOINT when set; otherwise it counts and drops them (no collector configured).
 * docs/security.md "Browser traces".
 */
import { createHash } from 'node:crypto';
import type { FastifyRequest } from 'fastify';
import { z } from 'zod';
import { defineRoute, type RouteSpec } from '../../lib/route';
import type { AppDeps } from '../../app-deps';
import { AppError } from '../../lib/errors';
import { countSpans, otlpTraces } from './otlp.schema';

export const tracingStats = { received: 0, spans: 0, forwarded: 0, failed: 0 };

/**
 * The rate limit's key: the session (its token's digest, as the sessions table keeps it). It is counted before
 * the guard looks the session up, so a caller without a token shares its address's bucket and then gets 401.
 */
function sessionKey(req: FastifyRequest): string {
  const t = req.headers.token;
  const a = req.headers.authorization;
  const token = typeof t === 'string' && t ? t : typeof a === 'string' && a.startsWith('Bearer ') ? a.slice(7).trim() : '';
  return token ? `traces:session:${createHash('sha256').update(token).digest('hex')}` : `traces:ip:${req.ip}`;
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
      // a session is required; during a forced password change too (the app traces that screen as well)
      guard: { permission: 'any', scope: 'system', duringPasswordChange: true },
      summary: 'OTLP/HTTP JSON trace export from the browser (logged-in session); forwarded to the configured collector',
      tags: ['tracing'],
      bodyType: 'json',
      body: otlpTraces,
      bodyLimit: config.tracesMaxBytes,
      rateLimit: { max: config.tracesPerMinute, timeWindow: '1 minute', key: sessionKey },
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

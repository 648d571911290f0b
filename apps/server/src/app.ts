/**
 * Builds the Fastify application: parsers, the request pipeline of DESIGN §3 (parse → trim → context →
 * guard → validate → handler → envelope), OpenAPI at /api/docs, and the built web app.
 */
import fs from 'node:fs';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import Fastify, { type FastifyError, type FastifyInstance, type FastifyRequest } from 'fastify';
import multipart from '@fastify/multipart';
import rateLimit from '@fastify/rate-limit';
import swagger from '@fastify/swagger';
import swaggerUi, { type FastifySwaggerUiOptions } from '@fastify/swagger-ui';
import fastifyStatic from '@fastify/static';
import { jsonSchemaTransform } from 'fastify-type-provider-zod';
import { responseSerializerCompiler } from './lib/response-serializer';
import { LIMITS, okEnvelope, type ErrorEnvelope } from '@esource/shared';
import type { Config } from './config/config';
import type { Database } from './db/client';
import type { AppDeps, ModuleHooks } from './app-deps';
import type { Guard, RequestContext } from './lib/context';
import { AppError } from './lib/errors';
import { translateMaybe, translator } from './lib/i18n';
import { parseInput } from './lib/validate';
import { deepTrim } from './lib/trim';
import { registerFormParser } from './lib/form';
import { registerSecurityHeaders } from './lib/security-headers';
import type { RouteSpec } from './lib/route';
import { authorize, baseContext } from './modules/auth/context.service';
import { AccessCache, type AccessLoader } from './modules/auth/access-cache';
import { ResponseCache } from './lib/response-cache';
import { AuthService } from './modules/auth/auth.service';
import { JobRunner } from './modules/jobs/job-runner';
import { projectHasSubjects } from './modules/subjects/subjects.service';
import { allRoutes } from './routes';

declare module 'fastify' {
  interface FastifyRequest {
    ctx: RequestContext;
  }
  interface FastifyContextConfig {
    guard?: Guard;
    bodyType?: 'form' | 'json' | 'multipart';
  }
}

export interface RegisteredRoute {
  method: string;
  url: string;
  guard: Guard;
}

export interface BuildOptions {
  config: Config;
  database: Database;
  jobs?: JobRunner;
  /** routes added by tests or optional modules */
  extraRoutes?: (deps: AppDeps) => RouteSpec[];
  /** hooks added to the product's own (tests, optional modules) */
  extraHooks?: Partial<ModuleHooks>;
  logger?: boolean;
}

export interface BuiltApp {
  app: FastifyInstance;
  deps: AppDeps;
  routes: RegisteredRoute[];
}

const API = '/api';

/** proxy-addr's trust function for a hop count: the first `n` hops (the socket peer first) are proxies. */
const trustHops = (n: number) => (_addr: string, i: number) => i < n;

export async function buildApp(opts: BuildOptions): Promise<BuiltApp> {
  const { config, database } = opts;
  const app = Fastify({
    logger: opts.logger === false ? false : { level: config.logLevel },
    genReqId: (req) => {
      const h = req.headers['x-request-id'];
      return typeof h === 'string' && /^[\w-]{8,64}$/.test(h) ? h : randomUUID();
    },
    // X-Forwarded-For is believed only from the proxies named in TRUST_PROXY (off by default); a hop count n
    // trusts the n nearest hops
    trustProxy: typeof config.trustProxy === 'number' ? trustHops(config.trustProxy) : config.trustProxy,
    bodyLimit: LIMITS.pdfMaxBytes + 1024 * 1024,
    routerOptions: { ignoreTrailingSlash: true },
  });
  app.setSerializerCompiler(responseSerializerCompiler(config.responseCheck));
  // Validation runs in the handler wrapper, after the guard, in the request's language.
  app.setValidatorCompiler(() => (data: unknown) => ({ value: data }));

  const jobs = opts.jobs ?? new JobRunner(database, config);
  // the cross-module hooks, wired here once (DESIGN §10)
  const hooks: ModuleHooks = {
    subjectDataChecks: [projectHasSubjects, ...(opts.extraHooks?.subjectDataChecks ?? [])],
    collectingChecks: [...(opts.extraHooks?.collectingChecks ?? [])],
  };
  // the guard's access answers kept in this process while it listens for their invalidation (GUARD_CACHE)
  const access = config.guardCache ? new AccessCache() : null;
  if (access) {
    await access.start(database);
    app.addHook('onClose', () => access.stop());
  }
  const load: AccessLoader | undefined = access?.load;
  // answers of routes declared cache: true, kept while listening for any change of the data (RESPONSE_CACHE)
  const responses = config.responseCache ? new ResponseCache() : null;
  if (responses) {
    await responses.start(database);
    app.addHook('onClose', () => responses.stop());
  }
  const deps: AppDeps = { config, database, auth: new AuthService(database.db, config), jobs, hooks, access, responses };

  // security headers (CSP, frame-ancestors, nosniff, referrer policy) on every answer: docs/security.md
  registerSecurityHeaders(app, config);
  registerFormParser(app);
  await app.register(multipart, { limits: { fileSize: LIMITS.pdfMaxBytes, files: LIMITS.fileCountMax } });
  await app.register(rateLimit, {
    global: false,
    // after body parsing, so that the login limit can key on the account
    hook: 'preHandler',
    errorResponseBuilder: () => new AppError('RATE_LIMITED'),
  });
  await app.register(swagger, {
    openapi: {
      info: { title: 'eSource API', version: process.env.npm_package_version ?? '0.1.0' },
      components: {
        securitySchemes: { token: { type: 'apiKey', in: 'header', name: 'token' } },
      },
    },
    transform: jsonSchemaTransform,
  });

  app.decorateRequest('ctx', null as unknown as RequestContext);
  app.addHook('onRequest', async (req) => {
    req.ctx = baseContext(req);
  });
  // Server-Timing: the time spent in this process (routing, guard, handler, serialisation), for benchmarks and tracing
  app.addHook('onSend', async (req, reply, payload) => {
    if (req.url.startsWith(API)) void reply.header('server-timing', `app;dur=${reply.elapsedTime.toFixed(2)}`);
    return payload;
  });

  // Every API route declares a guard; one that does not is refused at start-up.
  const routes: RegisteredRoute[] = [];
  app.addHook('onRoute', (r) => {
    if (!r.url.startsWith(API) || r.url.startsWith(`${API}/docs`)) return;
    const guard = r.config?.guard;
    if (!guard) throw new Error(`route ${String(r.method)} ${r.url} declares no guard (permission + scope, or public)`);
    for (const m of [r.method].flat()) if (m !== 'HEAD') routes.push({ method: String(m), url: r.url, guard });
  });

  app.addHook('preValidation', async (req) => {
    if (req.isMultipart() && req.routeOptions.config.bodyType !== 'multipart') {
      throw new AppError('UNSUPPORTED_MEDIA_TYPE', { type: 'multipart/form-data' });
    }
    if (req.body && typeof req.body === 'object' && !req.isMultipart()) req.body = deepTrim(req.body, req.ctx.language, 'body');
    if (req.query && typeof req.query === 'object') req.query = deepTrim(req.query, req.ctx.language, 'query');
  });

  app.setErrorHandler((err: FastifyError | AppError, req, reply) => {
    const { status, body } = toErrorEnvelope(err, req);
    if (status >= 500) req.log.error({ err }, 'request failed');
    void reply.code(status).send(body);
  });
  // (after the context hook and the error handler: the docs' own guard reads req.ctx and answers in the envelope)
  if (config.apiDocs !== 'off') await app.register(swaggerUi, apiDocsOptions(config, database, load));

  const specs = [...allRoutes(deps), ...(opts.extraRoutes?.(deps) ?? [])];
  await app.register(async (api) => {
    for (const spec of specs) registerRoute(api, spec, database, load, responses);
  }, { prefix: API });

  const webIndex = path.join(config.webDist, 'index.html');
  const hasWeb = fs.existsSync(webIndex);
  if (hasWeb) await app.register(fastifyStatic, { root: config.webDist, wildcard: false, index: false });
  app.setNotFoundHandler((req, reply) => {
    const url = req.url.split('?')[0] ?? '';
    if (url.startsWith(API) || !hasWeb || req.method !== 'GET') {
      const e = new AppError('ROUTE_NOT_FOUND', { method: req.method, url });
      const { status, body } = toErrorEnvelope(e, req);
      return reply.code(status).send(body);
    }
    // The web app's client-side routes all answer with index.html.
    return reply.type('text/html').sendFile('index.html');
  });

  return { app, deps, routes };
}

/**
 * Swagger UI at /api/docs (API_DOCS). With 'admin' the page and its static files are public but hold no data; the
 * OpenAPI document (/api/docs/json, /yaml) needs a system administrator's session (system:config:query). A browser
 * navigation sends no token header, so the page's Swagger UI adds the web app's stored session token to its
 * requests (the spec fetch and "Try it out"); without a session it shows that the document could not be loaded.
 */
function apiDocsOptions(config: Config, database: Database, load: AccessLoader | undefined): FastifySwaggerUiOptions {
  const adminGuard: Guard = { permission: { anyOf: ['system:config:query'] }, scope: 'system' };
  // swagger-ui writes uiConfig into its initializer script, a function by its toString(): this one's is the
  // browser-side source (plain ES5, no build step touches it); the server never calls it
  const interceptorSource =
    "function (req) { try { var s = JSON.parse(localStorage.getItem('esource.session') || 'null');" +
    ' if (s && s.token && !req.headers.token) req.headers.token = s.token; } catch (e) {} return req; }';
  const requestInterceptor = Object.assign(<T>(req: T): T => req, { toString: () => interceptorSource });
  return {
    routePrefix: `${API}/docs`,
    uiConfig: { requestInterceptor },
    ...(config.apiDocs === 'admin'
      ? {
          uiHooks: {
            preHandler: (req, _reply, done) => {
              const url = (req.url.split('?')[0] ?? '').replace(/\/$/, '');
              if (url === `${API}/docs` || url.startsWith(`${API}/docs/static/`)) return done();
              authorize(database.db, req, req.ctx, adminGuard, load).then(() => done(), done);
            },
          },
        }
      : {}),
  };
}

function registerRoute(api: FastifyInstance, spec: RouteSpec, database: Database, load: AccessLoader | undefined, responses: ResponseCache | null) {
  const schema: Record<string, unknown> = {
    summary: spec.summary,
    tags: spec.tags,
    response: { 200: okEnvelope(spec.response) },
  };
  // (a route declared without a guard reaches the onRoute check, which refuses it)
  const guard = spec.guard as Guard | undefined;
  if (guard && !('public' in guard)) schema.security = [{ token: [] }];
  if (spec.body && spec.bodyType !== 'multipart') schema.body = spec.body;
  if (spec.query) schema.querystring = spec.query;
  // the first limit is the route's own; further ones (e.g. per account, whatever the address) run as hooks
  const [rl, ...moreLimits] = spec.rateLimit ? [spec.rateLimit].flat() : [];
  // (through createRateLimit: the plugin's own hook runs one limit per request)
  const extraLimits = moreLimits.map((l) => {
    const check = api.createRateLimit({ max: l.max, timeWindow: l.timeWindow, ...(l.key ? { keyGenerator: l.key } : {}) });
    return async (req: FastifyRequest) => {
      const r = await check(req);
      if (!r.isAllowed && r.isExceeded) throw new AppError('RATE_LIMITED');
    };
  });
  if (spec.cache && (spec.raw || spec.method !== 'GET' && spec.method !== 'POST')) throw new Error(`${spec.url}: only a read answered in the envelope may be cached`);
  api.route({
    method: spec.method,
    url: spec.url,
    schema,
    ...(spec.bodyLimit ? { bodyLimit: spec.bodyLimit } : {}),
    config: {
      guard: spec.guard,
      bodyType: spec.bodyType ?? 'form',
      ...(rl
        ? { rateLimit: { max: rl.max, timeWindow: rl.timeWindow, ...(rl.key ? { keyGenerator: rl.key } : {}) } }
        : {}),
    },
    preHandler: [
      ...extraLimits,
      async (req: FastifyRequest) => {
        await authorize(database.db, req, req.ctx, spec.guard, load);
      },
    ],
    handler: async (req, reply) => {
      const ctx = req.ctx;
      const parsed = () => ({
        body: spec.body ? parseInput(spec.body, req.body, ctx.language, 'body') : undefined,
        query: spec.query ? parseInput(spec.query, req.query, ctx.language, 'query') : undefined,
      });
      if (spec.cache && responses) {
        // keyed by the request as it came (trimmed): the same request validates to the same input, so a hit skips the
        // validation too; the answer's text as the route's serializer writes it (RESPONSE_CHECK included) is kept and
        // sent as it is. An invalid request throws before anything is kept.
        const bytes = await responses.through(responses.keyOf(spec.url, ctx, req.body, req.query), async () => {
          const { body, query } = parsed();
          return reply.serialize({ code: 200, status: '1', data: await spec.handler({ body, query, ctx: ctx, req, reply }) });
        });
        return reply.type('application/json; charset=utf-8').send(bytes);
      }
      const { body, query } = parsed();
      const data = await spec.handler({ body, query, ctx: ctx, req, reply });
      if (spec.raw) return reply;
      return { code: 200, status: '1', data };
    },
  });
}

/** The SQLSTATE of a database error, whether the driver's own or wrapped by Drizzle (as its cause). */
function dbCode(err: unknown): string {
  const e = err as { code?: unknown; cause?: { code?: unknown } };
  const code = e.code ?? e.cause?.code;
  return typeof code === 'string' ? code : '';
}

/** Maps any error to the failure envelope, translated into the request's language; 5xx never shows internals. */
export function toErrorEnvelope(err: unknown, req: FastifyRequest): { status: number; body: ErrorEnvelope } {
  const lang = req.ctx?.language ?? 'zh_CN';
  const t = translator(lang);
  let e: AppError;
  if (err instanceof AppError) e = err;
  else {
    const fe = err as FastifyError & { statusCode?: number; code?: string };
    if (fe.code === 'FST_ERR_CTP_INVALID_MEDIA_TYPE') e = new AppError('UNSUPPORTED_MEDIA_TYPE', { type: req.headers['content-type'] ?? '' });
    else if (fe.code === 'FST_ERR_CTP_INVALID_JSON_BODY' || fe.code === 'FST_ERR_CTP_EMPTY_JSON_BODY' || err instanceof SyntaxError)
      e = new AppError('BAD_JSON');
    else if (fe.code === 'FST_ERR_CTP_BODY_TOO_LARGE' || fe.statusCode === 413) e = new AppError('PAYLOAD_TOO_LARGE');
    else if (fe.statusCode === 429) e = new AppError('RATE_LIMITED');
    else if ((fe as { code?: string }).code === '23505') e = new AppError('CONFLICT', { detail: 'conflict.duplicate' });
    else if (['40P01', '40001'].includes(dbCode(err))) e = new AppError('RETRY');
    else e = new AppError('INTERNAL', { requestId: req.id });
  }
  const params: Record<string, string | number> = { requestId: req.id, ...e.params };
  if (typeof params.entity === 'string') params.entity = t(`entities.${params.entity}`, { defaultValue: params.entity });
  // a message names a field by its label in the request's language, never by its key ("Subject no.", not "ptsNo")
  if (typeof params.field === 'string') params.field = t(`auditView.fields.${params.field}`, { defaultValue: params.field });
  // a detail that names a catalogue message (e.g. 'conflict.notCertified', 'conflict.usedBy' with a count) is shown in the request's language
  if (typeof params.detail === 'string') params.detail = translateMaybe(lang, params.detail, params);
  let detail = e.detail?.map((d) => ({ field: d.field, message: d.message.startsWith('validation.') ? t(d.message) : d.message }));
  // errors about one field (DUPLICATE, INVALID_REFERENCE) name it in detail too (by its key, so forms can mark the
  // field; the message names it by its label like the main message)
  if (!detail && typeof e.params.field === 'string') detail = [{ field: e.params.field, message: t(`errors.${e.code}`, params) }];
  return {
    status: e.status,
    body: {
      code: e.status,
      status: '0',
      message: t(`errors.${e.code}`, params),
      errorCode: e.code,
      requestId: req.id,
      ...(detail ? { detail } : {}),
    },
  };
}

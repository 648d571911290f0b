/**
 * HTTP hardening headers (docs/security.md "HTTP headers and CSP"), set by helmet on every answer: the web app,
 * the API, the API docs and the not-found answers alike.
 */
import type { FastifyInstance } from 'fastify';
import helmet, { type HelmetOptions } from 'helmet';
import type { Config } from '../config/config';

/**
 * The Content-Security-Policy of the web app. The built index.html has no inline script (Vite emits one module
 * script and modulepreload links), so scripts come from 'self' only, and nothing may be evaluated from text: eCRF
 * display conditions are parsed and interpreted (packages/shared/src/condition-language.ts), never compiled to a
 * Function, and zod runs jitless in the browser (apps/web/src/app/zod-jitless.ts). antd 6 writes its CSS-in-JS
 * into <style> elements at run time, hence 'unsafe-inline' for styles (styles cannot run code). The watermark is a
 * data: SVG image and downloads go through blob: URLs. Swagger UI (/api/docs) needs nothing more: its page loads
 * three script files and styles its elements inline, which this policy allows.
 * No upgrade-insecure-requests: a plain-HTTP intranet deployment would have every asset rewritten to https.
 */
export function cspDirectives(config: Pick<Config, 'frameAncestors'>): Record<string, string[]> {
  return {
    'default-src': ["'self'"],
    'script-src': ["'self'"],
    'script-src-attr': ["'none'"],
    'style-src': ["'self'", "'unsafe-inline'"],
    'img-src': ["'self'", 'data:', 'blob:'],
    'font-src': ["'self'", 'data:'],
    'connect-src': ["'self'"],
    'worker-src': ["'self'", 'blob:'],
    'object-src': ["'none'"],
    'base-uri': ["'self'"],
    'form-action': ["'self'"],
    'frame-ancestors': config.frameAncestors,
  };
}

/**
 * X-Frame-Options only says SAMEORIGIN or DENY; it cannot name a host. With only 'self' (or 'none') it agrees with
 * frame-ancestors and protects old browsers; when a micro-app host is named it is left out, since browsers that
 * know frame-ancestors ignore XFO anyway and those that do not would refuse the named host.
 */
export function frameguard(config: Pick<Config, 'frameAncestors'>): HelmetOptions['frameguard'] {
  const fa = config.frameAncestors;
  if (fa.length === 1 && fa[0] === "'none'") return { action: 'deny' };
  if (fa.length === 1 && fa[0] === "'self'") return { action: 'sameorigin' };
  return false;
}

export function helmetOptions(config: Pick<Config, 'frameAncestors'>): HelmetOptions {
  return {
    contentSecurityPolicy: { useDefaults: false, directives: cspDirectives(config) },
    frameguard: frameguard(config),
    referrerPolicy: { policy: 'strict-origin-when-cross-origin' },
    // nosniff, Cross-Origin-Opener/Resource-Policy same-origin, no X-Powered-By: helmet's defaults.
    // HSTS without includeSubDomains: other hosts of the same domain may still be plain HTTP.
    strictTransportSecurity: { maxAge: 180 * 24 * 3600, includeSubDomains: false },
  };
}

/**
 * Sets the headers on every answer (an onRequest hook, as @fastify/helmet did). The middleware is built once:
 * @fastify/helmet built it again for every request (parsing the CSP directives each time), ≈ 4 % of the API
 * process's time on a list answered from the response cache.
 */
export function registerSecurityHeaders(app: FastifyInstance, config: Pick<Config, 'frameAncestors'>): void {
  const middleware = helmet(helmetOptions(config));
  app.addHook('onRequest', (req, reply, done) => {
    middleware(req.raw, reply.raw, (err?: unknown) => done(err as Error | undefined));
  });
}

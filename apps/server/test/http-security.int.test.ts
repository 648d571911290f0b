/**
 * docs/security.md "Browser traces", "HTTP headers and CSP", "API docs access": the trace export takes a session,
 * OTLP JSON only, a bounded size and rate; every answer carries the hardening headers; the OpenAPI document is for
 * administrators unless configured otherwise.
 */
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseApiDocs, parseFrameAncestors } from '../src/config/config';
import { startTestServer, type TestServer } from './harness';

let s: TestServer;
let collector: http.Server;
const received: { url?: string; body: unknown }[] = [];
const webDist = fs.mkdtempSync(path.join(os.tmpdir(), 'esource-web-'));
const RATE = 20;

beforeAll(async () => {
  fs.writeFileSync(path.join(webDist, 'index.html'), '<!doctype html><html><body><div id="root"></div></body></html>');
  collector = http.createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString()));
    req.on('end', () => {
      received.push({ url: req.url, body: JSON.parse(body) as unknown });
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((r) => collector.listen(0, '127.0.0.1', r));
  const addr = collector.address();
  const port = typeof addr === 'object' && addr ? addr.port : 0;
  s = await startTestServer({ config: { otlpEndpoint: `http://127.0.0.1:${port}`, tracesPerMinute: RATE, webDist } });
});
afterAll(async () => {
  await s?.stop();
  collector?.close();
  fs.rmSync(webDist, { recursive: true, force: true });
});

const span = (over: Record<string, unknown> = {}) => ({
  traceId: '0af7651916cd43dd8448eb211c80319c',
  spanId: 'b7ad6b7169203331',
  parentSpanId: '',
  name: 'GET /api/x',
  kind: 3,
  startTimeUnixNano: '1700000000000000000',
  endTimeUnixNano: '1700000000120000000',
  attributes: [{ key: 'http.status_code', value: { intValue: 200 } }],
  status: { code: 0 },
  ...over,
});
const exportOf = (spans: unknown[], scope: Record<string, unknown> = {}) => ({
  resourceSpans: [
    {
      resource: { attributes: [{ key: 'service.name', value: { stringValue: 'esource-web' } }] },
      scopeSpans: [{ scope: { name: 'test' }, spans, ...scope }],
    },
  ],
});

describe('browser traces: /api/v1/traces', () => {
  it('refuses an export without a session (401)', async () => {
    const r = await s.api.post('/v1/traces', { json: exportOf([span()]) });
    expect(r.status).toBe(401);
    expect(r.body).toMatchObject({ status: '0', errorCode: 'UNAUTHENTICATED' });
    expect(received).toHaveLength(0);
  });

  it('forwards a valid OTLP JSON export of a logged-in session to the collector', async () => {
    const token = await s.api.login('dm');
    const body = exportOf([span(), span({ spanId: 'c7ad6b7169203331', parentSpanId: 'b7ad6b7169203331', name: 'route.change' })]);
    const r = await s.api.post<{ accepted: number; forwarded: boolean }>('/v1/traces', { token, json: body });
    expect(r.status).toBe(200);
    expect(r.body.data).toEqual({ accepted: 2, forwarded: true });
    expect(received).toEqual([{ url: '/v1/traces', body }]);
  });

  it('forwards only the fields of the protocol', async () => {
    received.length = 0;
    const token = await s.api.login('dm');
    const r = await s.api.post('/v1/traces', { token, json: { ...exportOf([span({ evil: 'x'.repeat(100) })]), extra: 1 } });
    expect(r.status).toBe(200);
    expect(JSON.stringify(received[0]?.body)).not.toMatch(/evil|extra/);
  });

  it('answers 400 naming the field for malformed exports, never 500', async () => {
    const token = await s.api.login('dm');
    const cases: [unknown, string][] = [
      [{ resourceSpans: [{ scopeSpans: 5 }] }, 'resourceSpans.0.scopeSpans'],
      [{ resourceSpans: [{ scopeSpans: [{ spans: 'x' }] }] }, 'resourceSpans.0.scopeSpans.0.spans'],
      [{ resourceSpans: [{ scopeSpans: [null] }] }, 'resourceSpans.0.scopeSpans.0'],
      [exportOf([span({ traceId: 'not-hex' })]), 'resourceSpans.0.scopeSpans.0.spans.0.traceId'],
      [exportOf([span({ spanId: 'b7ad6b71' })]), 'resourceSpans.0.scopeSpans.0.spans.0.spanId'],
      [exportOf([span({ name: undefined })]), 'resourceSpans.0.scopeSpans.0.spans.0.name'],
      [exportOf([span({ startTimeUnixNano: undefined })]), 'resourceSpans.0.scopeSpans.0.spans.0.startTimeUnixNano'],
      [exportOf([span({ endTimeUnixNano: 'yesterday' })]), 'resourceSpans.0.scopeSpans.0.spans.0.endTimeUnixNano'],
      [{ spans: [] }, 'resourceSpans'],
    ];
    for (const [json, field] of cases) {
      const r = await s.api.post('/v1/traces', { token, json, headers: { language: 'en_US' } });
      expect(r.status, JSON.stringify(json)).toBe(400);
      expect(r.body.errorCode).toBe('VALIDATION');
      expect(r.body.detail?.map((d) => d.field), JSON.stringify(r.body)).toContain(field);
      expect(r.body.message).toContain(field);
    }
    // deeply nested attribute values are refused, not recursed into
    let deep: Record<string, unknown> = { stringValue: 'x' };
    for (let i = 0; i < 200; i++) deep = { arrayValue: { values: [deep] } };
    const r = await s.api.post('/v1/traces', { token, json: exportOf([span({ attributes: [{ key: 'k', value: deep }] })]) });
    expect(r.status).toBe(400);
  });

  it('answers 413 with the error envelope above TRACES_MAX_KB (512 KB), before reading the body', async () => {
    const token = await s.api.login('dm');
    const big = exportOf([span({ attributes: Array.from({ length: 100 }, (_, i) => ({ key: `k${i}`, value: { stringValue: 'x'.repeat(6000) } })) })]);
    expect(JSON.stringify(big).length).toBeGreaterThan(512 * 1024);
    const r = await s.api.post('/v1/traces', { token, json: big, headers: { language: 'en_US' } });
    expect(r.status).toBe(413);
    expect(r.body).toMatchObject({ code: 413, status: '0', errorCode: 'PAYLOAD_TOO_LARGE' });
  });

  it('answers 429 with the error envelope past TRACES_PER_MINUTE exports of one session; other sessions go on', async () => {
    const token = await s.api.login('cra');
    const statuses: number[] = [];
    let last;
    for (let i = 0; i <= RATE; i++) {
      last = await s.api.post('/v1/traces', { token, json: exportOf([span()]) });
      statuses.push(last.status);
    }
    expect(statuses).toEqual([...Array<number>(RATE).fill(200), 429]);
    expect(last?.body).toMatchObject({ code: 429, status: '0', errorCode: 'RATE_LIMITED' });
    const other = await s.api.login('cra');
    expect((await s.api.post('/v1/traces', { token: other, json: exportOf([span()]) })).status).toBe(200);
  });
});

describe('HTTP headers', () => {
  const expectHardened = (h: Headers) => {
    const csp = h.get('content-security-policy') ?? '';
    expect(csp).toContain("default-src 'self'");
    // 'self' only: no inline scripts, and no eval (display conditions are interpreted, zod is jitless)
    expect(csp).toContain("script-src 'self';");
    expect(csp).not.toContain('unsafe-eval');
    expect(csp).not.toContain("'unsafe-inline' 'self'");
    expect(csp).toContain("script-src-attr 'none'");
    expect(csp).toContain("style-src 'self' 'unsafe-inline'");
    expect(csp).toContain("img-src 'self' data: blob:");
    expect(csp).toContain("connect-src 'self'");
    expect(csp).toContain("object-src 'none'");
    expect(csp).toContain("base-uri 'self'");
    expect(csp).toContain("frame-ancestors 'self'");
    expect(csp).not.toContain('upgrade-insecure-requests');
    expect(h.get('x-frame-options')).toBe('SAMEORIGIN');
    expect(h.get('x-content-type-options')).toBe('nosniff');
    expect(h.get('referrer-policy')).toBe('strict-origin-when-cross-origin');
    expect(h.get('x-powered-by')).toBeNull();
  };

  it('are on the web app, the API and not-found answers', async () => {
    for (const p of ['/', '/overview', '/api/health', '/api/v1/traces/env', '/api/nope']) {
      const res = await fetch(`${s.url}${p}`);
      expectHardened(res.headers);
    }
    const index = await fetch(`${s.url}/`);
    expect(await index.text()).toContain('<div id="root">');
  });

  it('FRAME_ANCESTORS names who may embed the app; X-Frame-Options is left out when it names a host', async () => {
    expect(parseFrameAncestors(undefined)).toEqual(["'self'"]);
    expect(parseFrameAncestors("self, https://host.example.com https://*.corp.example:8443")).toEqual([
      "'self'",
      'https://host.example.com',
      'https://*.corp.example:8443',
    ]);
    expect(parseFrameAncestors("'none'")).toEqual(["'none'"]);
    for (const bad of ['https://x.example; script-src *', '*', 'javascript:alert(1)', "none https://a.example"]) {
      expect(() => parseFrameAncestors(bad), bad).toThrow(/FRAME_ANCESTORS/);
    }
    const s2 = await startTestServer({ seed: false, config: { frameAncestors: parseFrameAncestors("'self' https://host.example.com") } });
    try {
      const res = await fetch(`${s2.url}/api/health`);
      expect(res.headers.get('content-security-policy')).toContain("frame-ancestors 'self' https://host.example.com");
      expect(res.headers.get('x-frame-options')).toBeNull();
    } finally {
      await s2.stop();
    }
  });
});

describe('API docs (API_DOCS)', () => {
  it('admin (default): the page is public and empty of data; the OpenAPI document needs a system administrator', async () => {
    expect(s.config.apiDocs).toBe('admin');
    const page = await fetch(`${s.url}/api/docs`);
    expect(page.status).toBe(200);
    expect(await page.text()).not.toContain('/api/passport/login');
    const init = await (await fetch(`${s.url}/api/docs/static/swagger-initializer.js`)).text();
    expect(init).toContain("localStorage.getItem('esource.session')");

    for (const p of ['/api/docs/json', '/api/docs/yaml']) {
      const anon = await fetch(`${s.url}${p}`);
      expect(anon.status, p).toBe(401);
      expect(((await anon.json()) as { errorCode: string }).errorCode).toBe('UNAUTHENTICATED');
    }
    for (const account of ['dm', 'crc1']) {
      const token = await s.api.login(account);
      const r = await fetch(`${s.url}/api/docs/json`, { headers: { token } });
      expect(r.status, account).toBe(403);
    }
    const token = await s.api.login('admin');
    const r = await fetch(`${s.url}/api/docs/json`, { headers: { token } });
    expect(r.status).toBe(200);
    const doc = (await r.json()) as { openapi: string; paths: Record<string, unknown> };
    expect(Object.keys(doc.paths)).toContain('/api/v1/traces');
  });

  it('public: anyone reads the document; off: /api/docs is not there (404)', async () => {
    expect(parseApiDocs(undefined)).toBe('admin');
    expect(() => parseApiDocs('yes')).toThrow(/API_DOCS/);
    const pub = await startTestServer({ seed: false, config: { apiDocs: parseApiDocs('public') } });
    const off = await startTestServer({ seed: false, config: { apiDocs: parseApiDocs('off') } });
    try {
      expect((await fetch(`${pub.url}/api/docs/json`)).status).toBe(200);
      expect((await fetch(`${pub.url}/api/docs`)).status).toBe(200);
      for (const p of ['/api/docs', '/api/docs/json', '/api/docs/static/swagger-ui.css']) {
        const r = await fetch(`${off.url}${p}`);
        expect(r.status, p).toBe(404);
        expect(((await r.json()) as { errorCode: string }).errorCode).toBe('ROUTE_NOT_FOUND');
      }
    } finally {
      await pub.stop();
      await off.stop();
    }
  });
});

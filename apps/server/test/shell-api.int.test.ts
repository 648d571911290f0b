import http from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from './harness';

let s: TestServer;
let collector: http.Server;
const received: unknown[] = [];

beforeAll(async () => {
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
  s = await startTestServer({ config: { otlpEndpoint: `http://127.0.0.1:${port}` } });
});
afterAll(async () => {
  await s?.stop();
  collector?.close();
});

const spans = {
  resourceSpans: [
    {
      resource: { attributes: [{ key: 'service.name', value: { stringValue: 'esource-web' } }] },
      scopeSpans: [
        {
          scope: { name: 'test' },
          spans: [{ traceId: 'a'.repeat(32), spanId: 'b'.repeat(16), name: 'GET /api/x', startTimeUnixNano: '1700000000000000000', endTimeUnixNano: '1700000000100000000' }],
        },
      ],
    },
  ],
};

describe('browser tracing', () => {
  it('answers the tracing settings', async () => {
    const r = await s.api.get<{ exportPath: string; forwarding: boolean }>('/v1/traces/env');
    expect(r.body.data).toMatchObject({ exportPath: '/api/v1/traces', forwarding: true });
    expect((await s.api.post('/v1/traces/env')).status).toBe(200);
  });

  // (session, size, rate and field checks: http-security.int.test.ts)
  it('accepts OTLP/HTTP JSON from a session and forwards it to the collector', async () => {
    const token = await s.api.login('dm');
    const r = await s.api.post<{ accepted: number; forwarded: boolean }>('/v1/traces', { token, json: spans });
    expect(r.status).toBe(200);
    expect(r.body.data).toEqual({ accepted: 1, forwarded: true });
    expect(received).toEqual([{ url: '/v1/traces', body: spans }]);
  });

  it('refuses a body that is not an OTLP trace export', async () => {
    const token = await s.api.login('dm');
    const r = await s.api.post('/v1/traces', { token, json: { spans: [] }, headers: { language: 'en_US' } });
    expect(r.status).toBe(400);
    expect(r.body.message).toContain('resourceSpans');
  });
});

describe('search', () => {
  it('finds the projects a centre user may see', async () => {
    const token = await s.api.login('dm');
    const r = await s.api.get<{ kind: string; no: string }[]>('/search', { token, query: { q: 'demo' } });
    expect(r.body.data).toEqual([expect.objectContaining({ kind: 'project', no: 'DEMO-001' })]);
    const none = await s.api.get<unknown[]>('/search', { token, query: { q: 'zzz' } });
    expect(none.body.data).toEqual([]);
  });

  it('is refused without project:search:query', async () => {
    const token = await s.api.login('crc1');
    expect((await s.api.get('/search', { token, query: { q: 'demo' } })).status).toBe(403);
  });

  it('does not treat % and _ as wildcards', async () => {
    const token = await s.api.login('dm');
    const r = await s.api.get<unknown[]>('/search', { token, query: { q: '%' } });
    expect(r.body.data).toEqual([]);
  });
});

describe('ISF dot', () => {
  it('answers a count for a site user in a project', async () => {
    const token = await s.api.login('crc1');
    const r = await s.api.get<number>('/rf/file/getUnUploadNum', { token, headers: { proId: 1 } });
    expect(r.status).toBe(200);
    expect(r.body.data).toBe(0); // no ISF document kind is configured in the demo project yet
  });
});

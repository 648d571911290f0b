import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { defineRoute, type RouteSpec } from '../src/lib/route';
import { startServer } from '../src/server';
import { startTestServer, type TestServer } from './harness';

let s: TestServer;
let token: string;
const echo = z.object({ name: z.string().min(1).max(5), n: z.coerce.number().int(), tags: z.array(z.string()).default([]) });

beforeAll(async () => {
  s = await startTestServer({
    extraRoutes: () => [
      defineRoute({
        method: 'POST',
        url: '/test/echo',
        guard: { permission: 'any', scope: 'system' },
        summary: 'echo',
        tags: ['test'],
        body: echo,
        response: z.object({ body: echo, headers: z.record(z.string(), z.string().nullable()) }),
        handler: async ({ body, ctx }) => ({
          body,
          headers: { language: ctx.language, env: ctx.env, product: ctx.product, source: ctx.source, orgId: String(ctx.orgId) },
        }),
      }),
      defineRoute({
        method: 'POST',
        url: '/test/upload',
        guard: { permission: 'any', scope: 'system' },
        summary: 'multipart',
        tags: ['test'],
        bodyType: 'multipart',
        response: z.object({ files: z.array(z.object({ name: z.string(), size: z.number() })), fields: z.record(z.string(), z.string()) }),
        handler: async ({ req }) => {
          const files: { name: string; size: number }[] = [];
          const fields: Record<string, string> = {};
          for await (const part of req.parts()) {
            if (part.type === 'file') files.push({ name: part.filename, size: (await part.toBuffer()).length });
            else fields[part.fieldname] = String(part.value).trim();
          }
          return { files, fields };
        },
      }),
    ],
  });
  token = await s.api.login('dm');
});
afterAll(async () => {
  await s?.stop();
});

describe('request pipeline', () => {
  it('parses form bodies by default, trims every string, and reads the spec headers', async () => {
    const r = await s.api.post<{ body: unknown; headers: Record<string, string> }>('/test/echo', {
      token,
      form: { name: '  abc  ', n: ' 42 ', tags: [' x ', 'y '] },
      headers: { language: 'en_US', proType: 'UAT', product: 'iCRC', source: 'iCRC', orgId: 7 },
    });
    expect(r.status).toBe(200);
    expect(r.body).toEqual({
      code: 200,
      status: '1',
      data: {
        body: { name: 'abc', n: 42, tags: ['x', 'y'] },
        headers: { language: 'en_US', env: 'UAT', product: 'iCRC', source: 'iCRC', orgId: '7' },
      },
    });
  });

  it('accepts JSON bodies and trims them too', async () => {
    const r = await s.api.post<{ body: unknown }>('/test/echo', { token, json: { name: ' ab ', n: 1 } });
    expect(r.body.data.body).toEqual({ name: 'ab', n: 1, tags: [] });
  });

  it('accepts multipart only where declared', async () => {
    const fd = new FormData();
    fd.append('note', '  hello ');
    fd.append('file', new Blob([Buffer.from('12345')]), 'a.txt');
    const ok = await s.api.post<{ files: unknown[]; fields: unknown }>('/test/upload', { token, raw: { body: fd } });
    expect(ok.status).toBe(200);
    expect(ok.body.data).toEqual({ files: [{ name: 'a.txt', size: 5 }], fields: { note: 'hello' } });
    const fd2 = new FormData();
    fd2.append('name', 'x');
    const refused = await s.api.post('/test/echo', { token, raw: { body: fd2 }, headers: { language: 'en_US' } });
    expect(refused.status).toBe(415);
    expect(refused.body.message).toBe('Unsupported request format: multipart/form-data');
  });

  it('names the bad field in the request language (zh_CN default, en_US)', async () => {
    const zh = await s.api.post('/test/echo', { token, form: { name: 'toolong', n: 'x' } });
    expect(zh.status).toBe(400);
    expect(zh.body.status).toBe('0');
    expect(zh.body.errorCode).toBe('VALIDATION');
    expect(zh.body.message).toMatch(/^参数错误：字段“name”：/);
    expect(zh.body.detail!.map((d) => d.field)).toEqual(['name', 'n']);
    const en = await s.api.post('/test/echo', { token, form: { n: '1' }, headers: { language: 'en_US' } });
    expect(en.body.message).toBe("Invalid input: Field 'name': required");
    const en2 = await s.api.post('/test/echo', { token, form: { name: 'toolong', n: 1 }, headers: { language: 'en-US' } });
    expect(en2.body.detail![0]!.message).toMatch(/Too big/);
  });

  it('answers bad JSON, unknown routes and a blank body with the failure envelope', async () => {
    const bad = await s.api.post('/test/echo', { token, raw: { body: '{nope', contentType: 'application/json' }, headers: { language: 'en_US' } });
    expect(bad.status).toBe(400);
    expect(bad.body).toMatchObject({ code: 400, status: '0', errorCode: 'BAD_JSON' });
    const missing = await s.api.get('/no/such/route', { headers: { language: 'en_US' } });
    expect(missing.status).toBe(404);
    expect(missing.body).toMatchObject({ code: 404, status: '0', message: 'No such API: GET /api/no/such/route' });
  });

  it('validates after the guard: an anonymous caller learns nothing about the schema', async () => {
    const r = await s.api.post('/test/echo', { form: { name: 'toolong' } });
    expect(r.status).toBe(401);
  });

  it('hides internals on a 500', async () => {
    const s2 = await startTestServer({
      seed: false,
      extraRoutes: () => [
        defineRoute({
          method: 'GET',
          url: '/test/boom',
          guard: { public: true },
          summary: 'boom',
          tags: ['test'],
          response: z.null(),
          handler: async () => {
            throw new Error('secret table xyz exploded');
          },
        }),
      ],
    });
    try {
      const r = await s2.api.get('/test/boom', { headers: { language: 'en_US' } });
      expect(r.status).toBe(500);
      expect(r.body.errorCode).toBe('INTERNAL');
      expect(JSON.stringify(r.body)).not.toContain('secret');
      expect(r.body.message).toContain(r.body.requestId);
    } finally {
      await s2.stop();
    }
  });

  it('serves the OpenAPI document at /api/docs (to an administrator by default: http-security.int.test.ts)', async () => {
    const res = await fetch(`${s.url}/api/docs/json`, { headers: { token: await s.api.login('admin') } });
    const doc = (await res.json()) as { openapi: string; paths: Record<string, unknown> };
    expect(doc.openapi).toMatch(/^3\./);
    expect(Object.keys(doc.paths)).toEqual(expect.arrayContaining(['/api/passport/login', '/api/auth/user/pmsInfo']));
    expect((await fetch(`${s.url}/api/docs`)).status).toBe(200);
  });

  it('refuses to start when a route declares no guard', async () => {
    await expect(
      startServer({
        seed: false,
        logger: false,
        config: { port: 0, host: '127.0.0.1', dataDir: 'memory://', databaseUrl: undefined },
        // the type requires a guard; a cast gets past it, which is what the start-up check catches at run time
        extraRoutes: () => [
          { method: 'GET', url: '/test/unguarded', summary: 'x', tags: [], response: z.null(), handler: async () => null } as unknown as RouteSpec,
        ],
      }),
    ).rejects.toThrow(/declares no guard/);
  });
});

import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { api, ApiError, configureApi, encodeParams, request, trimDeep } from './api-client';

interface Call {
  url: string;
  init: RequestInit;
}
let calls: Call[];
const hooks = {
  onError: vi.fn(),
  onUnauthorized: vi.fn(),
  onForbidden: vi.fn(),
};

function respond(status: number, body: unknown, type = 'application/json') {
  vi.stubGlobal(
    'fetch',
    vi.fn(async (url: string, init: RequestInit) => {
      calls.push({ url, init });
      const text = typeof body === 'string' ? body : JSON.stringify(body);
      return new Response(text, { status, headers: { 'content-type': type } });
    }),
  );
}

beforeEach(() => {
  calls = [];
  for (const h of Object.values(hooks)) h.mockReset();
  configureApi({
    headers: () => ({
      token: 't1',
      proId: 9,
      proSiteId: null,
      proType: 'UAT',
      language: 'en_US',
      product: 'esource',
      source: 'iCRC',
      orgId: 3,
    }),
    ...hooks,
    text: (k) => `text:${k}`,
  });
});
afterEach(() => {
  vi.unstubAllGlobals();
  vi.useRealTimers();
});

describe('API client (spec §7, §8)', () => {
  it('sends the spec headers and form-encodes trimmed POST bodies under /api', async () => {
    respond(200, { code: 200, status: '1', data: { ok: true } });
    const data = await api.post<{ ok: boolean }>('/x/y', { name: '  Ann  ', ids: [1, 2], skip: null });
    expect(data).toEqual({ ok: true });
    const { url, init } = calls[0]!;
    expect(url).toBe('/api/x/y');
    const h = new Headers(init.headers);
    expect(h.get('token')).toBe('t1');
    expect(h.get('proId')).toBe('9');
    expect(h.get('proSiteId')).toBeNull();
    expect(h.get('proType')).toBe('UAT');
    expect(h.get('language')).toBe('en_US');
    expect(h.get('product')).toBe('esource');
    expect(h.get('source')).toBe('iCRC');
    expect(h.get('orgId')).toBe('3');
    expect(h.get('content-type')).toContain('application/x-www-form-urlencoded');
    expect(init.body).toBe('name=Ann&ids=1&ids=2');
  });

  it('sends GET data as the query string, and JSON when asked', async () => {
    respond(200, { code: 200, status: '1', data: 1 });
    await api.get('/g', { q: ' a b ' });
    expect(calls[0]!.url).toBe('/api/g?q=a+b');
    await api.postJson('/j', { a: ' x ', n: { b: ' y ' } });
    expect(calls[1]!.init.body).toBe('{"a":"x","n":{"b":"y"}}');
    expect(new Headers(calls[1]!.init.headers).get('content-type')).toBe('application/json');
  });

  it('shows an Error notification with the body message and rejects', async () => {
    respond(400, { code: 400, status: '0', message: 'Bad thing', errorCode: 'VALIDATION', requestId: 'r1' });
    await expect(api.post('/x')).rejects.toMatchObject({
      code: 400,
      errorCode: 'VALIDATION',
      message: 'Bad thing',
      requestId: 'r1',
    });
    expect(hooks.onError).toHaveBeenCalledOnce();
  });

  it('prefers the detail of the body', async () => {
    respond(400, {
      code: 400,
      status: '0',
      message: 'Invalid',
      errorCode: 'VALIDATION',
      requestId: 'r',
      detail: [{ field: 'a', message: 'a is required' }],
    });
    await expect(api.post('/x')).rejects.toMatchObject({ message: 'a is required' });
  });

  it('treats a 200 envelope with status "0" as an error', async () => {
    respond(200, { code: 500, status: '0', message: 'nope', errorCode: 'INTERNAL', requestId: 'r' });
    await expect(api.post('/x')).rejects.toBeInstanceOf(ApiError);
    expect(hooks.onError).toHaveBeenCalledOnce();
  });

  it('opens the Login Expired flow on 401, except for calls that opt out (badge, logout)', async () => {
    respond(401, {
      code: 401,
      status: '0',
      message: 'expired',
      errorCode: 'UNAUTHENTICATED',
      requestId: 'r',
    });
    await expect(api.post('/x')).rejects.toMatchObject({ code: 401 });
    expect(hooks.onUnauthorized).toHaveBeenCalledOnce();
    expect(hooks.onError).not.toHaveBeenCalled();
    await expect(api.post('/message/manager/badgeInfo', {}, { ignore401: true })).rejects.toMatchObject({
      code: 401,
    });
    expect(hooks.onUnauthorized).toHaveBeenCalledOnce();
  });

  it('shows the no-permission message on HTTP 403', async () => {
    respond(403, {
      code: 403,
      status: '0',
      message: 'No permission',
      errorCode: 'FORBIDDEN',
      requestId: 'r',
    });
    await expect(api.post('/x')).rejects.toMatchObject({ code: 403 });
    expect(hooks.onForbidden).toHaveBeenCalledOnce();
    expect(hooks.onError).not.toHaveBeenCalled();
  });

  it('returns a raw file as a Blob, and treats a raw-file JSON body with status "0" as an error', async () => {
    respond(200, 'a,b\n1,2', 'text/csv');
    const blob = await request<Blob>('/export', { raw: true });
    expect(blob.type).toBe('text/csv');
    expect(await blob.text()).toBe('a,b\n1,2');
    respond(200, { status: '0', code: 500, message: 'export failed', errorCode: 'INTERNAL', requestId: 'r' });
    await expect(request('/export', { raw: true })).rejects.toMatchObject({ message: 'export failed' });
  });

  it('times out (spec §9: 2,700,000 ms; uploads 180 s)', async () => {
    vi.useFakeTimers();
    vi.stubGlobal(
      'fetch',
      vi.fn(
        (_url: string, init: RequestInit) =>
          new Promise((_res, rej) =>
            init.signal?.addEventListener('abort', () => rej(new DOMException('aborted', 'AbortError'))),
          ),
      ),
    );
    const p = request('/slow', { multipart: new FormData() });
    const assertion = expect(p).rejects.toMatchObject({ errorCode: 'TIMEOUT', message: 'text:timeout' });
    await vi.advanceTimersByTimeAsync(179_999);
    await vi.advanceTimersByTimeAsync(2);
    await assertion;
    const p2 = request('/slow');
    const a2 = expect(p2).rejects.toMatchObject({ errorCode: 'TIMEOUT' });
    await vi.advanceTimersByTimeAsync(2_700_001);
    await a2;
  });

  it('encodes and trims helpers', () => {
    expect(trimDeep({ a: ' x ', b: [' y '], c: 1 })).toEqual({ a: 'x', b: ['y'], c: 1 });
    expect(encodeParams({ a: undefined, b: 0, c: false, d: { e: 1 } }).toString()).toBe(
      'b=0&c=false&d=%7B%22e%22%3A1%7D',
    );
  });
});

/**
 * The SMS provider configuration (SMS_PROVIDER, SMS_HTTP_*) and the HTTP gateway adapter's failure kinds against a
 * local receiver (no network): a gateway that never answers times out, a redirect is not followed.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseSms } from '../src/config/config';
import { HttpSmsProvider, SmsDeliveryError } from '../src/modules/sms/sms-provider';
import '../src/lib/i18n';

describe('parseSms', () => {
  it('defaults to the outbox and reads the HTTP gateway settings', () => {
    expect(parseSms({})).toEqual({ kind: 'outbox' });
    expect(parseSms({ SMS_PROVIDER: 'Outbox' })).toEqual({ kind: 'outbox' });
    expect(
      parseSms({
        SMS_PROVIDER: 'http',
        SMS_HTTP_URL: 'https://sms.example.cn/v1/send',
        SMS_HTTP_KEY: 'k',
        SMS_HTTP_TEMPLATE: 'T1',
        SMS_HTTP_SIGN: 'eSource',
      }),
    ).toEqual({
      kind: 'http',
      url: 'https://sms.example.cn/v1/send',
      key: 'k',
      template: 'T1',
      sign: 'eSource',
      timeoutMs: 10_000,
    });
  });
  it('refuses an unknown provider, a missing or non-HTTP URL and a bad timeout', () => {
    expect(() => parseSms({ SMS_PROVIDER: 'carrier-pigeon' })).toThrow(/outbox or http/);
    expect(() => parseSms({ SMS_PROVIDER: 'http' })).toThrow(/SMS_HTTP_URL/);
    expect(() => parseSms({ SMS_PROVIDER: 'http', SMS_HTTP_URL: 'ftp://x/y' })).toThrow(/SMS_HTTP_URL/);
    expect(() =>
      parseSms({ SMS_PROVIDER: 'http', SMS_HTTP_URL: 'http://x/y', SMS_HTTP_TIMEOUT_MS: '-1' }),
    ).toThrow(/TIMEOUT/);
  });
});

describe('HttpSmsProvider', () => {
  let server: http.Server;
  let base: string;
  beforeAll(async () => {
    server = http.createServer((req, res) => {
      req.resume();
      if (req.url === '/slow') return; // never answers
      if (req.url === '/redirect') return void res.writeHead(302, { location: '/ok' }).end();
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ id: 42 }));
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((r) => server.close(r));
  });

  const provider = (path: string, timeoutMs = 2000) =>
    new HttpSmsProvider({
      kind: 'http',
      url: `${base}${path}`,
      key: undefined,
      template: undefined,
      sign: undefined,
      timeoutMs,
    });
  const message = {
    phone: '13900000000',
    template: 'bindPhone' as const,
    params: { code: '123456', minutes: 5 },
    language: 'en_US' as const,
    userId: 1,
  };

  it('answers the gateway’s id', async () => {
    expect(await provider('/ok').send(message)).toEqual({ id: '42' });
  });
  it('times out on a gateway that does not answer', async () => {
    const err = await provider('/slow', 200)
      .send(message)
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(SmsDeliveryError);
    expect((err as SmsDeliveryError).reason).toBe('timeout');
  });
  it('does not follow a redirect (a 3xx is a failure)', async () => {
    const err = await provider('/redirect')
      .send(message)
      .catch((e: unknown) => e);
    expect((err as SmsDeliveryError).reason).toBe('status');
    expect((err as SmsDeliveryError).params).toEqual({ status: 302 });
  });
});

import { describe, expect, it } from 'vitest';
import { parseWebAuthn } from '../../config/config';
import { relyingPartyOf } from './relying-party';

const req = (host: string, protocol: 'http' | 'https' = 'https') => ({
  host,
  hostname: host.replace(/:\d+$/, ''),
  protocol,
});

describe('WebAuthn relying party (WEBAUTHN_*, PUBLIC_URL)', () => {
  it('takes the configured RP ID and origins, https by default', () => {
    expect(parseWebAuthn({ WEBAUTHN_RP_ID: 'Esource.Example.com' }, 8080, true)).toEqual({
      mode: 'fixed',
      rpName: 'eSource',
      rpId: 'esource.example.com',
      origins: ['https://esource.example.com'],
    });
    expect(
      parseWebAuthn(
        {
          WEBAUTHN_RP_ID: 'example.com',
          WEBAUTHN_ORIGINS: 'https://a.example.com, https://example.com:8443',
          WEBAUTHN_RP_NAME: 'Trial',
        },
        8080,
        true,
      ),
    ).toMatchObject({ rpName: 'Trial', origins: ['https://a.example.com', 'https://example.com:8443'] });
  });

  it('refuses IP addresses, origins off the RP ID, plain http outside localhost and paths', () => {
    expect(() => parseWebAuthn({ WEBAUTHN_RP_ID: '10.1.2.3' }, 8080, false)).toThrow(/not a domain name/);
    expect(() =>
      parseWebAuthn({ WEBAUTHN_RP_ID: 'example.com', WEBAUTHN_ORIGINS: 'https://evil.com' }, 8080, false),
    ).toThrow(/not on the RP ID/);
    expect(() =>
      parseWebAuthn({ WEBAUTHN_RP_ID: 'example.com', WEBAUTHN_ORIGINS: 'http://example.com' }, 8080, false),
    ).toThrow(/https/);
    expect(() =>
      parseWebAuthn(
        { WEBAUTHN_RP_ID: 'example.com', WEBAUTHN_ORIGINS: 'https://example.com/app' },
        8080,
        false,
      ),
    ).toThrow(/origin only/);
  });

  it('falls back to PUBLIC_URL, then localhost in development, and is off in production without either', () => {
    expect(parseWebAuthn({ PUBLIC_URL: 'https://trial.example.org/' }, 8080, true)).toMatchObject({
      rpId: 'trial.example.org',
      origins: ['https://trial.example.org'],
    });
    expect(parseWebAuthn({}, 4321, false)).toMatchObject({
      rpId: 'localhost',
      origins: ['http://localhost:4321', 'http://localhost:5173'],
    });
    expect(parseWebAuthn({ PUBLIC_URL: 'http://10.0.0.5:8080' }, 8080, true)).toEqual({
      mode: 'off',
      rpName: 'eSource',
    });
    expect(() => relyingPartyOf({ mode: 'off', rpName: 'x' }, req('a.example.com'))).toThrow(
      'PASSKEY_NOT_CONFIGURED',
    );
  });

  it('derives from the request only when WEBAUTHN_FROM_HOST says so, never for an IP or plain http', () => {
    const host = parseWebAuthn({ WEBAUTHN_FROM_HOST: '1', WEBAUTHN_RP_ID: 'ignored.example' }, 8080, true);
    expect(host).toEqual({ mode: 'host', rpName: 'eSource' });
    expect(relyingPartyOf(host, req('Site.Example.com:8443'))).toEqual({
      rpName: 'eSource',
      rpId: 'site.example.com',
      origins: ['https://site.example.com:8443'],
    });
    expect(relyingPartyOf(host, req('localhost:3000', 'http'))).toMatchObject({
      rpId: 'localhost',
      origins: ['http://localhost:3000'],
    });
    expect(() => relyingPartyOf(host, req('127.0.0.1:3000'))).toThrow('PASSKEY_NOT_CONFIGURED');
    expect(() => relyingPartyOf(host, req('site.example.com', 'http'))).toThrow('PASSKEY_NOT_CONFIGURED');
  });
});

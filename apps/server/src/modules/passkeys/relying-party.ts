/**
 * The WebAuthn relying party a request talks to: the RP ID a passkey is made for and the page origins its answers may
 * come from. Configured (WEBAUTHN_RP_ID + WEBAUTHN_ORIGINS, else PUBLIC_URL, else localhost in development), or — only
 * when WEBAUTHN_FROM_HOST is set — taken from the request's Host and protocol (config.ts parseWebAuthn).
 */
import type { FastifyRequest } from 'fastify';
import type { WebAuthnSettings } from '../../config/config';
import { AppError } from '../../lib/errors';

export interface RelyingParty {
  rpName: string;
  rpId: string;
  origins: string[];
}

const IP_LIKE = /^(\d{1,3}(\.\d{1,3}){3}|\[?[0-9a-f:]+\]?)$/i;

/** The relying party for this request; PASSKEY_NOT_CONFIGURED when face login is off or the host cannot be one. */
export function relyingPartyOf(
  settings: WebAuthnSettings,
  req: Pick<FastifyRequest, 'hostname' | 'host' | 'protocol'>,
): RelyingParty {
  switch (settings.mode) {
    case 'fixed':
      return { rpName: settings.rpName, rpId: settings.rpId, origins: settings.origins };
    case 'host': {
      // fastify's hostname/protocol follow X-Forwarded-Host/-Proto only from TRUST_PROXY's proxies
      const hostname = req.hostname.toLowerCase();
      if (!hostname || IP_LIKE.test(hostname)) throw new AppError('PASSKEY_NOT_CONFIGURED');
      const secure = req.protocol === 'https' || hostname === 'localhost';
      if (!secure) throw new AppError('PASSKEY_NOT_CONFIGURED');
      return {
        rpName: settings.rpName,
        rpId: hostname,
        origins: [`${req.protocol}://${req.host.toLowerCase()}`],
      };
    }
    case 'off':
      throw new AppError('PASSKEY_NOT_CONFIGURED');
  }
}

/** Whether face login can run at all with these settings (the profile page says so when it cannot). */
export function faceLoginAvailable(settings: WebAuthnSettings): boolean {
  return settings.mode !== 'off';
}

/**
 * A software WebAuthn authenticator for API tests (no browser): ES256 keys from node:crypto, 'none' attestation,
 * authenticator data and CBOR written by hand (WebAuthn §6.1, RFC 8949 major types 0–5). It answers the server's
 * options the way a platform authenticator (Face ID, Windows Hello) would, and can be told to misbehave: no user
 * verification, another origin or RP ID, a counter that does not go up, a wrong user handle, a broken signature.
 */
import { createHash, generateKeyPairSync, randomBytes, sign, type KeyObject } from 'node:crypto';

type Cbor = number | string | Buffer | Cbor[] | Map<number | string, Cbor>;

function head(major: number, n: number): Buffer {
  if (n < 24) return Buffer.from([(major << 5) | n]);
  if (n < 0x100) return Buffer.from([(major << 5) | 24, n]);
  if (n < 0x10000) return Buffer.from([(major << 5) | 25, n >> 8, n & 0xff]);
  const b = Buffer.alloc(5);
  b[0] = (major << 5) | 26;
  b.writeUInt32BE(n, 1);
  return b;
}

export function cbor(v: Cbor): Buffer {
  if (typeof v === 'number') return v >= 0 ? head(0, v) : head(1, -1 - v);
  if (typeof v === 'string') {
    const b = Buffer.from(v, 'utf8');
    return Buffer.concat([head(3, b.length), b]);
  }
  if (Buffer.isBuffer(v)) return Buffer.concat([head(2, v.length), v]);
  if (Array.isArray(v)) return Buffer.concat([head(4, v.length), ...v.map(cbor)]);
  const parts: Buffer[] = [head(5, v.size)];
  for (const [k, x] of v) parts.push(cbor(k), cbor(x));
  return Buffer.concat(parts);
}

const b64u = (b: Buffer | string) => Buffer.from(b).toString('base64url');
const sha256 = (b: Buffer | string) => createHash('sha256').update(b).digest();

export interface SoftCredential {
  id: Buffer;
  key: KeyObject;
  publicKeyCose: Buffer;
  counter: number;
  userHandle: string;
  rpId: string;
}

export interface Misbehaviour {
  /** user verification flag (default true) */
  uv?: boolean;
  origin?: string;
  /** the RP ID whose hash goes into the authenticator data */
  rpId?: string;
  /** the counter to report instead of the next one */
  counter?: number;
  userHandle?: string;
  /** flip a byte of the signature */
  badSignature?: boolean;
  /** answer a different challenge than the options' */
  challenge?: string;
}

export class SoftAuthenticator {
  readonly credentials: SoftCredential[] = [];
  constructor(
    readonly rpId: string,
    readonly origin: string,
  ) {}

  private authData(rpId: string, flags: number, counter: number, attested?: Buffer): Buffer {
    const c = Buffer.alloc(4);
    c.writeUInt32BE(counter >>> 0, 0);
    return Buffer.concat([sha256(rpId), Buffer.from([flags]), c, ...(attested ? [attested] : [])]);
  }

  /** navigator.credentials.create() for the server's registration options (`options.challenge`, `options.user.id`). */
  register(options: Record<string, unknown>, m: Misbehaviour = {}, reuse?: SoftCredential) {
    const user = options.user as { id: string };
    const rpId = m.rpId ?? this.rpId;
    let cred = reuse;
    if (!cred) {
      const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
      const jwk = publicKey.export({ format: 'jwk' });
      const cose = cbor(
        new Map<number, Cbor>([
          [1, 2],
          [3, -7],
          [-1, 1],
          [-2, Buffer.from(jwk.x!, 'base64url')],
          [-3, Buffer.from(jwk.y!, 'base64url')],
        ]),
      );
      cred = {
        id: randomBytes(32),
        key: privateKey,
        publicKeyCose: cose,
        counter: 0,
        userHandle: user.id,
        rpId,
      };
      this.credentials.push(cred);
    }
    const idLen = Buffer.alloc(2);
    idLen.writeUInt16BE(cred.id.length, 0);
    const attested = Buffer.concat([Buffer.alloc(16), idLen, cred.id, cred.publicKeyCose]);
    const flags = 0x01 | (m.uv === false ? 0 : 0x04) | 0x40;
    const authData = this.authData(rpId, flags, cred.counter, attested);
    const clientData = JSON.stringify({
      type: 'webauthn.create',
      challenge: m.challenge ?? (options.challenge as string),
      origin: m.origin ?? this.origin,
      crossOrigin: false,
    });
    const attestationObject = cbor(
      new Map<string, Cbor>([
        ['fmt', 'none'],
        ['attStmt', new Map()],
        ['authData', authData],
      ]),
    );
    return {
      credential: cred,
      response: {
        id: b64u(cred.id),
        rawId: b64u(cred.id),
        type: 'public-key' as const,
        response: {
          clientDataJSON: b64u(clientData),
          attestationObject: b64u(attestationObject),
          transports: ['internal'],
        },
        authenticatorAttachment: 'platform' as const,
        clientExtensionResults: {},
      },
    };
  }

  /** navigator.credentials.get() for the server's authentication options, with one of our credentials. */
  assert(options: Record<string, unknown>, cred: SoftCredential, m: Misbehaviour = {}) {
    const counter = m.counter ?? ++cred.counter;
    const flags = 0x01 | (m.uv === false ? 0 : 0x04);
    const authData = this.authData(m.rpId ?? cred.rpId, flags, counter);
    const clientData = Buffer.from(
      JSON.stringify({
        type: 'webauthn.get',
        challenge: m.challenge ?? (options.challenge as string),
        origin: m.origin ?? this.origin,
        crossOrigin: false,
      }),
    );
    const signature = sign('sha256', Buffer.concat([authData, sha256(clientData)]), cred.key);
    if (m.badSignature)
      signature.writeUInt8(signature.readUInt8(signature.length - 1) ^ 0xff, signature.length - 1);
    return {
      id: b64u(cred.id),
      rawId: b64u(cred.id),
      type: 'public-key' as const,
      response: {
        clientDataJSON: b64u(clientData),
        authenticatorData: b64u(authData),
        signature: b64u(signature),
        userHandle: m.userHandle ?? cred.userHandle,
      },
      authenticatorAttachment: 'platform' as const,
      clientExtensionResults: {},
    };
  }
}

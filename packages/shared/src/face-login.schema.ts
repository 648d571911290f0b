/**
 * Face login (issue 15 item 2; spec §7 POST /passport/getfaceAttest and /passport/faceLogin): WebAuthn passkeys held by
 * a platform authenticator — Face ID, Windows Hello, Android face unlock — verified with @simplewebauthn/server. The
 * face never leaves the device: the authenticator verifies the user and signs the server's challenge with a key made
 * for this site. Enrolment and removal from the profile page (/user-info).
 *
 * Calls (docs/decisions.md "Face login and real-name verification"):
 * - getfaceAttest `{ purpose: 'login', account? }` (no session) → authentication options for a discoverable
 *   credential; an account typed on the login page binds the challenge to it.
 * - getfaceAttest `{ purpose: 'register', password }` (with a session; the current password re-authenticates) →
 *   registration options for the caller.
 * - `/user/passkey/register` `{ challengeId, deviceName, credential }` → the new passkey.
 * - faceLogin `{ challengeId, credential, loginType, variant? }` → the same answer as /passport/login.
 * - GET `/user/passkey/list`; `/user/passkey/remove` `{ id, password }`.
 */
import { z } from 'zod';
import { LIMITS } from './constants';
import { idSchema } from './common.schema';
import { loginTypeSchema, passwordDigest } from './auth.schema';

export const FACE_LOGIN = {
  /** a challenge is good for this long after the options were given, and once */
  challengeSeconds: 120,
  /** how long the browser waits for the authenticator (WebAuthn `timeout`) */
  timeoutMs: 60_000,
  /** passkeys one user may hold (the profile lists them all, no paging) */
  maxPasskeys: 10,
  deviceNameMax: 50,
} as const;

/** base64url text (WebAuthn's JSON encoding of bytes) of at most `max` characters. */
const b64url = (max: number) =>
  z
    .string()
    .min(1)
    .max(max)
    .regex(/^[A-Za-z0-9_-]+$/, { message: 'validation.base64url' });

/** Credential ids are at most 1023 bytes (WebAuthn §5.8.3): 1364 base64url characters. */
const credentialId = b64url(1364);

const clientExtensionResults = z.record(z.string(), z.unknown()).default({});
const attachment = z.enum(['platform', 'cross-platform']).optional();

/** What @simplewebauthn/browser's startRegistration() gives (RegistrationResponseJSON), sizes bounded. */
export const webauthnRegistrationResponse = z.object({
  id: credentialId,
  rawId: credentialId,
  type: z.literal('public-key'),
  response: z.object({
    clientDataJSON: b64url(4096),
    attestationObject: b64url(65_536),
    authenticatorData: b64url(65_536).optional(),
    transports: z.array(z.string().max(20)).max(10).optional(),
    publicKeyAlgorithm: z.number().int().optional(),
    publicKey: b64url(8192).optional(),
  }),
  authenticatorAttachment: attachment,
  clientExtensionResults,
});
export type WebauthnRegistrationResponse = z.infer<typeof webauthnRegistrationResponse>;

/** What startAuthentication() gives (AuthenticationResponseJSON), sizes bounded. */
export const webauthnAuthenticationResponse = z.object({
  id: credentialId,
  rawId: credentialId,
  type: z.literal('public-key'),
  response: z.object({
    clientDataJSON: b64url(4096),
    authenticatorData: b64url(65_536),
    signature: b64url(8192),
    userHandle: b64url(128).optional(),
  }),
  authenticatorAttachment: attachment,
  clientExtensionResults,
});
export type WebauthnAuthenticationResponse = z.infer<typeof webauthnAuthenticationResponse>;

const blank = (v: unknown): unknown => (v === '' || v === null ? undefined : v);

export const FACE_PURPOSES = ['login', 'register'] as const;
export type FacePurpose = (typeof FACE_PURPOSES)[number];

/**
 * getfaceAttest. `login` (no session): `account`, when given, binds the challenge to that account (a passkey of
 * anyone else is then refused). `register` (the caller's session): `password` is the SHA-256 digest of the current
 * password — adding a way to log in re-authenticates, counted against the lockout like a signature.
 */
export const faceAttestRequest = z.preprocess(
  // no purpose = a login (the login page's call)
  (v) => (v && typeof v === 'object' && !('purpose' in v) ? { ...v, purpose: 'login' } : v),
  z.discriminatedUnion('purpose', [
    z.object({
      purpose: z.literal('login'),
      account: z.preprocess(blank, z.string().trim().min(1).max(LIMITS.accountMax).optional()),
    }),
    z.object({ purpose: z.literal('register'), password: passwordDigest }),
  ]),
);
export type FaceAttestRequest = z.infer<typeof faceAttestRequest>;

export const faceAttestResponse = z.object({
  /** names the stored challenge; sent back with the authenticator's answer */
  challengeId: z.uuid(),
  purpose: z.enum(FACE_PURPOSES),
  /** seconds the challenge stays good */
  expiresIn: z.number().int(),
  /**
   * PublicKeyCredentialCreationOptionsJSON (register) or PublicKeyCredentialRequestOptionsJSON (login), as
   * @simplewebauthn/browser's startRegistration / startAuthentication take them (`optionsJSON`)
   */
  options: z.record(z.string(), z.unknown()),
});
export type FaceAttestResponse = z.infer<typeof faceAttestResponse>;

export const faceLoginRequest = z.object({
  challengeId: z.uuid(),
  credential: webauthnAuthenticationResponse,
  loginType: loginTypeSchema,
  variant: z.enum(['main', 'site', 'ae']).optional(),
});
export type FaceLoginRequest = z.infer<typeof faceLoginRequest>;

export const passkeyRegisterRequest = z.object({
  challengeId: z.uuid(),
  deviceName: z.string().trim().min(1).max(FACE_LOGIN.deviceNameMax),
  credential: webauthnRegistrationResponse,
});
export type PasskeyRegisterRequest = z.infer<typeof passkeyRegisterRequest>;

export const passkeyRow = z.object({
  id: z.number().int(),
  deviceName: z.string(),
  /** internal (the device itself), hybrid (a phone nearby), usb, nfc, ble … as the authenticator reported */
  transports: z.array(z.string()),
  /** multiDevice: a synced passkey (iCloud Keychain, Google Password Manager); singleDevice: bound to one device */
  deviceType: z.enum(['singleDevice', 'multiDevice']),
  backedUp: z.boolean(),
  createdAt: z.string(),
  lastUsedAt: z.string().nullable(),
});
export type PasskeyRow = z.infer<typeof passkeyRow>;

export const passkeyList = z.object({
  rows: z.array(passkeyRow),
  max: z.number().int(),
  /** whether the server can run face login at all (WEBAUTHN_* / PUBLIC_URL configured) */
  available: z.boolean(),
});
export type PasskeyList = z.infer<typeof passkeyList>;

/** Removing a passkey re-authenticates with the current password (digest), like enrolling one. */
export const passkeyRemoveRequest = z.object({ id: idSchema, password: passwordDigest });

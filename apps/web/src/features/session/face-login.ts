import type {
  FaceAttestResponse,
  LoginResponse,
  LoginType,
  LoginVariant,
  WebauthnAuthenticationResponse,
} from '@esource/shared';
import { api } from '../../lib/api-client';

/**
 * Face login (spec §7 POST /passport/getfaceAttest, /passport/faceLogin): a passkey of this device's own
 * authenticator — Face ID, Windows Hello, Android face unlock. @simplewebauthn/browser is loaded only when the user
 * asks for it, so the login page keeps its small first load.
 */

/** Whether this browser can use WebAuthn at all (the button is shown only then). */
export function webauthnSupported(): boolean {
  return typeof window !== 'undefined' && typeof window.PublicKeyCredential === 'function';
}

/** Why the browser's ceremony ended without an answer, as a key of the `auth` namespace's `face` texts. */
export type FaceCeremonyProblem = 'cancelled' | 'notHere' | 'exists' | 'failed';

/** A refusal by the browser or the authenticator (not by the server, which answers with ApiError). */
export class FaceCeremonyError extends Error {
  override name = 'FaceCeremonyError';
  constructor(
    readonly problem: FaceCeremonyProblem,
    message: string,
  ) {
    super(message);
  }
}

/**
 * The browser's WebAuthn errors by what the user can do about them: NotAllowedError = cancelled or timed out (also
 * no passkey for this site on the device), SecurityError = the page's address cannot use passkeys (an IP address, or
 * not the configured site), InvalidStateError = this device already holds a passkey of the account (enrolment).
 */
export function ceremonyProblem(err: unknown): FaceCeremonyError {
  const e = err as { name?: string; message?: string; cause?: { name?: string } };
  const name = e.cause?.name ?? e.name ?? '';
  const message = e.message ?? String(err);
  if (name === 'NotAllowedError' || name === 'AbortError') return new FaceCeremonyError('cancelled', message);
  if (name === 'SecurityError') return new FaceCeremonyError('notHere', message);
  if (name === 'InvalidStateError') return new FaceCeremonyError('exists', message);
  return new FaceCeremonyError('failed', message);
}

/**
 * The whole face login: options from the server (bound to `account` when one was typed), the device's
 * authenticator, then the server's verification, which answers exactly like a password login.
 */
export async function loginWithPasskey(input: {
  account: string;
  loginType: LoginType;
  variant: LoginVariant;
}): Promise<LoginResponse> {
  const quiet = { silent: true, ignore401: true } as const;
  const attest = await api.postJson<FaceAttestResponse>(
    '/passport/getfaceAttest',
    { purpose: 'login', ...(input.account ? { account: input.account } : {}) },
    quiet,
  );
  const { startAuthentication } = await import('@simplewebauthn/browser');
  let credential: WebauthnAuthenticationResponse;
  try {
    credential = (await startAuthentication({
      optionsJSON: attest.options as unknown as Parameters<typeof startAuthentication>[0]['optionsJSON'],
    })) as WebauthnAuthenticationResponse;
  } catch (err) {
    throw ceremonyProblem(err);
  }
  return api.postJson<LoginResponse>(
    '/passport/faceLogin',
    {
      challengeId: attest.challengeId,
      credential,
      loginType: input.loginType,
      variant: input.variant,
    },
    quiet,
  );
}

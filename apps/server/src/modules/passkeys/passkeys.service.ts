/**
 * Face login (issue 15 item 2): WebAuthn passkeys of platform authenticators — Face ID, Windows Hello, Android face
 * unlock — with @simplewebauthn/server. The face is checked on the device; the server sees a signature over its own
 * challenge by a key it registered.
 *
 * What must always hold:
 * - a challenge is random (32 bytes), stored in the database (several processes), good for FACE_LOGIN.challengeSeconds
 *   and taken once by one UPDATE before anything is verified: a replayed answer finds it used;
 * - a registration challenge belongs to the user who asked for it (after re-entering the password); a login challenge
 *   may be bound to the account typed on the login page, and then only that account's passkey is accepted;
 * - the passkey's owner must be the user whose handle the authenticator returned; its signature counter must go up
 *   (unless the authenticator keeps none) — checked again in the UPDATE that stores it;
 * - a face login passes every rule a password login does (AuthService.admit: disabled, login type and site, login
 *   windows; and a locked account stays locked) and starts the same session;
 * - every attempt, accepted or refused, is audited (login.success / login.failure, passkey.*); a refusal changes
 *   nothing but the spent challenge.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { and, count, eq, lt, sql } from 'drizzle-orm';
import {
  generateAuthenticationOptions,
  generateRegistrationOptions,
  verifyAuthenticationResponse,
  verifyRegistrationResponse,
} from '@simplewebauthn/server';
import {
  FACE_LOGIN,
  type FaceAttestRequest,
  type FaceAttestResponse,
  type FaceLoginRequest,
  type LoginResponse,
  type LoginType,
  type PasskeyList,
  type PasskeyRegisterRequest,
  type PasskeyRow,
} from '@esource/shared';
import type { Config } from '../../config/config';
import type { Db } from '../../db/client';
import { webauthnChallenges, webauthnCredentials } from '../../db/schema';
import type { AuthedContext, RequestContext } from '../../lib/context';
import { AppError } from '../../lib/errors';
import { actorOf, recordAudit } from '../audit/audit.service';
import * as authRepo from '../auth/auth.repo';
import { AuthService, type LoginMeta } from '../auth/auth.service';
import { faceLoginAvailable, relyingPartyOf, type RelyingParty } from './relying-party';

type Challenge = typeof webauthnChallenges.$inferSelect;
type Credential = typeof webauthnCredentials.$inferSelect;
type HostOf = Parameters<typeof relyingPartyOf>[1];

/** A refusal of the authenticator's answer: the error code and, for a failed check, which check (catalogue key). */
function refusalOf(err: unknown): AppError {
  const msg = err instanceof Error ? err.message : String(err);
  if (/counter value/i.test(msg)) return new AppError('PASSKEY_COUNTER');
  const origin = /origin "([^"]*)"/i.exec(msg)?.[1];
  const key =
    origin !== undefined
      ? 'origin'
      : /RP ID/i.test(msg)
        ? 'rpId'
        : /challenge/i.test(msg)
          ? 'challenge'
          : /verification (was )?required|could not be verified/i.test(msg)
            ? 'userVerification'
            : /not present/i.test(msg)
              ? 'userPresence'
              : /\balg\b|algorithm/i.test(msg)
                ? 'algorithm'
                : 'format';
  return new AppError('PASSKEY_VERIFY_FAILED', {
    detail: `profile.passkeyReason.${key}`,
    origin: origin ?? '',
  });
}

/** The short form of a credential id for audit rows and logs (the id is not secret, but long). */
const shortId = (id: string) => (id.length > 16 ? `${id.slice(0, 16)}…` : id);

export class PasskeyService {
  constructor(
    private readonly db: Db,
    private readonly config: Config,
    private readonly auth: AuthService,
  ) {}

  /** A fresh challenge row; expired rows older than a day go at the same time (kept that long for the record). */
  private async newChallenge(
    rp: RelyingParty,
    purpose: 'login' | 'register',
    challenge: string,
    who: { userId?: number; userHandle?: string; accountKey?: string | null; ip: string },
  ) {
    const id = randomUUID();
    const now = Date.now();
    await this.db
      .delete(webauthnChallenges)
      .where(lt(webauthnChallenges.expiresAt, new Date(now - 24 * 3600_000)));
    await this.db.insert(webauthnChallenges).values({
      id,
      purpose,
      challenge,
      userId: who.userId ?? null,
      userHandle: who.userHandle ?? null,
      accountKey: who.accountKey ?? null,
      rpId: rp.rpId,
      origins: rp.origins,
      ip: who.ip,
      expiresAt: new Date(now + FACE_LOGIN.challengeSeconds * 1000),
    });
    return id;
  }

  /**
   * Takes a challenge: one UPDATE marks it used when it exists, has this purpose, is unused and unexpired (and, for a
   * registration, belongs to `userId`). Null when any of that fails — the caller refuses; a second use finds it used.
   */
  private async takeChallenge(
    id: string,
    purpose: 'login' | 'register',
    userId?: number,
  ): Promise<Challenge | null> {
    const rows = await this.db
      .update(webauthnChallenges)
      .set({ usedAt: new Date() })
      .where(
        and(
          eq(webauthnChallenges.id, id),
          eq(webauthnChallenges.purpose, purpose),
          sql`${webauthnChallenges.usedAt} is null`,
          sql`${webauthnChallenges.expiresAt} > now()`,
          purpose === 'register' ? eq(webauthnChallenges.userId, userId ?? -1) : undefined,
        ),
      )
      .returning();
    return rows[0] ?? null;
  }

  private async credentialsOf(userId: number): Promise<Credential[]> {
    return this.db
      .select()
      .from(webauthnCredentials)
      .where(eq(webauthnCredentials.userId, userId))
      .orderBy(webauthnCredentials.id);
  }

  private static row(c: Credential): PasskeyRow {
    return {
      id: c.id,
      deviceName: c.deviceName,
      transports: c.transports,
      deviceType: c.deviceType,
      backedUp: c.backedUp,
      createdAt: c.createdAt.toISOString(),
      lastUsedAt: c.lastUsedAt?.toISOString() ?? null,
    };
  }

  /** POST /passport/getfaceAttest: options for a login (no session) or for enrolling a passkey (the caller's session). */
  async options(ctx: RequestContext, host: HostOf, input: FaceAttestRequest): Promise<FaceAttestResponse> {
    const rp = relyingPartyOf(this.config.webauthn, host);
    if (input.purpose === 'login') {
      const options = await generateAuthenticationOptions({
        rpID: rp.rpId,
        // discoverable credentials: the authenticator offers this site's passkeys, so no list reveals which accounts hold one
        allowCredentials: [],
        userVerification: 'required',
        timeout: FACE_LOGIN.timeoutMs,
      });
      const accountKey = input.account ? input.account.trim().toLowerCase() : null;
      const challengeId = await this.newChallenge(rp, 'login', options.challenge, { accountKey, ip: ctx.ip });
      return {
        challengeId,
        purpose: 'login',
        expiresIn: FACE_LOGIN.challengeSeconds,
        options: { ...options },
      };
    }
    // enrolment: the guard of this public call did not require a session, so check it here as a guarded route would
    if (!ctx.user || ctx.sessionId === null || ctx.loginType === null) throw new AppError('UNAUTHENTICATED');
    const authed = ctx as AuthedContext;
    const user = await authRepo.findUserById(this.db, authed.user.id);
    if (!user) throw new AppError('UNAUTHENTICATED');
    if (user.passwordChangedAt === null) throw new AppError('PASSWORD_CHANGE_REQUIRED');
    // adding a way to log in re-authenticates (a stolen session must not enrol the thief's authenticator)
    await this.auth.reauthenticate(authed, input.password, 'passkey.register');
    const existing = await this.credentialsOf(user.id);
    if (existing.length >= FACE_LOGIN.maxPasskeys)
      throw new AppError('PASSKEY_LIMIT', { max: FACE_LOGIN.maxPasskeys });
    // one random WebAuthn user id per user, shared by their passkeys (a new one when they have none)
    const handle = existing[0]?.userHandle ?? randomBytes(32).toString('base64url');
    const options = await generateRegistrationOptions({
      rpName: rp.rpName,
      rpID: rp.rpId,
      userName: user.account,
      userDisplayName: user.name,
      userID: new Uint8Array(Buffer.from(handle, 'base64url')),
      timeout: FACE_LOGIN.timeoutMs,
      attestationType: 'none',
      excludeCredentials: existing.map((c) => ({ id: c.credentialId, transports: c.transports })),
      // the device's own authenticator (Face ID, Windows Hello, Android face unlock), verifying the user, keeping the
      // passkey (discoverable: the login page names no account)
      authenticatorSelection: {
        authenticatorAttachment: 'platform',
        residentKey: 'required',
        requireResidentKey: true,
        userVerification: 'required',
      },
    });
    const challengeId = await this.newChallenge(rp, 'register', options.challenge, {
      userId: user.id,
      userHandle: handle,
      ip: ctx.ip,
    });
    return {
      challengeId,
      purpose: 'register',
      expiresIn: FACE_LOGIN.challengeSeconds,
      options: { ...options },
    };
  }

  /** Audits a refused enrolment (its own transaction: the request fails) and returns the error to throw. */
  private async refuseRegistration(
    ctx: AuthedContext,
    err: AppError,
    detail: Record<string, unknown>,
  ): Promise<AppError> {
    await this.db.transaction(async (tx) => {
      await recordAudit(tx, actorOf(ctx), [
        {
          action: 'passkey.registerRefused',
          entity: 'user',
          entityId: ctx.user.id,
          newValue: detail,
          reason: err.code,
        },
      ]);
    });
    return err;
  }

  /** POST /user/passkey/register: verifies the authenticator's answer to the caller's registration challenge. */
  async register(ctx: AuthedContext, input: PasskeyRegisterRequest): Promise<PasskeyRow> {
    const attempt = { credentialId: shortId(input.credential.id), deviceName: input.deviceName };
    const ch = await this.takeChallenge(input.challengeId, 'register', ctx.user.id);
    if (!ch) throw await this.refuseRegistration(ctx, new AppError('PASSKEY_CHALLENGE_INVALID'), attempt);
    let info;
    try {
      const v = await verifyRegistrationResponse({
        response: input.credential,
        expectedChallenge: ch.challenge,
        expectedOrigin: ch.origins,
        expectedRPID: ch.rpId,
        requireUserVerification: true,
      });
      if (!v.verified) throw new Error('signature');
      info = v.registrationInfo;
    } catch (e) {
      const err =
        e instanceof Error && e.message === 'signature'
          ? new AppError('PASSKEY_VERIFY_FAILED', { detail: 'profile.passkeyReason.signature' })
          : refusalOf(e);
      throw await this.refuseRegistration(ctx, err, {
        ...attempt,
        problem: e instanceof Error ? e.message.slice(0, 200) : String(e),
      });
    }
    const cred = info.credential;
    const result = await this.db.transaction(async (tx) => {
      // the user's row lock serialises two enrolments of one user (the limit holds)
      await tx.execute(sql`select id from users where id = ${ctx.user.id}::int for update`);
      const [{ n } = { n: 0 }] = await tx
        .select({ n: count() })
        .from(webauthnCredentials)
        .where(eq(webauthnCredentials.userId, ctx.user.id));
      if (n >= FACE_LOGIN.maxPasskeys) return new AppError('PASSKEY_LIMIT', { max: FACE_LOGIN.maxPasskeys });
      const [dup] = await tx
        .select({ id: webauthnCredentials.id })
        .from(webauthnCredentials)
        .where(eq(webauthnCredentials.credentialId, cred.id));
      if (dup) return new AppError('PASSKEY_EXISTS');
      const [row] = await tx
        .insert(webauthnCredentials)
        .values({
          userId: ctx.user.id,
          credentialId: cred.id,
          // the WebAuthn user id the options carried (kept with the challenge)
          userHandle: ch.userHandle ?? randomBytes(32).toString('base64url'),
          publicKey: Buffer.from(cred.publicKey).toString('base64url'),
          counter: cred.counter,
          transports: (cred.transports ?? input.credential.response.transports ?? []).slice(0, 10),
          deviceType: info.credentialDeviceType,
          backedUp: info.credentialBackedUp,
          aaguid: info.aaguid,
          deviceName: input.deviceName,
        })
        .returning();
      await recordAudit(tx, actorOf(ctx), [
        {
          action: 'passkey.register',
          entity: 'user',
          entityId: ctx.user.id,
          newValue: {
            passkeyId: row!.id,
            credentialId: shortId(cred.id),
            deviceName: input.deviceName,
            aaguid: info.aaguid,
            deviceType: info.credentialDeviceType,
            transports: row!.transports,
          },
        },
      ]);
      return row!;
    });
    if (result instanceof AppError) throw await this.refuseRegistration(ctx, result, attempt);
    return PasskeyService.row(result);
  }

  /** POST /passport/faceLogin: verifies a passkey assertion and starts the same session as a password login. */
  async login(input: FaceLoginRequest, meta: LoginMeta): Promise<LoginResponse> {
    const loginType = input.loginType as LoginType;
    const presented = input.credential;
    const [cred] = await this.db
      .select()
      .from(webauthnCredentials)
      .where(eq(webauthnCredentials.credentialId, presented.id));
    const owner = cred ? await authRepo.findUserById(this.db, cred.userId) : null;
    const ch = await this.takeChallenge(input.challengeId, 'login');
    const label = (u: { account: string } | null) => u?.account ?? ch?.accountKey ?? '';
    if (!ch) {
      await this.auth.refuseLogin(
        meta,
        owner,
        label(owner),
        `passkey; challenge unknown, expired or used (${shortId(presented.id)})`,
      );
      throw new AppError('PASSKEY_CHALLENGE_INVALID');
    }
    if (!cred || !owner) {
      const named = ch.accountKey ? await authRepo.findUserByAccount(this.db, ch.accountKey) : null;
      await this.auth.refuseLogin(
        meta,
        named,
        label(named),
        `passkey; not registered (${shortId(presented.id)})`,
      );
      throw new AppError('PASSKEY_UNKNOWN');
    }
    if (ch.accountKey && owner.account.toLowerCase() !== ch.accountKey) {
      // user A's passkey presented to log in as B: recorded against B (the account named), naming A's passkey
      const named = await authRepo.findUserByAccount(this.db, ch.accountKey);
      await this.auth.refuseLogin(
        meta,
        named,
        ch.accountKey,
        `passkey; belongs to another account (user ${owner.id}, passkey ${cred.id})`,
      );
      throw new AppError('PASSKEY_USER_MISMATCH');
    }
    const handle = presented.response.userHandle;
    if (handle !== undefined && handle !== cred.userHandle) {
      await this.auth.refuseLogin(
        meta,
        owner,
        owner.account,
        `passkey; user handle does not match (passkey ${cred.id})`,
      );
      throw new AppError('PASSKEY_USER_MISMATCH');
    }
    const locked = AuthService.lockedMinutes(owner);
    if (locked !== null) {
      await this.auth.refuseLogin(meta, owner, owner.account, 'passkey; locked');
      throw new AppError('ACCOUNT_LOCKED', { minutes: locked });
    }
    let newCounter: number;
    let backedUp: boolean;
    try {
      const v = await verifyAuthenticationResponse({
        response: presented,
        expectedChallenge: ch.challenge,
        expectedOrigin: ch.origins,
        expectedRPID: ch.rpId,
        credential: {
          id: cred.credentialId,
          publicKey: new Uint8Array(Buffer.from(cred.publicKey, 'base64url')),
          counter: cred.counter,
          transports: cred.transports,
        },
        requireUserVerification: true,
      });
      if (!v.verified)
        throw new AppError('PASSKEY_VERIFY_FAILED', { detail: 'profile.passkeyReason.signature' });
      newCounter = v.authenticationInfo.newCounter;
      backedUp = v.authenticationInfo.credentialBackedUp;
    } catch (e) {
      const err = e instanceof AppError ? e : refusalOf(e);
      const problem = e instanceof Error ? e.message.slice(0, 200) : String(e);
      await this.auth.refuseLogin(
        meta,
        owner,
        owner.account,
        `passkey; ${err.code === 'PASSKEY_COUNTER' ? 'counter did not increase' : 'not verified'} (passkey ${cred.id}: ${problem})`,
      );
      throw err;
    }
    try {
      return await this.auth.admit(owner, loginType, input.variant, meta, {
        account: owner.account,
        method: 'passkey',
        inTx: async (tx) => {
          // the counter must still be below the new one (a parallel login with the same answer loses here)
          const done = await tx
            .update(webauthnCredentials)
            .set({ counter: newCounter, backedUp, lastUsedAt: new Date(), lastUsedIp: meta.ip })
            .where(
              and(
                eq(webauthnCredentials.id, cred.id),
                newCounter === 0
                  ? sql`${webauthnCredentials.counter} = 0`
                  : sql`${webauthnCredentials.counter} < ${newCounter}`,
              ),
            )
            .returning({ id: webauthnCredentials.id });
          if (done.length === 0) throw new AppError('PASSKEY_COUNTER');
        },
      });
    } catch (e) {
      if (e instanceof AppError && e.code === 'PASSKEY_COUNTER') {
        await this.auth.refuseLogin(
          meta,
          owner,
          owner.account,
          `passkey; counter did not increase (passkey ${cred.id})`,
        );
      }
      throw e;
    }
  }

  /** GET /user/passkey/list: the caller's passkeys, oldest first. */
  async list(ctx: AuthedContext): Promise<PasskeyList> {
    return {
      rows: (await this.credentialsOf(ctx.user.id)).map((c) => PasskeyService.row(c)),
      max: FACE_LOGIN.maxPasskeys,
      available: faceLoginAvailable(this.config.webauthn),
    };
  }

  /** POST /user/passkey/remove: the caller's own passkey, after re-entering the password; another's id is 404. */
  async remove(ctx: AuthedContext, id: number, password: string): Promise<void> {
    const [c] = await this.db
      .select()
      .from(webauthnCredentials)
      .where(and(eq(webauthnCredentials.id, id), eq(webauthnCredentials.userId, ctx.user.id)));
    if (!c) throw new AppError('NOT_FOUND', { entity: 'passkey' });
    await this.auth.reauthenticate(ctx, password, 'passkey.remove');
    await this.db.transaction(async (tx) => {
      const gone = await tx
        .delete(webauthnCredentials)
        .where(and(eq(webauthnCredentials.id, id), eq(webauthnCredentials.userId, ctx.user.id)))
        .returning({ id: webauthnCredentials.id });
      if (gone.length === 0) throw new AppError('NOT_FOUND', { entity: 'passkey' });
      await recordAudit(tx, actorOf(ctx), [
        {
          action: 'passkey.remove',
          entity: 'user',
          entityId: ctx.user.id,
          oldValue: {
            passkeyId: c.id,
            credentialId: shortId(c.credentialId),
            deviceName: c.deviceName,
            createdAt: c.createdAt,
            lastUsedAt: c.lastUsedAt,
          },
        },
      ]);
    });
  }
}

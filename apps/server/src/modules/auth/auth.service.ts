/**
 * Login, logout, session refresh, environment switch and password change (spec §1, §4, §5, §7).
 * The client sends SHA-256(password); we store argon2id of that digest.
 */
import { randomBytes } from 'node:crypto';
import { hash as argonHash, verify as argonVerify } from '@node-rs/argon2';
import { and, eq, isNull, ne } from 'drizzle-orm';
import {
  LOGIN_VARIANTS,
  passwordChangeDue,
  visibleModules,
  type Env,
  type LoginRequest,
  type LoginResponse,
  type LoginType,
  type PmsInfoResponse,
} from '@esource/shared';
import type { Db, Tx } from '../../db/client';
import { projectMembers, projects, sessions, users, type LoginWindow } from '../../db/schema';
import { AppError } from '../../lib/errors';
import type { AuthedContext } from '../../lib/context';
import type { Config } from '../../config/config';
import { actorOf, recordAudit, type AuditActor } from '../audit/audit.service';
import * as repo from './auth.repo';
import { hashToken } from './context.service';
import { checkNewPasswordDigest } from './password-policy';

/** argon2id of a password digest. */
export function hashPasswordDigest(digest: string): Promise<string> {
  return argonHash(digest.toLowerCase());
}

// Verified against when the account does not exist, so that timing does not reveal which accounts exist.
const DUMMY_HASH = hashPasswordDigest('0'.repeat(64));

export interface LoginMeta {
  ip: string;
  userAgent: string | null;
  requestId: string;
}

/** Is `now` inside one of the windows, in the group's time zone? An empty list means no restriction. */
export function insideLoginWindows(windows: LoginWindow[], timezone: string, now = new Date()): boolean {
  if (windows.length === 0) return true;
  const parts = new Intl.DateTimeFormat('en-GB', {
    timeZone: timezone,
    weekday: 'short',
    hour: '2-digit',
    minute: '2-digit',
    hourCycle: 'h23',
  }).formatToParts(now);
  const get = (t: string) => parts.find((p) => p.type === t)?.value ?? '';
  const weekday = ['Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat', 'Sun'].indexOf(get('weekday')) + 1;
  const hm = `${get('hour')}:${get('minute')}`;
  return windows.some((w) => w.days.includes(weekday) && hm >= w.start && hm < w.end);
}

export class AuthService {
  constructor(
    private readonly db: Db,
    private readonly config: Config,
  ) {}

  private actor(meta: LoginMeta, user: { id: number; name: string } | null, env: string | null): AuditActor {
    return { userId: user?.id ?? null, userName: user?.name ?? null, requestId: meta.requestId, ip: meta.ip, env };
  }

  /** Records a failed login in its own transaction (it must persist although the request fails). */
  private async fail(meta: LoginMeta, user: { id: number; name: string } | null, account: string, reason: string) {
    await this.db.transaction(async (tx) => {
      await recordAudit(tx, this.actor(meta, user, null), [
        { action: 'login.failure', entity: 'user', entityId: user?.id ?? null, newValue: account, reason },
      ]);
    });
  }

  /** Minutes until a lock ends, at least 1. */
  private static minutesUntil(t: Date, now = new Date()): number {
    return Math.max(1, Math.ceil((t.getTime() - now.getTime()) / 60000));
  }

  /**
   * Login. The attempt is counted BEFORE the password is verified, in one statement that increments and decides
   * (repo.claimUserAttempt), so parallel guesses cannot all read a stale count: at most LOGIN_MAX_FAILURES are ever
   * verified before the lock. Names without a user are counted the same way (login_throttle) and answered alike.
   */
  async login(input: LoginRequest, meta: LoginMeta): Promise<LoginResponse> {
    const loginType = input.loginType as LoginType;
    const max = this.config.loginMaxFailures;
    const user = await repo.findUserByAccount(this.db, input.account);
    const claim = user
      ? await repo.claimUserAttempt(this.db, user.id, max, this.config.loginLockMinutes)
      : await repo.claimNameAttempt(this.db, input.account.trim().toLowerCase(), max, this.config.loginLockMinutes);
    const now = new Date();
    if (claim.lockedUntil) {
      await this.fail(meta, user, input.account, user ? 'locked' : 'unknown account; locked');
      throw new AppError('ACCOUNT_LOCKED', { minutes: AuthService.minutesUntil(claim.lockedUntil, now) });
    }
    // an unknown account is verified against a dummy hash, so that timing does not tell it from a real one
    const ok = await argonVerify(user ? user.passwordHash : await DUMMY_HASH, input.password);
    if (!user || !ok) {
      const what = user ? 'bad password' : 'unknown account';
      if (claim.failures >= max) {
        await this.fail(meta, user, input.account, `${what}; account locked`);
        throw new AppError('ACCOUNT_LOCKED', { minutes: this.config.loginLockMinutes });
      }
      await this.fail(meta, user, input.account, what);
      throw new AppError('BAD_CREDENTIALS', { remaining: max - claim.failures });
    }
    await repo.clearUserFailures(this.db, user.id);
    return this.admit(user, loginType, input.variant, meta, { account: input.account, method: 'password' });
  }

  /**
   * What every login checks once the user has proved who they are (a password, a passkey — face login), and the
   * session it then starts: the account is enabled, may use this login type on this login site, is inside its
   * permission group's login windows; each refusal is audited as `login.failure` (a passkey's reasons start with
   * "passkey"). The session, the user's cleared failure count, `login.success` and what `inTx` writes (a passkey's
   * counter) are one transaction.
   */
  async admit(
    user: repo.UserRow,
    loginType: LoginType,
    variantInput: LoginRequest['variant'],
    meta: LoginMeta,
    how: { account: string; method: 'password' | 'passkey'; inTx?: (tx: Tx) => Promise<void> },
  ): Promise<LoginResponse> {
    const now = new Date();
    const why = (r: string) => (how.method === 'passkey' ? `passkey; ${r}` : r);
    if (user.status !== 1) {
      await this.fail(meta, user, how.account, why('disabled'));
      throw new AppError('ACCOUNT_DISABLED');
    }
    const variant = variantInput ?? (loginType === 3 ? 'site' : loginType === 4 ? 'ae' : 'main');
    if (!user.loginTypes.includes(loginType) || !LOGIN_VARIANTS[variant].loginTypes.includes(loginType)) {
      await this.fail(meta, user, how.account, why(`login type ${loginType} on ${variant} not allowed`));
      throw new AppError('LOGIN_TYPE_FORBIDDEN');
    }
    if (user.permissionGroupId) {
      const g = await repo.findPermissionGroup(this.db, user.permissionGroupId);
      if (g && g.status === 1 && !insideLoginWindows(g.loginWindows, g.timezone, now)) {
        await this.fail(meta, user, how.account, why(`outside login windows of group ${g.name}`));
        throw new AppError('LOGIN_WINDOW_CLOSED');
      }
    }
    const envs = await repo.envsWithMembership(this.db, user.id);
    const env: Env = (['PRO', 'UAT', 'DEV'] as const).find((e) => envs.includes(e)) ?? 'PRO';
    const token = randomBytes(32).toString('base64url');
    const expiresAt = new Date(now.getTime() + this.config.sessionIdleMinutes * 60000);
    await this.db.transaction(async (tx) => {
      await how.inTx?.(tx);
      await tx.update(users).set({ failedLoginCount: 0, lockedUntil: null, lastLoginAt: now }).where(eq(users.id, user.id));
      await tx.insert(sessions).values({
        tokenHash: hashToken(token),
        userId: user.id,
        loginType,
        env,
        ip: meta.ip,
        userAgent: meta.userAgent?.slice(0, 300) ?? null,
        expiresAt,
      });
      await recordAudit(tx, this.actor(meta, user, env), [
        {
          action: 'login.success',
          entity: 'user',
          entityId: user.id,
          newValue: how.method === 'passkey' ? `loginType=${loginType}; passkey` : `loginType=${loginType}`,
        },
      ]);
    });
    const role = user.systemRoleId ? await repo.findRole(this.db, user.systemRoleId) : null;
    return {
      token,
      expiresAt: expiresAt.toISOString(),
      passwordChangeDue: passwordChangeDue(user.passwordChangedAt, now),
      passwordChangeRequired: user.passwordChangedAt === null,
      user: {
        id: user.id,
        name: user.name,
        account: user.account,
        roleCode: role?.code ?? null,
        imgUrl: user.imgUrl,
        token,
        projectType: env,
        loginType,
      },
    };
  }

  /** A refused login attempt that is not a password's (a passkey's), audited like the password's refusals. */
  async refuseLogin(meta: LoginMeta, user: { id: number; name: string } | null, account: string, reason: string): Promise<void> {
    await this.fail(meta, user, account, reason);
  }

  /** Minutes until the user's lock ends, or null when the account is not locked. */
  static lockedMinutes(user: { lockedUntil: Date | null }, now = new Date()): number | null {
    return user.lockedUntil && user.lockedUntil.getTime() > now.getTime() ? AuthService.minutesUntil(user.lockedUntil, now) : null;
  }

  async logout(ctx: AuthedContext): Promise<void> {
    await this.db.transaction(async (tx) => {
      await tx.update(sessions).set({ endedAt: new Date(), endReason: 'logout' }).where(eq(sessions.id, ctx.sessionId));
      await recordAudit(tx, actorOf(ctx), [{ action: 'logout', entity: 'user', entityId: ctx.user.id }]);
    });
  }

  /** Keep-alive: extends the idle expiry. */
  async refresh(ctx: AuthedContext): Promise<{ expiresAt: string }> {
    const now = new Date();
    const expiresAt = new Date(now.getTime() + this.config.sessionIdleMinutes * 60000);
    await this.db.update(sessions).set({ lastSeenAt: now, expiresAt }).where(eq(sessions.id, ctx.sessionId));
    return { expiresAt: expiresAt.toISOString() };
  }

  /** The session's expiry, without extending it (the periodic session check). */
  async sessionExpiry(ctx: AuthedContext): Promise<{ expiresAt: string }> {
    const [row] = await this.db.select({ e: sessions.expiresAt }).from(sessions).where(eq(sessions.id, ctx.sessionId));
    return { expiresAt: row!.e.toISOString() };
  }

  async projectIdByUuid(ctx: AuthedContext, uuid: string, env: Env): Promise<{ proId: number; proType: Env }> {
    const [row] = await this.db
      .select({ id: projects.id })
      .from(projects)
      .innerJoin(projectMembers, and(eq(projectMembers.projectId, projects.id), eq(projectMembers.userId, ctx.user.id), eq(projectMembers.env, env), eq(projectMembers.status, 1)))
      .where(and(eq(projects.uuidNo, uuid), isNull(projects.deletedAt)));
    if (!row) throw new AppError('NOT_MEMBER');
    return { proId: row.id, proType: env };
  }

  /** Environments the user may use: any, with a system role; otherwise where a membership's role allows it. */
  async allowedEnvs(ctx: AuthedContext): Promise<Env[]> {
    if (ctx.user.systemRoleId) return ['DEV', 'UAT', 'PRO'];
    return repo.envsWithMembership(this.db, ctx.user.id);
  }

  async switchEnv(ctx: AuthedContext, env: Env): Promise<{ projectType: Env }> {
    if (!(await this.allowedEnvs(ctx)).includes(env)) throw new AppError('ENV_FORBIDDEN', { env });
    await this.db.transaction(async (tx) => {
      const [s] = await tx.select({ env: sessions.env }).from(sessions).where(eq(sessions.id, ctx.sessionId));
      await tx.update(sessions).set({ env }).where(eq(sessions.id, ctx.sessionId));
      await recordAudit(tx, actorOf(ctx), [
        { action: 'env.switch', entity: 'session', entityId: ctx.sessionId, field: 'env', oldValue: s?.env, newValue: env },
      ]);
    });
    return { projectType: env };
  }

  async pmsInfo(ctx: AuthedContext): Promise<PmsInfoResponse> {
    const profile = await repo.findUserProfile(this.db, ctx.user.id);
    if (!profile) throw new AppError('UNAUTHENTICATED');
    const { user } = profile;
    const pms = [...ctx.pms].sort();
    return {
      pms,
      // modules 2, 6 and 9 are system screens: only the system role opens them
      menus: visibleModules(ctx.systemPms, ctx.env).map((m) => ({ no: m.no, key: m.key, path: m.path })),
      user: {
        id: user.id,
        name: user.name,
        account: user.account,
        phone: user.phone,
        mail: user.mail,
        orgId: user.orgId,
        orgName: profile.orgName,
        loginType: ctx.loginType,
        roleCode: ctx.project?.roleCode ?? profile.systemRoleCode,
        imgUrl: user.imgUrl,
        projectType: ctx.env,
        passwordChangedAt: user.passwordChangedAt?.toISOString() ?? null,
        passwordChangeDue: passwordChangeDue(user.passwordChangedAt),
        passwordChangeRequired: user.passwordChangedAt === null,
      },
      currentSystemTime: new Date().toISOString(),
      affiliatedHospital: profile.orgName,
      loginProduct: ctx.loginType,
      project: ctx.project
        ? {
            id: ctx.project.id,
            no: ctx.project.no,
            name: ctx.project.name,
            status: ctx.project.status,
            role: ctx.project.roleCode,
            siteIds: ctx.project.siteIds,
          }
        : null,
    };
  }

  /**
   * Re-authentication of the logged-in user (an electronic signature, a password change): the current password
   * digest is verified like a login and counted against the same lockout (the attempt is taken before the verify;
   * at the limit the account locks and the user's sessions end). Wrong → WRONG_PASSWORD with the attempts left;
   * locked → ACCOUNT_LOCKED. Failures are audited as `reauth.failure` with the purpose.
   */
  async reauthenticate(ctx: AuthedContext, digest: string, purpose: string): Promise<void> {
    const max = this.config.loginMaxFailures;
    const claim = await repo.claimUserAttempt(this.db, ctx.user.id, max, this.config.loginLockMinutes);
    const failed = async (reason: string, endSessions: boolean) =>
      this.db.transaction(async (tx) => {
        if (endSessions) {
          await tx
            .update(sessions)
            .set({ endedAt: new Date(), endReason: 'locked' })
            .where(and(eq(sessions.userId, ctx.user.id), isNull(sessions.endedAt)));
        }
        await recordAudit(tx, actorOf(ctx), [{ action: 'reauth.failure', entity: 'user', entityId: ctx.user.id, newValue: purpose, reason }]);
      });
    if (claim.lockedUntil) {
      await failed('locked', true);
      throw new AppError('ACCOUNT_LOCKED', { minutes: AuthService.minutesUntil(claim.lockedUntil) });
    }
    const user = await repo.findUserById(this.db, ctx.user.id);
    if (!user || !(await argonVerify(user.passwordHash, digest))) {
      if (claim.failures >= max) {
        await failed('wrong password; account locked', true);
        throw new AppError('ACCOUNT_LOCKED', { minutes: this.config.loginLockMinutes });
      }
      await failed('wrong password', false);
      throw new AppError('WRONG_PASSWORD', { remaining: max - claim.failures });
    }
    await repo.clearUserFailures(this.db, user.id);
  }

  /**
   * Changes the caller's own password: the current password must be given and is verified (re-authentication,
   * counted against the lockout); the new one must pass the server's password policy and differ from the current
   * one; the user's other sessions end.
   */
  async updatePassword(ctx: AuthedContext, userId: number, currentDigest: string, newDigest: string): Promise<void> {
    if (userId !== ctx.user.id) throw new AppError('FORBIDDEN');
    await this.reauthenticate(ctx, currentDigest, 'password.change');
    const user = await repo.findUserById(this.db, userId);
    if (!user) throw new AppError('NOT_FOUND', { entity: 'user' });
    if (currentDigest.toLowerCase() === newDigest.toLowerCase()) throw new AppError('PASSWORD_REUSED');
    checkNewPasswordDigest(newDigest, user.account);
    const passwordHash = await hashPasswordDigest(newDigest);
    const now = new Date();
    await this.db.transaction(async (tx) => {
      await tx.update(users).set({ passwordHash, passwordChangedAt: now, updatedAt: now }).where(eq(users.id, userId));
      await tx
        .update(sessions)
        .set({ endedAt: now, endReason: 'password' })
        .where(and(eq(sessions.userId, userId), ne(sessions.id, ctx.sessionId), isNull(sessions.endedAt)));
      await recordAudit(tx, actorOf(ctx), [
        {
          action: 'password.change',
          entity: 'user',
          entityId: userId,
          field: 'passwordChangedAt',
          oldValue: user.passwordChangedAt,
          newValue: now,
        },
      ]);
    });
  }
}

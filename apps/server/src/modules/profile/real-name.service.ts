/**
 * Real-name verification (issue 15 item 2): the caller's name and resident ID number are checked by the configured
 * provider (real-name-provider.ts); a match is kept on the user (user_real_names: the name, the number masked and as
 * HMAC-SHA256 under a key derived from the server's secret key, the provider, when). The number itself is never stored,
 * logged or audited.
 *
 * Rules: REAL_NAME.perDay checks per user in 24 hours (counted in real_name_checks under a lock of the user, so that
 * parallel requests cannot pass together; refusals for a number verified elsewhere count too, which bounds probing);
 * one number is verified on one account (unique HMAC, checked again under a lock of the number when the answer comes);
 * the provider is called outside any transaction; every check and refusal is audited (realName.verify /
 * realName.refused) with the masked number.
 */
import { createHmac } from 'node:crypto';
import { and, count, eq, gt, ne, sql } from 'drizzle-orm';
import { maskIdNumber, REAL_NAME, type RealNameInfo, type RealNameVerifyRequest } from '@esource/shared';
import type { Db, Tx } from '../../db/client';
import { realNameChecks, userRealNames } from '../../db/schema';
import type { AuthedContext } from '../../lib/context';
import { AppError } from '../../lib/errors';
import { translator } from '../../lib/i18n';
import { actorOf, recordAudit } from '../audit/audit.service';
import { derivedKey } from '../sources/secret-box';
import type { RealNameOutcome, RealNameProvider } from './real-name-provider';

/** The keyed hash an ID number is kept as (matching a number again needs the server's key). */
export function idNumberHmac(idNumber: string): string {
  return createHmac('sha256', derivedKey('real-name-id/v1'))
    .update(idNumber.trim().toUpperCase())
    .digest('hex');
}

const DAY_MS = 24 * 3600_000;

export class RealNameService {
  constructor(
    private readonly db: Db,
    private readonly provider: RealNameProvider | null,
  ) {}

  private async usedToday(tx: Db | Tx, userId: number): Promise<number> {
    const [r] = await tx
      .select({ n: count() })
      .from(realNameChecks)
      .where(
        and(eq(realNameChecks.userId, userId), gt(realNameChecks.createdAt, new Date(Date.now() - DAY_MS))),
      );
    return r?.n ?? 0;
  }

  /** GET /user/realName: the caller's result (or none) and the checks left today. */
  async info(ctx: AuthedContext): Promise<RealNameInfo> {
    const [r] = await this.db.select().from(userRealNames).where(eq(userRealNames.userId, ctx.user.id));
    const used = await this.usedToday(this.db, ctx.user.id);
    return {
      verified: Boolean(r),
      name: r?.name ?? null,
      idNumberMasked: r?.idMasked ?? null,
      verifiedAt: r?.verifiedAt.toISOString() ?? null,
      provider: r?.provider ?? null,
      remainingToday: Math.max(0, REAL_NAME.perDay - used),
      available: this.provider !== null,
    };
  }

  private async refused(tx: Tx, ctx: AuthedContext, what: Record<string, unknown>, reason: string) {
    await recordAudit(tx, actorOf(ctx), [
      { action: 'realName.refused', entity: 'user', entityId: ctx.user.id, newValue: what, reason },
    ]);
  }

  /** POST /user/realName/verify. Throws the refusal (translated) after its audit row is committed. */
  async verify(ctx: AuthedContext, input: RealNameVerifyRequest): Promise<RealNameInfo> {
    const idMasked = maskIdNumber(input.idNumber);
    const what = { name: input.name, idNumber: idMasked, provider: this.provider?.name ?? null };
    const provider = this.provider;
    if (!provider) {
      await this.db.transaction((tx) => this.refused(tx, ctx, what, 'no provider configured'));
      throw new AppError('REAL_NAME_UNAVAILABLE', { detail: 'profile.realNameProvider.none' });
    }
    const idHmac = idNumberHmac(input.idNumber);
    // 1. the day's limit and a number verified on another account, under the user's lock; the check is recorded
    const started = await this.db.transaction(async (tx) => {
      await tx.execute(sql`select pg_advisory_xact_lock(hashtext(${`realname:user:${ctx.user.id}`}))`);
      if ((await this.usedToday(tx, ctx.user.id)) >= REAL_NAME.perDay) {
        await this.refused(tx, ctx, what, `daily limit (${REAL_NAME.perDay})`);
        return new AppError('REAL_NAME_DAILY_LIMIT', { max: REAL_NAME.perDay });
      }
      const base = { userId: ctx.user.id, provider: provider.name, idHmac, idMasked, ip: ctx.ip };
      if (await this.takenElsewhere(tx, ctx.user.id, idHmac)) {
        await tx
          .insert(realNameChecks)
          .values({ ...base, outcome: 'taken', reason: 'verified on another account' });
        await this.refused(tx, ctx, what, 'ID number verified on another account');
        return new AppError('REAL_NAME_ID_TAKEN');
      }
      const [row] = await tx
        .insert(realNameChecks)
        .values({ ...base, outcome: 'pending' })
        .returning({ id: realNameChecks.id });
      return row!.id;
    });
    if (started instanceof AppError) throw started;
    // 2. the provider, outside any transaction (a slow service must not hold the database)
    let answer: RealNameOutcome;
    try {
      answer = await provider.verify({
        name: input.name,
        idNumber: input.idNumber.trim().toUpperCase(),
        requestId: ctx.requestId,
      });
    } catch (e) {
      answer = {
        outcome: 'error',
        reason: e instanceof Error ? e.message.slice(0, 200) : String(e).slice(0, 200),
      };
    }
    // 3. the outcome, and on a match the result on the user — under the number's lock (one account per number)
    const t = translator(ctx.language);
    const providerName = t(`profile.realNameProvider.${provider.name}`, { defaultValue: provider.name });
    const outcome = await this.db.transaction(async (tx) => {
      const setOutcome = (o: string, reason: string | null) =>
        tx
          .update(realNameChecks)
          .set({ outcome: o, reason: reason?.slice(0, 200) ?? null })
          .where(eq(realNameChecks.id, started));
      if (answer.outcome === 'mismatch') {
        await setOutcome('mismatch', answer.reason ?? null);
        await this.refused(
          tx,
          ctx,
          what,
          `does not match (${provider.name}${answer.reason ? `: ${answer.reason}` : ''})`,
        );
        return new AppError('REAL_NAME_MISMATCH', { provider: providerName });
      }
      if (answer.outcome === 'error') {
        await setOutcome('error', answer.reason);
        await this.refused(tx, ctx, what, `provider error: ${answer.reason}`);
        return new AppError('REAL_NAME_UNAVAILABLE', {
          detail: 'profile.realNameProvider.failed',
          problem: answer.reason,
        });
      }
      await tx.execute(sql`select pg_advisory_xact_lock(hashtext(${`realname:id:${idHmac}`}))`);
      if (await this.takenElsewhere(tx, ctx.user.id, idHmac)) {
        await setOutcome('taken', 'verified on another account meanwhile');
        await this.refused(tx, ctx, what, 'ID number verified on another account');
        return new AppError('REAL_NAME_ID_TAKEN');
      }
      const [before] = await tx.select().from(userRealNames).where(eq(userRealNames.userId, ctx.user.id));
      const row = {
        name: input.name,
        idHmac,
        idMasked,
        provider: provider.name,
        providerRef: answer.reference?.slice(0, 100) ?? null,
        verifiedAt: new Date(),
      };
      await tx
        .insert(userRealNames)
        .values({ userId: ctx.user.id, ...row })
        .onConflictDoUpdate({ target: userRealNames.userId, set: row });
      await setOutcome('match', null);
      await recordAudit(tx, actorOf(ctx), [
        {
          action: 'realName.verify',
          entity: 'user',
          entityId: ctx.user.id,
          oldValue: before
            ? {
                name: before.name,
                idNumber: before.idMasked,
                provider: before.provider,
                verifiedAt: before.verifiedAt,
              }
            : null,
          newValue: { ...what, reference: row.providerRef },
        },
      ]);
      return null;
    });
    if (outcome) throw outcome;
    return this.info(ctx);
  }

  private async takenElsewhere(tx: Tx, userId: number, idHmac: string): Promise<boolean> {
    const [r] = await tx
      .select({ u: userRealNames.userId })
      .from(userRealNames)
      .where(and(eq(userRealNames.idHmac, idHmac), ne(userRealNames.userId, userId)));
    return Boolean(r);
  }
}

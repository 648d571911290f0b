/**
 * The phone change (issue 15 item 1; spec §7 POST /passport/sendCode4BindPhone, /user/changeBindPhone): a code is
 * sent to the NEW number, and the number is bound once the code comes back. What must always hold:
 * - a code is 6 random digits from the CSPRNG; only a salted SHA-256 is stored, never the code (nor is it logged or
 *   audited); it expires after SMS_CODE.ttlSeconds, works once, and is spent after SMS_CODE.maxAttempts wrong entries
 *   (each entry is counted under a row lock before it is compared, so parallel guesses cannot exceed the limit);
 * - a newer code replaces the account's older ones;
 * - at most one code a minute and SMS_CODE.perDay a day per number and per account (counted under advisory locks of
 *   the account and the number, so that parallel requests cannot both pass); an account's requests for numbers that
 *   turned out to be taken count toward its daily limit too (probing which numbers have accounts is bounded);
 * - a number is bound to one account at a time (checked when the code is sent and again, under a lock of the number,
 *   when it is bound);
 * - every attempt — sent, undelivered, refused (too soon, daily limit, taken, same), wrong, expired, reused, locked,
 *   changed — is audited, each in the transaction of its change.
 */
import { createHash, randomBytes, randomInt, timingSafeEqual } from 'node:crypto';
import { and, count, desc, eq, gt, isNull, max, ne, or, sql } from 'drizzle-orm';
import { SMS_CODE, maskPhone, type ErrorCode, type SendBindPhoneCodeResponse } from '@esource/shared';
import type { Db, Tx } from '../../db/client';
import { phoneCodes, users } from '../../db/schema';
import { AppError } from '../../lib/errors';
import type { AuthedContext } from '../../lib/context';
import { actorOf, recordAudit } from '../audit/audit.service';
import { SmsDeliveryError, type SmsProvider } from '../sms/sms-provider';
import { translator } from '../../lib/i18n';

const PURPOSE = 'bindPhone';
/** a request refused because the number was taken: kept only to count the account's requests */
const REFUSED = 'refused';
const DAY_MS = 24 * 3600 * 1000;

export function codeHash(salt: string, userId: number, phone: string, code: string): string {
  return createHash('sha256').update(`${salt}:${userId}:${phone}:${code}`).digest('hex');
}

/** 6 random digits (uniform: randomInt rejects the biased range). */
export function newCode(): string {
  return String(randomInt(0, 10 ** SMS_CODE.digits)).padStart(SMS_CODE.digits, '0');
}

interface Refusal {
  code: ErrorCode;
  params?: Record<string, string | number>;
}

async function lock(tx: Tx, key: string): Promise<void> {
  await tx.execute(sql`select pg_advisory_xact_lock(hashtext(${key}))`);
}

export class PhoneCodeService {
  constructor(
    private readonly db: Db,
    private readonly sms: SmsProvider,
    private readonly clock: () => Date = () => new Date(),
  ) {}

  private async phoneTaken(tx: Db | Tx, phone: string, userId: number): Promise<boolean> {
    const [row] = await tx
      .select({ id: users.id })
      .from(users)
      .where(and(eq(users.phone, phone), ne(users.id, userId)))
      .limit(1);
    return Boolean(row);
  }

  private async currentPhone(userId: number): Promise<string | null> {
    const [u] = await this.db.select({ phone: users.phone }).from(users).where(eq(users.id, userId));
    return u?.phone ?? null;
  }

  /** Requests in the last day and the time of the last one, for a number or an account. */
  private async usage(tx: Tx, by: 'phone' | 'user', phone: string, userId: number, since: Date) {
    const who =
      by === 'phone'
        ? and(
            eq(phoneCodes.phone, phone),
            or(isNull(phoneCodes.endReason), ne(phoneCodes.endReason, REFUSED)),
          )
        : eq(phoneCodes.userId, userId);
    const [all] = await tx
      .select({ n: count() })
      .from(phoneCodes)
      .where(and(who, gt(phoneCodes.createdAt, since)));
    // (a refused request does not hold back the next one: the user corrects a mistyped number at once)
    const [sent] = await tx
      .select({ last: max(phoneCodes.createdAt) })
      .from(phoneCodes)
      .where(
        and(
          who,
          gt(phoneCodes.createdAt, since),
          or(isNull(phoneCodes.endReason), ne(phoneCodes.endReason, REFUSED)),
        ),
      );
    return { n: all?.n ?? 0, last: sent?.last ?? null };
  }

  /** POST /passport/sendCode4BindPhone: a code to the new number. */
  async sendBindCode(ctx: AuthedContext, phone: string): Promise<SendBindPhoneCodeResponse> {
    const userId = ctx.user.id;
    const actor = actorOf(ctx);
    const audit = (tx: Tx, action: string, reason?: string, newValue: unknown = phone) =>
      recordAudit(tx, actor, [
        { action, entity: 'user', entityId: userId, field: 'phone', newValue, reason: reason ?? null },
      ]);

    if ((await this.currentPhone(userId)) === phone) {
      await this.db.transaction((tx) => audit(tx, 'phone.codeRefused', 'same number as the current one'));
      throw new AppError('PHONE_SAME');
    }
    const code = newCode();
    const salt = randomBytes(16).toString('hex');
    const outcome = await this.db.transaction(
      async (tx): Promise<Refusal | { id: number; expiresAt: Date }> => {
        await lock(tx, `sms:user:${userId}`);
        await lock(tx, `sms:phone:${phone}`);
        const now = this.clock();
        const since = new Date(now.getTime() - DAY_MS);
        for (const by of ['user', 'phone'] as const) {
          const u = await this.usage(tx, by, phone, userId, since);
          const wait = u.last
            ? Math.ceil((u.last.getTime() + SMS_CODE.resendSeconds * 1000 - now.getTime()) / 1000)
            : 0;
          if (wait > 0) {
            await audit(tx, 'phone.codeRefused', `too soon (per ${by === 'user' ? 'account' : 'number'})`);
            return { code: 'SMS_CODE_TOO_SOON', params: { seconds: wait } };
          }
          if (u.n >= SMS_CODE.perDay) {
            await audit(tx, 'phone.codeRefused', `daily limit (per ${by === 'user' ? 'account' : 'number'})`);
            return { code: 'SMS_CODE_DAILY_LIMIT', params: { max: SMS_CODE.perDay } };
          }
        }
        if (await this.phoneTaken(tx, phone, userId)) {
          await tx
            .insert(phoneCodes)
            .values({
              userId,
              phone,
              purpose: PURPOSE,
              salt: '',
              codeHash: '',
              expiresAt: now,
              endedAt: now,
              endReason: REFUSED,
              ip: ctx.ip.slice(0, 64),
            });
          await audit(tx, 'phone.codeRefused', 'number bound to another account');
          return { code: 'PHONE_TAKEN' };
        }
        // a newer code replaces the account's older ones
        await tx
          .update(phoneCodes)
          .set({ endedAt: now, endReason: 'replaced' })
          .where(
            and(
              eq(phoneCodes.userId, userId),
              eq(phoneCodes.purpose, PURPOSE),
              isNull(phoneCodes.usedAt),
              isNull(phoneCodes.endedAt),
            ),
          );
        const expiresAt = new Date(now.getTime() + SMS_CODE.ttlSeconds * 1000);
        const [row] = await tx
          .insert(phoneCodes)
          .values({
            userId,
            phone,
            purpose: PURPOSE,
            salt,
            codeHash: codeHash(salt, userId, phone, code),
            expiresAt,
            ip: ctx.ip.slice(0, 64),
          })
          .returning({ id: phoneCodes.id });
        await audit(tx, 'phone.codeSent', `provider ${this.sms.kind}; expires ${expiresAt.toISOString()}`);
        return { id: row!.id, expiresAt };
      },
    );
    if ('code' in outcome) throw new AppError(outcome.code, outcome.params);

    try {
      await this.sms.send({
        phone,
        template: 'bindPhone',
        params: { code, minutes: SMS_CODE.ttlSeconds / 60 },
        language: ctx.language,
        userId,
      });
    } catch (err) {
      const reason =
        err instanceof SmsDeliveryError
          ? translator(ctx.language)(`sms.failure.${err.reason}`, err.params)
          : translator(ctx.language)('sms.failure.unreachable');
      await this.db.transaction(async (tx) => {
        await tx
          .update(phoneCodes)
          .set({ endedAt: this.clock(), endReason: 'undelivered' })
          .where(eq(phoneCodes.id, outcome.id));
        await audit(
          tx,
          'phone.codeFailed',
          err instanceof SmsDeliveryError ? `${err.reason} ${JSON.stringify(err.params)}` : 'provider error',
        );
      });
      throw new AppError('SMS_SEND_FAILED', { reason });
    }
    const left = Math.max(0, Math.round((outcome.expiresAt.getTime() - this.clock().getTime()) / 1000));
    return { phone: maskPhone(phone), expiresIn: left, resendIn: SMS_CODE.resendSeconds };
  }

  /** POST /user/changeBindPhone: binds the number when the code sent to it comes back. */
  async changeBindPhone(ctx: AuthedContext, phone: string, code: string): Promise<{ phone: string }> {
    const userId = ctx.user.id;
    const actor = actorOf(ctx);
    const outcome = await this.db.transaction(async (tx): Promise<Refusal | { phone: string }> => {
      const refuse = async (r: Refusal, reason: string): Promise<Refusal> => {
        await recordAudit(tx, actor, [
          {
            action: 'phone.changeRefused',
            entity: 'user',
            entityId: userId,
            field: 'phone',
            newValue: phone,
            reason,
          },
        ]);
        return r;
      };
      // the account's latest code for this number (a refused request holds none), locked: entries count one by one
      const [row] = await tx
        .select()
        .from(phoneCodes)
        .where(
          and(
            eq(phoneCodes.userId, userId),
            eq(phoneCodes.phone, phone),
            eq(phoneCodes.purpose, PURPOSE),
            or(isNull(phoneCodes.endReason), ne(phoneCodes.endReason, REFUSED)),
          ),
        )
        .orderBy(desc(phoneCodes.id))
        .limit(1)
        .for('update');
      const now = this.clock();
      if (!row) return refuse({ code: 'SMS_CODE_NONE' }, 'no code sent to this number');
      if (row.usedAt) return refuse({ code: 'SMS_CODE_USED' }, 'code already used');
      if (row.endReason === 'locked')
        return refuse({ code: 'SMS_CODE_LOCKED' }, 'code spent by wrong entries');
      if (row.endReason) return refuse({ code: 'SMS_CODE_NONE' }, `code ${row.endReason}`);
      if (row.expiresAt.getTime() <= now.getTime())
        return refuse({ code: 'SMS_CODE_EXPIRED' }, 'code expired');
      const attempts = row.attempts + 1;
      const expected = Buffer.from(row.codeHash, 'hex');
      const given = Buffer.from(codeHash(row.salt, userId, phone, code), 'hex');
      if (expected.length !== given.length || !timingSafeEqual(expected, given)) {
        const spent = attempts >= SMS_CODE.maxAttempts;
        await tx
          .update(phoneCodes)
          .set(spent ? { attempts, endedAt: now, endReason: 'locked' } : { attempts })
          .where(eq(phoneCodes.id, row.id));
        return spent
          ? refuse(
              { code: 'SMS_CODE_LOCKED' },
              `wrong code (${attempts}/${SMS_CODE.maxAttempts}); code spent`,
            )
          : refuse(
              { code: 'SMS_CODE_WRONG', params: { remaining: SMS_CODE.maxAttempts - attempts } },
              `wrong code (${attempts}/${SMS_CODE.maxAttempts})`,
            );
      }
      // (sending refuses the current number; an administrator may have set it since)
      const [me] = await tx
        .select({ phone: users.phone })
        .from(users)
        .where(eq(users.id, userId))
        .for('update');
      if (me?.phone === phone) return refuse({ code: 'PHONE_SAME' }, 'same number as the current one');
      // two accounts binding one number at once: one waits for the other, then sees it taken
      await lock(tx, `phone:${phone}`);
      if (await this.phoneTaken(tx, phone, userId))
        return refuse({ code: 'PHONE_TAKEN' }, 'number bound to another account');
      await tx.update(phoneCodes).set({ attempts, usedAt: now }).where(eq(phoneCodes.id, row.id));
      await tx.update(users).set({ phone, updatedAt: now }).where(eq(users.id, userId));
      await recordAudit(tx, actor, [
        {
          action: 'phone.change',
          entity: 'user',
          entityId: userId,
          field: 'phone',
          oldValue: me?.phone ?? null,
          newValue: phone,
        },
      ]);
      return { phone };
    });
    if ('code' in outcome) throw new AppError(outcome.code, outcome.params);
    return { phone: maskPhone(outcome.phone) };
  }
}

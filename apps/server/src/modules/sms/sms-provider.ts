/**
 * Text messages (issue 15 item 1): verification codes go out through an SmsProvider chosen by configuration
 * (SMS_PROVIDER, docs/decisions.md "SMS provider"):
 * - outbox (default, development): the message is written to the sms_outbox table, where administrators read it
 *   (/system/smsOutbox). Nothing leaves the server.
 * - http: a generic HTTP gateway adapter — one JSON POST per message to SMS_HTTP_URL (a vendor's API or a small relay
 *   in front of one). A 2xx answer is a delivery; anything else, a timeout or an unreachable host is a failure whose
 *   reason is shown to the user translated (never the gateway's raw text with the code in it).
 * The code is part of the message only: providers never log it.
 */
import { randomUUID } from 'node:crypto';
import type { Language } from '@esource/shared';
import { sql, type SQL } from 'drizzle-orm';
import type { DbOrTx } from '../../db/client';
import { rowsOf } from '../../lib/sql';
import { smsOutbox } from '../../db/schema';
import type { Config, SmsSettings } from '../../config/config';
import { translator } from '../../lib/i18n';

/** The kinds of text message the product sends (each a translated text and a gateway template). */
export type SmsTemplate = 'bindPhone';

export interface SmsMessage {
  phone: string;
  template: SmsTemplate;
  /** the template's values (for bindPhone: code and minutes) */
  params: Record<string, string | number>;
  language: Language;
  /** the account the message is about, when there is one */
  userId: number | null;
}

/** Why a message could not be delivered: a catalogue key (sms.failure.*) and its values. */
export class SmsDeliveryError extends Error {
  override name = 'SmsDeliveryError';
  constructor(
    readonly reason: 'status' | 'refused' | 'unreachable' | 'timeout',
    readonly params: Record<string, string | number> = {},
  ) {
    super(`sms delivery failed: ${reason} ${JSON.stringify(params)}`);
  }
}

export interface SmsProvider {
  /** 'outbox' or 'http' */
  readonly kind: SmsSettings['kind'];
  /** Delivers one message; throws SmsDeliveryError when it could not. */
  send(message: SmsMessage): Promise<{ id: string | null }>;
}

/** The text of a message in its language (what the outbox keeps and what the gateway receives as `text`). */
export function smsText(m: Pick<SmsMessage, 'template' | 'params' | 'language'>): string {
  return translator(m.language)(`sms.${m.template}`, m.params);
}

/** Development provider: the message lands in sms_outbox, for administrators to read. */
export class OutboxSmsProvider implements SmsProvider {
  readonly kind = 'outbox' as const;
  constructor(private readonly db: DbOrTx) {}

  async send(m: SmsMessage): Promise<{ id: string | null }> {
    const [row] = await this.db
      .insert(smsOutbox)
      .values({
        phone: m.phone,
        template: m.template,
        body: smsText(m),
        language: m.language,
        userId: m.userId,
      })
      .returning({ id: smsOutbox.id });
    return { id: String(row!.id) };
  }
}

type HttpSettings = Extract<SmsSettings, { kind: 'http' }>;

/**
 * Generic HTTP gateway adapter. Request: `POST <SMS_HTTP_URL>`, `content-type: application/json`,
 * `authorization: Bearer <SMS_HTTP_KEY>` when a key is set, body
 * `{ messageId, phone, template, sign, params, text, language }` (messageId: a fresh UUID the gateway may use to drop a
 * retried duplicate). Answer: any 2xx is a delivery, unless its JSON body says `"ok": false` (then its `error`, at
 * most 200 characters and with the code blanked out, is the reason); the body's `id`, if any, is the gateway's id.
 * Redirects are not followed.
 */
export class HttpSmsProvider implements SmsProvider {
  readonly kind = 'http' as const;
  constructor(
    private readonly settings: HttpSettings,
    private readonly fetchImpl: typeof fetch = fetch,
  ) {}

  async send(m: SmsMessage): Promise<{ id: string | null }> {
    const headers: Record<string, string> = {
      'content-type': 'application/json',
      accept: 'application/json',
    };
    if (this.settings.key) headers.authorization = `Bearer ${this.settings.key}`;
    const body = JSON.stringify({
      messageId: randomUUID(),
      phone: m.phone,
      template: this.settings.template ?? m.template,
      sign: this.settings.sign ?? null,
      params: m.params,
      text: smsText(m),
      language: m.language,
    });
    let res: Response;
    try {
      res = await this.fetchImpl(this.settings.url, {
        method: 'POST',
        headers,
        body,
        redirect: 'manual',
        signal: AbortSignal.timeout(this.settings.timeoutMs),
      });
    } catch (err) {
      const name = (err as { name?: string }).name;
      throw new SmsDeliveryError(
        name === 'TimeoutError' || name === 'AbortError' ? 'timeout' : 'unreachable',
      );
    }
    const text = await res.text().catch(() => '');
    if (res.status < 200 || res.status >= 300) throw new SmsDeliveryError('status', { status: res.status });
    let parsed: unknown = null;
    try {
      parsed = text ? JSON.parse(text) : null;
    } catch {
      parsed = null;
    }
    const o = parsed && typeof parsed === 'object' ? (parsed as Record<string, unknown>) : {};
    if (o.ok === false) {
      const secret = typeof m.params.code === 'string' ? m.params.code : null;
      let reason = typeof o.error === 'string' ? o.error : 'refused';
      if (secret) reason = reason.split(secret).join('******');
      throw new SmsDeliveryError('refused', { reason: reason.slice(0, 200) });
    }
    return { id: typeof o.id === 'string' || typeof o.id === 'number' ? String(o.id) : null };
  }
}

/** The provider the configuration names. */
export function smsProviderOf(config: Pick<Config, 'sms'>, db: DbOrTx): SmsProvider {
  return config.sms.kind === 'http' ? new HttpSmsProvider(config.sms) : new OutboxSmsProvider(db);
}

/** How long the development outbox keeps a message (its codes expired long before). */
export const OUTBOX_KEEP_DAYS = 7;

/**
 * Housekeeping (workers, hourly): verification-code rows outlive their use only as long as the daily rate limits
 * count them (kept 2 days; every request and check stays in the audit trail), and the development outbox keeps
 * messages OUTBOX_KEEP_DAYS. Returns how many rows of each went.
 */
export async function pruneSmsRows(db: DbOrTx, outboxDays = OUTBOX_KEEP_DAYS): Promise<{ codes: number; outbox: number }> {
  const count = async (q: SQL) => Number(rowsOf<{ n: number | string }>(await db.execute(q))[0]?.n ?? 0);
  const codes = await count(sql`
    with gone as (delete from phone_codes where created_at < now() - interval '2 days' returning 1)
    select count(*)::int as n from gone`);
  const outbox = await count(sql`
    with gone as (delete from sms_outbox where created_at < now() - make_interval(days => ${outboxDays}::int) returning 1)
    select count(*)::int as n from gone`);
  return { codes, outbox };
}

/**
 * Associate EDC (issue 14 item 3; /edc-link): a centre user (login type 1) links their own account at the EDC of a
 * project environment they are a member of. A sync they start then talks to the EDC as them (edc-sync.service.ts),
 * so the EDC's own audit trail names the person; scheduled syncs and users without a link use the configuration's
 * service account.
 *
 * What must always hold:
 * - a user reads, saves and removes only their own links (every query is keyed on the caller's id);
 * - a secret is saved only after the EDC accepted it (the adapter's `test()`), encrypted like the configuration's
 *   (secret-box.ts); it is never returned, logged or audited, and masked out of the EDC's reason when refused.
 */
import { and, asc, eq, isNull, or, sql } from 'drizzle-orm';
import type { EdcLinkRow, EdcLinkSave, Env } from '@esource/shared';
import type { Db } from '../../db/client';
import { edcConfigs, edcUserLinks, projectMembers, projects, roles } from '../../db/schema';
import type { AuthedContext } from '../../lib/context';
import { AppError } from '../../lib/errors';
import { fieldError } from '../../lib/validate';
import { actorOf, recordAudit } from '../audit/audit.service';
import { decryptSecret, encryptSecret } from '../sources/secret-box';
import { EdcTransportError, type EdcSettings } from './adapters/adapter';
import { settingsOf, type AdapterFactory } from './edc.service';

type ConfigRow = typeof edcConfigs.$inferSelect;
type LinkRow = typeof edcUserLinks.$inferSelect;

const REDCAP_TOKEN = /^[0-9A-Fa-f]{32,64}$/;

/** The secret an adapter takes for a user's own account: kind 1 "login:password" (HTTP Basic), kind 3 the token. */
function secretFor(kind: number, login: string, secret: string): string {
  return kind === 1 ? `${login}:${secret}` : secret;
}

/** Removes every trace of the secrets from a text shown to the user (an EDC may echo what it got). */
function mask(text: string, secrets: string[]): string {
  let out = text;
  for (const s of secrets) if (s.length >= 4) out = out.split(s).join('***');
  return out.slice(0, 500);
}

/**
 * The EDC's own words for a refusal, short: Rave's ODM ErrorDescription / RWS ErrorClientResponseMessage, REDCap's
 * JSON "error", else the adapter's message (which carries the whole answer).
 */
function refusalReason(err: unknown): string {
  if (!(err instanceof Error)) return String(err);
  const ex = err instanceof EdcTransportError ? err.exchange : undefined;
  const body = ex?.response ?? '';
  const said =
    /(?:ErrorDescription|ErrorClientResponseMessage)="([^"]+)"/.exec(body)?.[1] ??
    /"error"\s*:\s*"([^"]+)"/.exec(body)?.[1];
  if (!said) return err.message;
  return `${ex?.httpStatus ? `HTTP ${ex.httpStatus}: ` : ''}${said
    .replace(/&quot;/g, '"')
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&amp;/g, '&')}`;
}

/**
 * The settings a sync started by `userId` uses: the configuration's with the user's own verified secret, and the
 * account to record on the run; null when the user has no verified link (the service account is used).
 */
export async function linkedSettings(
  db: Db,
  userId: number,
  config: ConfigRow,
): Promise<{ settings: EdcSettings; account: string } | null> {
  const [link] = await db
    .select()
    .from(edcUserLinks)
    .where(and(eq(edcUserLinks.userId, userId), eq(edcUserLinks.configId, config.id)));
  if (!link?.verifiedAt) return null;
  const secret = decryptSecret(link.secretEnc);
  if (!secret) return null;
  return {
    settings: { ...settingsOf(config), secret: secretFor(config.kind, link.login, secret) },
    account: link.login,
  };
}

export class EdcLinkService {
  constructor(
    private readonly db: Db,
    private readonly adapterFor: AdapterFactory,
  ) {}

  /** Associate EDC is for centre users (the user menu offers it to login type 1 only). */
  private centreUser(ctx: AuthedContext): void {
    if (ctx.loginType !== 1) throw new AppError('FORBIDDEN');
  }

  /**
   * The EDC configurations of the project environments where the caller holds an active membership whose role may
   * act in that environment (as the guard's scope 'project' demands), with the caller's link to each.
   */
  private memberConfigs(userId: number, configId?: number) {
    const roleAllowsEnv = or(
      and(eq(edcConfigs.env, 'DEV'), eq(roles.envDev, true)),
      and(eq(edcConfigs.env, 'UAT'), eq(roles.envUat, true)),
      and(eq(edcConfigs.env, 'PRO'), eq(roles.envPro, true)),
    );
    return this.db
      .select({ c: edcConfigs, projectNo: projects.no, projectName: projects.name, link: edcUserLinks })
      .from(edcConfigs)
      .innerJoin(projects, and(eq(projects.id, edcConfigs.projectId), isNull(projects.deletedAt)))
      .innerJoin(
        projectMembers,
        and(
          eq(projectMembers.projectId, edcConfigs.projectId),
          eq(projectMembers.env, edcConfigs.env),
          eq(projectMembers.userId, userId),
          eq(projectMembers.status, 1),
        ),
      )
      .innerJoin(roles, and(eq(roles.id, projectMembers.roleId), eq(roles.status, 1), roleAllowsEnv))
      .leftJoin(edcUserLinks, and(eq(edcUserLinks.configId, edcConfigs.id), eq(edcUserLinks.userId, userId)))
      .where(configId !== undefined ? eq(edcConfigs.id, configId) : undefined)
      .orderBy(
        asc(projects.no),
        sql`case ${edcConfigs.env} when 'PRO' then 0 when 'UAT' then 1 else 2 end`,
        asc(edcConfigs.id),
      );
  }

  private row(x: { c: ConfigRow; projectNo: string; projectName: string; link: LinkRow | null }): EdcLinkRow {
    return {
      configId: x.c.id,
      projectId: x.c.projectId,
      projectNo: x.projectNo,
      projectName: x.projectName,
      env: x.c.env as Env,
      kind: x.c.kind,
      name: x.c.name,
      baseUrl: x.c.baseUrl,
      enabled: x.c.enabled,
      linked: !!x.link,
      login: x.link?.login ?? null,
      verifiedAt: x.link?.verifiedAt?.toISOString() ?? null,
      updateTime: x.link?.updatedAt.toISOString() ?? null,
    };
  }

  /** POST /edc/link/list */
  async list(ctx: AuthedContext): Promise<EdcLinkRow[]> {
    // other login types have nothing to link (the menu does not offer it): an empty list, not a refusal
    if (ctx.loginType !== 1) return [];
    return (await this.memberConfigs(ctx.user.id)).map((x) => this.row(x));
  }

  /** POST /edc/link/save: tries the caller's own credentials at the EDC, and keeps them only when accepted. */
  async save(ctx: AuthedContext, input: EdcLinkSave): Promise<EdcLinkRow> {
    this.centreUser(ctx);
    const [found] = await this.memberConfigs(ctx.user.id, input.configId);
    if (!found) throw new AppError('NOT_FOUND', { entity: 'edcConfig' });
    const c = found.c;
    if (c.kind === 3 && !REDCAP_TOKEN.test(input.secret))
      throw fieldError(ctx.language, 'secret', 'validation.edcToken');
    const secret = secretFor(c.kind, input.login, input.secret);
    try {
      await this.adapterFor({ ...settingsOf(c), secret }).test();
    } catch (err) {
      const reason = mask(refusalReason(err), [secret, input.secret]);
      if (err instanceof EdcTransportError && (err.kind === 'timeout' || err.kind === 'network'))
        throw new AppError('EDC_TARGET', { reason });
      throw new AppError('EDC_LINK_REFUSED', { reason });
    }
    const now = new Date();
    await this.db.transaction(async (tx) => {
      const [old] = await tx
        .select()
        .from(edcUserLinks)
        .where(and(eq(edcUserLinks.userId, ctx.user.id), eq(edcUserLinks.configId, c.id)))
        .for('update');
      const values = {
        login: input.login,
        secretEnc: encryptSecret(input.secret),
        verifiedAt: now,
        updatedAt: now,
      };
      const [saved] = old
        ? await tx.update(edcUserLinks).set(values).where(eq(edcUserLinks.id, old.id)).returning()
        : await tx
            .insert(edcUserLinks)
            .values({ ...values, userId: ctx.user.id, configId: c.id })
            .returning();
      // the secret itself is never audited: only the login and that it was verified
      await recordAudit(tx, actorOf(ctx), [
        {
          action: 'edc.link.save',
          entity: 'edcUserLink',
          entityId: saved!.id,
          projectId: c.projectId,
          env: c.env,
          oldValue: old ? { configId: c.id, login: old.login } : null,
          newValue: { configId: c.id, edc: c.name, login: input.login, verified: true },
        },
      ]);
    });
    const [after] = await this.memberConfigs(ctx.user.id, c.id);
    return this.row(after!);
  }

  /** POST /edc/link/remove: the caller's own link only (also after their membership ended). */
  async remove(ctx: AuthedContext, configId: number): Promise<{ removed: true }> {
    this.centreUser(ctx);
    await this.db.transaction(async (tx) => {
      const [link] = await tx
        .select({
          l: edcUserLinks,
          projectId: edcConfigs.projectId,
          env: edcConfigs.env,
          name: edcConfigs.name,
        })
        .from(edcUserLinks)
        .innerJoin(edcConfigs, eq(edcConfigs.id, edcUserLinks.configId))
        .where(and(eq(edcUserLinks.userId, ctx.user.id), eq(edcUserLinks.configId, configId)))
        .for('update');
      if (!link) throw new AppError('NOT_FOUND', { entity: 'edcUserLink' });
      await tx.delete(edcUserLinks).where(eq(edcUserLinks.id, link.l.id));
      await recordAudit(tx, actorOf(ctx), [
        {
          action: 'edc.link.remove',
          entity: 'edcUserLink',
          entityId: link.l.id,
          projectId: link.projectId,
          env: link.env,
          oldValue: { configId, edc: link.name, login: link.l.login },
        },
      ]);
    });
    return { removed: true };
  }
}

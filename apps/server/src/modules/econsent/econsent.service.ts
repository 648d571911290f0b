/**
 * E-consent participants (issue 15 item 7; spec §7 /cloud/project/managePts/ec/participant/query and add/pts): the
 * project environment's e-consent system (ec_configs: provider kind, address, token encrypted), its participants listed
 * for the caller's sites with those already added marked, and consented participants added as subjects through the
 * subject-creation path (numbering, site, audit) — one transaction per action, each participant at most once.
 */
import { and, eq, inArray, sql } from 'drizzle-orm';
import { pinyin } from 'pinyin-pro';
import {
  SUBJECT_STATUS,
  type EcAddResult,
  type EcConfigSave,
  type EcConfigView,
  type EcParticipant,
  type EcParticipantPage,
  type EcParticipantQuery,
  type EcParticipantRow,
} from '@esource/shared';
import type { Db, Tx } from '../../db/client';
import { ecConfigs, ecSubjectLinks, sites, subjects } from '../../db/schema';
import type { ProjectScopedContext } from '../../lib/context';
import { AppError } from '../../lib/errors';
import { translator } from '../../lib/i18n';
import { isUniqueViolation } from '../../lib/db-errors';
import { reachesSite } from '../../lib/site-scope';
import { actorOf, recordAudit } from '../audit/audit.service';
import { decryptSecret, encryptSecret } from '../sources/secret-box';
import { SubjectsService } from '../subjects/subjects.service';
import { DevEcProvider, EcProviderError, HttpEcProvider, type EcProvider } from './ec-provider';

type ConfigRow = typeof ecConfigs.$inferSelect;
type SiteRow = { id: number; siteNo: string; name: string; status: number };

/** Builds the provider of a configuration (tests may hand in their own). */
export type EcProviderFactory = (c: ConfigRow, siteCodes: () => Promise<string[]>) => EcProvider;

export const defaultEcProvider: EcProviderFactory = (c, siteCodes) =>
  c.kind === 'http'
    ? new HttpEcProvider({
        baseUrl: c.baseUrl ?? '',
        studyCode: c.studyCode ?? '',
        token: c.secretEnc ? decryptSecret(c.secretEnc) : null,
        timeoutMs: c.timeoutMs,
      })
    : new DevEcProvider(c.projectId, c.env, siteCodes);

/** The initials a subject gets: the system's own, else the pinyin initials of the name (at most 10 characters). */
export function initialsOf(p: Pick<EcParticipant, 'initials' | 'name'>): string | null {
  if (p.initials) return p.initials.slice(0, 10);
  if (!p.name) return null;
  const letters = pinyin(p.name, { pattern: 'first', toneType: 'none', type: 'array' })
    .map((s) => s.trim().charAt(0).toUpperCase())
    .filter((c) => /[A-Z]/.test(c))
    .join('');
  return letters ? letters.slice(0, 10) : null;
}

/** Why a participant cannot be added (a catalogue key under econsent.refusal and its values), or null. */
export function refusalOf(
  p: EcParticipant,
  site: SiteRow | undefined,
): { key: string; params?: Record<string, string> } | null {
  if (!site) return { key: 'unknownSite', params: { siteCode: p.siteCode } };
  if (site.status !== 1) return { key: 'siteClosed', params: { siteCode: p.siteCode } };
  if (p.status === 'withdrawn') return { key: 'withdrawn' };
  if (p.status === 'declined') return { key: 'declined' };
  if (p.status !== 'consented' || !p.consentDate) return { key: 'notConsented' };
  return null;
}

export class EconsentService {
  private readonly subjects: SubjectsService;
  constructor(
    private readonly db: Db,
    private readonly opts: { production: boolean; providerFor?: EcProviderFactory },
  ) {
    this.subjects = new SubjectsService(db);
  }

  // ── configuration ──

  private async configRow(ctx: ProjectScopedContext): Promise<ConfigRow | undefined> {
    const [c] = await this.db
      .select()
      .from(ecConfigs)
      .where(and(eq(ecConfigs.projectId, ctx.project.id), eq(ecConfigs.env, ctx.env)));
    return c;
  }

  private view(c: ConfigRow): EcConfigView {
    return {
      id: c.id,
      kind: c.kind,
      name: c.name,
      baseUrl: c.baseUrl,
      studyCode: c.studyCode,
      timeoutMs: c.timeoutMs,
      enabled: c.enabled,
      hasSecret: !!c.secretEnc,
      version: c.version,
      updateTime: c.updatedAt.toISOString(),
    };
  }

  async getConfig(ctx: ProjectScopedContext): Promise<EcConfigView | null> {
    const c = await this.configRow(ctx);
    return c ? this.view(c) : null;
  }

  /**
   * Creates or updates the project environment's e-consent connection (the version the editor loaded). The token is
   * encrypted; absent = unchanged, except that a new provider kind, address or study drops the saved one (a token
   * never goes to another target). The token is never audited, only that it changed.
   */
  async saveConfig(ctx: ProjectScopedContext, input: EcConfigSave): Promise<EcConfigView> {
    if (input.kind === 'dev' && this.opts.production) throw new AppError('EC_DEV_PROVIDER_PRODUCTION');
    const row = await this.db.transaction(async (tx) => {
      const [old] = await tx
        .select()
        .from(ecConfigs)
        .where(and(eq(ecConfigs.projectId, ctx.project.id), eq(ecConfigs.env, ctx.env)))
        .for('update');
      if (old && input.version !== old.version)
        throw new AppError('STALE_WRITE', { entity: translator(ctx.language)('entities.ecConfig') });
      if (!old && input.version !== undefined) throw new AppError('NOT_FOUND', { entity: 'ecConfig' });
      const http = input.kind === 'http';
      const baseUrl = http ? (input.baseUrl ?? null) : null;
      const studyCode = http ? (input.studyCode ?? null) : null;
      const targetChanged =
        !old || old.kind !== input.kind || old.baseUrl !== baseUrl || old.studyCode !== studyCode;
      const secretEnc = !http
        ? null
        : input.secret !== undefined
          ? encryptSecret(input.secret)
          : targetChanged
            ? null
            : (old?.secretEnc ?? null);
      const values = {
        kind: input.kind,
        name: input.name,
        baseUrl,
        studyCode,
        secretEnc,
        timeoutMs: input.timeoutMs,
        enabled: input.enabled,
        updatedBy: ctx.user.id,
        updatedAt: new Date(),
      };
      const [saved] = old
        ? await tx
            .update(ecConfigs)
            .set({ ...values, version: old.version + 1 })
            .where(eq(ecConfigs.id, old.id))
            .returning()
        : await tx
            .insert(ecConfigs)
            .values({ ...values, env: ctx.env, projectId: ctx.project.id })
            .returning();
      const safe = (c: ConfigRow | undefined) =>
        c
          ? {
              kind: c.kind,
              name: c.name,
              baseUrl: c.baseUrl,
              studyCode: c.studyCode,
              timeoutMs: c.timeoutMs,
              enabled: c.enabled,
              hasSecret: !!c.secretEnc,
            }
          : null;
      await recordAudit(tx, actorOf(ctx), [
        {
          action: old ? 'ec.config.update' : 'ec.config.create',
          entity: 'ecConfig',
          entityId: saved!.id,
          projectId: ctx.project.id,
          oldValue: safe(old),
          newValue: { ...safe(saved), secretChanged: (old?.secretEnc ?? null) !== saved!.secretEnc },
        },
      ]);
      return saved!;
    });
    return this.view(row);
  }

  /** Tries the saved connection: how many participants it lists, or why it could not (never the token). */
  async testConfig(
    ctx: ProjectScopedContext,
  ): Promise<{ ok: boolean; message: string; participants: number | null; ms: number }> {
    const c = await this.configRow(ctx);
    if (!c) throw new AppError('EC_NOT_CONFIGURED');
    const t = translator(ctx.language);
    const started = Date.now();
    try {
      const list = await this.providerOf(ctx, c).participants();
      return {
        ok: true,
        message: t('econsent.test.ok', { count: list.length }),
        participants: list.length,
        ms: Date.now() - started,
      };
    } catch (err) {
      return {
        ok: false,
        message: t('econsent.test.failed', { reason: providerReason(err, ctx) }),
        participants: null,
        ms: Date.now() - started,
      };
    }
  }

  // ── participants ──

  private providerOf(ctx: ProjectScopedContext, c: ConfigRow): EcProvider {
    const siteCodes = async () => (await this.projectSites(ctx)).map((s) => s.siteNo);
    return (this.opts.providerFor ?? defaultEcProvider)(c, siteCodes);
  }

  /** Every site of the project in this environment (the provider's site codes are their numbers). */
  private projectSites(ctx: ProjectScopedContext): Promise<SiteRow[]> {
    return this.db
      .select({ id: sites.id, siteNo: sites.siteNo, name: sites.name, status: sites.status })
      .from(sites)
      .where(and(eq(sites.projectId, ctx.project.id), eq(sites.env, ctx.env)));
  }

  /** The configured, enabled provider's participants; a failure of the system is EC_PROVIDER_UNAVAILABLE, translated. */
  private async fetch(ctx: ProjectScopedContext): Promise<{ config: ConfigRow; list: EcParticipant[] }> {
    const c = await this.configRow(ctx);
    if (!c) throw new AppError('EC_NOT_CONFIGURED');
    if (!c.enabled) throw new AppError('EC_DISABLED');
    try {
      return { config: c, list: await this.providerOf(ctx, c).participants() };
    } catch (err) {
      throw new AppError('EC_PROVIDER_UNAVAILABLE', { reason: providerReason(err, ctx) });
    }
  }

  /**
   * The participants the caller reaches: those at a site of the project the caller works in; a participant at a site
   * the project does not have is seen only by callers who reach every site (they are the ones who can set it up).
   */
  private async scoped(ctx: ProjectScopedContext, list: EcParticipant[]) {
    const bySiteNo = new Map((await this.projectSites(ctx)).map((s) => [s.siteNo.toLowerCase(), s]));
    const everySite = ctx.project.siteIds === null && ctx.siteId === null;
    return list
      .map((p) => ({ p, site: bySiteNo.get(p.siteCode.toLowerCase()) }))
      .filter(({ site }) => (site ? reachesSite(site.id, ctx) : everySite));
  }

  private async links(ctx: ProjectScopedContext, db: Db | Tx, participantIds: string[]) {
    if (participantIds.length === 0) return new Map<string, { ptsId: number; ptsNo: string }>();
    const rows = await db
      .select({ participantId: ecSubjectLinks.participantId, ptsId: subjects.id, ptsNo: subjects.ptsNo })
      .from(ecSubjectLinks)
      .innerJoin(subjects, eq(subjects.id, ecSubjectLinks.subjectId))
      .where(
        and(
          eq(ecSubjectLinks.projectId, ctx.project.id),
          eq(ecSubjectLinks.env, ctx.env),
          inArray(ecSubjectLinks.participantId, participantIds),
        ),
      );
    return new Map(rows.map((r) => [r.participantId, { ptsId: r.ptsId, ptsNo: r.ptsNo }]));
  }

  /** POST /cloud/project/managePts/ec/participant/query: a page of the caller's sites' participants. */
  async query(ctx: ProjectScopedContext, q: EcParticipantQuery): Promise<EcParticipantPage> {
    const t = translator(ctx.language);
    const { config, list } = await this.fetch(ctx);
    const scoped = await this.scoped(ctx, list);
    const added = await this.links(
      ctx,
      this.db,
      scoped.map((x) => x.p.id),
    );
    const kw = q.keyword?.toLowerCase();
    const full = ctx.pms.has('patient:identifier:query');
    const rows = scoped
      .filter(({ p, site }) => {
        if (q.siteId !== undefined && site?.id !== q.siteId) return false;
        if (q.status !== undefined && p.status !== q.status) return false;
        const consented = p.status === 'consented' && !!p.consentDate;
        if (q.consented !== undefined && consented !== q.consented) return false;
        if (q.added !== undefined && added.has(p.id) !== q.added) return false;
        if (kw && !p.screeningNo.toLowerCase().includes(kw) && !(p.initials ?? '').toLowerCase().includes(kw))
          return false;
        return true;
      })
      .sort(
        (a, b) =>
          a.p.siteCode.localeCompare(b.p.siteCode) ||
          a.p.screeningNo.localeCompare(b.p.screeningNo) ||
          a.p.id.localeCompare(b.p.id),
      );
    const start = (q.pageNumber - 1) * q.pageSize;
    const content: EcParticipantRow[] = rows.slice(start, start + q.pageSize).map(({ p, site }) => {
      const subject = added.get(p.id) ?? null;
      const refusal = subject ? null : refusalOf(p, site);
      return {
        participantId: p.id,
        screeningNo: p.screeningNo,
        name: full ? (p.name ?? null) : null,
        initials: initialsOf(p),
        sex: p.sex ?? null,
        birthDate: p.birthDate ? (full ? p.birthDate : p.birthDate.slice(0, 4)) : null,
        consentDate: p.consentDate ?? null,
        consentVersion: p.consentVersion ?? null,
        siteCode: p.siteCode,
        siteId: site?.id ?? null,
        siteName: site?.name ?? null,
        status: p.status,
        subject,
        refusal: refusal ? t(`econsent.refusal.${refusal.key}`, refusal.params) : null,
      };
    });
    return {
      pageNumber: q.pageNumber,
      pageSize: q.pageSize,
      totalCount: rows.length,
      content,
      provider: { kind: config.kind, name: config.name },
      identifiersMasked: !full,
    };
  }

  /**
   * POST /cloud/project/managePts/add/pts: the participants become subjects at their sites — status informed consent
   * (7), first-visit date = consent date, numbered by the subject rule — all or none, in one transaction. A participant
   * the caller does not reach (another site, another project, unknown) is EC_PARTICIPANT_NOT_FOUND; one already added
   * EC_ALREADY_ADDED (two adds at once: a lock per participant, and the unique index behind it); one not consented or
   * at a site the project lacks EC_NOT_ADDABLE.
   */
  async add(ctx: ProjectScopedContext, participantIds: string[]): Promise<EcAddResult> {
    const t = translator(ctx.language);
    const { config, list } = await this.fetch(ctx);
    const scoped = new Map((await this.scoped(ctx, list)).map((x) => [x.p.id, x]));
    const missing = participantIds.filter((id) => !scoped.has(id));
    if (missing.length) throw new AppError('EC_PARTICIPANT_NOT_FOUND', { ids: missing.join(', ') });
    const chosen = participantIds.map((id) => scoped.get(id)!);
    for (const { p, site } of chosen) {
      const r = refusalOf(p, site);
      if (r)
        throw new AppError('EC_NOT_ADDABLE', {
          screeningNo: p.screeningNo,
          reason: t(`econsent.refusal.${r.key}`, r.params),
        });
    }
    try {
      return await this.db.transaction(async (tx) => {
        // one participant at a time across requests (sorted: two batches never wait on each other crosswise)
        for (const id of [...participantIds].sort()) {
          await tx.execute(
            sql`select pg_advisory_xact_lock(hashtext(${`ec-add:${ctx.project.id}:${ctx.env}:${id}`}))`,
          );
        }
        const already = await this.links(ctx, tx, participantIds);
        for (const { p } of chosen) {
          const s = already.get(p.id);
          if (s) throw new AppError('EC_ALREADY_ADDED', { screeningNo: p.screeningNo, ptsNo: s.ptsNo });
        }
        const added: EcAddResult['added'] = [];
        for (const { p, site } of chosen) {
          const row = await this.subjects.create(
            ctx,
            {
              status: SUBJECT_STATUS.informedConsent,
              siteId: site!.id,
              firstVisitDate: p.consentDate!,
              initials: initialsOf(p) ?? undefined,
            },
            tx,
          );
          await tx.insert(ecSubjectLinks).values({
            env: ctx.env,
            projectId: ctx.project.id,
            participantId: p.id,
            subjectId: row.ptsId,
            screeningNo: p.screeningNo,
            siteCode: p.siteCode,
            consentDate: p.consentDate!,
            consentVersion: p.consentVersion ?? null,
            providerKind: config.kind,
            createdBy: ctx.user.id,
          });
          // the participant's identity in the e-consent system and its consent; never the name or birth date
          await recordAudit(tx, actorOf(ctx), [
            {
              action: 'subject.ecAdd',
              entity: 'subject',
              entityId: row.ptsId,
              projectId: ctx.project.id,
              siteId: row.siteId,
              subjectId: row.ptsId,
              newValue: {
                participantId: p.id,
                screeningNo: p.screeningNo,
                consentDate: p.consentDate,
                consentVersion: p.consentVersion ?? null,
                provider: config.kind,
              },
            },
          ]);
          added.push({
            participantId: p.id,
            screeningNo: p.screeningNo,
            ptsId: row.ptsId,
            ptsNo: row.ptsNo,
            siteId: row.siteId,
            consentDate: p.consentDate!,
          });
        }
        return { added };
      });
    } catch (err) {
      // the unique index behind the lock (a writer that skipped it): the participant is there now
      if (!isUniqueViolation(err) || !mentions(err, 'ec_subject_links')) throw err;
      const now = await this.links(ctx, this.db, participantIds);
      const hit = chosen.find(({ p }) => now.has(p.id)) ?? chosen[0]!;
      throw new AppError('EC_ALREADY_ADDED', {
        screeningNo: hit.p.screeningNo,
        ptsNo: now.get(hit.p.id)?.ptsNo ?? '?',
      });
    }
  }
}

/** Whether an error or one of its causes names the text (a constraint's name). */
function mentions(err: unknown, text: string): boolean {
  for (let e: unknown = err; e && typeof e === 'object'; e = (e as { cause?: unknown }).cause) {
    const o = e as { constraint?: unknown; message?: unknown };
    const has = (v: unknown) => typeof v === 'string' && v.includes(text);
    if (has(o.constraint) || has(o.message)) return true;
  }
  return false;
}

/** The provider's failure in the user's language; anything else is ours and rethrown. */
function providerReason(err: unknown, ctx: ProjectScopedContext): string {
  if (!(err instanceof EcProviderError)) throw err;
  return translator(ctx.language)(`econsent.provider.${err.reason}`, err.params);
}

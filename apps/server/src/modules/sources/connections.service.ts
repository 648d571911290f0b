/**
 * Hospital connections per project × site × environment (issue 11 item 1): the kind's config validated by the
 * shared schema, secrets encrypted (secret-box.ts) and never sent back (views say hasSecret), optimistic locking,
 * soft delete, audit (a secret change is audited as 'secret changed', never its value). A site user reaches only
 * their sites' connections.
 */
import { and, asc, eq, inArray, isNull, sql, type SQL } from 'drizzle-orm';
import type { z } from 'zod';
import {
  connectionConfigByKind,
  type ConnectionConfig,
  type ConnectionKind,
  type ConnectionTestResult,
  type ConnectionView,
  type connectionSave,
  type connectionTestRequest,
  type FhirConnectionConfig,
  type FhirFileConnectionConfig,
  type SqlConnectionConfig,
} from '@esource/shared';
import type { Db, Tx } from '../../db/client';
import { sites, sourceConnections, subjects, users } from '../../db/schema';
import { AppError, type FieldProblem } from '../../lib/errors';
import type { ProjectScopedContext } from '../../lib/context';
import { translator } from '../../lib/i18n';
import { actorOf, recordAudit } from '../audit/audit.service';
import { decryptSecret, encryptSecret } from './secret-box';
import { FhirClient, SourceError } from './fhir-client';
import { checkSqlQuery, testSqlConnection } from './sql-source';
import { checkDropFolder } from './drop-folder';
import { zodLocale } from '../../lib/validate';

export type ConnectionRow = typeof sourceConnections.$inferSelect;

/** Parses a kind's config, with errors as config.<field> problems. */
export function parseConnectionConfig(kind: ConnectionKind, raw: unknown, ctxLang: ProjectScopedContext['language']): ConnectionConfig {
  // zod's own messages in the caller's language (as every request body is parsed: lib/validate.ts)
  const r = connectionConfigByKind[kind].safeParse(raw, { error: zodLocale(ctxLang), reportInput: true });
  const t = translator(ctxLang);
  const problems: FieldProblem[] = [];
  if (!r.success) for (const i of r.error.issues) problems.push({ field: ['config', ...i.path.map(String)].join('.'), message: t(i.message.startsWith('validation.') ? i.message : 'validation.field', { field: i.path.join('.'), message: i.message }) });
  if (r.success && kind === 'sql') {
    const c = r.data as SqlConnectionConfig;
    const names = new Set<string>();
    c.queries.forEach((q, i) => {
      if (names.has(q.name)) problems.push({ field: `config.queries.${i}.name`, message: t('validation.sqlQueryNameDuplicate') });
      names.add(q.name);
      const bad = checkSqlQuery(q.sql);
      if (bad) problems.push({ field: `config.queries.${i}.sql`, message: t(bad.key, bad.params) });
    });
  }
  if (r.success && kind === 'fhir_file') {
    const folder = (r.data as FhirFileConnectionConfig).dropFolder;
    if (folder) {
      const checked = checkDropFolder(folder);
      if ('problem' in checked) problems.push({ field: 'config.dropFolder', message: t(checked.problem, { root: process.env.SOURCE_DROP_ROOT ?? '' }) });
    }
  }
  if (problems.length) throw new AppError('VALIDATION', { detail: t('validation.field', { field: problems[0]!.field, message: problems[0]!.message }) }, problems);
  return r.data as ConnectionConfig;
}

function secretNeeded(kind: ConnectionKind, config: ConnectionConfig): boolean {
  if (kind === 'fhir') return (config as FhirConnectionConfig).auth !== 'none';
  return false;
}

export class ConnectionsService {
  constructor(private readonly db: Db) {}

  scope(ctx: ProjectScopedContext): SQL {
    const siteIds = ctx.project.siteIds;
    return and(
      eq(sourceConnections.projectId, ctx.project.id),
      eq(sourceConnections.env, ctx.env),
      isNull(sourceConnections.deletedAt),
      siteIds === null ? undefined : inArray(sourceConnections.siteId, siteIds.length ? siteIds : [-1]),
      ctx.siteId !== null ? eq(sourceConnections.siteId, ctx.siteId) : undefined,
    )!;
  }

  private async views(db: Db | Tx, where: SQL): Promise<ConnectionView[]> {
    const rows = await db
      .select({ c: sourceConnections, siteName: sites.name, createdBy: users.name })
      .from(sourceConnections)
      .innerJoin(sites, eq(sites.id, sourceConnections.siteId))
      .leftJoin(users, eq(users.id, sourceConnections.createdBy))
      .where(where)
      .orderBy(asc(sourceConnections.siteId), asc(sourceConnections.id));
    return rows.map(({ c, siteName, createdBy }) => ({
      id: c.id,
      siteId: c.siteId,
      siteName,
      kind: c.kind,
      name: c.name,
      enabled: c.enabled,
      config: c.config,
      hasSecret: !!c.secretEnc,
      version: c.version,
      lastTestAt: c.lastTestAt?.toISOString() ?? null,
      lastTestOk: c.lastTestOk,
      createdBy,
      createTime: c.createdAt.toISOString(),
      updateTime: c.updatedAt.toISOString(),
    }));
  }

  list(ctx: ProjectScopedContext, q: { siteId?: number | undefined; kind?: ConnectionKind | undefined }): Promise<ConnectionView[]> {
    return this.views(this.db, and(this.scope(ctx), q.siteId ? eq(sourceConnections.siteId, q.siteId) : undefined, q.kind ? eq(sourceConnections.kind, q.kind) : undefined)!);
  }

  /** The connection row in the caller's scope, or NOT_FOUND. */
  async find(db: Db | Tx, ctx: ProjectScopedContext, id: number): Promise<ConnectionRow> {
    const [c] = await db.select().from(sourceConnections).where(and(this.scope(ctx), eq(sourceConnections.id, id)));
    if (!c) throw new AppError('NOT_FOUND', { entity: 'connection' });
    return c;
  }

  async get(ctx: ProjectScopedContext, id: number): Promise<ConnectionView> {
    await this.find(this.db, ctx, id);
    return (await this.views(this.db, eq(sourceConnections.id, id)))[0]!;
  }

  private async checkSite(tx: Tx, ctx: ProjectScopedContext, siteId: number) {
    if (ctx.project.siteIds !== null && !ctx.project.siteIds.includes(siteId)) throw new AppError('SITE_FORBIDDEN');
    const [site] = await tx.select({ id: sites.id }).from(sites).where(and(eq(sites.id, siteId), eq(sites.projectId, ctx.project.id), eq(sites.env, ctx.env)));
    if (!site) throw new AppError('INVALID_REFERENCE', { field: 'siteId' });
  }

  async save(ctx: ProjectScopedContext, input: z.output<typeof connectionSave>): Promise<ConnectionView> {
    const config = parseConnectionConfig(input.kind, input.config, ctx.language);
    return this.db.transaction(async (tx) => {
      await this.checkSite(tx, ctx, input.siteId);
      const base = { entity: 'sourceConnection', projectId: ctx.project.id, siteId: input.siteId };
      if (!input.id) {
        if (secretNeeded(input.kind, config) && !input.secret) throw this.secretRequired(ctx);
        const [c] = await tx
          .insert(sourceConnections)
          .values({
            env: ctx.env,
            projectId: ctx.project.id,
            siteId: input.siteId,
            kind: input.kind,
            name: input.name,
            enabled: input.enabled,
            config,
            secretEnc: input.secret ? encryptSecret(input.secret) : null,
            createdBy: ctx.user.id,
          })
          .returning();
        await recordAudit(tx, actorOf(ctx), [
          { ...base, action: 'source.connection.add', entityId: c!.id, newValue: { kind: c!.kind, name: c!.name, enabled: c!.enabled, config } },
          ...(input.secret ? [{ ...base, action: 'source.connection.secret', entityId: c!.id, field: 'secret', newValue: 'secret changed' }] : []),
        ]);
        return (await this.views(tx, eq(sourceConnections.id, c!.id)))[0]!;
      }
      const before = await this.find(tx, ctx, input.id);
      if (!input.version || before.version !== input.version) throw new AppError('STALE_WRITE', { user: '?', time: before.updatedAt.toISOString() });
      if (before.kind !== input.kind) {
        const m = translator(ctx.language)('validation.connectionKind');
        throw new AppError('VALIDATION', { detail: m }, [{ field: 'kind', message: m }]);
      }
      const secretChange = input.clearSecret ? null : input.secret !== undefined && input.secret !== '' ? encryptSecret(input.secret) : undefined;
      const hasSecretAfter = secretChange === undefined ? !!before.secretEnc : secretChange !== null;
      if (secretNeeded(input.kind, config) && !hasSecretAfter) throw this.secretRequired(ctx);
      const [after] = await tx
        .update(sourceConnections)
        .set({
          siteId: input.siteId,
          name: input.name,
          enabled: input.enabled,
          config,
          ...(secretChange !== undefined ? { secretEnc: secretChange } : {}),
          version: sql`${sourceConnections.version} + 1`,
          updatedAt: new Date(),
        })
        .where(and(eq(sourceConnections.id, before.id), eq(sourceConnections.version, before.version)))
        .returning();
      if (!after) throw new AppError('STALE_WRITE', { user: '?', time: before.updatedAt.toISOString() });
      const entries = [];
      for (const f of ['siteId', 'name', 'enabled', 'config'] as const) {
        if (JSON.stringify(before[f]) !== JSON.stringify(after[f])) entries.push({ ...base, action: 'source.connection.update', entityId: after.id, field: f, oldValue: before[f], newValue: after[f] });
      }
      if (secretChange !== undefined) entries.push({ ...base, action: 'source.connection.secret', entityId: after.id, field: 'secret', newValue: 'secret changed' });
      if (entries.length) await recordAudit(tx, actorOf(ctx), entries);
      return (await this.views(tx, eq(sourceConnections.id, after.id)))[0]!;
    });
  }

  private secretRequired(ctx: ProjectScopedContext) {
    const m = translator(ctx.language)('validation.secretRequired');
    return new AppError('VALIDATION', { detail: m }, [{ field: 'secret', message: m }]);
  }

  async remove(ctx: ProjectScopedContext, id: number, version: number): Promise<void> {
    await this.db.transaction(async (tx) => {
      const c = await this.find(tx, ctx, id);
      if (c.version !== version) throw new AppError('STALE_WRITE', { user: '?', time: c.updatedAt.toISOString() });
      await tx.update(sourceConnections).set({ deletedAt: new Date(), enabled: false, version: c.version + 1, updatedAt: new Date() }).where(eq(sourceConnections.id, id));
      await recordAudit(tx, actorOf(ctx), [{ action: 'source.connection.delete', entity: 'sourceConnection', entityId: id, projectId: ctx.project.id, siteId: c.siteId, oldValue: c.name }]);
    });
  }

  async enable(ctx: ProjectScopedContext, id: number, version: number, enabled: boolean): Promise<ConnectionView> {
    return this.db.transaction(async (tx) => {
      const c = await this.find(tx, ctx, id);
      if (c.version !== version) throw new AppError('STALE_WRITE', { user: '?', time: c.updatedAt.toISOString() });
      await tx.update(sourceConnections).set({ enabled, version: c.version + 1, updatedAt: new Date() }).where(eq(sourceConnections.id, id));
      await recordAudit(tx, actorOf(ctx), [
        { action: 'source.connection.update', entity: 'sourceConnection', entityId: id, projectId: ctx.project.id, siteId: c.siteId, field: 'enabled', oldValue: c.enabled, newValue: enabled },
      ]);
      return (await this.views(tx, eq(sourceConnections.id, id)))[0]!;
    });
  }

  /** Reaches the source and reports what it found; stores nothing but last_test_at/last_test_ok. */
  async test(ctx: ProjectScopedContext, input: z.output<typeof connectionTestRequest>): Promise<ConnectionTestResult> {
    const c = await this.find(this.db, ctx, input.id);
    const started = Date.now();
    const result: ConnectionTestResult = { ok: true, message: null, errorCode: null, fhirVersion: null, software: null, patientsMatched: null, counts: [], elapsedMs: 0, testedAt: '' };
    try {
      let identifiers: { system?: string | undefined; value: string }[] = [];
      if (input.identifierValue) identifiers = [{ system: input.identifierSystem || undefined, value: input.identifierValue }];
      else if (input.ptsId) identifiers = await this.subjectIdentifiers(ctx, input.ptsId, c);
      if (c.kind === 'fhir') {
        const config = c.config as FhirConnectionConfig;
        const client = new FhirClient({ config: { ...config, pageLimit: 1 }, secret: decryptSecret(c.secretEnc), attempts: 1 });
        Object.assign(result, await client.metadata());
        if (identifiers.length) {
          const patients = await client.findPatients(identifiers);
          result.patientsMatched = patients.length;
          for (const type of config.resourceTypes) {
            let count = 0;
            let more = false;
            for (const p of patients) {
              const url = client.searchUrl(type, String(p.id), null, null).replace(/_count=\d+/, '_count=50');
              try {
                await client.search(url, async (rs) => {
                  count += rs.length;
                });
              } catch (err) {
                if (err instanceof SourceError && err.key === 'source.error.endlessNext') more = true;
                else throw err;
              }
            }
            result.counts.push({ type, count, more });
          }
        }
      } else if (c.kind === 'sql') {
        result.counts = await testSqlConnection(c.config as SqlConnectionConfig, decryptSecret(c.secretEnc), identifiers[0]?.value ?? null);
        result.software = (c.config as SqlConnectionConfig).dialect;
      } else {
        throw new AppError('SOURCE_CONNECTION_KIND', { kind: c.kind });
      }
    } catch (err) {
      if (err instanceof AppError) throw err;
      result.ok = false;
      const t = translator(ctx.language);
      if (err instanceof SourceError) {
        result.errorCode = err.key;
        result.message = t(err.key, err.params);
      } else {
        console.error(`[sources] test of connection ${c.id} failed:`, err);
        result.errorCode = 'source.error.internal';
        result.message = t('source.error.internal', { ref: `source-connection-${c.id}` });
      }
    }
    result.elapsedMs = Date.now() - started;
    const now = new Date();
    result.testedAt = now.toISOString();
    await this.db.update(sourceConnections).set({ lastTestAt: now, lastTestOk: result.ok }).where(eq(sourceConnections.id, c.id));
    return result;
  }

  /** A subject's identifiers as lookups for this connection (typed systems from the config, else value alone). */
  async subjectIdentifiers(ctx: ProjectScopedContext, ptsId: number, c: ConnectionRow): Promise<{ system?: string | undefined; value: string }[]> {
    const [s] = await this.db.select().from(subjects).where(and(eq(subjects.id, ptsId), eq(subjects.projectId, ctx.project.id), eq(subjects.env, ctx.env), eq(subjects.siteId, c.siteId)));
    if (!s) throw new AppError('NOT_FOUND', { entity: 'subject' });
    return identifierLookups(s, (c.config as { identifierSystems?: { system: string; type: string }[] }).identifierSystems ?? []);
  }
}

/** The lookups for a subject's identifiers: one per configured system of its type, or the value alone. */
export function identifierLookups(
  s: { medicalRecordId: string | null; inpatientId: string | null; outpatientId: string | null; idCard: string | null },
  systems: readonly { system: string; type: string }[],
): { system?: string | undefined; value: string }[] {
  const out: { system?: string | undefined; value: string }[] = [];
  for (const type of ['medicalRecordId', 'inpatientId', 'outpatientId', 'idCard'] as const) {
    const value = s[type]?.trim();
    if (!value) continue;
    const sys = systems.filter((x) => x.type === type);
    if (sys.length === 0) out.push({ value });
    for (const x of sys) out.push({ system: x.system, value });
  }
  return out;
}

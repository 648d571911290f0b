/**
 * EDC configuration, mapping, status lists and the EDC log (issue 14 items 2–4). The sync itself is in
 * edc-sync.service.ts. Every call is scoped to the caller's project and environment, lists also to their sites.
 */
import { and, asc, count, desc, eq, gte, inArray, isNull, lt, max, ne, or, sql, type SQL } from 'drizzle-orm';
import type { z } from 'zod';
import {
  EDC_SYNC_STATUS,
  type EdcConfigSave,
  type EdcConfigView,
  type EdcLogDetail,
  type EdcLogListRequest,
  type EdcLogRow,
  type EdcMappingProblem,
  type EdcMappingRow,
  type EdcMappingView,
  type EdcRunView,
  type FormDefinition,
  type Language,
  type PtsEdcFormRow,
  type PtsEdcRow,
  type SyncCenterStatusRow,
  type edcMappingSave,
  type ptsEdcListRequest,
} from '@esource/shared';
import type { Db } from '../../db/client';
import { crfInstances, designVersions, edcConfigs, edcLogs, edcMappings, edcSyncRecords, edcSyncRuns, forms, sites, subjects, users, visitForms, visits } from '../../db/schema';
import type { ProjectScopedContext } from '../../lib/context';
import { AppError } from '../../lib/errors';
import { translator } from '../../lib/i18n';
import { offsetOf, pageOf } from '../../lib/page';
import { siteScope } from '../../lib/site-scope';
import { fieldError } from '../../lib/validate';
import { likeOf } from '../../lib/sql';
import { actorOf, recordAudit } from '../audit/audit.service';
import { decryptSecret, encryptSecret } from '../sources/secret-box';
import { EdcTransportError, type EdcAdapter, type EdcSettings, type EdcTargetItem } from './adapters/adapter';
import { indexMapping, itemKey, mappingProblems, proposeMapping, syncableFields, type MappingDesign, type MappingEntry, type Problem } from './edc-mapping';

export type AdapterFactory = (settings: EdcSettings) => EdcAdapter;
type ConfigRow = typeof edcConfigs.$inferSelect;

const iso = (d: Date | null | undefined) => (d ? d.toISOString() : null);

export function settingsOf(c: ConfigRow): EdcSettings {
  return {
    kind: c.kind as 1 | 3,
    baseUrl: c.baseUrl,
    studyOid: c.studyOid ?? undefined,
    environment: c.targetEnv ?? undefined,
    secret: decryptSecret(c.secretEnc) ?? '',
    timeoutMs: c.timeoutMs,
  };
}

/**
 * Why the EDC could not be used, in the user's language: the kind of failure (timeout, refused credentials, HTTP
 * error …) translated, with the EDC's own words or the technical detail after it. Errors that are not the EDC's are
 * rethrown (they are ours, and become an internal error with its reference).
 */
export function transportReason(err: unknown, lang: Language): string {
  if (!(err instanceof EdcTransportError)) throw err;
  return translator(lang)(`edc.transport.${err.kind}`, { detail: err.message });
}

/** A problem in the request's language. */
export function problemView(p: Problem, lang: Language): EdcMappingProblem {
  return { level: p.level, localKey: p.localKey, target: p.target, code: p.code, message: translator(lang)(`edc.problem.${p.code}`, { ...p.params, local: p.params.local ?? p.localKey ?? '', target: p.params.target ?? p.target ?? '' }) };
}

export class EdcService {
  constructor(
    private readonly db: Db,
    private readonly adapterFor: AdapterFactory,
  ) {}

  // ── configuration ──

  async configRow(ctx: ProjectScopedContext): Promise<ConfigRow | undefined> {
    const [c] = await this.db.select().from(edcConfigs).where(and(eq(edcConfigs.projectId, ctx.project.id), eq(edcConfigs.env, ctx.env)));
    return c;
  }

  async requireConfig(ctx: ProjectScopedContext): Promise<ConfigRow> {
    const c = await this.configRow(ctx);
    if (!c) throw new AppError('EDC_NOT_CONFIGURED');
    return c;
  }

  view(c: ConfigRow): EdcConfigView {
    return {
      id: c.id,
      kind: c.kind,
      name: c.name,
      baseUrl: c.baseUrl,
      studyOid: c.studyOid,
      targetEnv: c.targetEnv,
      timeoutMs: c.timeoutMs,
      schedule: (c.schedule as EdcConfigView['schedule']) ?? null,
      enabled: c.enabled,
      hasSecret: !!c.secretEnc,
      targetItemsAt: iso(c.targetItemsAt),
      version: c.version,
      updateTime: c.updatedAt.toISOString(),
    };
  }

  async getConfig(ctx: ProjectScopedContext): Promise<EdcConfigView | null> {
    const c = await this.configRow(ctx);
    return c ? this.view(c) : null;
  }

  /**
   * Creates or updates the project environment's EDC (optimistic: the version the editor loaded). The secret is
   * encrypted; absent on update = unchanged; a new kind or address needs it again, so an old secret never goes to
   * another target. Changing kind or address drops the item list read from the old target.
   */
  async saveConfig(ctx: ProjectScopedContext, input: EdcConfigSave): Promise<EdcConfigView> {
    const row = await this.db.transaction(async (tx) => {
      const [old] = await tx
        .select()
        .from(edcConfigs)
        .where(and(eq(edcConfigs.projectId, ctx.project.id), eq(edcConfigs.env, ctx.env)))
        .for('update');
      if (old && input.version !== old.version) throw new AppError('STALE_WRITE', { entity: translator(ctx.language)('entities.edcConfig') });
      if (!old && input.version !== undefined) throw new AppError('NOT_FOUND', { entity: 'edcConfig' });
      const targetChanged = !old || old.kind !== input.kind || old.baseUrl !== input.baseUrl || (old.studyOid ?? null) !== (input.studyOid ?? null);
      if (input.secret === undefined && targetChanged) throw fieldError(ctx.language, 'secret', 'validation.edcSecretAgain');
      const values = {
        kind: input.kind,
        name: input.name,
        baseUrl: input.baseUrl,
        studyOid: input.kind === 1 ? (input.studyOid ?? null) : null,
        targetEnv: input.kind === 1 ? (input.targetEnv ?? null) : null,
        timeoutMs: input.timeoutMs,
        schedule: input.schedule ?? null,
        enabled: input.enabled,
        updatedBy: ctx.user.id,
        updatedAt: new Date(),
        ...(input.secret !== undefined ? { secretEnc: encryptSecret(input.secret) } : {}),
        ...(targetChanged ? { targetItems: null, targetItemsAt: null } : {}),
      };
      const [saved] = old
        ? await tx
            .update(edcConfigs)
            .set({ ...values, version: old.version + 1 })
            .where(eq(edcConfigs.id, old.id))
            .returning()
        : await tx
            .insert(edcConfigs)
            .values({ ...values, env: ctx.env, projectId: ctx.project.id, secretEnc: encryptSecret(input.secret!) })
            .returning();
      const safe = (c: ConfigRow | undefined) => (c ? { kind: c.kind, name: c.name, baseUrl: c.baseUrl, studyOid: c.studyOid, targetEnv: c.targetEnv, timeoutMs: c.timeoutMs, schedule: c.schedule, enabled: c.enabled } : null);
      await recordAudit(tx, actorOf(ctx), [
        {
          action: old ? 'edc.config.update' : 'edc.config.create',
          entity: 'edcConfig',
          entityId: saved!.id,
          projectId: ctx.project.id,
          oldValue: safe(old),
          // the secret itself is never audited: only that it changed
          newValue: { ...safe(saved), secretChanged: input.secret !== undefined },
        },
      ]);
      return saved!;
    });
    return this.view(row);
  }

  /** Tries the saved target with its secret: what it answered (never the secret). */
  async testConfig(ctx: ProjectScopedContext): Promise<{ ok: boolean; message: string; httpStatus: number | null; ms: number }> {
    const c = await this.requireConfig(ctx);
    const t = translator(ctx.language);
    const started = Date.now();
    try {
      const ex = await this.adapterFor(settingsOf(c)).test();
      return { ok: true, message: t('edc.test.ok'), httpStatus: ex.httpStatus ?? null, ms: ex.ms };
    } catch (err) {
      const reason = transportReason(err, ctx.language);
      const e = err as EdcTransportError;
      return { ok: false, message: t('edc.test.failed', { reason }), httpStatus: e.exchange?.httpStatus ?? null, ms: Date.now() - started };
    }
  }

  /** POST /crf/form/item/getEDCItemList: the items the EDC offers, read again from the target when asked (or never read). */
  async itemList(ctx: ProjectScopedContext, refresh: boolean): Promise<{ items: EdcTargetItem[]; fetchedAt: string | null }> {
    const c = await this.requireConfig(ctx);
    if (!refresh && c.targetItems) return { items: c.targetItems as EdcTargetItem[], fetchedAt: iso(c.targetItemsAt) };
    let items: EdcTargetItem[];
    try {
      items = await this.adapterFor(settingsOf(c)).itemList();
    } catch (err) {
      throw new AppError('EDC_TARGET', { reason: transportReason(err, ctx.language) });
    }
    const at = new Date();
    await this.db.transaction(async (tx) => {
      await tx.update(edcConfigs).set({ targetItems: items, targetItemsAt: at }).where(eq(edcConfigs.id, c.id));
      await recordAudit(tx, actorOf(ctx), [{ action: 'edc.items.read', entity: 'edcConfig', entityId: c.id, projectId: ctx.project.id, newValue: { items: items.length } }]);
    });
    return { items, fetchedAt: at.toISOString() };
  }

  // ── mapping ──

  /** The design version's visits and forms (the project's own versions only). */
  async design(projectId: number, versionId: number): Promise<MappingDesign> {
    const [v] = await this.db
      .select({ id: designVersions.id })
      .from(designVersions)
      .where(and(eq(designVersions.id, versionId), eq(designVersions.projectId, projectId)));
    if (!v) throw new AppError('NOT_FOUND', { entity: 'version' });
    const vs = await this.db.select().from(visits).where(eq(visits.versionId, versionId)).orderBy(asc(visits.sortOrder), asc(visits.dayOffset), asc(visits.id));
    const links = vs.length ? await this.db.select().from(visitForms).where(inArray(visitForms.visitId, vs.map((x) => x.id))).orderBy(asc(visitForms.sortOrder)) : [];
    const fs = await this.db.select().from(forms).where(eq(forms.versionId, versionId)).orderBy(asc(forms.sortOrder), asc(forms.code));
    return {
      visits: vs.map((x) => ({ id: x.id, code: x.code, name: x.name, nameEn: x.nameEn, unscheduled: x.unscheduled, formIds: links.filter((l) => l.visitId === x.id).map((l) => l.formId) })),
      forms: fs.map((f) => ({ id: f.id, code: f.code, name: f.name, nameEn: f.nameEn, definition: f.definition as unknown as FormDefinition })),
    };
  }

  async entries(configId: number, versionId: number): Promise<MappingEntry[]> {
    const rows = await this.db
      .select()
      .from(edcMappings)
      .where(and(eq(edcMappings.configId, configId), eq(edcMappings.designVersionId, versionId)));
    return rows.map((r) => ({ level: r.level, localKey: r.localKey, target: r.target, targetGroup: r.targetGroup, valueMap: r.valueMap }));
  }

  /** The problems that block a sync of subjects on this design version (empty: it may start). */
  async problems(config: ConfigRow, projectId: number, versionId: number): Promise<Problem[]> {
    return mappingProblems(await this.design(projectId, versionId), await this.entries(config.id, versionId), (config.targetItems as EdcTargetItem[] | null) ?? null);
  }

  async mapping(ctx: ProjectScopedContext, versionId: number): Promise<EdcMappingView> {
    const c = await this.requireConfig(ctx);
    const design = await this.design(ctx.project.id, versionId);
    const entries = await this.entries(c.id, versionId);
    const by = indexMapping(entries);
    const en = ctx.language === 'en_US';
    const rows: EdcMappingRow[] = [];
    const row = (level: EdcMappingRow['level'], localKey: string, label: string, formCode: string | null, options?: EdcMappingRow['options']): EdcMappingRow => {
      const e = by[level].get(localKey);
      return { level, localKey, label, formCode, ...(options ? { options } : {}), target: e?.target ?? null, targetGroup: e?.targetGroup ?? null, valueMap: e?.valueMap ?? null };
    };
    for (const v of design.visits) rows.push(row('event', v.code, (en && v.nameEn) || v.name, null));
    for (const f of design.forms) {
      rows.push(row('form', f.code, (en && f.nameEn) || f.name, null));
      for (const field of syncableFields(f.definition)) {
        const options = field.options?.map((o) => ({ value: o.value, label: (en && o.labelEn) || o.label }));
        rows.push(row('item', itemKey(f.code, field.variable), (en && field.labelEn) || field.label, f.code, options));
      }
    }
    const problems = mappingProblems(design, entries, (c.targetItems as EdcTargetItem[] | null) ?? null).map((p) => problemView(p, ctx.language));
    return { versionId, rows, problems, targetItemsAt: iso(c.targetItemsAt) };
  }

  /** Saves mapping rows (an empty target removes one) in one transaction, and answers the mapping with its problems. */
  async saveMapping(ctx: ProjectScopedContext, input: z.infer<typeof edcMappingSave>): Promise<EdcMappingView> {
    const c = await this.requireConfig(ctx);
    const design = await this.design(ctx.project.id, input.versionId);
    const known = {
      event: new Set(design.visits.map((v) => v.code)),
      form: new Set(design.forms.map((f) => f.code)),
      item: new Set(design.forms.flatMap((f) => syncableFields(f.definition).map((x) => itemKey(f.code, x.variable)))),
    };
    const bad = input.rows.findIndex((r) => !known[r.level].has(r.localKey));
    if (bad >= 0) throw fieldError(ctx.language, `rows.${bad}.localKey`, 'edc.problem.unknownLocal', { local: input.rows[bad]!.localKey });
    await this.db.transaction(async (tx) => {
      const before = await tx
        .select()
        .from(edcMappings)
        .where(and(eq(edcMappings.configId, c.id), eq(edcMappings.designVersionId, input.versionId)));
      const old = new Map(before.map((r) => [`${r.level}:${r.localKey}`, r]));
      const changes: { key: string; old: string | null; new: string | null }[] = [];
      for (const r of input.rows) {
        const k = `${r.level}:${r.localKey}`;
        const prev = old.get(k);
        if (!r.target) {
          if (prev) {
            await tx.delete(edcMappings).where(eq(edcMappings.id, prev.id));
            changes.push({ key: k, old: prev.target, new: null });
          }
          continue;
        }
        const valueMap = r.valueMap && Object.keys(r.valueMap).length ? r.valueMap : null;
        await tx
          .insert(edcMappings)
          .values({ configId: c.id, designVersionId: input.versionId, level: r.level, localKey: r.localKey, target: r.target, targetGroup: r.targetGroup ?? null, valueMap, updatedBy: ctx.user.id })
          .onConflictDoUpdate({
            target: [edcMappings.configId, edcMappings.designVersionId, edcMappings.level, edcMappings.localKey],
            set: { target: r.target, targetGroup: r.targetGroup ?? null, valueMap, updatedBy: ctx.user.id, updatedAt: new Date() },
          });
        if (!prev || prev.target !== r.target || JSON.stringify(prev.valueMap) !== JSON.stringify(valueMap) || prev.targetGroup !== (r.targetGroup ?? null))
          changes.push({ key: k, old: prev?.target ?? null, new: r.target });
      }
      if (changes.length)
        await recordAudit(tx, actorOf(ctx), [{ action: 'edc.mapping.save', entity: 'edcConfig', entityId: c.id, projectId: ctx.project.id, newValue: { versionId: input.versionId, changes: changes.slice(0, 200), count: changes.length } }]);
    });
    return this.mapping(ctx, input.versionId);
  }

  /** Proposes (and saves) what can be matched by code; the user reviews it on the mapping page. */
  async autoMap(ctx: ProjectScopedContext, versionId: number): Promise<EdcMappingView> {
    const c = await this.requireConfig(ctx);
    if (!c.targetItems) throw new AppError('EDC_NO_ITEM_LIST');
    const proposal = proposeMapping(await this.design(ctx.project.id, versionId), await this.entries(c.id, versionId), c.targetItems as EdcTargetItem[]);
    return this.saveMapping(ctx, {
      versionId,
      rows: proposal.map((p) => ({ level: p.level, localKey: p.localKey, target: p.target, targetGroup: p.targetGroup ?? undefined, valueMap: p.valueMap ?? undefined })),
    });
  }

  // ── status lists ──

  private subjectScope(ctx: ProjectScopedContext): SQL {
    return and(eq(subjects.projectId, ctx.project.id), eq(subjects.env, ctx.env), siteScope(subjects.siteId, ctx), ne(subjects.status, 0))!;
  }

  /** POST /SyncCenterStatus/getSyncCenterStatusList: per site, completed forms and their sync states. */
  async centerStatus(ctx: ProjectScopedContext): Promise<SyncCenterStatusRow[]> {
    const c = await this.configRow(ctx);
    const siteRows = await this.db
      .select({ id: sites.id, no: sites.siteNo, name: sites.name })
      .from(sites)
      .where(and(eq(sites.projectId, ctx.project.id), eq(sites.env, ctx.env), siteScope(sites.id, ctx)))
      .orderBy(asc(sites.siteNo));
    const subjectCounts = await this.db.select({ siteId: subjects.siteId, n: count() }).from(subjects).where(this.subjectScope(ctx)).groupBy(subjects.siteId);
    const records = await this.db
      .select({ siteId: crfInstances.siteId, n: count() })
      .from(crfInstances)
      .innerJoin(subjects, eq(subjects.id, crfInstances.subjectId))
      .where(and(this.subjectScope(ctx), gte(crfInstances.status, 2), sql`${crfInstances.deletedAt} is null`))
      .groupBy(crfInstances.siteId);
    const states = c
      ? await this.db
          .select({ siteId: edcSyncRecords.siteId, status: edcSyncRecords.status, n: count(), last: max(edcSyncRecords.syncedAt) })
          .from(edcSyncRecords)
          .innerJoin(subjects, eq(subjects.id, edcSyncRecords.subjectId))
          // (a form deleted here keeps its sync row until the EDC took its removal: it is no record of the site)
          .innerJoin(crfInstances, and(eq(crfInstances.id, edcSyncRecords.instanceId), isNull(crfInstances.deletedAt)))
          .where(and(eq(edcSyncRecords.configId, c.id), this.subjectScope(ctx)))
          .groupBy(edcSyncRecords.siteId, edcSyncRecords.status)
      : [];
    return siteRows.map((s) => {
      const st = states.filter((x) => x.siteId === s.id);
      const n = (status: number) => st.filter((x) => x.status === status).reduce((a, x) => a + x.n, 0);
      const recs = records.find((x) => x.siteId === s.id)?.n ?? 0;
      const synced = n(EDC_SYNC_STATUS.synced);
      const failed = n(EDC_SYNC_STATUS.failed);
      const syncing = n(EDC_SYNC_STATUS.syncing);
      const last = st.map((x) => x.last).filter((d): d is Date => !!d).sort((a, b) => b.getTime() - a.getTime())[0];
      return {
        siteId: s.id,
        siteNo: s.no,
        siteName: s.name,
        subjects: subjectCounts.find((x) => x.siteId === s.id)?.n ?? 0,
        records: recs,
        // never sent and sent-but-changed count as pending
        pending: Math.max(0, recs - synced - failed - syncing),
        syncing,
        synced,
        failed,
        lastSyncAt: iso(last),
      };
    });
  }

  /** POST /edcLog/getPtsEdcList: subjects with their completed forms' sync states. */
  async subjectList(ctx: ProjectScopedContext, q: z.infer<typeof ptsEdcListRequest>): Promise<{ pageNumber: number; pageSize: number; totalCount: number; content: PtsEdcRow[] }> {
    const c = await this.configRow(ctx);
    const cid = c?.id ?? -1;
    const stats = sql`(select count(*)::int as records,
        count(*) filter (where r.status = ${EDC_SYNC_STATUS.synced})::int as synced,
        count(*) filter (where r.status = ${EDC_SYNC_STATUS.failed})::int as failed,
        max(r.synced_at) as last_sync,
        (array_agg(r.reason order by r.updated_at desc) filter (where r.status = ${EDC_SYNC_STATUS.failed}))[1] as last_reason
      from ${crfInstances} i left join ${edcSyncRecords} r on r.instance_id = i.id and r.config_id = ${cid}
      where i.subject_id = ${subjects.id} and i.status >= 2 and i.deleted_at is null)`;
    const where = and(this.subjectScope(ctx), q.siteId ? eq(subjects.siteId, q.siteId) : undefined, q.ptsNo ? sql`${subjects.ptsNo} ilike ${likeOf(q.ptsNo)}` : undefined);
    const base = this.db
      .select({ ptsId: subjects.id, ptsNo: subjects.ptsNo, siteName: sites.name, s: sql<{ records: number; synced: number; failed: number; last_sync: string | null; last_reason: string | null }>`(select row_to_json(x) from ${stats} x)`.as('s') })
      .from(subjects)
      .innerJoin(sites, eq(sites.id, subjects.siteId))
      .where(where)
      .orderBy(asc(subjects.ptsNo), asc(subjects.id))
      .as('b');
    const statusOf = sql<number>`case when (b.s->>'failed')::int > 0 then 3 when (b.s->>'synced')::int < (b.s->>'records')::int then 0 else 2 end`;
    const filtered = this.db
      .select()
      .from(base)
      .where(q.status !== undefined ? sql`${statusOf} = ${q.status}` : undefined);
    const [{ n } = { n: 0 }] = await this.db.select({ n: count() }).from(filtered.as('f'));
    const rows = (await filtered.limit(q.pageSize).offset(offsetOf(q))) as unknown as { ptsId: number; ptsNo: string; siteName: string; s: { records: number; synced: number; failed: number; last_sync: string | null; last_reason: string | null } }[];
    return pageOf(
      q,
      n,
      rows.map((r) => {
        const pending = Math.max(0, r.s.records - r.s.synced - r.s.failed);
        return {
          ptsId: r.ptsId,
          ptsNo: r.ptsNo,
          siteName: r.siteName,
          records: r.s.records,
          pending,
          synced: r.s.synced,
          failed: r.s.failed,
          status: r.s.failed > 0 ? EDC_SYNC_STATUS.failed : pending > 0 ? EDC_SYNC_STATUS.pending : EDC_SYNC_STATUS.synced,
          lastSyncAt: r.s.last_sync ? new Date(r.s.last_sync).toISOString() : null,
          lastReason: r.s.last_reason,
        };
      }),
    );
  }

  /** POST /edcLog/getPtsEdc and /project/pts/job/getFormByStageId: one subject's completed forms at the EDC. */
  async subjectForms(ctx: ProjectScopedContext, ptsId: number, visitId: number | undefined): Promise<PtsEdcFormRow[]> {
    const [s] = await this.db
      .select({ id: subjects.id, designVersionId: subjects.designVersionId })
      .from(subjects)
      .where(and(this.subjectScope(ctx), eq(subjects.id, ptsId)));
    if (!s) throw new AppError('NOT_FOUND', { entity: 'subject' });
    const c = await this.configRow(ctx);
    const mapped = c && s.designVersionId ? indexMapping(await this.entries(c.id, s.designVersionId)).form : new Map<string, MappingEntry>();
    const en = ctx.language === 'en_US';
    const rows = await this.db
      .select({ i: crfInstances, visitName: visits.name, visitNameEn: visits.nameEn, formCode: forms.code, formName: forms.name, formNameEn: forms.nameEn, r: edcSyncRecords })
      .from(crfInstances)
      .innerJoin(visits, eq(visits.id, crfInstances.visitId))
      .innerJoin(forms, eq(forms.id, crfInstances.formId))
      .leftJoin(edcSyncRecords, and(eq(edcSyncRecords.instanceId, crfInstances.id), eq(edcSyncRecords.configId, c?.id ?? -1)))
      .where(and(eq(crfInstances.subjectId, s.id), gte(crfInstances.status, 2), sql`${crfInstances.deletedAt} is null`, visitId ? eq(crfInstances.visitId, visitId) : undefined))
      .orderBy(asc(visits.sortOrder), asc(crfInstances.unscheduledId), asc(forms.sortOrder), asc(crfInstances.repeatNo));
    return rows.map((x) => ({
      instanceId: x.i.id,
      visitId: x.i.visitId,
      visitName: (en && x.visitNameEn) || x.visitName,
      formCode: x.formCode,
      formName: (en && x.formNameEn) || x.formName,
      repeatNo: x.i.repeatNo,
      unscheduledId: x.i.unscheduledId,
      crfStatus: x.i.status,
      status: x.r?.status ?? EDC_SYNC_STATUS.pending,
      mapped: mapped.has(x.formCode),
      reason: x.r?.reason ?? null,
      attempts: x.r?.attempts ?? 0,
      syncedAt: iso(x.r?.syncedAt),
    }));
  }

  // ── the EDC log ──

  private logWhere(ctx: ProjectScopedContext, q: Partial<EdcLogListRequest>): SQL {
    return and(
      eq(edcLogs.projectId, ctx.project.id),
      eq(edcLogs.env, ctx.env),
      // a site user sees the log of their sites' subjects; run-level entries (no site) only central users
      ctx.project.siteIds === null && ctx.siteId === null ? undefined : siteScope(edcLogs.siteId, ctx),
      q.runId ? eq(edcLogs.runId, q.runId) : undefined,
      q.ptsNo ? sql`${edcLogs.ptsNo} ilike ${likeOf(q.ptsNo)}` : undefined,
      q.siteId ? eq(edcLogs.siteId, q.siteId) : undefined,
      q.action ? eq(edcLogs.action, q.action) : undefined,
      q.status ? eq(edcLogs.status, q.status) : undefined,
      // the option the reader picked is in their language (getDataNameList): either name matches
      q.dataName ? or(eq(edcLogs.dataName, q.dataName), eq(edcLogs.dataNameEn, q.dataName)) : undefined,
      q.createdBy ? eq(edcLogs.createdBy, q.createdBy) : undefined,
      q.dateFrom ? gte(edcLogs.createdAt, new Date(`${q.dateFrom}T00:00:00Z`)) : undefined,
      q.dateTo ? lt(edcLogs.createdAt, new Date(new Date(`${q.dateTo}T00:00:00Z`).getTime() + 86_400_000)) : undefined,
    )!;
  }

  private logSelect() {
    return this.db
      .select({ l: edcLogs, siteName: sites.name })
      .from(edcLogs)
      .leftJoin(sites, eq(sites.id, edcLogs.siteId));
  }

  private logRow(x: { l: typeof edcLogs.$inferSelect; siteName: string | null }, lang: Language): EdcLogRow {
    return {
      id: x.l.id,
      runId: x.l.runId,
      ptsId: x.l.subjectId,
      ptsNo: x.l.ptsNo,
      siteName: x.siteName,
      dataName: (lang === 'en_US' && x.l.dataNameEn) || x.l.dataName,
      action: x.l.action as EdcLogRow['action'],
      status: x.l.status,
      changeCount: x.l.changes?.length ?? 0,
      reason: x.l.reason,
      httpStatus: x.l.httpStatus,
      createdByName: x.l.createdByName,
      createTime: x.l.createdAt.toISOString(),
    };
  }

  async logs(ctx: ProjectScopedContext, q: EdcLogListRequest) {
    const where = this.logWhere(ctx, q);
    const [{ n } = { n: 0 }] = await this.db.select({ n: count() }).from(edcLogs).where(where);
    const rows = await this.logSelect()
      .where(where)
      .orderBy(q.sortOrder === 'asc' ? asc(edcLogs.id) : desc(edcLogs.id))
      .limit(q.pageSize)
      .offset(offsetOf(q));
    return pageOf(q, n, rows.map((x) => this.logRow(x, ctx.language)));
  }

  /** A log entry's item changes with our items' labels in the reader's language (en when the design has it). */
  private static changesIn(changes: (typeof edcLogs.$inferSelect)['changes'], lang: Language): EdcLogDetail['changes'] {
    const en = lang === 'en_US';
    return (changes ?? []).map((c) => ({ item: c.item, local: (en && c.localEn) || c.local, old: c.old, new: c.new }));
  }

  /** Every row of the filters, for the export (bounded). */
  async logsForExport(ctx: ProjectScopedContext, q: Partial<EdcLogListRequest>, limit: number): Promise<(EdcLogDetail & { changesText: string })[]> {
    const rows = await this.logSelect()
      .where(this.logWhere(ctx, q))
      .orderBy(desc(edcLogs.id))
      .limit(limit);
    return rows.map((x) => {
      const changes = EdcService.changesIn(x.l.changes, ctx.language);
      return {
        ...this.logRow(x, ctx.language),
        changes,
        request: null,
        response: null,
        changesText: changes.map((c) => `${c.local} → ${c.item}: ${c.old ?? '∅'} → ${c.new ?? '∅'}`).join('\n'),
      };
    });
  }

  /** POST /edcLog/getChangeLogList: one entry's item changes (our labels in the reader's language) and the exchange. */
  async logDetail(ctx: ProjectScopedContext, id: number): Promise<EdcLogDetail> {
    const [x] = await this.logSelect().where(and(this.logWhere(ctx, {}), eq(edcLogs.id, id)));
    if (!x) throw new AppError('NOT_FOUND', { entity: 'edcLog' });
    return { ...this.logRow(x, ctx.language), changes: EdcService.changesIn(x.l.changes, ctx.language), request: x.l.request, response: x.l.response };
  }

  /** POST /edcLog/getDataNameList: the visit / form names the log holds, in the reader's language (a filter's options). */
  async dataNames(ctx: ProjectScopedContext): Promise<string[]> {
    const name = ctx.language === 'en_US' ? sql<string>`coalesce(${edcLogs.dataNameEn}, ${edcLogs.dataName})` : sql<string>`${edcLogs.dataName}`;
    const rows = await this.db
      .selectDistinct({ n: name })
      .from(edcLogs)
      .where(and(this.logWhere(ctx, {}), sql`${edcLogs.dataName} is not null`))
      .orderBy(asc(name))
      .limit(500);
    return rows.map((r) => r.n);
  }

  /** POST /edcLog/getCreator: who started syncs (a filter's options). */
  async creators(ctx: ProjectScopedContext): Promise<{ id: number; name: string }[]> {
    const rows = await this.db
      .selectDistinct({ id: users.id, name: users.name })
      .from(edcLogs)
      .innerJoin(users, eq(users.id, edcLogs.createdBy))
      .where(this.logWhere(ctx, {}))
      .orderBy(asc(users.name))
      .limit(500);
    return rows;
  }

  /** POST /edcLog/exportList: the sync runs, newest first. */
  async runs(ctx: ProjectScopedContext, q: { pageNumber: number; pageSize: number }) {
    const where = and(eq(edcSyncRuns.projectId, ctx.project.id), eq(edcSyncRuns.env, ctx.env));
    const [{ n } = { n: 0 }] = await this.db.select({ n: count() }).from(edcSyncRuns).where(where);
    const rows = await this.db.select().from(edcSyncRuns).where(where).orderBy(desc(edcSyncRuns.id)).limit(q.pageSize).offset(offsetOf(q));
    return pageOf(q, n, rows.map(runView));
  }
}

export function runView(r: typeof edcSyncRuns.$inferSelect): EdcRunView {
  return {
    id: r.id,
    scope: r.scope,
    scopeId: r.scopeId,
    trigger: r.trigger,
    status: r.status,
    counts: r.counts ?? null,
    error: r.error,
    startedByName: r.startedByName,
    edcAccount: r.edcAccount,
    progressItemId: r.progressItemId,
    createTime: r.createdAt.toISOString(),
    finishTime: iso(r.finishedAt),
  };
}

/**
 * EDC sync (issue 14 item 3; spec §7 /project/pts/job/handEDCStart, progress type 3): a sync of a subject, a site or
 * the study runs as the `edc.sync` job, one subject at a time:
 *
 * 1. Each completed or certified form instance of the subject whose form is mapped becomes a record in the EDC's
 *    terms (edc-mapping.ts). A record whose content hash equals the one the EDC last accepted is not sent again.
 * 2. The EDC's current values of the changed records are read first: a value that differs both from what we last
 *    sent and from what we would send now was changed at the EDC since — a conflict, reported, never overwritten.
 * 3. The rest is sent; each record ends synced (hash and values kept) or failed with the EDC's own reason. The
 *    outcome of a subject is committed before the next subject is sent.
 * 4. A failure of the exchange itself (timeout, HTTP 500, refused credentials) puts the subject's records back to
 *    pending and stops the run; pg-boss retries it with back-off, and the retry sends only what is not synced yet —
 *    so a study sync that timed out halfway keeps what was sent and sends nothing twice (sends are idempotent at the
 *    EDC as well: ODM Upsert, REDCap overwrite on fixed keys).
 * 5. Removals: a form instance deleted in our eCRF after the EDC accepted it (its sync row remains) is removed at the
 *    EDC — the whole instance, or only its items where the EDC form also holds another of our forms — and its sync
 *    row is dropped once the EDC took the removal; a value cleared here is cleared there. The EDC's current values
 *    (step 2) go with each record (`atTarget`), so a removal is sent only while the EDC still holds something to
 *    remove: a repeated or retried sync finds nothing left and sends nothing (ODM refuses a Remove of absent data).
 *    A removal is checked for conflicts like any change: a value corrected at the EDC since is not removed.
 *
 * Every record sent, removed, refused or in conflict, and every failed exchange, is written to the EDC log with who
 * started it; a record's entry holds the exchange that decided it (its part of the request, the EDC's answer to it).
 */
import { createHash } from 'node:crypto';
import { and, asc, eq, gte, inArray, isNotNull, isNull, ne, or, sql } from 'drizzle-orm';
import { EDC_SYNC_STATUS, PROGRESS_STATUS, PROGRESS_TYPE, type EdcRunView, type Env, type Language } from '@esource/shared';
import type { Db } from '../../db/client';
import { crfInstances, crfValues, edcConfigs, edcLogs, edcSyncRecords, edcSyncRuns, progressItems, projects, sites, subjectUnscheduledVisits, subjects } from '../../db/schema';
import type { ProjectScopedContext } from '../../lib/context';
import { AppError } from '../../lib/errors';
import { translator } from '../../lib/i18n';
import { groupBy } from '../../lib/group';
import { reachesSite, siteScope } from '../../lib/site-scope';
import { recordAudit, actorOf } from '../audit/audit.service';
import type { JobContext, JobRunner } from '../jobs/job-runner';
import { EdcTransportError, type EdcAdapter, type EdcExchange, type EdcRecord, type EdcRecordItem } from './adapters/adapter';
import { indexMapping, recordItems, type MappingDesign } from './edc-mapping';
import { linkedSettings } from './edc-link.service';
import { EdcService, problemView, runView, settingsOf, transportReason, type AdapterFactory } from './edc.service';

export const EDC_SYNC_JOB = 'edc.sync';
/** attempts after the first when the EDC cannot be reached (pg-boss retries with back-off) */
export const EDC_SYNC_RETRIES = 2;
/** a run still pending or syncing after this long is taken as dead (its worker was killed) */
const RUN_STALE_MS = 2 * 60 * 60_000;
const EXCERPT = 4_000;
const SCHEDULE_MS = { hourly: 60 * 60_000, daily: 24 * 60 * 60_000 } as const;
const TICK_MS = 60_000;

type ConfigRow = typeof edcConfigs.$inferSelect;
type RunRow = typeof edcSyncRuns.$inferSelect;
interface SyncJobData {
  runId: number;
  language: Language;
}
type Counts = NonNullable<RunRow['counts']>;

const cut = (s: string | undefined | null) => (s == null ? null : s.length > EXCERPT ? `${s.slice(0, EXCERPT)}…` : s);
const hashOf = (r: object) => createHash('sha256').update(JSON.stringify(r)).digest('hex');
const same = (a: string | null | undefined, b: string | null | undefined) => (a ?? '') === (b ?? '');

interface Prepared {
  record: EdcRecord;
  instanceId: number;
  hash: string;
  values: Record<string, string | null>;
  /** target item → our item's label, zh and en (the log shows the reader's) */
  locals: Record<string, { zh: string; en: string | null }>;
  dataName: string;
  /** the same with the design's English names, when it has any */
  dataNameEn: string | null;
  prev: typeof edcSyncRecords.$inferSelect | undefined;
}
type LogChange = NonNullable<(typeof edcLogs.$inferInsert)['changes']>[number];

export class EdcSyncService {
  private readonly edc: EdcService;

  constructor(
    private readonly db: Db,
    private readonly adapterFor: AdapterFactory,
    private readonly jobs?: JobRunner,
  ) {
    this.edc = new EdcService(db, adapterFor);
  }

  /** POST /project/pts/job/handEDCStart: checks the mapping of every design version in scope, then queues the run. */
  async start(ctx: ProjectScopedContext, req: { scope: 'subject' | 'site' | 'study'; ptsId?: number; siteId?: number }): Promise<EdcRunView> {
    const config = await this.edc.requireConfig(ctx);
    if (!config.enabled) throw new AppError('EDC_DISABLED');
    if (req.scope === 'site' && !reachesSite(req.siteId!, ctx)) throw new AppError('NOT_FOUND', { entity: 'site' });
    const scopeWhere = and(
      eq(subjects.projectId, ctx.project.id),
      eq(subjects.env, ctx.env),
      siteScope(subjects.siteId, ctx),
      ne(subjects.status, 0),
      req.scope === 'subject' ? eq(subjects.id, req.ptsId!) : undefined,
      req.scope === 'site' ? eq(subjects.siteId, req.siteId!) : undefined,
    );
    const versions = await this.db.selectDistinct({ v: subjects.designVersionId }).from(subjects).where(and(scopeWhere, isNotNull(subjects.designVersionId)));
    if (req.scope === 'subject' && !versions.length) {
      const [s] = await this.db.select({ id: subjects.id }).from(subjects).where(scopeWhere);
      if (!s) throw new AppError('NOT_FOUND', { entity: 'subject' });
    }
    for (const { v } of versions) {
      const problems = await this.edc.problems(config, ctx.project.id, v!);
      if (problems.length) {
        const views = problems.map((p) => problemView(p, ctx.language));
        throw new AppError('EDC_MAPPING_INVALID', { count: views.length, first: views[0]!.message }, views.map((p) => ({ field: `${p.level ?? 'mapping'}:${p.localKey ?? ''}`, message: p.message })));
      }
    }
    const t = translator(ctx.language);
    const siteIds = ctx.siteId !== null ? [ctx.siteId] : ctx.project.siteIds;
    // Associate EDC: the starter's own verified account, when linked (the job uses it again; see run)
    const own = await linkedSettings(this.db, ctx.user.id, config);
    const run = await this.db.transaction(async (tx) => {
      // one sync at a time per project environment (the config row is the lock)
      await tx.select({ id: edcConfigs.id }).from(edcConfigs).where(eq(edcConfigs.id, config.id)).for('update');
      const [busy] = await tx
        .select({ id: edcSyncRuns.id })
        .from(edcSyncRuns)
        .where(and(eq(edcSyncRuns.configId, config.id), inArray(edcSyncRuns.status, [EDC_SYNC_STATUS.pending, EDC_SYNC_STATUS.syncing]), gte(edcSyncRuns.createdAt, new Date(Date.now() - RUN_STALE_MS))));
      if (busy) throw new AppError('EDC_SYNC_RUNNING');
      const [r] = await tx
        .insert(edcSyncRuns)
        .values({
          env: ctx.env,
          projectId: ctx.project.id,
          configId: config.id,
          scope: req.scope,
          scopeId: req.scope === 'subject' ? req.ptsId! : req.scope === 'site' ? req.siteId! : null,
          siteIds,
          trigger: 'manual',
          startedBy: ctx.user.id,
          startedByName: ctx.user.name,
          edcAccount: own?.account ?? null,
        })
        .returning();
      await recordAudit(tx, actorOf(ctx), [{ action: 'edc.sync.start', entity: 'edcSyncRun', entityId: r!.id, projectId: ctx.project.id, subjectId: req.ptsId ?? null, siteId: req.siteId ?? null, newValue: { scope: req.scope } }]);
      return r!;
    });
    return this.enqueue(run, ctx.user.id, ctx.language, t(`edc.progress.${req.scope}`));
  }

  private async enqueue(run: RunRow, userId: number | null, language: Language, display: string): Promise<EdcRunView> {
    if (!this.jobs?.started) {
      // no job runner (a process without workers): the run waits until one picks it up? no — run it here
      await this.run({ runId: run.id, language }, null);
    } else {
      const r = await this.jobs.enqueue(EDC_SYNC_JOB, { runId: run.id, language } satisfies SyncJobData, {
        ...(userId ? { progress: { userId, env: run.env as Env, projectId: run.projectId, siteId: run.scope === 'site' ? run.scopeId : null, type: PROGRESS_TYPE.edcSync, displayInformation: display } } : {}),
      });
      await this.db.update(edcSyncRuns).set({ progressItemId: r.progressItemId, jobId: r.jobId }).where(eq(edcSyncRuns.id, run.id));
    }
    const [fresh] = await this.db.select().from(edcSyncRuns).where(eq(edcSyncRuns.id, run.id));
    return runView(fresh!);
  }

  /** The job: every subject of the run's scope in turn (see the file comment). */
  async run(data: SyncJobData, jctx: JobContext | null): Promise<void> {
    const [run] = await this.db.select().from(edcSyncRuns).where(eq(edcSyncRuns.id, data.runId));
    if (!run || run.status === EDC_SYNC_STATUS.synced || run.status === EDC_SYNC_STATUS.failed) return;
    const [config] = await this.db.select().from(edcConfigs).where(eq(edcConfigs.id, run.configId));
    const t = translator(data.language);
    const counts: Counts = { subjects: 0, records: 0, sent: 0, synced: 0, failed: 0, conflicts: 0, unchanged: 0, removed: 0 };
    const finish = async (status: number, error: string | null) => {
      await this.db.update(edcSyncRuns).set({ status, counts, error, finishedAt: new Date() }).where(eq(edcSyncRuns.id, run.id));
      if (run.progressItemId && status === EDC_SYNC_STATUS.failed)
        await this.db.update(progressItems).set({ status: PROGRESS_STATUS.error, updatedAt: new Date() }).where(eq(progressItems.id, run.progressItemId));
    };
    if (!config) return finish(EDC_SYNC_STATUS.failed, t('errors.EDC_NOT_CONFIGURED'));
    // a manual run talks to the EDC as its starter when they linked their own account (Associate EDC), so the EDC's
    // audit trail names them; scheduled runs and starters without a verified link use the service account
    const own = run.trigger === 'manual' && run.startedBy ? await linkedSettings(this.db, run.startedBy, config) : null;
    await this.db.update(edcSyncRuns).set({ status: EDC_SYNC_STATUS.syncing, edcAccount: own?.account ?? null }).where(eq(edcSyncRuns.id, run.id));
    const adapter = this.adapterFor(own?.settings ?? settingsOf(config));
    const list = await this.db
      .select({ id: subjects.id, ptsNo: subjects.ptsNo, siteId: subjects.siteId, siteNo: sites.siteNo, designVersionId: subjects.designVersionId })
      .from(subjects)
      .innerJoin(sites, eq(sites.id, subjects.siteId))
      .where(
        and(
          eq(subjects.projectId, run.projectId),
          eq(subjects.env, run.env),
          ne(subjects.status, 0),
          run.siteIds ? inArray(subjects.siteId, run.siteIds.length ? run.siteIds : [-1]) : undefined,
          run.scope === 'subject' ? eq(subjects.id, run.scopeId!) : undefined,
          run.scope === 'site' ? eq(subjects.siteId, run.scopeId!) : undefined,
        ),
      )
      .orderBy(asc(subjects.id));
    const designs = new Map<number, { design: MappingDesign; by: ReturnType<typeof indexMapping> } | null>();
    const designOf = async (versionId: number) => {
      if (!designs.has(versionId)) {
        const problems = await this.edc.problems(config, run.projectId, versionId);
        designs.set(versionId, problems.length ? null : { design: await this.edc.design(run.projectId, versionId), by: indexMapping(await this.edc.entries(config.id, versionId)) });
      }
      return designs.get(versionId)!;
    };
    let done = 0;
    for (const s of list) {
      const m = s.designVersionId ? await designOf(s.designVersionId) : null;
      if (!m) {
        done++;
        continue;
      }
      try {
        await this.syncSubject(run, config, adapter, s, m, counts, t, data.language);
      } catch (err) {
        if (!(err instanceof EdcTransportError)) throw err;
        const last = !jctx || jctx.attempt >= EDC_SYNC_RETRIES || err.kind === 'auth';
        if (last) {
          await finish(EDC_SYNC_STATUS.failed, t('edc.runFailed', { reason: transportReason(err, data.language) }));
          return;
        }
        await this.db.update(edcSyncRuns).set({ counts, error: t('edc.runRetrying', { reason: transportReason(err, data.language) }) }).where(eq(edcSyncRuns.id, run.id));
        throw err;
      }
      counts.subjects++;
      done++;
      if (jctx && (done % 10 === 0 || done === list.length)) await jctx.report(done, list.length);
    }
    await finish(counts.failed + counts.conflicts > 0 ? EDC_SYNC_STATUS.failed : EDC_SYNC_STATUS.synced, null);
  }

  private async syncSubject(
    run: RunRow,
    config: ConfigRow,
    adapter: EdcAdapter,
    s: { id: number; ptsNo: string; siteId: number; siteNo: string; designVersionId: number | null },
    m: { design: MappingDesign; by: ReturnType<typeof indexMapping> },
    counts: Counts,
    t: ReturnType<typeof translator>,
    lang: Language,
  ): Promise<void> {
    const prepared = await this.prepare(config, s, m);
    counts.records += prepared.filter((p) => !p.record.remove).length;
    // removals are always due (their sync row goes once the EDC took them); other records when changed
    const toSend = prepared.filter((p) => p.record.remove || !(p.prev?.status === EDC_SYNC_STATUS.synced && p.prev.sentHash === p.hash));
    counts.unchanged += prepared.length - toSend.length;
    if (!toSend.length) return;
    const base = { configId: config.id, env: run.env, projectId: run.projectId, siteId: s.siteId, subjectId: s.id };
    await this.db.transaction(async (tx) => {
      for (const p of toSend)
        await tx
          .insert(edcSyncRecords)
          .values({ ...base, instanceId: p.instanceId, status: EDC_SYNC_STATUS.syncing, lastRunId: run.id, attempts: 1 })
          .onConflictDoUpdate({
            target: [edcSyncRecords.configId, edcSyncRecords.instanceId],
            set: { status: EDC_SYNC_STATUS.syncing, lastRunId: run.id, attempts: sql`${edcSyncRecords.attempts} + 1`, updatedAt: new Date() },
          });
    });
    const logBase = { env: run.env, projectId: run.projectId, runId: run.id, siteId: s.siteId, subjectId: s.id, ptsNo: s.ptsNo, createdBy: run.startedBy, createdByName: run.startedByName };
    const exchanges: EdcExchange[] = [];
    const thisRecord = (p: Prepared) => and(eq(edcSyncRecords.configId, config.id), eq(edcSyncRecords.instanceId, p.instanceId));
    try {
      const cur = await adapter.current(s.ptsNo, s.siteNo, toSend.map((p) => p.record));
      exchanges.push(...cur.exchanges);
      const conflicts = new Map<Prepared, string[]>();
      for (const p of toSend) {
        const there = cur.values.get(p.record.key);
        // what the EDC holds goes with the record: removals are sent only where there is something to remove
        p.record.atTarget = there ? Object.fromEntries(there) : null;
        const sent = p.prev?.sentValues;
        if (!sent || !there) continue;
        const now = (i: EdcRecordItem) => (p.record.remove ? null : i.value);
        const diffs = p.record.items
          .filter((i) => there.has(i.item) && !same(there.get(i.item), sent[i.item]) && !same(there.get(i.item), now(i)))
          .map((i) => t('edc.conflictItem', { item: i.item, there: there.get(i.item) ?? '∅', sent: sent[i.item] ?? '∅' }));
        if (diffs.length) conflicts.set(p, diffs);
      }
      const sendable = toSend.filter((p) => !conflicts.has(p));
      const outcome = sendable.length ? await adapter.send(s.ptsNo, s.siteNo, sendable.map((p) => p.record)) : { results: [], exchanges: [] };
      exchanges.push(...outcome.exchanges);
      const sendEx = outcome.exchanges.at(-1);
      const now = new Date();
      await this.db.transaction(async (tx) => {
        for (const [p, diffs] of conflicts) {
          const reason = t('edc.conflict', { items: diffs.join('; ') });
          await tx.update(edcSyncRecords).set({ status: EDC_SYNC_STATUS.failed, reason: reason.slice(0, 1000), updatedAt: now }).where(thisRecord(p));
          await tx.insert(edcLogs).values({ ...logBase, instanceId: p.instanceId, dataName: p.dataName, dataNameEn: p.dataNameEn, action: 'conflict', status: 3, reason: reason.slice(0, 1000), changes: this.changes(p) });
          counts.conflicts++;
        }
        for (const p of sendable) {
          const r = outcome.results.find((x) => x.key === p.record.key) ?? { key: p.record.key, ok: false, reason: t('edc.noResult') };
          if (!r.noop) counts.sent++;
          // the record's own exchange (its part of the request, the EDC's answer to it); else the call's last
          const ex = r.noop ? undefined : (r.exchange ?? sendEx);
          const exchange = { httpStatus: ex?.httpStatus ?? null, request: cut(ex?.request), response: cut(ex?.response) };
          if (r.ok && p.record.remove) {
            // removed at the EDC (or nothing left there to remove): the instance no longer has a sync state
            await tx.delete(edcSyncRecords).where(thisRecord(p));
            await tx.insert(edcLogs).values({ ...logBase, ...exchange, instanceId: p.instanceId, dataName: p.dataName, dataNameEn: p.dataNameEn, action: 'removed', status: 2, reason: r.noop ? t('edc.removedAbsent') : null, changes: this.changes(p) });
            counts.removed = (counts.removed ?? 0) + 1;
          } else if (r.ok) {
            await tx
              .update(edcSyncRecords)
              .set({ status: EDC_SYNC_STATUS.synced, sentHash: p.hash, sentValues: p.values, reason: null, syncedAt: now, updatedAt: now })
              .where(thisRecord(p));
            await tx.insert(edcLogs).values({ ...logBase, ...exchange, instanceId: p.instanceId, dataName: p.dataName, dataNameEn: p.dataNameEn, action: 'sent', status: 2, changes: this.changes(p) });
            counts.synced++;
          } else {
            const reason = (r.reason ?? t('edc.refused')).slice(0, 1000);
            await tx.update(edcSyncRecords).set({ status: EDC_SYNC_STATUS.failed, reason, updatedAt: now }).where(thisRecord(p));
            await tx.insert(edcLogs).values({ ...logBase, ...exchange, instanceId: p.instanceId, dataName: p.dataName, dataNameEn: p.dataNameEn, action: 'refused', status: 3, reason, changes: this.changes(p) });
            counts.failed++;
          }
        }
      });
    } catch (err) {
      // (only the EDC's failures are logged as such; anything else is ours and goes up as it is)
      const reason = transportReason(err, lang).slice(0, 1000);
      const ex = err instanceof EdcTransportError ? err.exchange : exchanges.at(-1);
      await this.db.transaction(async (tx) => {
        await tx
          .update(edcSyncRecords)
          .set({ status: EDC_SYNC_STATUS.pending, reason, updatedAt: new Date() })
          .where(and(eq(edcSyncRecords.configId, config.id), inArray(edcSyncRecords.instanceId, toSend.map((p) => p.instanceId)), eq(edcSyncRecords.status, EDC_SYNC_STATUS.syncing)));
        await tx.insert(edcLogs).values({ ...logBase, action: 'error', status: 3, reason, httpStatus: ex?.httpStatus ?? null, request: cut(ex?.request), response: cut(ex?.response) });
      });
      throw err;
    }
  }

  /** The item changes a log entry lists (target item, our item's label in both languages, old → new). */
  private changes(p: Prepared): LogChange[] {
    const prev = p.prev?.status === EDC_SYNC_STATUS.synced || p.prev?.sentValues ? (p.prev.sentValues ?? {}) : {};
    const label = (item: string) => ({ local: p.locals[item]?.zh ?? '', ...(p.locals[item]?.en ? { localEn: p.locals[item].en } : {}) });
    // a removal: every value the EDC last accepted goes
    if (p.record.remove) return Object.entries(prev).filter(([, v]) => v !== null).map(([item, old]) => ({ item, ...label(item), old, new: null }));
    return p.record.items
      .filter((i) => !same(prev[i.item], i.value) || !(i.item in prev))
      .filter((i) => i.item in prev || i.value !== null)
      .map((i) => ({ item: i.item, ...label(i.item), old: prev[i.item] ?? null, new: i.value }));
  }

  /**
   * The subject's completed forms as records in the EDC's terms (forms not mapped are left out), and the removals:
   * instances deleted here that still have a sync row (the EDC was sent them).
   */
  private async prepare(config: ConfigRow, s: { id: number }, m: { design: MappingDesign; by: ReturnType<typeof indexMapping> }): Promise<Prepared[]> {
    const inst = await this.db
      .select()
      .from(crfInstances)
      .where(
        and(
          eq(crfInstances.subjectId, s.id),
          or(
            and(gte(crfInstances.status, 2), isNull(crfInstances.deletedAt)),
            and(
              isNotNull(crfInstances.deletedAt),
              sql`exists (select 1 from ${edcSyncRecords} where ${edcSyncRecords.instanceId} = ${crfInstances.id} and ${edcSyncRecords.configId} = ${config.id})`,
            ),
          ),
        ),
      )
      .orderBy(asc(crfInstances.id));
    if (!inst.length) return [];
    const ids = inst.map((i) => i.id);
    const vals = await this.db.select({ instanceId: crfValues.instanceId, variable: crfValues.variable, value: crfValues.value }).from(crfValues).where(inArray(crfValues.instanceId, ids));
    const prev = await this.db.select().from(edcSyncRecords).where(and(eq(edcSyncRecords.configId, config.id), inArray(edcSyncRecords.instanceId, ids)));
    const unscheduled = await this.db
      .select({ id: subjectUnscheduledVisits.id, visitId: subjectUnscheduledVisits.visitId })
      .from(subjectUnscheduledVisits)
      .where(eq(subjectUnscheduledVisits.subjectId, s.id))
      .orderBy(asc(subjectUnscheduledVisits.id));
    const visitById = new Map(m.design.visits.map((v) => [v.id, v]));
    const formById = new Map(m.design.forms.map((f) => [f.id, f]));
    // EDC forms that hold several of our forms: a removal there clears our items only
    const formsOfTarget = new Map<string, number>();
    for (const e of m.by.form.values()) formsOfTarget.set(e.target, (formsOfTarget.get(e.target) ?? 0) + 1);
    const out: Prepared[] = [];
    const valsOf = groupBy(vals, (v) => v.instanceId);
    for (const i of inst) {
      const form = formById.get(i.formId);
      const visit = visitById.get(i.visitId);
      const fm = form ? m.by.form.get(form.code) : undefined;
      if (!form || !visit || !fm) continue;
      const values = new Map<string, unknown>((valsOf.get(i.id) ?? []).map((v) => [v.variable, v.value?.v]));
      // each item with its own target group (a form of several groups is sent as several ItemGroupData)
      const { items, locals } = recordItems(form, values, m.by);
      if (!items.length) continue;
      const groups = new Map<string, number>();
      for (const x of items) if (x.group) groups.set(x.group, (groups.get(x.group) ?? 0) + 1);
      const eventRepeat = i.unscheduledId ? unscheduled.filter((u) => u.visitId === i.visitId).findIndex((u) => u.id === i.unscheduledId) + 1 || 1 : 1;
      const em = m.by.event.get(visit.code);
      const removed = i.deletedAt !== null;
      const record: EdcRecord = {
        key: String(i.id),
        ...(em ? { event: em.target } : {}),
        eventRepeat,
        form: fm.target,
        formRepeat: i.repeatNo,
        items,
        ...(removed ? { remove: (formsOfTarget.get(fm.target) ?? 0) > 1 ? ('items' as const) : ('form' as const) } : {}),
      };
      // the hash of what is sent, as it was before items carried their groups (a form of one group keeps its hash,
      // so an upgrade resends nothing); the groups count where a form's items go to several
      const group = [...groups.entries()].sort((a, b) => b[1] - a[1])[0]?.[0];
      const hashed = {
        ...(em ? { event: em.target } : {}),
        eventRepeat,
        form: fm.target,
        formRepeat: i.repeatNo,
        ...(group ? { group } : {}),
        items: items.map((x) => ({ item: x.item, value: x.value })),
        ...(groups.size > 1 ? { groups: items.map((x) => x.group ?? null) } : {}),
      };
      out.push({
        record,
        instanceId: i.id,
        hash: hashOf(hashed),
        values: Object.fromEntries(items.map((x) => [x.item, x.value])),
        locals,
        dataName: `${visit.name} / ${form.name}${i.repeatNo > 1 ? ` #${i.repeatNo}` : ''}`.slice(0, 200),
        dataNameEn:
          visit.nameEn || form.nameEn
            ? `${visit.nameEn || visit.name} / ${form.nameEn || form.name}${i.repeatNo > 1 ? ` #${i.repeatNo}` : ''}`.slice(0, 200)
            : null,
        prev: prev.find((p) => p.instanceId === i.id),
      });
    }
    return out;
  }

  /** Queues the scheduled syncs that are due (hourly / daily per configuration). */
  async tick(language: Language = 'zh_CN'): Promise<number> {
    // only E2E projects (scene 2) sync to an EDC (project-features.ts)
    const due = await this.db
      .select({ c: edcConfigs })
      .from(edcConfigs)
      .innerJoin(projects, eq(projects.id, edcConfigs.projectId))
      .where(and(eq(edcConfigs.enabled, true), isNotNull(edcConfigs.schedule), eq(projects.scene, 2), isNull(projects.deletedAt)))
      .then((rows) => rows.map((r) => r.c));
    let queued = 0;
    for (const c of due) {
      const every = SCHEDULE_MS[c.schedule as keyof typeof SCHEDULE_MS];
      if (!every || (c.lastScheduledAt && Date.now() - c.lastScheduledAt.getTime() < every)) continue;
      const run = await this.db.transaction(async (tx) => {
        const [locked] = await tx.select().from(edcConfigs).where(eq(edcConfigs.id, c.id)).for('update');
        if (!locked || (locked.lastScheduledAt && Date.now() - locked.lastScheduledAt.getTime() < every)) return null;
        await tx.update(edcConfigs).set({ lastScheduledAt: new Date() }).where(eq(edcConfigs.id, c.id));
        const [busy] = await tx
          .select({ id: edcSyncRuns.id })
          .from(edcSyncRuns)
          .where(and(eq(edcSyncRuns.configId, c.id), inArray(edcSyncRuns.status, [EDC_SYNC_STATUS.pending, EDC_SYNC_STATUS.syncing]), gte(edcSyncRuns.createdAt, new Date(Date.now() - RUN_STALE_MS))));
        if (busy) return null;
        const [r] = await tx
          .insert(edcSyncRuns)
          .values({ env: c.env, projectId: c.projectId, configId: c.id, scope: 'study', scopeId: null, siteIds: null, trigger: 'schedule', startedBy: c.updatedBy, startedByName: null })
          .returning();
        await recordAudit(tx, { userId: null, userName: null, requestId: null, ip: null, env: c.env }, [{ action: 'edc.sync.schedule', entity: 'edcSyncRun', entityId: r!.id, projectId: c.projectId, newValue: { schedule: c.schedule } }]);
        return r!;
      });
      if (!run) continue;
      await this.enqueue(run, null, language, '');
      queued++;
    }
    return queued;
  }
}

export function registerEdcJobs(jobs: JobRunner, db: Db, adapterFor: AdapterFactory): EdcSyncService {
  const svc = new EdcSyncService(db, adapterFor, jobs);
  jobs.define<SyncJobData>(EDC_SYNC_JOB, (data, ctx) => svc.run(data, ctx), { retryLimit: EDC_SYNC_RETRIES });
  const timer = setInterval(() => {
    if (jobs.started) svc.tick().catch((e: unknown) => console.error('[edc schedule]', e instanceof Error ? e.message : e));
  }, TICK_MS);
  timer.unref();
  return svc;
}

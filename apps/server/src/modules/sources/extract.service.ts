/**
 * Extraction tasks (issue 11 items 1, 5): manual (addPtsTask), automatic (daily at 12:00 in the project's time zone
 * for subjects inside a visit window) and file ingestion, each a pg-boss job that reports done/total into a progress
 * item of type 2, stores each page/batch in its own transaction through the source store (so a failure midway leaves
 * what was stored consistent), and ends 'done' with its stats or 'failed' with a translated reason, retryable.
 * Never two live tasks for one subject (the partial unique index source_extract_tasks_live).
 */
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import { and, desc, eq, inArray, isNull, or, sql } from 'drizzle-orm';
import type { z } from 'zod';
import { FhirBatchConverter, type ExtractedPatient, type ExtractedRecord, type IdentifierType } from '@esource/interop';
import {
  PROGRESS_STATUS,
  PROGRESS_TYPE,
  TASK_STATUS,
  projectFunctionOn,
  type addPtsTaskRequest,
  type ExtractStats,
  type FhirConnectionConfig,
  type Language,
  type SqlConnectionConfig,
  type TaskView,
} from '@esource/shared';
import type { Database, Db } from '../../db/client';
import { progressItems, projects, sites, sourceConnections, sourceExtractTasks, subjects, users } from '../../db/schema';
import { AppError } from '../../lib/errors';
import type { ProjectScopedContext } from '../../lib/context';
import { translator } from '../../lib/i18n';
import { actorOf, recordAudit } from '../audit/audit.service';
import { SubjectsService } from '../subjects/subjects.service';
import type { JobContext, JobRunner } from '../jobs/job-runner';
import { ingest, type IngestResult, type StoreConnection } from './source-store';
import { decryptSecret } from './secret-box';
import { FhirClient, SourceError } from './fhir-client';
import { extractSql } from './sql-source';
import { identifierLookups } from './connections.service';
import { readFhirFile } from './fhir-file';
import { prefillAfterExtraction } from './extract-prefill';
import { SafetyService } from '../safety/safety.service';
import { settleDropFile } from './drop-folder';
import { isUniqueViolation } from '../../lib/db-errors';

export const EXTRACT_JOB = 'source-extract';
export const FILE_JOB = 'source-file-ingest';
/** a running task's heartbeat; a task whose heartbeat is older than STALE_MS has lost its process */
export const HEARTBEAT_MS = 30_000;
export const STALE_MS = 3 * 60_000;
/** a queued task without a job (the process stopped between the task's commit and the job's) after this long */
const UNQUEUED_MS = 2 * 60_000;
/** restarts of an interrupted task before it fails for the user to retry */
const MAX_RESTARTS = 2;

type Task = typeof sourceExtractTasks.$inferSelect;
type Connection = typeof sourceConnections.$inferSelect;

export interface ExtractJobData {
  taskId: number;
  language: Language;
  /** file ingestion: the temp file and its name */
  file?: string;
  fileName?: string;
  /** the automatic pre-fill afterwards: the day whose visit windows count (default today), or explicit visits */
  prefillDay?: string;
  prefillVisitIds?: number[];
  /** the file came from a drop folder (drop-folder.ts): moved to processed/ or failed/ afterwards, not deleted */
  dropFile?: boolean;
}

class Cancelled extends Error {}


function emptyStats(): ExtractStats {
  return { read: 0, created: 0, updated: 0, unchanged: 0, skipped: {}, byDocType: {}, byResourceType: {}, patientsMatched: 0, patientsQueued: 0, pages: 0, subjects: 0, connections: 0 };
}

function addResult(s: ExtractStats, r: IngestResult, subjectsSeen: Set<number>) {
  s.created += r.created;
  s.updated += r.updated;
  s.unchanged += r.unchanged;
  s.patientsMatched += r.patientsMatched;
  s.patientsQueued += r.patientsQueued;
  for (const [k, v] of Object.entries(r.byDocType)) s.byDocType[k] = (s.byDocType[k] ?? 0) + v;
  for (const id of r.subjectIds) subjectsSeen.add(id);
  s.subjects = subjectsSeen.size;
}

/** The identifier-type rules of a connection's config for the FHIR converter. */
function identifierRules(config: { identifierSystems?: { system: string; type: string }[] }) {
  const systems: Record<string, IdentifierType> = {};
  for (const x of config.identifierSystems ?? []) systems[x.system] = x.type as IdentifierType;
  return { systems };
}

/** The task's failure as stored: the message key in error_code, its parameters (JSON) in error_detail. */
export function taskErrorMessage(lang: Language, code: string | null, detail: string | null): string | null {
  if (!code) return null;
  let params: Record<string, unknown> = {};
  try {
    params = detail ? (JSON.parse(detail) as Record<string, unknown>) : {};
  } catch {
    params = { detail };
  }
  return translator(lang)(code, params);
}

export class ExtractService {
  private readonly subjectsService: SubjectsService;
  constructor(
    private readonly database: Database,
    private readonly jobs: JobRunner,
  ) {
    this.subjectsService = new SubjectsService(database.db);
  }

  private get db(): Db {
    return this.database.db;
  }

  // ── task views ──
  async taskViews(lang: Language, where: ReturnType<typeof and>, opts: { limit?: number; offset?: number } = {}): Promise<TaskView[]> {
    const rows = await this.db
      .select({ t: sourceExtractTasks, ptsNo: subjects.ptsNo, siteName: sites.name, connectionName: sourceConnections.name, createdBy: users.name, extra: progressItems.extraInfo })
      .from(sourceExtractTasks)
      .leftJoin(subjects, eq(subjects.id, sourceExtractTasks.subjectId))
      .leftJoin(sites, eq(sites.id, sourceExtractTasks.siteId))
      .leftJoin(sourceConnections, eq(sourceConnections.id, sourceExtractTasks.connectionId))
      .leftJoin(users, eq(users.id, sourceExtractTasks.createdBy))
      .leftJoin(progressItems, eq(progressItems.id, sourceExtractTasks.progressItemId))
      .where(where)
      .orderBy(desc(sourceExtractTasks.createdAt), desc(sourceExtractTasks.id))
      .limit(opts.limit ?? 200)
      .offset(opts.offset ?? 0);
    return rows.map(({ t, ptsNo, siteName, connectionName, createdBy, extra }) => {
      const units = (extra)?.units;
      const finished = t.status === TASK_STATUS.done;
      return {
        id: t.id,
        ptsId: t.subjectId,
        ptsNo,
        siteId: t.siteId,
        siteName,
        connectionId: t.connectionId,
        connectionName,
        trigger: t.trigger,
        status: t.status,
        dateFrom: t.dateFrom,
        dateTo: t.dateTo,
        stats: t.stats,
        errorCode: t.errorCode,
        errorMessage: taskErrorMessage(lang, t.errorCode, t.errorDetail),
        errorDetail: t.errorCode ? null : t.errorDetail,
        done: finished ? Math.max(units?.total ?? 1, 1) : (units?.done ?? 0),
        total: finished ? Math.max(units?.total ?? 1, 1) : (units?.total ?? 0),
        createdBy,
        createTime: t.createdAt.toISOString(),
        startTime: t.startedAt?.toISOString() ?? null,
        finishTime: t.finishedAt?.toISOString() ?? null,
      };
    });
  }

  taskScope(ctx: ProjectScopedContext) {
    const siteIds = ctx.project.siteIds;
    return and(
      eq(sourceExtractTasks.projectId, ctx.project.id),
      eq(sourceExtractTasks.env, ctx.env),
      siteIds === null ? undefined : inArray(sourceExtractTasks.siteId, siteIds.length ? siteIds : [-1]),
      ctx.siteId !== null ? eq(sourceExtractTasks.siteId, ctx.siteId) : undefined,
    );
  }

  /** Live subjects in the caller's scope (the subject list's scope: project, environment, the caller's sites). */
  private subjectScope(ctx: ProjectScopedContext) {
    return and(this.subjectsService.scope(ctx), sql`${subjects.status} <> 0`);
  }

  /** A live subject in the caller's scope. */
  async subjectOf(ctx: ProjectScopedContext, ptsId: number) {
    const [s] = await this.db.select().from(subjects).where(and(eq(subjects.id, ptsId), this.subjectScope(ctx)));
    if (!s) throw new AppError('NOT_FOUND', { entity: 'subject' });
    return s;
  }

  private async extractableConnections(siteIds: number[], env: string, projectId: number, connectionId?: number | null): Promise<Connection[]> {
    return this.db
      .select()
      .from(sourceConnections)
      .where(
        and(
          inArray(sourceConnections.siteId, siteIds.length ? siteIds : [-1]),
          eq(sourceConnections.env, env),
          eq(sourceConnections.projectId, projectId),
          isNull(sourceConnections.deletedAt),
          eq(sourceConnections.enabled, true),
          inArray(sourceConnections.kind, ['fhir', 'sql']),
          connectionId ? eq(sourceConnections.id, connectionId) : undefined,
        ),
      );
  }

  // ── manual tasks ──
  async addTasks(ctx: ProjectScopedContext, input: z.output<typeof addPtsTaskRequest>): Promise<TaskView[]> {
    const ids = [...new Set([...(input.ptsIds ?? []), ...(input.ptsId ? [input.ptsId] : [])])];
    // the subjects (in the caller's scope) and the sites with an extractable connection: two statements for any number
    const found = await this.db.select().from(subjects).where(and(inArray(subjects.id, ids), this.subjectScope(ctx)));
    const byId = new Map(found.map((s) => [s.id, s]));
    const list = ids.map((id) => byId.get(id));
    if (list.some((s) => !s)) throw new AppError('NOT_FOUND', { entity: 'subject' });
    const siteIds = [...new Set(found.map((s) => s.siteId))];
    const connected = new Set((await this.extractableConnections(siteIds, ctx.env, ctx.project.id, input.connectionId)).map((c) => c.siteId));
    if (siteIds.some((id) => !connected.has(id))) throw new AppError('SOURCE_NO_CONNECTION');
    const created = await this.db.transaction(async (tx) => {
      const live = await tx
        .select({ ptsNo: subjects.ptsNo })
        .from(sourceExtractTasks)
        .innerJoin(subjects, eq(subjects.id, sourceExtractTasks.subjectId))
        .where(and(inArray(sourceExtractTasks.subjectId, ids), inArray(sourceExtractTasks.status, [0, 1])))
        .limit(1);
      if (live[0]) throw new AppError('SOURCE_TASK_LIVE', { ptsNo: live[0].ptsNo });
      const rows = [];
      for (const s of list as (typeof subjects.$inferSelect)[]) {
        try {
          const [t] = await tx
            .insert(sourceExtractTasks)
            .values({ env: ctx.env, projectId: ctx.project.id, siteId: s.siteId, subjectId: s.id, connectionId: input.connectionId ?? null, trigger: 'manual', dateFrom: input.dateFrom ?? null, dateTo: input.dateTo ?? null, createdBy: ctx.user.id })
            .returning();
          rows.push({ t: t!, s });
        } catch (err) {
          if (isUniqueViolation(err)) throw new AppError('SOURCE_TASK_LIVE', { ptsNo: s.ptsNo });
          throw err;
        }
      }
      await recordAudit(
        tx,
        actorOf(ctx),
        rows.map(({ t, s }) => ({ action: 'source.extract.add', entity: 'sourceExtractTask', entityId: t.id, projectId: ctx.project.id, siteId: s.siteId, subjectId: s.id, newValue: { connectionId: t.connectionId, dateFrom: t.dateFrom, dateTo: t.dateTo } })),
      );
      return rows;
    });
    for (const { t, s } of created)
      await this.enqueue(t, ctx.user.id, ctx.language, translator(ctx.language)('source.progress.manual', { ptsNo: s.ptsNo }), s.ptsNo, input.prefillVisitIds?.length ? { prefillVisitIds: input.prefillVisitIds } : {});
    return this.taskViews(ctx.language, inArray(sourceExtractTasks.id, created.map((c) => c.t.id)));
  }

  /**
   * Queues the task's job. The job's id is ours and is written on the task before the job is sent, so that the job
   * claims exactly its task (run) and a task whose job never reached pg-boss is found by recover().
   */
  async enqueue(t: Task, userId: number | null, language: Language, display: string, ptsNo: string | null, extra: Partial<ExtractJobData> = {}, jobId?: string): Promise<void> {
    const data: ExtractJobData = { taskId: t.id, language, ...extra };
    const id = jobId ?? randomUUID();
    if (!jobId) await this.db.update(sourceExtractTasks).set({ jobId: id }).where(eq(sourceExtractTasks.id, t.id));
    const r = await this.jobs.enqueue(extra.file ? FILE_JOB : EXTRACT_JOB, data, {
      id,
      ...(userId
        ? { progress: { userId, env: t.env as 'DEV', projectId: t.projectId, siteId: t.siteId, type: PROGRESS_TYPE.extraction, displayInformation: display, ptsNo, ptsId: t.subjectId } }
        : {}),
    });
    await this.db.update(sourceExtractTasks).set({ progressItemId: r.progressItemId }).where(eq(sourceExtractTasks.id, t.id));
  }

  async updateTask(ctx: ProjectScopedContext, taskId: number, action: 'cancel' | 'retry'): Promise<TaskView> {
    const [t] = await this.db.select().from(sourceExtractTasks).where(and(this.taskScope(ctx), eq(sourceExtractTasks.id, taskId)));
    if (!t) throw new AppError('NOT_FOUND', { entity: 'task' });
    const t2 = translator(ctx.language);
    if (action === 'cancel') {
      if (t.status !== TASK_STATUS.queued && t.status !== TASK_STATUS.running) throw new AppError('SOURCE_TASK_STATE', { action: t2('source.action.cancel') });
      await this.db.transaction(async (tx) => {
        await tx
          .update(sourceExtractTasks)
          .set({ status: TASK_STATUS.cancelled, errorCode: 'source.error.cancelled', errorDetail: JSON.stringify({ user: ctx.user.name }), finishedAt: new Date() })
          .where(eq(sourceExtractTasks.id, t.id));
        if (t.progressItemId) await tx.update(progressItems).set({ status: PROGRESS_STATUS.error, updatedAt: new Date() }).where(eq(progressItems.id, t.progressItemId));
        await recordAudit(tx, actorOf(ctx), [{ action: 'source.extract.cancel', entity: 'sourceExtractTask', entityId: t.id, projectId: ctx.project.id, siteId: t.siteId, subjectId: t.subjectId }]);
      });
    } else {
      if (t.status !== TASK_STATUS.failed && t.status !== TASK_STATUS.cancelled) throw new AppError('SOURCE_TASK_STATE', { action: t2('source.action.retry') });
      if (t.trigger === 'file') throw new AppError('SOURCE_TASK_STATE', { action: t2('source.action.retry') });
      const [s] = t.subjectId ? await this.db.select({ ptsNo: subjects.ptsNo }).from(subjects).where(eq(subjects.id, t.subjectId)) : [];
      const jobId = randomUUID();
      await this.db.transaction(async (tx) => {
        try {
          await tx
            .update(sourceExtractTasks)
            .set({ status: TASK_STATUS.queued, jobId, errorCode: null, errorDetail: null, startedAt: null, heartbeatAt: null, finishedAt: null })
            .where(eq(sourceExtractTasks.id, t.id));
        } catch (err) {
          if (isUniqueViolation(err)) throw new AppError('SOURCE_TASK_LIVE', { ptsNo: s?.ptsNo ?? '' });
          throw err;
        }
        await recordAudit(tx, actorOf(ctx), [{ action: 'source.extract.retry', entity: 'sourceExtractTask', entityId: t.id, projectId: ctx.project.id, siteId: t.siteId, subjectId: t.subjectId }]);
      });
      await this.enqueue(t, ctx.user.id, ctx.language, t2('source.progress.manual', { ptsNo: s?.ptsNo ?? '' }), s?.ptsNo ?? null, {}, jobId);
    }
    return (await this.taskViews(ctx.language, eq(sourceExtractTasks.id, t.id)))[0]!;
  }

  // ── the job ──
  private async status(taskId: number): Promise<number> {
    const [t] = await this.db.select({ status: sourceExtractTasks.status }).from(sourceExtractTasks).where(eq(sourceExtractTasks.id, taskId));
    return t?.status ?? TASK_STATUS.cancelled;
  }

  private async store(c: Connection, taskId: number, patients: ExtractedPatient[], records: ExtractedRecord[], stats: ExtractStats, seen: Set<number>) {
    if (patients.length === 0 && records.length === 0) return;
    const conn: StoreConnection = { id: c.id, env: c.env, projectId: c.projectId, siteId: c.siteId };
    const r = await this.db.transaction((tx) => ingest(tx, { connection: conn, patients, records, taskId }));
    addResult(stats, r, seen);
  }

  /** Runs one task (the job handler). Failures are recorded on the task, then rethrown so the progress item fails. */
  async run(data: ExtractJobData, job: JobContext): Promise<void> {
    // claims the task: only a queued one (a second delivery of the job, or a task recovered and re-queued meanwhile
    // under another job, finds it running or finished and leaves it)
    const [t] = await this.db
      .update(sourceExtractTasks)
      .set({ status: TASK_STATUS.running, startedAt: new Date(), heartbeatAt: new Date() })
      .where(
        and(
          eq(sourceExtractTasks.id, data.taskId),
          eq(sourceExtractTasks.status, TASK_STATUS.queued),
          eq(sourceExtractTasks.jobId, job.jobId),
        ),
      )
      .returning();
    if (!t) return;
    // the heartbeat says this process still runs the task (recover() restarts tasks whose heartbeat stopped)
    const heartbeat = setInterval(() => {
      this.db
        .update(sourceExtractTasks)
        .set({ heartbeatAt: new Date() })
        .where(and(eq(sourceExtractTasks.id, t.id), eq(sourceExtractTasks.status, TASK_STATUS.running)))
        .catch((err: unknown) => console.error(`[sources] heartbeat of task ${t.id}:`, (err as Error).message));
    }, HEARTBEAT_MS);
    heartbeat.unref();
    const stats = emptyStats();
    // (the file's name and drop-folder path stay with the task: a drop folder finds its file's task by it)
    for (const k of ['fileName', 'dropFile'] as const) if (typeof t.stats[k] === 'string') Object.assign(stats, { [k]: t.stats[k] });
    // (and how often recover() restarted it)
    if (typeof t.stats.restarts === 'number') Object.assign(stats, { restarts: t.stats.restarts });
    const seen = new Set<number>();
    let ok = false;
    try {
      if (data.file) await this.runFile(t, data, stats, seen, job);
      else await this.runExtraction(t, stats, seen, job);
      // the automatic pre-fill runs before the task says 'done', so that done means its values are in the forms too
      const [cur] = await this.db.select({ status: sourceExtractTasks.status }).from(sourceExtractTasks).where(eq(sourceExtractTasks.id, t.id));
      if (cur?.status === TASK_STATUS.running) {
        await this.prefillAfter(t, data, stats, seen);
        await this.candidatesAfter(t, seen);
      }
      const finished = await this.db
        .update(sourceExtractTasks)
        .set({ status: TASK_STATUS.done, stats, finishedAt: new Date(), errorCode: null, errorDetail: null })
        .where(and(eq(sourceExtractTasks.id, t.id), eq(sourceExtractTasks.status, TASK_STATUS.running)))
        .returning({ id: sourceExtractTasks.id });
      ok = finished.length > 0;
    } catch (err) {
      if (err instanceof Cancelled) {
        await this.db
          .update(sourceExtractTasks)
          .set({ stats })
          .where(and(eq(sourceExtractTasks.id, t.id), eq(sourceExtractTasks.status, TASK_STATUS.cancelled)));
        return;
      }
      // the hospital's own answer is the user's to read; our own failure (a database or program error) is the log's
      if (!(err instanceof SourceError)) console.error(`[sources] task ${t.id} failed:`, err);
      const key = err instanceof SourceError ? err.key : 'source.error.internal';
      const params = err instanceof SourceError ? err.params : { ref: `source-task-${t.id}` };
      await this.db
        .update(sourceExtractTasks)
        .set({ status: TASK_STATUS.failed, stats, finishedAt: new Date(), errorCode: key, errorDetail: JSON.stringify(params).slice(0, 1000) })
        .where(and(eq(sourceExtractTasks.id, t.id), eq(sourceExtractTasks.status, TASK_STATUS.running)));
      if (t.progressItemId) {
        const msg = translator(data.language)(key, params);
        await this.db
          .update(progressItems)
          .set({ displayInformation: sql`left(${progressItems.displayInformation} || ' — ' || ${msg}, 500)`, updatedAt: new Date() })
          .where(eq(progressItems.id, t.progressItemId));
      }
      throw err;
    } finally {
      clearInterval(heartbeat);
      if (data.file && data.dropFile) await settleDropFile(data.file, ok).catch((e: unknown) => console.error(`[sources] drop file of task ${t.id}:`, (e as Error).message));
      else if (data.file) fs.rm(data.file, { force: true }, () => undefined);
    }
  }

  /**
   * The automatic pre-fill of the subjects whose records this task created or changed (extract-prefill.ts); its
   * failures are progress items of their own, never the extraction's.
   */
  /** The safety candidates of the subjects whose records changed (issue 13 item 3); a failure never fails the task. */
  private async candidatesAfter(t: Task, seen: Set<number>): Promise<void> {
    // none while the project's configFiveFunction switches the safety judgement off
    const [p] = await this.db.select({ scene: projects.scene, configFiveFunction: projects.configFiveFunction }).from(projects).where(eq(projects.id, t.projectId));
    if (p && !projectFunctionOn(p, 'safety')) return;
    const safety = new SafetyService(this.db);
    for (const id of seen) {
      await safety.generateForSubject(id).catch((err: unknown) => console.error(`[sources] safety candidates after task ${t.id}, subject ${id}:`, (err as Error).message));
    }
  }

  private async prefillAfter(t: Task, data: ExtractJobData, stats: ExtractStats, seen: Set<number>): Promise<void> {
    try {
      const r = await prefillAfterExtraction(this.database, {
        taskId: t.id,
        projectId: t.projectId,
        env: t.env,
        userId: t.createdBy,
        language: data.language,
        subjectIds: [...seen],
        ...(data.prefillDay ? { day: data.prefillDay } : {}),
        ...(data.prefillVisitIds?.length ? { visitIds: data.prefillVisitIds } : {}),
      });
      if (r.visits > 0) Object.assign(stats, { prefilled: r.filled });
    } catch (err) {
      console.error(`[sources] automatic pre-fill after task ${t.id} failed:`, (err as Error).message);
    }
  }

  private async runExtraction(t: Task, stats: ExtractStats, seen: Set<number>, job: JobContext) {
    if (!t.subjectId) throw new SourceError('source.error.noIdentifier');
    const [s] = await this.db.select().from(subjects).where(eq(subjects.id, t.subjectId));
    if (!s) throw new SourceError('source.error.noIdentifier');
    const conns = await this.extractableConnections([s.siteId], t.env, t.projectId, t.connectionId);
    stats.connections = conns.length;
    const unitsOf = (c: Connection) => (c.kind === 'fhir' ? (c.config as FhirConnectionConfig).resourceTypes.length + 1 : (c.config as SqlConnectionConfig).queries.length);
    const total = conns.reduce((n, c) => n + unitsOf(c), 0);
    let done = 0;
    const tick = async () => {
      done++;
      await job.report(done, total, 'units');
      if ((await this.status(t.id)) !== TASK_STATUS.running) throw new Cancelled();
    };
    await job.report(0, total, 'units');
    for (const c of conns) {
      if (c.kind === 'fhir') {
        const config = c.config as FhirConnectionConfig;
        const lookups = identifierLookups(s, config.identifierSystems);
        if (lookups.length === 0) throw new SourceError('source.error.noIdentifier');
        const client = new FhirClient({ config, secret: decryptSecret(c.secretEnc) });
        const found = await client.findPatients(lookups);
        const converter = new FhirBatchConverter({ identifierRules: identifierRules(config) });
        const patients: ExtractedPatient[] = [];
        for (const p of found) {
          stats.read++;
          stats.byResourceType.Patient = (stats.byResourceType.Patient ?? 0) + 1;
          const out = converter.add(p);
          patients.push(...out.patients);
          for (const sk of out.skipped) stats.skipped[sk.reason] = (stats.skipped[sk.reason] ?? 0) + 1;
        }
        await this.store(c, t.id, patients, [], stats, seen);
        await tick();
        for (const type of config.resourceTypes) {
          for (const p of found) {
            stats.pages += await client.search(client.searchUrl(type, String(p.id), t.dateFrom, t.dateTo), async (resources) => {
              const records: ExtractedRecord[] = [];
              // Medications a prescription names by reference and this page does not carry: read them first, so the
              // prescription's record carries the medication's code (one _id search per page)
              const onPage = new Set(resources.filter((r) => r.resourceType === 'Medication').map((r) => `Medication/${String(r.id)}`));
              const missing = converter.unknownMedications(resources).filter((k) => !onPage.has(k));
              for (const m of missing.length ? await client.readMedications(missing) : []) {
                stats.read++;
                stats.byResourceType.Medication = (stats.byResourceType.Medication ?? 0) + 1;
                const out = converter.add(m);
                for (const sk of out.skipped) stats.skipped[sk.reason] = (stats.skipped[sk.reason] ?? 0) + 1;
              }
              for (const r of resources) {
                stats.read++;
                const rt = typeof r.resourceType === 'string' ? r.resourceType : 'unknown';
                stats.byResourceType[rt] = (stats.byResourceType[rt] ?? 0) + 1;
                const out = converter.add(r);
                records.push(...out.records);
                for (const sk of out.skipped) stats.skipped[sk.reason] = (stats.skipped[sk.reason] ?? 0) + 1;
              }
              await this.store(c, t.id, [], records, stats, seen);
              if ((await this.status(t.id)) !== TASK_STATUS.running) throw new Cancelled();
            });
          }
          await tick();
        }
        const rest = converter.finish();
        for (const sk of rest.skipped) stats.skipped[sk.reason] = (stats.skipped[sk.reason] ?? 0) + 1;
        await this.store(c, t.id, rest.patients, rest.records, stats, seen);
      } else if (c.kind === 'sql') {
        const config = c.config as SqlConnectionConfig;
        const patientId = s[config.patientIdentifier]?.trim();
        if (!patientId) throw new SourceError('source.error.noIdentifier');
        const patient: ExtractedPatient = { patientKey: patientId, identifiers: [{ type: config.patientIdentifier, value: patientId }] };
        await this.store(c, t.id, [patient], [], stats, seen);
        const r = await extractSql(config, decryptSecret(c.secretEnc), { patientId, from: t.dateFrom, to: t.dateTo }, async (name, recs, rows) => {
          stats.byResourceType[name] = (stats.byResourceType[name] ?? 0) + rows;
          await this.store(c, t.id, [], recs, stats, seen);
          await tick();
        });
        stats.read += r.rows;
        if (r.skipped) stats.skipped.malformed = (stats.skipped.malformed ?? 0) + r.skipped;
      }
    }
  }

  private async runFile(t: Task, data: ExtractJobData, stats: ExtractStats, seen: Set<number>, job: JobContext) {
    const [c] = await this.db.select().from(sourceConnections).where(eq(sourceConnections.id, t.connectionId!));
    if (!c) throw new SourceError('source.error.internal', { ref: `source-task-${t.id}: connection ${t.connectionId} gone` });
    const converter = new FhirBatchConverter({ identifierRules: identifierRules(c.config) });
    const size = fs.statSync(data.file!).size;
    let patients: ExtractedPatient[] = [];
    let records: ExtractedRecord[] = [];
    const flush = async () => {
      await this.store(c, t.id, patients, records, stats, seen);
      patients = [];
      records = [];
    };
    await readFhirFile(data.file!, async (resource, context, bytesRead) => {
      stats.read++;
      const rt = typeof (resource as { resourceType?: unknown }).resourceType === 'string' ? (resource as { resourceType: string }).resourceType : 'unknown';
      stats.byResourceType[rt] = (stats.byResourceType[rt] ?? 0) + 1;
      const out = converter.add(resource, context);
      patients.push(...out.patients);
      records.push(...out.records);
      for (const sk of out.skipped) stats.skipped[sk.reason] = (stats.skipped[sk.reason] ?? 0) + 1;
      if (records.length + patients.length >= 2000) {
        await flush();
        stats.pages++;
        await job.report(bytesRead, size, 'bytes');
      }
    });
    const rest = converter.finish();
    patients.push(...rest.patients);
    records.push(...rest.records);
    for (const sk of rest.skipped) stats.skipped[sk.reason] = (stats.skipped[sk.reason] ?? 0) + 1;
    await flush();
    await job.report(size, size, 'bytes');
  }

  // ── file upload ──
  async addFileTask(ctx: ProjectScopedContext, connectionId: number, file: string, fileName: string): Promise<number> {
    // (read before the transaction: a query on this.db inside it would wait for the transaction's own connection —
    // with the embedded database's single connection, for ever)
    const siteId = (await this.connSite(connectionId)) ?? null;
    const t = await this.db.transaction(async (tx) => {
      const [row] = await tx
        .insert(sourceExtractTasks)
        .values({ env: ctx.env, projectId: ctx.project.id, siteId, connectionId, trigger: 'file', createdBy: ctx.user.id, stats: { fileName } })
        .returning();
      await recordAudit(tx, actorOf(ctx), [{ action: 'source.file.upload', entity: 'sourceExtractTask', entityId: row!.id, projectId: ctx.project.id, siteId: row!.siteId, newValue: fileName }]);
      return row!;
    });
    await this.enqueue(t, ctx.user.id, ctx.language, translator(ctx.language)('source.progress.file', { name: fileName }), null, { file, fileName });
    return t.id;
  }

  private async connSite(id: number): Promise<number | undefined> {
    const [c] = await this.db.select({ siteId: sourceConnections.siteId }).from(sourceConnections).where(eq(sourceConnections.id, id));
    return c?.siteId;
  }

  // ── recovery ──
  /**
   * Finds the tasks that nobody runs and starts them again (workers call it at start and every minute; several
   * workers at once claim each task with one conditional update, so a task is restarted once):
   * - running, but the heartbeat is older than STALE_MS: its process died (kill -9, power loss). Extraction is
   *   idempotent (nothing is stored twice), so it is queued again under a new job, at most MAX_RESTARTS times; then
   *   it fails with 'interrupted' for a user to retry. Its old progress item says it was interrupted.
   * - queued for longer than UNQUEUED_MS with no job (the process stopped between the task's commit and the job's),
   *   or whose job pg-boss no longer runs (completed, failed, cancelled or gone).
   * A file task is restarted only while its file is still there; otherwise it fails.
   * Returns how many tasks were restarted and failed.
   */
  async recover(now: Date = new Date()): Promise<{ restarted: number; failed: number }> {
    const staleBefore = new Date(now.getTime() - STALE_MS);
    const unqueuedBefore = new Date(now.getTime() - UNQUEUED_MS);
    const candidates = await this.db
      .select()
      .from(sourceExtractTasks)
      .where(
        or(
          and(eq(sourceExtractTasks.status, TASK_STATUS.running), sql`coalesce(${sourceExtractTasks.heartbeatAt}, ${sourceExtractTasks.startedAt}, ${sourceExtractTasks.createdAt}) < ${staleBefore}`),
          and(eq(sourceExtractTasks.status, TASK_STATUS.queued), sql`${sourceExtractTasks.createdAt} < ${unqueuedBefore}`),
        ),
      )
      .limit(500);
    let restarted = 0;
    let failed = 0;
    for (const t of candidates) {
      const jobName = t.trigger === 'file' ? FILE_JOB : EXTRACT_JOB;
      const info = t.jobId ? await this.jobs.jobInfo(jobName, t.jobId) : null;
      // a queued task whose job is still waiting or running is fine
      if (t.status === TASK_STATUS.queued && info && ['created', 'retry', 'active'].includes(info.state)) continue;
      const restarts = typeof t.stats.restarts === 'number' ? t.stats.restarts : 0;
      const data: ExtractJobData = (info?.data as ExtractJobData | undefined) ?? { taskId: t.id, language: 'zh_CN', ...(t.trigger === 'auto' && t.dateTo ? { prefillDay: t.dateTo } : {}) };
      const fileGone = t.trigger === 'file' && !(data.file && fs.existsSync(data.file));
      const give = restarts >= MAX_RESTARTS || fileGone;
      // the claim: the same status and job as read, so a second worker (or the task's own worker, alive after all)
      // that changed the task meanwhile wins
      const newJobId = randomUUID();
      const claimed = await this.db.transaction(async (tx) => {
        const rows = await tx
          .update(sourceExtractTasks)
          .set(
            give
              ? { status: TASK_STATUS.failed, finishedAt: now, errorCode: 'source.error.interrupted', errorDetail: JSON.stringify({ count: restarts + 1 }) }
              : { status: TASK_STATUS.queued, jobId: newJobId, startedAt: null, heartbeatAt: null, stats: sql`${sourceExtractTasks.stats} || ${JSON.stringify({ restarts: restarts + 1 })}::jsonb` },
          )
          .where(
            and(
              eq(sourceExtractTasks.id, t.id),
              eq(sourceExtractTasks.status, t.status),
              t.jobId ? eq(sourceExtractTasks.jobId, t.jobId) : isNull(sourceExtractTasks.jobId),
              t.status === TASK_STATUS.running ? sql`coalesce(${sourceExtractTasks.heartbeatAt}, ${sourceExtractTasks.startedAt}, ${sourceExtractTasks.createdAt}) < ${staleBefore}` : undefined,
            ),
          )
          .returning({ id: sourceExtractTasks.id });
        if (rows.length)
          await recordAudit(tx, { userId: null, userName: 'system', requestId: null, ip: null, env: t.env }, [
            { action: give ? 'source.extract.interrupted' : 'source.extract.restart', entity: 'sourceExtractTask', entityId: t.id, projectId: t.projectId, siteId: t.siteId, subjectId: t.subjectId, newValue: { restarts: restarts + 1 } },
          ]);
        return rows;
      });
      if (!claimed.length) continue;
      if (t.jobId && info && ['created', 'retry', 'active'].includes(info.state)) await this.jobs.cancel(jobName, t.jobId).catch(() => undefined);
      const lang = data.language;
      if (t.progressItemId) {
        const note = translator(lang)(give ? 'source.error.interrupted' : 'source.error.restarted', { count: restarts + 1 });
        await this.db
          .update(progressItems)
          .set({ status: PROGRESS_STATUS.error, displayInformation: sql`left(${progressItems.displayInformation} || ' — ' || ${note}, 500)`, updatedAt: now })
          .where(eq(progressItems.id, t.progressItemId));
      }
      if (give) {
        failed++;
        continue;
      }
      const [s] = t.subjectId ? await this.db.select({ ptsNo: subjects.ptsNo }).from(subjects).where(eq(subjects.id, t.subjectId)) : [];
      const display =
        t.trigger === 'file'
          ? translator(lang)('source.progress.file', { name: data.fileName ?? '' })
          : translator(lang)('source.progress.manual', { ptsNo: s?.ptsNo ?? '' });
      await this.enqueue({ ...t, status: TASK_STATUS.queued }, t.createdBy, lang, display, s?.ptsNo ?? null, data, newJobId);
      restarted++;
    }
    return { restarted, failed };
  }

  // ── automatic extraction ──
  /**
   * Enqueues today's automatic extractions: for each project (not autoPrefillDisabled) whose local time (its time
   * zone) is past 12:00, every live subject at a site with an enabled fhir/sql connection whose visit window holds
   * today and that had no automatic task today and has no live task. Idempotent per subject per day, also between
   * processes: the check and the inserts run under a transaction-scoped advisory lock per project, so a second tick
   * (here or in another worker) waits and then sees the first one's tasks, finished or not. `now` is the clock
   * (injected by tests).
   */
  async autoTick(now = new Date()): Promise<number> {
    const list = await this.db.select({ id: projects.id, tz: projects.timezone }).from(projects).where(and(eq(projects.autoPrefillDisabled, false), isNull(projects.deletedAt)));
    let queued = 0;
    for (const p of list) {
      const parts = new Intl.DateTimeFormat('en-CA', { timeZone: p.tz, year: 'numeric', month: '2-digit', day: '2-digit', hour: '2-digit', hourCycle: 'h23' }).formatToParts(now);
      const get = (k: string) => parts.find((x) => x.type === k)?.value ?? '';
      const today = `${get('year')}-${get('month')}-${get('day')}`;
      if (Number(get('hour')) < 12) continue;
      const created = await this.db.transaction(async (tx) => {
        await tx.execute(sql`select pg_advisory_xact_lock(hashtext(${`source-auto-extract:${p.id}`}))`);
        const due = await tx.execute(sql`
          select distinct s.id, s.site_id, s.env, s.pts_no
          from subjects s
          join visits v on v.version_id = s.design_version_id and not v.unscheduled
          where s.project_id = ${p.id} and s.status <> 0 and s.deleted_at is null
            and ${today}::date between s.first_visit_date + v.day_offset - v.window_before and s.first_visit_date + v.day_offset + v.window_after
            and exists (select 1 from source_connections c where c.project_id = s.project_id and c.env = s.env and c.site_id = s.site_id
                        and c.enabled and c.deleted_at is null and c.kind in ('fhir', 'sql'))
            and not exists (select 1 from source_extract_tasks t where t.subject_id = s.id
                        and (t.status in (0, 1) or (t.trigger = 'auto' and t.date_to = ${today}::date)))`);
        const rows = (Array.isArray(due) ? due : (due as { rows: unknown[] }).rows) as { id: number | string; site_id: number | string; env: string; pts_no: string }[];
        const out: { t: Task; ptsNo: string }[] = [];
        for (const r of rows) {
          try {
            // (a savepoint: a manual task that became live meanwhile refuses this one without aborting the others)
            const [t] = await tx.transaction((sp) =>
              sp.insert(sourceExtractTasks).values({ env: r.env, projectId: p.id, siteId: Number(r.site_id), subjectId: Number(r.id), trigger: 'auto', dateTo: today }).returning(),
            );
            out.push({ t: t!, ptsNo: r.pts_no });
          } catch (err) {
            if (!isUniqueViolation(err)) throw err;
          }
        }
        return out;
      });
      for (const { t, ptsNo } of created) {
        await this.enqueue(t, null, 'zh_CN', '', ptsNo, { prefillDay: today });
        queued++;
      }
    }
    return queued;
  }
}

export function registerExtractJobs(jobs: JobRunner, database: Database): ExtractService {
  const svc = new ExtractService(database, jobs);
  jobs.define<ExtractJobData>(EXTRACT_JOB, (data, ctx) => svc.run(data, ctx), { retryLimit: 0 });
  jobs.define<ExtractJobData>(FILE_JOB, (data, ctx) => svc.run(data, ctx), { retryLimit: 0 });
  return svc;
}


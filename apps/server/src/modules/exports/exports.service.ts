/**
 * Generated files (issue 14 items 6 and 7): a request checks the caller's scope (the kind's `prepare`), records the
 * file as queued with an audit entry in one transaction and queues a job; the job writes the file through a stream to a
 * temporary file (hashing it as it goes), stores it in the file store and marks it done, with progress in the row and
 * in the progress panel. One file per user × kind × scope is made at a time (a partial unique index decides races);
 * one whose worker died — no heartbeat for STALE_MS, or a queued one whose job pg-boss no longer holds — is failed when
 * looked at, so it never blocks the next. Download: the same project and environment, the kind's permission and the
 * file's site in the caller's reach; every download is audited. Delete keeps the row (audit) and removes the bytes
 * from the store unless another row holds the same content (file-refs.ts); a sweep finishes what a crash left.
 */
import { randomUUID } from 'node:crypto';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { Readable } from 'node:stream';
import { and, count, desc, eq, inArray, isNotNull, isNull, lt, sql } from 'drizzle-orm';
import { PROGRESS_TYPE, type ExportFileView, type ExportKind, type Language } from '@esource/shared';
import type { Database, Db } from '../../db/client';
import { exportFiles, users } from '../../db/schema';
import { AppError } from '../../lib/errors';
import type { ProjectScopedContext } from '../../lib/context';
import { translator } from '../../lib/i18n';
import { reachesSite } from '../../lib/site-scope';
import { isUniqueViolation } from '../../lib/db-errors';
import { actorOf, recordAudit } from '../audit/audit.service';
import { releaseContent, retainContent } from '../documents/file-refs';
import type { FileStore } from '../documents/file-store';
import type { JobContext, JobRunner } from '../jobs/job-runner';
import { exportKind, type AnyExportKind } from './exports.kinds';
import { writeExportFile } from './export-file';
import { exportInChildEnabled, generateInChild } from './export-process';

export const EXPORT_JOB = 'export-file';
const HEARTBEAT_MS = 30_000;
export const EXPORT_STALE_MS = 3 * 60_000;
/** progress is written at most this often (and always at the end) */
const PROGRESS_EVERY_MS = 500;
/** how often deleted files whose content was not released yet are looked for */
const SWEEP_MS = 10 * 60_000;

type Row = typeof exportFiles.$inferSelect;
interface ExportJobData {
  exportId: number;
}

const LIVE = ['queued', 'running'] as const;

export class ExportsService {
  constructor(
    private readonly database: Database,
    private readonly jobs: JobRunner,
    private readonly store: FileStore,
  ) {}

  private get db(): Db {
    return this.database.db;
  }

  private kindOf(kind: string): AnyExportKind {
    const k = exportKind(kind);
    if (!k) throw new AppError('NOT_FOUND', { entity: 'file' });
    return k;
  }

  /** Starts a file of `kind` with the (already validated) parameters; refused while the same one is being made. */
  async start(ctx: ProjectScopedContext, kind: ExportKind, params: unknown): Promise<ExportFileView> {
    const def = this.kindOf(kind);
    if (!ctx.pms.has(def.permission)) throw new AppError('FORBIDDEN');
    const target = await def.prepare(this.db, ctx, params);
    await this.failStale(
      and(
        eq(exportFiles.createdBy, ctx.user.id),
        eq(exportFiles.kind, kind),
        eq(exportFiles.scopeKey, target.scopeKey),
      ),
    );
    const jobId = randomUUID();
    let row: Row;
    try {
      row = await this.db.transaction(async (tx) => {
        const [r] = await tx
          .insert(exportFiles)
          .values({
            env: ctx.env,
            projectId: ctx.project.id,
            siteId: target.siteId,
            subjectId: target.subjectId,
            kind,
            params: params as Record<string, unknown>,
            scopeKey: target.scopeKey,
            title: target.title,
            fileName: target.fileName,
            status: 'queued',
            jobId,
            createdBy: ctx.user.id,
          })
          .returning();
        await recordAudit(tx, actorOf(ctx), [
          {
            action: `export.${kind}`,
            entity: 'exportFile',
            entityId: r!.id,
            projectId: ctx.project.id,
            siteId: target.siteId,
            subjectId: target.subjectId,
            newValue: params,
          },
        ]);
        return r!;
      });
    } catch (err) {
      if (isUniqueViolation(err)) throw new AppError('EXPORT_BUSY', { title: target.title });
      throw err;
    }
    const r = await this.jobs.enqueue(EXPORT_JOB, { exportId: row.id } satisfies ExportJobData, {
      id: jobId,
      progress: {
        userId: ctx.user.id,
        env: ctx.env,
        projectId: ctx.project.id,
        siteId: target.siteId,
        type: PROGRESS_TYPE.sourceUpload,
        displayInformation: target.progressText,
        ptsNo: target.progressSubject?.ptsNo ?? null,
        ptsId: target.progressSubject?.ptsId ?? null,
      },
    });
    await this.db
      .update(exportFiles)
      .set({ progressItemId: r.progressItemId })
      .where(eq(exportFiles.id, row.id));
    return this.view(ctx.language, row, ctx.user.name);
  }

  /**
   * Fails the live files (of `where`) whose worker is gone: running without a heartbeat for STALE_MS, or queued for
   * that long while pg-boss no longer holds their job (never queued, expired, failed, cancelled).
   */
  private async failStale(where: ReturnType<typeof and>): Promise<void> {
    const staleBefore = new Date(Date.now() - EXPORT_STALE_MS);
    const rows = await this.db
      .select({ id: exportFiles.id, status: exportFiles.status, jobId: exportFiles.jobId })
      .from(exportFiles)
      .where(
        and(
          where,
          inArray(exportFiles.status, [...LIVE]),
          lt(sql`coalesce(${exportFiles.heartbeatAt}, ${exportFiles.createdAt})`, staleBefore),
        ),
      );
    for (const r of rows) {
      if (r.status === 'queued' && r.jobId) {
        const state = await this.jobs.jobState(EXPORT_JOB, r.jobId).catch(() => null);
        if (state === 'created' || state === 'retry' || state === 'active') continue;
      }
      await this.db
        .update(exportFiles)
        .set({
          status: 'failed',
          error: 'exports.error.interrupted',
          heartbeatAt: null,
          finishedAt: new Date(),
        })
        .where(and(eq(exportFiles.id, r.id), eq(exportFiles.status, r.status)));
    }
  }

  /** The caller's own files in this project and environment, newest first. */
  async list(
    ctx: ProjectScopedContext,
    q: { pageNumber: number; pageSize: number; kind?: ExportKind | undefined },
  ) {
    const mine = and(
      eq(exportFiles.createdBy, ctx.user.id),
      eq(exportFiles.projectId, ctx.project.id),
      eq(exportFiles.env, ctx.env),
      isNull(exportFiles.deletedAt),
      q.kind ? eq(exportFiles.kind, q.kind) : undefined,
    );
    await this.failStale(mine);
    const [rows, [total]] = await Promise.all([
      this.db
        .select()
        .from(exportFiles)
        .where(mine)
        .orderBy(desc(exportFiles.createdAt), desc(exportFiles.id))
        .limit(q.pageSize)
        .offset((q.pageNumber - 1) * q.pageSize),
      this.db.select({ n: count() }).from(exportFiles).where(mine),
    ]);
    return {
      pageNumber: q.pageNumber,
      pageSize: q.pageSize,
      totalCount: total?.n ?? 0,
      content: rows.map((r) => this.view(ctx.language, r, ctx.user.name)),
    };
  }

  /** One of the caller's own files (the print dialog polls it). */
  async get(ctx: ProjectScopedContext, id: number): Promise<ExportFileView> {
    const own = and(
      eq(exportFiles.id, id),
      eq(exportFiles.createdBy, ctx.user.id),
      eq(exportFiles.projectId, ctx.project.id),
      eq(exportFiles.env, ctx.env),
      isNull(exportFiles.deletedAt),
    );
    await this.failStale(own);
    const [r] = await this.db.select().from(exportFiles).where(own);
    if (!r) throw new AppError('NOT_FOUND', { entity: 'file' });
    return this.view(ctx.language, r, ctx.user.name);
  }

  /**
   * A finished file for the creator or anyone holding the kind's permission who reaches the file's site in the same
   * project and environment (another project's, environment's or site's file is a 404, as if it did not exist).
   */
  async download(
    ctx: ProjectScopedContext,
    id: number,
  ): Promise<{ stream: Readable; size: number | null; name: string; contentType: string }> {
    const [r] = await this.db
      .select()
      .from(exportFiles)
      .where(
        and(
          eq(exportFiles.id, id),
          eq(exportFiles.projectId, ctx.project.id),
          eq(exportFiles.env, ctx.env),
          isNull(exportFiles.deletedAt),
        ),
      );
    const def = r ? exportKind(r.kind) : null;
    const allowed =
      r &&
      def &&
      ctx.pms.has(def.permission) &&
      (r.siteId === null ? ctx.project.siteIds === null && ctx.siteId === null : reachesSite(r.siteId, ctx));
    if (!r || !def || !allowed) throw new AppError('NOT_FOUND', { entity: 'file' });
    if (r.status !== 'done' || !r.fileKey) throw new AppError('EXPORT_NOT_READY', { title: r.title });
    const stream = await this.store.getStream(r.fileKey).catch((err: unknown) => {
      console.error(`[exports] file ${r.id} unreadable:`, (err as Error).message);
      throw new AppError('NOT_FOUND', { entity: 'file' });
    });
    await this.db.transaction((tx) =>
      recordAudit(tx, actorOf(ctx), [
        {
          action: 'export.download',
          entity: 'exportFile',
          entityId: r.id,
          projectId: r.projectId,
          siteId: r.siteId,
          subjectId: r.subjectId,
          newValue: { kind: r.kind, fileName: r.fileName, sha256: r.sha256 },
        },
      ]),
    );
    return { stream, size: r.size, name: r.fileName, contentType: def.contentType };
  }

  /**
   * Deletes one of the caller's own files (a file still being made is cancelled); its row stays, marked deleted, and
   * its bytes leave the store unless another row holds the same content. Until they are released the deleted row keeps
   * its file_key (what the sweep looks for); then it is null.
   */
  async remove(ctx: ProjectScopedContext, id: number): Promise<void> {
    const r = await this.db.transaction(async (tx) => {
      const [row] = await tx
        .update(exportFiles)
        .set({ deletedAt: new Date() })
        .where(
          and(
            eq(exportFiles.id, id),
            eq(exportFiles.createdBy, ctx.user.id),
            eq(exportFiles.projectId, ctx.project.id),
            eq(exportFiles.env, ctx.env),
            isNull(exportFiles.deletedAt),
          ),
        )
        .returning();
      if (!row) throw new AppError('NOT_FOUND', { entity: 'file' });
      if (row.status === 'queued' || row.status === 'running') {
        await tx
          .update(exportFiles)
          .set({
            status: 'failed',
            error: 'exports.error.cancelled',
            heartbeatAt: null,
            finishedAt: new Date(),
          })
          .where(eq(exportFiles.id, row.id));
      }
      await recordAudit(tx, actorOf(ctx), [
        {
          action: 'export.delete',
          entity: 'exportFile',
          entityId: row.id,
          projectId: row.projectId,
          siteId: row.siteId,
          subjectId: row.subjectId,
          oldValue: { kind: row.kind, fileName: row.fileName, status: row.status },
        },
      ]);
      return row;
    });
    if ((r.status === 'queued' || r.status === 'running') && r.jobId)
      await this.jobs.cancel(EXPORT_JOB, r.jobId).catch(() => undefined);
    // (a failing store is logged, not answered: the file is deleted for everyone, and the sweep tries again)
    if (r.fileKey)
      await this.release([r.fileKey]).catch((err: unknown) =>
        console.error(`[exports] file ${r.id}: content not released yet:`, (err as Error).message),
      );
  }

  /** Releases content deleted files held; their rows are done with the key whether the bytes went or stayed. */
  private release(keys: string[]): Promise<string[]> {
    return releaseContent(this.db, this.store, keys, async (tx, key) => {
      await tx
        .update(exportFiles)
        .set({ fileKey: null })
        .where(and(eq(exportFiles.fileKey, key), isNotNull(exportFiles.deletedAt)));
    });
  }

  /**
   * The orphans deletion left behind (the process stopped between a delete's commit and the release, or the store
   * failed): deleted files still holding a key. Each is released now; returns how many contents were removed.
   */
  async sweepDeleted(limit = 100): Promise<number> {
    const rows = await this.db
      .selectDistinct({ key: exportFiles.fileKey })
      .from(exportFiles)
      .where(and(isNotNull(exportFiles.deletedAt), isNotNull(exportFiles.fileKey)))
      .limit(limit);
    let removed = 0;
    for (const { key } of rows) {
      try {
        removed += (await this.release([key!])).length;
      } catch (err) {
        console.error(`[exports] sweep: content ${key} not released:`, (err as Error).message);
      }
    }
    return removed;
  }

  private view(lang: Language, r: Row, by: string | null): ExportFileView {
    return {
      id: r.id,
      kind: r.kind as ExportKind,
      status: r.status,
      title: r.title,
      fileName: r.fileName,
      progress: r.status === 'done' ? 100 : r.progress,
      done: r.done,
      total: r.total,
      size: r.size,
      sha256: r.sha256,
      errorMessage: r.error ? translator(lang)(r.error, { code: r.error, ref: `export-${r.id}` }) : null,
      params: r.params,
      createdBy: by,
      createTime: r.createdAt.toISOString(),
      finishTime: r.finishedAt?.toISOString() ?? null,
    };
  }

  /** The job: the kind's generator into a temporary file (hashed on the way), then into the file store. */
  async run(data: ExportJobData, job: JobContext): Promise<void> {
    const [r] = await this.db
      .update(exportFiles)
      .set({ status: 'running', heartbeatAt: new Date() })
      .where(
        and(
          eq(exportFiles.id, data.exportId),
          eq(exportFiles.status, 'queued'),
          eq(exportFiles.jobId, job.jobId),
          isNull(exportFiles.deletedAt),
        ),
      )
      .returning();
    if (!r) return;
    const mine = and(
      eq(exportFiles.id, r.id),
      eq(exportFiles.status, 'running'),
      eq(exportFiles.jobId, job.jobId),
    );
    const beat = setInterval(() => {
      this.db
        .update(exportFiles)
        .set({ heartbeatAt: new Date() })
        .where(mine)
        .catch((err: unknown) => console.error(`[exports] ${r.id} heartbeat:`, (err as Error).message));
    }, HEARTBEAT_MS);
    beat.unref();
    const tmp = path.join(os.tmpdir(), `esource-export-${r.id}-${randomUUID()}`);
    /** content this run stored that its row does not hold (yet) */
    let unclaimed: string | null = null;
    try {
      const def = this.kindOf(r.kind);
      const [creator] = await this.db
        .select({ id: users.id, name: users.name })
        .from(users)
        .where(eq(users.id, r.createdBy));
      let last = 0;
      const report = async (done: number, total: number) => {
        const now = Date.now();
        if (done < total && now - last < PROGRESS_EVERY_MS) return;
        last = now;
        const progress = total > 0 ? Math.min(99, Math.floor((done / total) * 100)) : 0;
        await this.db.update(exportFiles).set({ progress, done, total, heartbeatAt: new Date() }).where(mine);
        await job.report(done, total, 'forms');
      };
      const input = {
        db: this.db,
        params: r.params,
        env: r.env,
        projectId: r.projectId,
        siteId: r.siteId,
        subjectId: r.subjectId,
        createdBy: { id: r.createdBy, name: creator?.name ?? '?' },
        language: (r.params.language as Language | undefined) ?? 'zh_CN',
        createdAt: r.createdAt,
      };
      // a study export in a process of its own where another process can reach the database (export-process.ts)
      const connection = this.database.appConnection;
      const { sha256, size } =
        def.ownProcess && connection && exportInChildEnabled()
          ? await generateInChild(r.kind, input, tmp, connection, report)
          : await writeExportFile(def, input, tmp, report);
      // the file goes to the store from disk: a large study export never sits in memory whole
      const stored = await this.store.putFile(tmp, sha256, size);
      if (stored.key !== sha256)
        throw new Error(`export ${r.id}: stored content differs from what was written`);
      unclaimed = sha256;
      // recorded under the key's lock; content a concurrent delete of the same bytes removed meanwhile is stored again
      const finished = await this.db.transaction(async (tx) => {
        await retainContent(tx, this.store, [{ key: sha256, file: tmp, size }]);
        return tx
          .update(exportFiles)
          .set({
            status: 'done',
            fileKey: stored.key,
            size,
            sha256,
            progress: 100,
            heartbeatAt: null,
            finishedAt: new Date(),
          })
          .where(mine)
          .returning({ id: exportFiles.id });
      });
      // (no row: the file was deleted while being made)
      if (finished.length > 0) unclaimed = null;
    } catch (err) {
      const code = err instanceof AppError ? `errors.${err.code}` : 'exports.error.internal';
      if (!(err instanceof AppError)) console.error(`[exports] ${r.id} failed:`, err);
      await this.db
        .update(exportFiles)
        .set({ status: 'failed', error: code, heartbeatAt: null, finishedAt: new Date() })
        .where(mine);
      throw err;
    } finally {
      clearInterval(beat);
      await fs.rm(tmp, { force: true });
      if (unclaimed)
        await this.release([unclaimed]).catch((err: unknown) =>
          console.error(`[exports] ${r.id}: content ${unclaimed} not released:`, (err as Error).message),
        );
    }
  }
}

export function registerExportJob(jobs: JobRunner, database: Database, store: FileStore): void {
  const svc = new ExportsService(database, jobs, store);
  jobs.define<ExportJobData>(EXPORT_JOB, (data, ctx) => svc.run(data, ctx), { retryLimit: 0 });
  const timer = setInterval(() => {
    if (jobs.started)
      svc.sweepDeleted().catch((e: unknown) => console.error('[exports sweep]', e instanceof Error ? e.message : e));
  }, SWEEP_MS);
  timer.unref();
}

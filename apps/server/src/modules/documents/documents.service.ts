/**
 * Source documents (issue 12): upload (checked by content, all or nothing, one transaction, audited; one
 * de-identification job per file), the subject's file list, reads of the de-identified copy or the original (site
 * roles that may see identifiers only; audited), and the status workflow of SOURCE_FILE_TRANSITIONS with optimistic
 * locking. A caller reaches only the files of the subjects it reaches (the subject list's scope).
 */
import { and, count, desc, eq, inArray, isNotNull, or, sql, type SQL } from 'drizzle-orm';
import type { z } from 'zod';
import {
  LIMITS,
  SOURCE_FILE_REDEID_FROM,
  SOURCE_FILE_STATUS,
  sourceFileTransition,
  type Language,
  type SourceFileTransition,
  type SourceFileView,
  type sourceFileListRequest,
  type sourceFileUploadFields,
} from '@esource/shared';
import { inspectImage } from '@esource/redact';
import type { Db, Tx } from '../../db/client';
import { projects, sourceFiles, subjects, users, visits } from '../../db/schema';
import { AppError } from '../../lib/errors';
import type { ProjectScopedContext } from '../../lib/context';
import { translator } from '../../lib/i18n';
import { offsetOf, pageOf } from '../../lib/page';
import { actorOf, recordAudit } from '../audit/audit.service';
import { SubjectsService } from '../subjects/subjects.service';
import { taskErrorMessage } from '../sources/extract.service';
import type { DeidJob } from './deid.job';
import { retainContent } from './file-refs';
import type { FileStore } from './file-store';
import type { CheckedFile } from './upload-check';
import { staleWrite } from '../../lib/stale';
import { siteScope } from '../../lib/site-scope';

type FileRow = typeof sourceFiles.$inferSelect;
type Subject = typeof subjects.$inferSelect;
const S = SOURCE_FILE_STATUS;

export class DocumentsService {
  private readonly subjectsService: SubjectsService;
  constructor(
    private readonly db: Db,
    private readonly store: FileStore,
    private readonly job: DeidJob,
  ) {
    this.subjectsService = new SubjectsService(db);
  }

  /** A live subject in the caller's scope, else 404. */
  async subjectOf(db: Db | Tx, ctx: ProjectScopedContext, ptsId: number): Promise<Subject> {
    const [s] = await db
      .select()
      .from(subjects)
      .where(and(eq(subjects.id, ptsId), this.subjectsService.scope(ctx), sql`${subjects.status} <> 0`));
    if (!s) throw new AppError('NOT_FOUND', { entity: 'subject' });
    return s;
  }

  private views(db: Db | Tx, lang: Language, where: ReturnType<typeof and>) {
    return db
      .select({ f: sourceFiles, ptsNo: subjects.ptsNo, createdBy: users.name })
      .from(sourceFiles)
      .leftJoin(subjects, eq(subjects.id, sourceFiles.subjectId))
      .leftJoin(users, eq(users.id, sourceFiles.createdBy))
      .where(where)
      .orderBy(desc(sourceFiles.createdAt), desc(sourceFiles.id))
      .then((rows) => rows.map((r) => toView(lang, r.f, r.ptsNo, r.createdBy)));
  }

  /** Files in the caller's scope (a subject's files and ISF documents); the query must left-join subjects (sourceFileScope). */
  scope(ctx: ProjectScopedContext) {
    return sourceFileScope(this.subjectsService, ctx);
  }

  /** A stored file's bytes; content missing from the store (lost, restored from an old backup) is a 404, not a 500. */
  async stored(key: string): Promise<Buffer> {
    try {
      return await this.store.get(key);
    } catch (err) {
      console.error(`[documents] stored content ${key} unreadable:`, (err as Error).message);
      throw new AppError('NOT_FOUND', { entity: 'sourceFile' });
    }
  }

  /** One file in the caller's scope (a subject's file or an ISF document), else 404 (another site's or project's file included). */
  async find(db: Db | Tx, ctx: ProjectScopedContext, id: number): Promise<FileRow> {
    const [r] = await db
      .select({ f: sourceFiles })
      .from(sourceFiles)
      .leftJoin(subjects, eq(subjects.id, sourceFiles.subjectId))
      .where(and(eq(sourceFiles.id, id), this.scope(ctx)));
    if (!r) throw new AppError('NOT_FOUND', { entity: 'sourceFile' });
    return r.f;
  }

  // ── upload ──
  async upload(ctx: ProjectScopedContext, fields: z.output<typeof sourceFileUploadFields>, files: CheckedFile[]): Promise<SourceFileView[]> {
    if (files.length === 0) throw new AppError('DOCUMENT_NO_FILE');
    const images = files.filter((f) => f.kind === 'image').length;
    if (images > LIMITS.sourceUploadImages) throw new AppError('DOCUMENT_TOO_MANY_IMAGES', { max: LIMITS.sourceUploadImages, count: images });
    const s = await this.subjectOf(this.db, ctx, fields.ptsId);
    if (fields.visitId) {
      const [v] = await this.db.select({ id: visits.id }).from(visits).where(and(eq(visits.id, fields.visitId), eq(visits.versionId, s.designVersionId ?? -1)));
      if (!v) throw new AppError('NOT_FOUND', { entity: 'visit' });
    }
    // refused before anything is stored, and again under the subject's lock in the transaction
    await this.checkSubject(this.db, s, files.length);
    // the project's fileConfirmConfig: uploads wait at -3 (waiting import) for a site user's confirmation first
    const [proj] = await this.db.select({ confirm: projects.fileConfirmConfig }).from(projects).where(eq(projects.id, ctx.project.id));
    const initial = proj?.confirm === 1 ? S.waitingImport : S.autoDeidentifying;
    // by content hash, before the transaction (a read on this.db inside it would wait for the embedded database's one
    // connection); a refusal after this point leaves only unreferenced content, never half a file
    const keys: string[] = [];
    for (const f of files) keys.push((await this.store.put(f.bytes)).key);
    const rows = await this.db.transaction(async (tx) => {
      await tx.execute(sql`select pg_advisory_xact_lock(hashtext(${`source-file-upload:${s.id}`}))`);
      await this.checkSubject(tx, s, files.length);
      // the same content may be a generated file being deleted right now (file-refs.ts)
      await retainContent(tx, this.store, files.map((f, i) => ({ key: keys[i]!, bytes: f.bytes })));
      const inserted = await tx
        .insert(sourceFiles)
        .values(
          files.map((f, i) => ({
            env: ctx.env,
            projectId: ctx.project.id,
            siteId: s.siteId,
            subjectId: s.id,
            visitId: fields.visitId ?? null,
            docType: fields.docType,
            fileName: f.name.slice(0, 255),
            kind: f.kind,
            size: f.bytes.length,
            pages: f.pages,
            originalKey: keys[i]!,
            status: initial,
            createdBy: ctx.user.id,
            updatedBy: ctx.user.id,
          })),
        )
        .returning();
      await recordAudit(
        tx,
        actorOf(ctx),
        inserted.map((r) => ({
          action: 'document.upload',
          entity: 'sourceFile',
          entityId: r.id,
          projectId: ctx.project.id,
          siteId: s.siteId,
          subjectId: s.id,
          newValue: { fileName: r.fileName, kind: r.kind, size: r.size, pages: r.pages, docType: r.docType, visitId: r.visitId, sha256: r.originalKey, status: r.status },
        })),
      );
      return inserted;
    });
    if (initial === S.autoDeidentifying) for (const r of rows) await this.job.enqueue(r, ctx.user.id, ctx.language, s.ptsNo);
    return this.views(this.db, ctx.language, inArray(sourceFiles.id, rows.map((r) => r.id)));
  }

  /** One upload at a time per subject (spec §8), at most 200 files per subject (spec §9). */
  private async checkSubject(db: Db | Tx, s: Subject, adding: number): Promise<void> {
    const [r] = await db
      .select({ n: count(), busy: sql<number>`count(*) filter (where ${sourceFiles.status} = ${S.autoDeidentifying})`.mapWith(Number) })
      .from(sourceFiles)
      .where(eq(sourceFiles.subjectId, s.id));
    if ((r?.busy ?? 0) > 0) throw new AppError('DOCUMENT_UPLOAD_BUSY');
    const existing = r?.n ?? 0;
    if (existing + adding > LIMITS.fileCountMax) throw new AppError('DOCUMENT_TOO_MANY_FILES', { max: LIMITS.fileCountMax, existing, count: adding });
  }

  // ── reads ──
  async list(ctx: ProjectScopedContext, q: z.output<typeof sourceFileListRequest>) {
    const s = await this.subjectOf(this.db, ctx, q.ptsId);
    const where = and(
      eq(sourceFiles.subjectId, s.id),
      this.scope(ctx),
      q.status !== undefined ? eq(sourceFiles.status, q.status) : undefined,
      q.docType !== undefined ? eq(sourceFiles.docType, q.docType) : undefined,
    );
    return this.filePage(ctx, q, where, [desc(sourceFiles.createdAt), desc(sourceFiles.id)]);
  }

  /** A page of file views: the rows `where` selects (joined with their subject), in `order`. */
  async filePage(ctx: ProjectScopedContext, q: { pageNumber: number; pageSize: number }, where: SQL | undefined, order: SQL[]) {
    const [total] = await this.db.select({ n: count() }).from(sourceFiles).innerJoin(subjects, eq(subjects.id, sourceFiles.subjectId)).where(where);
    const rows = await this.db
      .select({ f: sourceFiles, ptsNo: subjects.ptsNo, createdBy: users.name })
      .from(sourceFiles)
      .innerJoin(subjects, eq(subjects.id, sourceFiles.subjectId))
      .leftJoin(users, eq(users.id, sourceFiles.createdBy))
      .where(where)
      .orderBy(...order)
      .limit(q.pageSize)
      .offset(offsetOf(q));
    return pageOf(q, total?.n ?? 0, rows.map((r) => toView(ctx.language, r.f, r.ptsNo, r.createdBy)));
  }

  /**
   * The bytes of a file's de-identified copy, or of its original: the original only for callers holding both
   * `source:file:original` and `patient:identifier:query` (the subject list's rule for identifiers in full), and every
   * such read is audited.
   */
  async read(ctx: ProjectScopedContext, id: number, copy: 'redacted' | 'original'): Promise<{ bytes: Buffer; mime: string; name: string }> {
    const f = await this.find(this.db, ctx, id);
    if (copy === 'redacted') {
      if (!f.redactedKey) throw new AppError('DOCUMENT_NOT_READY');
      const bytes = await this.stored(f.redactedKey);
      return { bytes, mime: f.kind === 'pdf' ? 'application/pdf' : 'image/jpeg', name: f.kind === 'pdf' ? f.fileName : f.fileName.replace(/\.[^.]*$/, '') + '.jpg' };
    }
    if (!mayReadOriginal(ctx)) throw new AppError('FORBIDDEN');
    const bytes = await this.stored(f.originalKey);
    await this.db.transaction((tx) =>
      recordAudit(tx, actorOf(ctx), [{ action: 'document.readOriginal', entity: 'sourceFile', entityId: f.id, projectId: f.projectId, siteId: f.siteId, subjectId: f.subjectId, newValue: f.fileName }]),
    );
    const mime = f.kind === 'pdf' ? 'application/pdf' : (await inspectImage(bytes, { decode: false })).format === 'png' ? 'image/png' : 'image/jpeg';
    return { bytes, mime, name: f.fileName };
  }

  /**
   * Runs automatic de-identification again (SOURCE_FILE_REDEID_FROM → 0), from the original with the desensitization
   * settings of now: after a configuration change, or after a failure. The upload permission of the file's kind;
   * version-checked; audited; the subject's (or the ISF document's) upload rule applies while it runs.
   */
  async redeid(ctx: ProjectScopedContext, input: { id: number; version: number }): Promise<SourceFileView> {
    const t = translator(ctx.language);
    const row = await this.db.transaction(async (tx) => {
      const f = await this.find(tx, ctx, input.id);
      if (!ctx.pms.has(f.isfKindId === null ? 'source:file:upload' : 'isf:file:upload')) throw new AppError('FORBIDDEN');
      if (f.version !== input.version) throw await staleWrite(tx, f.updatedBy, f.updatedAt);
      if (!SOURCE_FILE_REDEID_FROM.includes(f.status))
        throw new AppError('DOCUMENT_TRANSITION', { from: t(`documents.status.${f.status}`, { defaultValue: String(f.status) }), to: t(`documents.status.${S.autoDeidentifying}`) });
      const [after] = await tx
        .update(sourceFiles)
        .set({ status: S.autoDeidentifying, jobId: null, heartbeatAt: null, restarts: 0, errorCode: null, errorDetail: null, reason: null, version: f.version + 1, updatedBy: ctx.user.id, updatedAt: new Date() })
        .where(and(eq(sourceFiles.id, f.id), eq(sourceFiles.version, f.version)))
        .returning();
      if (!after) throw await staleWrite(tx, f.updatedBy, f.updatedAt);
      await recordAudit(tx, actorOf(ctx), [
        { action: 'document.redeid', entity: 'sourceFile', entityId: f.id, projectId: f.projectId, siteId: f.siteId, subjectId: f.subjectId, field: 'status', oldValue: f.status, newValue: S.autoDeidentifying, reason: f.reason },
      ]);
      return after;
    });
    const [s] = row.subjectId === null ? [] : await this.db.select({ ptsNo: subjects.ptsNo }).from(subjects).where(eq(subjects.id, row.subjectId));
    await this.job.enqueue(row, ctx.user.id, ctx.language, s?.ptsNo ?? null);
    return (await this.views(this.db, ctx.language, eq(sourceFiles.id, row.id)))[0]!;
  }

  // ── upload confirmation (fileConfirmConfig) ──
  /** -3 → 0: the upload is confirmed (subject, visit, document type checked) and automatic de-identification starts. */
  async confirm(ctx: ProjectScopedContext, input: { id: number; version: number }): Promise<SourceFileView> {
    const row = await this.leaveWaitingImport(ctx, input, S.autoDeidentifying, null);
    const [s] = row.subjectId === null ? [] : await this.db.select({ ptsNo: subjects.ptsNo }).from(subjects).where(eq(subjects.id, row.subjectId));
    await this.job.enqueue(row, ctx.user.id, ctx.language, s?.ptsNo ?? null);
    return (await this.views(this.db, ctx.language, eq(sourceFiles.id, row.id)))[0]!;
  }

  /** -3 → -99: the upload is discarded (wrong subject, wrong document …); the file is kept, with the reason. */
  async discard(ctx: ProjectScopedContext, input: { id: number; version: number; reason: string }): Promise<SourceFileView> {
    const row = await this.leaveWaitingImport(ctx, input, S.default, input.reason);
    return (await this.views(this.db, ctx.language, eq(sourceFiles.id, row.id)))[0]!;
  }

  private async leaveWaitingImport(ctx: ProjectScopedContext, input: { id: number; version: number }, to: number, reason: string | null): Promise<FileRow> {
    const t = translator(ctx.language);
    return this.db.transaction(async (tx) => {
      const f = await this.find(tx, ctx, input.id);
      if (f.version !== input.version) throw await staleWrite(tx, f.updatedBy, f.updatedAt);
      if (f.status !== S.waitingImport) throw new AppError('DOCUMENT_TRANSITION', { from: t(`documents.status.${f.status}`, { defaultValue: String(f.status) }), to: t(`documents.status.${to}`) });
      const [after] = await tx
        .update(sourceFiles)
        .set({ status: to, reason, version: f.version + 1, updatedBy: ctx.user.id, updatedAt: new Date() })
        .where(and(eq(sourceFiles.id, f.id), eq(sourceFiles.version, f.version)))
        .returning();
      if (!after) {
        const [now] = await tx.select({ updatedBy: sourceFiles.updatedBy, updatedAt: sourceFiles.updatedAt }).from(sourceFiles).where(eq(sourceFiles.id, f.id));
        throw await staleWrite(tx, now?.updatedBy, now?.updatedAt ?? f.updatedAt);
      }
      await recordAudit(tx, actorOf(ctx), [
        { action: to === S.default ? 'document.discard' : 'document.confirm', entity: 'sourceFile', entityId: f.id, projectId: f.projectId, siteId: f.siteId, subjectId: f.subjectId, field: 'status', oldValue: f.status, newValue: to, reason },
      ]);
      return after;
    });
  }

  // ── status workflow ──
  /** updateStatus: submit, audit passed or failed; withdraw has its own call. */
  updateStatus(ctx: ProjectScopedContext, input: { id: number; version: number; status: number; reason?: string | undefined }): Promise<SourceFileView> {
    return this.change(ctx, input, (t) => t.action !== 'withdraw');
  }

  withdraw(ctx: ProjectScopedContext, input: { id: number; version: number }): Promise<SourceFileView> {
    return this.change(ctx, { ...input, status: S.waitingSubmit }, (t) => t.action === 'withdraw');
  }

  private async change(ctx: ProjectScopedContext, input: { id: number; version: number; status: number; reason?: string | undefined }, allowed: (t: SourceFileTransition) => boolean): Promise<SourceFileView> {
    const t = translator(ctx.language);
    return this.db.transaction(async (tx) => {
      const f = await this.find(tx, ctx, input.id);
      if (f.version !== input.version) throw await staleWrite(tx, f.updatedBy, f.updatedAt);
      const step = sourceFileTransition(f.status, input.status);
      if (!step || !allowed(step)) throw new AppError('DOCUMENT_TRANSITION', { from: t(`documents.status.${f.status}`), to: t(`documents.status.${input.status}`, { defaultValue: String(input.status) }) });
      if (!ctx.pms.has(step.permission)) throw new AppError('FORBIDDEN');
      const reason = input.reason?.trim() || null;
      if (step.reason && !reason) throw new AppError('REASON_REQUIRED', { detail: t(`documents.status.${step.to}`) }, [{ field: 'reason', message: t('validation.required') }]);
      const [after] = await tx
        .update(sourceFiles)
        .set({ status: step.to, reason: step.to === S.auditFailed ? reason : null, version: f.version + 1, updatedBy: ctx.user.id, updatedAt: new Date() })
        .where(and(eq(sourceFiles.id, f.id), eq(sourceFiles.version, f.version)))
        .returning();
      if (!after) {
        // someone else's change won between the read and this update: name them, not the writer before
        const [now] = await tx.select({ updatedBy: sourceFiles.updatedBy, updatedAt: sourceFiles.updatedAt }).from(sourceFiles).where(eq(sourceFiles.id, f.id));
        throw await staleWrite(tx, now?.updatedBy, now?.updatedAt ?? f.updatedAt);
      }
      await recordAudit(tx, actorOf(ctx), [
        { action: 'document.status', entity: 'sourceFile', entityId: f.id, projectId: f.projectId, siteId: f.siteId, subjectId: f.subjectId, field: 'status', oldValue: f.status, newValue: step.to, reason },
      ]);
      return (await this.views(tx, ctx.language, eq(sourceFiles.id, f.id)))[0]!;
    });
  }
}

/**
 * Who may see a file's original (and the text read on it, which holds identifiers): `source:file:original` together
 * with `patient:identifier:query` (the subject list's rule for identifiers in full).
 */
export function mayReadOriginal(ctx: ProjectScopedContext): boolean {
  return ctx.pms.has('source:file:original') && ctx.pms.has('patient:identifier:query');
}

/**
 * THE scope of source files (every read and change of one goes through it): the caller's project and environment;
 * a subject's file: the caller's sites (the subject list's rule) and live subjects only — a subject in the recycle bin
 * hides its files; an ISF document (no subject): the caller's sites, for callers holding `isf:file:query`. The query
 * must join subjects (an inner join leaves the ISF out).
 */
export function sourceFileScope(subjectsService: SubjectsService, ctx: ProjectScopedContext) {
  const subjectFile = and(isNotNull(sourceFiles.subjectId), subjectsService.scope(ctx), sql`${subjects.status} <> 0`);
  const isfFile = ctx.pms.has('isf:file:query') ? and(isNotNull(sourceFiles.isfKindId), siteScope(sourceFiles.siteId, ctx) ?? sql`true`) : undefined;
  return and(eq(sourceFiles.projectId, ctx.project.id), eq(sourceFiles.env, ctx.env), isfFile ? or(subjectFile, isfFile) : subjectFile);
}

export function toView(lang: Language, f: FileRow, ptsNo: string | null, createdBy: string | null): SourceFileView {
  return {
    id: f.id,
    ptsId: f.subjectId,
    ptsNo,
    siteId: f.siteId,
    isfKindId: f.isfKindId,
    isfVersion: f.isfVersion,
    visitId: f.visitId,
    docType: f.docType,
    fileName: f.fileName,
    kind: f.kind,
    size: f.size,
    pages: f.pages,
    status: f.status,
    reason: f.reason,
    errorMessage: taskErrorMessage(lang, f.errorCode, f.errorDetail),
    boxes: f.boxes,
    hasRedacted: !!f.redactedKey,
    version: f.version,
    createdBy,
    createTime: f.createdAt.toISOString(),
    updateTime: f.updatedAt.toISOString(),
  };
}

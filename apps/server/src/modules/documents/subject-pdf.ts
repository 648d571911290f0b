/**
 * PDF synthesis (issue 12 item 7; spec §7 /project/manage/queryProcessBarPdf, §8 'PDF synthesis in progress, please
 * try again later'): a subject's de-identified source files — only the redacted copies, never an original — combined
 * into one PDF by a job with progress (done/total pages). One synthesis runs per subject at a time (a partial unique
 * index decides races); one whose worker died (no heartbeat for STALE_MS) is failed when the next is asked for.
 */
import { randomUUID } from 'node:crypto';
import { and, asc, desc, eq, inArray, isNotNull, lt, sql } from 'drizzle-orm';
import { PDFDocument, StandardFonts, rgb } from 'pdf-lib';
import { PROGRESS_TYPE, SOURCE_FILE_STATUS, SUBJECT_PDF_STATUS, type Language, type ProcessBarPdfResult, type SubjectPdfView } from '@esource/shared';
import { DEFAULT_SCALE } from '@esource/redact';
import type { Database, Db } from '../../db/client';
import { sourceFiles, subjectPdfs, subjects, users } from '../../db/schema';
import { AppError } from '../../lib/errors';
import type { ProjectScopedContext } from '../../lib/context';
import { translator } from '../../lib/i18n';
import { actorOf, recordAudit } from '../audit/audit.service';
import type { JobContext, JobRunner } from '../jobs/job-runner';
import type { DocumentsService } from './documents.service';
import type { FileStore } from './file-store';
import { isUniqueViolation } from '../../lib/db-errors';

export const PDF_JOB = 'subject-pdf';
const HEARTBEAT_MS = 30_000;
export const PDF_STALE_MS = 3 * 60_000;
/** de-identified files a synthesis combines */
const COMBINED: number[] = [SOURCE_FILE_STATUS.waitingSubmit, SOURCE_FILE_STATUS.waitingAudit, SOURCE_FILE_STATUS.auditPassed];

type PdfRow = typeof subjectPdfs.$inferSelect;
interface PdfJobData {
  pdfId: number;
  language: Language;
}


/** Text the standard PDF font can draw (WinAnsi): anything else becomes '?'. */
const latin = (s: string) => s.replace(/[^\x20-\x7e]/g, '?');

export class SubjectPdfService {
  constructor(
    private readonly database: Database,
    private readonly jobs: JobRunner,
    private readonly store: FileStore,
    private readonly docs?: DocumentsService,
  ) {}

  private get db(): Db {
    return this.database.db;
  }

  private documents(): DocumentsService {
    if (!this.docs) throw new Error('SubjectPdfService without DocumentsService');
    return this.docs;
  }

  /** The subject's files a synthesis combines, in document-type then upload order. */
  private combinable(subjectId: number) {
    return this.db
      .select({ id: sourceFiles.id, kind: sourceFiles.kind, pages: sourceFiles.pages, redactedKey: sourceFiles.redactedKey })
      .from(sourceFiles)
      .where(
        and(
          eq(sourceFiles.subjectId, subjectId),
          inArray(sourceFiles.status, COMBINED),
          isNotNull(sourceFiles.redactedKey),
        ),
      )
      .orderBy(asc(sourceFiles.docType), asc(sourceFiles.createdAt), asc(sourceFiles.id));
  }

  /** Starts a synthesis of the subject's de-identified files; refused while one runs (spec §8). */
  async start(ctx: ProjectScopedContext, ptsId: number): Promise<SubjectPdfView> {
    const s = await this.documents().subjectOf(this.db, ctx, ptsId);
    await this.failStale(s.id);
    const files = await this.combinable(s.id);
    if (files.length === 0) throw new AppError('PDF_SYNTHESIS_EMPTY');
    const pages = files.reduce((n, f) => n + f.pages, 0);
    const jobId = randomUUID();
    let row: PdfRow;
    try {
      row = await this.db.transaction(async (tx) => {
        const [r] = await tx
          .insert(subjectPdfs)
          .values({ env: ctx.env, projectId: s.projectId, siteId: s.siteId, subjectId: s.id, status: SUBJECT_PDF_STATUS.running, files: files.length, pages, jobId, createdBy: ctx.user.id })
          .returning();
        await recordAudit(tx, actorOf(ctx), [
          { action: 'document.pdfSynthesis', entity: 'subjectPdf', entityId: r!.id, projectId: s.projectId, siteId: s.siteId, subjectId: s.id, newValue: { files: files.length, pages } },
        ]);
        return r!;
      });
    } catch (err) {
      if (isUniqueViolation(err)) throw new AppError('PDF_SYNTHESIS_BUSY');
      throw err;
    }
    const display = translator(ctx.language)('documents.progress.pdf', { ptsNo: s.ptsNo, files: files.length });
    const r = await this.jobs.enqueue(PDF_JOB, { pdfId: row.id, language: ctx.language } satisfies PdfJobData, {
      id: jobId,
      progress: { userId: ctx.user.id, env: ctx.env, projectId: s.projectId, siteId: s.siteId, type: PROGRESS_TYPE.sourceUpload, displayInformation: display, ptsNo: s.ptsNo, ptsId: s.id },
    });
    await this.db.update(subjectPdfs).set({ progressItemId: r.progressItemId }).where(eq(subjectPdfs.id, row.id));
    return this.view(ctx.language, row, null);
  }

  /** A running synthesis whose worker stopped beating (kill -9, restart) fails, so the subject is not blocked. */
  private async failStale(subjectId: number): Promise<void> {
    const staleBefore = new Date(Date.now() - PDF_STALE_MS);
    await this.db
      .update(subjectPdfs)
      .set({ status: SUBJECT_PDF_STATUS.failed, errorCode: 'documents.error.interrupted', updatedAt: new Date() })
      .where(
        and(
          eq(subjectPdfs.subjectId, subjectId),
          eq(subjectPdfs.status, SUBJECT_PDF_STATUS.running),
          lt(sql`coalesce(${subjectPdfs.heartbeatAt}, ${subjectPdfs.createdAt})`, staleBefore),
        ),
      );
  }

  /** queryProcessBarPdf: the latest synthesis, the last finished one, and how many files one would combine now. */
  async status(ctx: ProjectScopedContext, ptsId: number): Promise<ProcessBarPdfResult> {
    const s = await this.documents().subjectOf(this.db, ctx, ptsId);
    const rows = await this.db
      .select({ p: subjectPdfs, by: users.name })
      .from(subjectPdfs)
      .leftJoin(users, eq(users.id, subjectPdfs.createdBy))
      .where(and(eq(subjectPdfs.subjectId, s.id), eq(subjectPdfs.env, ctx.env)))
      .orderBy(desc(subjectPdfs.createdAt), desc(subjectPdfs.id))
      .limit(20);
    const latest = rows[0];
    const lastDone = rows.find((r) => r.p.status === SUBJECT_PDF_STATUS.done);
    const available = (await this.combinable(s.id)).length;
    return {
      latest: latest ? this.view(ctx.language, latest.p, latest.by) : null,
      lastDone: lastDone ? this.view(ctx.language, lastDone.p, lastDone.by) : null,
      running: latest?.p.status === SUBJECT_PDF_STATUS.running,
      available,
    };
  }

  /** The combined PDF (de-identified pages only) of a finished synthesis in the caller's scope. */
  async download(ctx: ProjectScopedContext, id: number): Promise<{ bytes: Buffer; name: string }> {
    const [r] = await this.db
      .select({ p: subjectPdfs, ptsNo: subjects.ptsNo })
      .from(subjectPdfs)
      .innerJoin(subjects, eq(subjects.id, subjectPdfs.subjectId))
      .where(and(eq(subjectPdfs.id, id), eq(subjectPdfs.projectId, ctx.project.id), eq(subjectPdfs.env, ctx.env)));
    if (!r) throw new AppError('NOT_FOUND', { entity: 'sourceFile' });
    // the subject's scope (site, recycle bin) decides, as for its files
    await this.documents().subjectOf(this.db, ctx, r.p.subjectId);
    if (r.p.status !== SUBJECT_PDF_STATUS.done || !r.p.fileKey) throw new AppError('PDF_SYNTHESIS_BUSY');
    const bytes = await this.store.get(r.p.fileKey).catch(() => {
      throw new AppError('NOT_FOUND', { entity: 'sourceFile' });
    });
    return { bytes, name: `${r.ptsNo}-source-documents.pdf` };
  }

  private view(lang: Language, p: PdfRow, by: string | null): SubjectPdfView {
    return {
      id: p.id,
      status: p.status,
      files: p.files,
      pages: p.pages,
      done: p.done,
      percent: p.status === SUBJECT_PDF_STATUS.done ? 100 : p.pages > 0 ? Math.min(99, Math.floor((p.done / p.pages) * 100)) : 0,
      errorMessage: p.errorCode ? translator(lang)(p.errorCode, { count: 1, code: p.errorCode, ref: `subject-pdf-${p.id}` }) : null,
      createdBy: by,
      createTime: p.createdAt.toISOString(),
      updateTime: p.updatedAt.toISOString(),
    };
  }

  /** The job: every de-identified page in order (images at 150 dpi, PDF copies page by page), a footer label each. */
  async run(data: PdfJobData, job: JobContext): Promise<void> {
    const [p] = await this.db
      .update(subjectPdfs)
      .set({ heartbeatAt: new Date() })
      .where(and(eq(subjectPdfs.id, data.pdfId), eq(subjectPdfs.status, SUBJECT_PDF_STATUS.running), eq(subjectPdfs.jobId, job.jobId)))
      .returning();
    if (!p) return;
    const mine = and(eq(subjectPdfs.id, p.id), eq(subjectPdfs.status, SUBJECT_PDF_STATUS.running), eq(subjectPdfs.jobId, job.jobId));
    const beat = setInterval(() => {
      this.db
        .update(subjectPdfs)
        .set({ heartbeatAt: new Date() })
        .where(mine)
        .catch((err: unknown) => console.error(`[documents] pdf ${p.id} heartbeat:`, (err as Error).message));
    }, HEARTBEAT_MS);
    beat.unref();
    try {
      const [s] = await this.db.select({ ptsNo: subjects.ptsNo }).from(subjects).where(eq(subjects.id, p.subjectId));
      const files = await this.combinable(p.subjectId);
      const total = files.reduce((n, f) => n + f.pages, 0);
      if (files.length === 0) throw new AppError('PDF_SYNTHESIS_EMPTY');
      const out = await PDFDocument.create();
      out.setTitle(latin(`${s?.ptsNo ?? ''} source documents (de-identified)`));
      out.setProducer('eSource');
      const font = await out.embedFont(StandardFonts.Helvetica);
      const label = latin(s?.ptsNo ?? '');
      let done = 0;
      await job.report(0, total, 'pages');
      for (const f of files) {
        const bytes = await this.store.get(f.redactedKey!);
        if (f.kind === 'image') {
          const img = await out.embedJpg(bytes);
          // the copy's pixels at 150 dpi, in points
          const w = img.width / DEFAULT_SCALE;
          const h = img.height / DEFAULT_SCALE;
          const page = out.addPage([w, h]);
          page.drawImage(img, { x: 0, y: 0, width: w, height: h });
        } else {
          const src = await PDFDocument.load(bytes, { updateMetadata: false });
          for (const page of await out.copyPages(src, src.getPageIndices())) out.addPage(page);
        }
        done = out.getPageCount();
        await this.db.update(subjectPdfs).set({ done, heartbeatAt: new Date(), updatedAt: new Date() }).where(mine);
        await job.report(done, total, 'pages');
      }
      const n = out.getPageCount();
      out.getPages().forEach((page, i) => {
        const text = `${label}  ${i + 1}/${n}`;
        page.drawText(text, { x: page.getWidth() - font.widthOfTextAtSize(text, 8) - 18, y: 10, size: 8, font, color: rgb(0.45, 0.45, 0.45) });
      });
      const { key } = await this.store.put(await out.save());
      await this.db.update(subjectPdfs).set({ status: SUBJECT_PDF_STATUS.done, fileKey: key, pages: n, done: n, heartbeatAt: null, updatedAt: new Date() }).where(mine);
    } catch (err) {
      const code = err instanceof AppError ? `errors.${err.code}` : 'documents.error.internal';
      if (!(err instanceof AppError)) console.error(`[documents] pdf ${p.id} failed:`, err);
      await this.db.update(subjectPdfs).set({ status: SUBJECT_PDF_STATUS.failed, errorCode: code, heartbeatAt: null, updatedAt: new Date() }).where(mine);
      throw err;
    } finally {
      clearInterval(beat);
    }
  }
}

export function registerSubjectPdfJob(jobs: JobRunner, database: Database, store: FileStore): void {
  const svc = new SubjectPdfService(database, jobs, store);
  jobs.define<PdfJobData>(PDF_JOB, (data, ctx) => svc.run(data, ctx), { retryLimit: 0 });
}

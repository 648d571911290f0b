/**
 * Automatic de-identification of an uploaded source document (issue 12 items 2–4), one pg-boss job per file with a
 * progress item of type 1: OCR each image (or each PDF page rendered at 150 dpi, plus the PDF's own text layer), detect
 * identifiers (packages/deid) with the subject's known identifiers and the project's desensitization keywords and
 * policy (modules/deid-config), place padded boxes by character offset, redact for
 * real (packages/redact) and store the copy by hash; status 0 → 1. A failure leaves the file at -2 with a translated
 * reason; the worker keeps running. Files whose job is gone or whose worker died are queued again by recover().
 */
import { randomUUID } from 'node:crypto';
import { and, eq, isNull, lt, or, sql } from 'drizzle-orm';
import { PROGRESS_STATUS, PROGRESS_TYPE, SOURCE_FILE_STATUS, type Language, type SourceFileBox } from '@esource/shared';
import type { DeidOptions } from '@esource/deid';
import { isOcrError, ocrImage, type OcrResult } from '@esource/ocr';
import { DEFAULT_SCALE, isRedactError, openPdf, pdfPageText, redactImage, redactPdf, renderPdfPage } from '@esource/redact';
import type { Database, Db } from '../../db/client';
import { progressItems, sourceFiles, subjects } from '../../db/schema';
import { translator } from '../../lib/i18n';
import { recordAudit } from '../audit/audit.service';
import { loadDeidSettings } from '../deid-config/deid-config.repo';
import type { JobContext, JobRunner } from '../jobs/job-runner';
import { ocrPiece, pageBoxes, textItemPiece, type TextPiece } from './deid-boxes';
import type { FileStore } from './file-store';
import { DOCUMENT_MAX_PAGES } from './upload-check';

export const DEID_JOB = 'source-file-deid';
/** a running file's heartbeat; older than STALE_MS = its process died */
export const HEARTBEAT_MS = 30_000;
export const STALE_MS = 3 * 60_000;
/** a file at status 0 that no worker started after this long is checked against its job */
export const UNQUEUED_MS = 2 * 60_000;
/** restarts of an interrupted file before it fails */
const MAX_RESTARTS = 2;

type FileRow = typeof sourceFiles.$inferSelect;
type OcrLine = FileRow['ocr'][number];

export interface DeidJobData {
  fileId: number;
  language: Language;
}

/** A failure the user reads: a catalogue key under documents.error and its parameters. */
class DeidFailure extends Error {
  constructor(
    readonly key: string,
    readonly params: Record<string, string | number> = {},
  ) {
    super(key);
  }
}

const SYSTEM = (env: string) => ({ userId: null, userName: 'system', requestId: null, ip: null, env });

export class DeidJob {
  constructor(
    private readonly database: Database,
    private readonly jobs: JobRunner,
    private readonly store: FileStore,
  ) {}

  private get db(): Db {
    return this.database.db;
  }

  /** Queues a file's job; its id is written on the row first, so the job claims exactly its file. */
  async enqueue(f: FileRow, userId: number | null, language: Language, ptsNo: string | null, jobId?: string): Promise<void> {
    const id = jobId ?? randomUUID();
    if (!jobId) await this.db.update(sourceFiles).set({ jobId: id }).where(eq(sourceFiles.id, f.id));
    // an ISF document has no subject: its progress names the file and its version
    const display = ptsNo === null ? translator(language)('documents.progress.deidIsf', { name: f.fileName, version: f.isfVersion ?? 1 }) : translator(language)('documents.progress.deid', { name: f.fileName, ptsNo });
    const r = await this.jobs.enqueue(DEID_JOB, { fileId: f.id, language } satisfies DeidJobData, {
      id,
      ...(userId ? { progress: { userId, env: f.env as 'PRO', projectId: f.projectId, siteId: f.siteId, type: PROGRESS_TYPE.sourceUpload, displayInformation: display, ptsNo, ptsId: f.subjectId } } : {}),
    });
    await this.db.update(sourceFiles).set({ progressItemId: r.progressItemId }).where(eq(sourceFiles.id, f.id));
  }

  /** The job handler. */
  async run(data: DeidJobData, job: JobContext): Promise<void> {
    const [f] = await this.db
      .update(sourceFiles)
      .set({ heartbeatAt: new Date() })
      .where(and(eq(sourceFiles.id, data.fileId), eq(sourceFiles.status, SOURCE_FILE_STATUS.autoDeidentifying), eq(sourceFiles.jobId, job.jobId)))
      .returning();
    if (!f) return;
    const mine = and(eq(sourceFiles.id, f.id), eq(sourceFiles.status, SOURCE_FILE_STATUS.autoDeidentifying), eq(sourceFiles.jobId, job.jobId));
    const heartbeat = setInterval(() => {
      this.db
        .update(sourceFiles)
        .set({ heartbeatAt: new Date() })
        .where(mine)
        .catch((err: unknown) => console.error(`[documents] heartbeat of file ${f.id}:`, (err as Error).message));
    }, HEARTBEAT_MS);
    heartbeat.unref();
    try {
      const out = await this.deidentify(f, job);
      const { key } = await this.store.put(out.bytes);
      await this.db.transaction(async (tx) => {
        const done = await tx
          .update(sourceFiles)
          .set({ status: SOURCE_FILE_STATUS.waitingSubmit, redactedKey: key, boxes: out.boxes, ocr: out.ocr, heartbeatAt: null, errorCode: null, errorDetail: null, version: sql`${sourceFiles.version} + 1`, updatedAt: new Date() })
          .where(mine)
          .returning({ id: sourceFiles.id });
        if (done.length)
          await recordAudit(tx, SYSTEM(f.env), [
            { action: 'document.deid', entity: 'sourceFile', entityId: f.id, projectId: f.projectId, siteId: f.siteId, subjectId: f.subjectId, field: 'status', oldValue: f.status, newValue: SOURCE_FILE_STATUS.waitingSubmit, reason: `${out.boxes.length} boxes` },
          ]);
      });
    } catch (err) {
      const failure = asFailure(err, f.id);
      if (!(err instanceof DeidFailure) && !isRedactError(err) && !isOcrError(err)) console.error(`[documents] file ${f.id} failed:`, err);
      await this.db.transaction(async (tx) => {
        const failed = await tx
          .update(sourceFiles)
          .set({ status: SOURCE_FILE_STATUS.submitFailed, heartbeatAt: null, errorCode: failure.key, errorDetail: JSON.stringify(failure.params).slice(0, 1000), version: sql`${sourceFiles.version} + 1`, updatedAt: new Date() })
          .where(mine)
          .returning({ id: sourceFiles.id });
        if (failed.length)
          await recordAudit(tx, SYSTEM(f.env), [
            { action: 'document.deidFailed', entity: 'sourceFile', entityId: f.id, projectId: f.projectId, siteId: f.siteId, subjectId: f.subjectId, field: 'status', oldValue: f.status, newValue: SOURCE_FILE_STATUS.submitFailed, reason: failure.key },
          ]);
      });
      if (f.progressItemId) {
        const msg = translator(data.language)(failure.key, failure.params);
        await this.db
          .update(progressItems)
          .set({ displayInformation: sql`left(${progressItems.displayInformation} || ' — ' || ${msg}, 500)`, updatedAt: new Date() })
          .where(eq(progressItems.id, f.progressItemId));
      }
      throw err;
    } finally {
      clearInterval(heartbeat);
    }
  }

  /**
   * What to hide: the subject's own identifiers, and the desensitization keywords and policy of the file's project and
   * environment (/project/ocrProConfig; the defaults when never saved). Read when the job runs, so a file queued again
   * after a restart uses the configuration of that moment.
   */
  async options(f: Pick<FileRow, 'subjectId' | 'projectId' | 'env'>): Promise<DeidOptions> {
    // an ISF document has no subject: the detectors and the project's keywords only
    const [s] = f.subjectId === null ? [] : await this.db.select().from(subjects).where(eq(subjects.id, f.subjectId));
    const v = (x: string | null | undefined) => (x && x.trim() ? x.trim() : undefined);
    const subject = {
      name: s?.initials && s.initials.trim().length >= 2 ? s.initials.trim() : undefined,
      medicalRecordNo: v(s?.medicalRecordId),
      inpatientNo: v(s?.inpatientId),
      outpatientNo: v(s?.outpatientId),
      idCard: v(s?.idCard),
    };
    const { keywords, policy } = await loadDeidSettings(this.db, { projectId: f.projectId, env: f.env });
    return { subject: Object.fromEntries(Object.entries(subject).filter(([, x]) => x !== undefined)), keywords, policy };
  }

  private async deidentify(f: FileRow, job: JobContext): Promise<{ bytes: Uint8Array; boxes: SourceFileBox[]; ocr: OcrLine[] }> {
    let bytes: Buffer;
    try {
      bytes = await this.store.get(f.originalKey);
    } catch {
      throw new DeidFailure('documents.error.missing');
    }
    const opts = await this.options(f);
    const ocr: OcrLine[] = [];
    const read = async (image: Uint8Array, page: number): Promise<OcrResult> => {
      try {
        const r = await ocrImage(image);
        for (const g of r.regions) ocr.push({ page, text: g.text, ...g.box });
        return r;
      } catch (err) {
        if (isOcrError(err, 'OCR_BAD_IMAGE') || isOcrError(err, 'OCR_TOO_MANY_PIXELS')) throw new DeidFailure('documents.error.ocrImage', { page: page + 1 });
        if (isOcrError(err)) throw new DeidFailure('documents.error.engine');
        throw err;
      }
    };
    if (f.kind === 'image') {
      await job.report(0, 1, 'pages');
      const r = await read(bytes, 0);
      const limits = { width: r.width, height: r.height };
      const boxes = pageBoxes(0, r.regions.map((g) => ocrPiece(g, limits)), opts);
      const red = await redactImage(bytes, boxes);
      await job.report(1, 1, 'pages');
      return { bytes: red.bytes, boxes, ocr };
    }
    const doc = await openPdf(bytes, { maxPages: DOCUMENT_MAX_PAGES });
    try {
      const boxes: SourceFileBox[] = [];
      await job.report(0, doc.numPages, 'pages');
      for (let i = 0; i < doc.numPages; i++) {
        const page = await renderPdfPage(doc, i, DEFAULT_SCALE);
        const limits = { width: page.width, height: page.height };
        const r = await read(page.bytes, i);
        const items = await pdfPageText(doc, i, DEFAULT_SCALE);
        for (const t of items) ocr.push({ page: i, text: t.text, x: t.x, y: t.y, width: t.width, height: t.height });
        const pieces: TextPiece[] = [...r.regions.map((g) => ocrPiece(g, limits)), ...items.map((t) => textItemPiece(t, limits))];
        boxes.push(...pageBoxes(i, pieces, opts));
        await job.report(i + 1, doc.numPages, 'pages');
      }
      const red = await redactPdf(doc, boxes, { scale: DEFAULT_SCALE });
      return { bytes: red.bytes, boxes, ocr };
    } finally {
      await doc.close();
    }
  }

  /**
   * Queues again the files nobody de-identifies (workers call it at start and every minute; the claim is one
   * conditional update, so several workers restart a file once):
   * - status 0 with a heartbeat older than STALE_MS: its worker died (kill -9). Queued under a new job, at most
   *   MAX_RESTARTS times, then -2 with 'interrupted'.
   * - status 0, never started, older than UNQUEUED_MS, whose job pg-boss does not hold as waiting or running (the
   *   process stopped between the row's commit and the job's, or the job is gone).
   */
  async recover(now: Date = new Date()): Promise<{ restarted: number; failed: number }> {
    const staleBefore = new Date(now.getTime() - STALE_MS);
    const unqueuedBefore = new Date(now.getTime() - UNQUEUED_MS);
    const candidates = await this.db
      .select({ f: sourceFiles, ptsNo: subjects.ptsNo })
      .from(sourceFiles)
      .leftJoin(subjects, eq(subjects.id, sourceFiles.subjectId))
      .where(
        and(
          eq(sourceFiles.status, SOURCE_FILE_STATUS.autoDeidentifying),
          or(lt(sourceFiles.heartbeatAt, staleBefore), and(isNull(sourceFiles.heartbeatAt), lt(sourceFiles.createdAt, unqueuedBefore))),
        ),
      )
      .limit(500);
    let restarted = 0;
    let failed = 0;
    for (const { f, ptsNo } of candidates) {
      const info = f.jobId ? await this.jobs.jobInfo(DEID_JOB, f.jobId) : null;
      const live = !!info && ['created', 'retry', 'active'].includes(info.state);
      if (f.heartbeatAt === null && live) continue;
      const give = f.restarts >= MAX_RESTARTS;
      const jobId = randomUUID();
      const claimed = await this.db.transaction(async (tx) => {
        const rows = await tx
          .update(sourceFiles)
          .set(
            give
              ? { status: SOURCE_FILE_STATUS.submitFailed, heartbeatAt: null, errorCode: 'documents.error.interrupted', errorDetail: JSON.stringify({ count: f.restarts + 1 }), version: sql`${sourceFiles.version} + 1`, updatedAt: now }
              : { jobId, heartbeatAt: null, restarts: f.restarts + 1, updatedAt: now },
          )
          .where(
            and(
              eq(sourceFiles.id, f.id),
              eq(sourceFiles.status, SOURCE_FILE_STATUS.autoDeidentifying),
              f.jobId ? eq(sourceFiles.jobId, f.jobId) : isNull(sourceFiles.jobId),
              f.heartbeatAt ? lt(sourceFiles.heartbeatAt, staleBefore) : isNull(sourceFiles.heartbeatAt),
            ),
          )
          .returning();
        if (rows.length)
          await recordAudit(tx, SYSTEM(f.env), [
            { action: give ? 'document.deidFailed' : 'document.restart', entity: 'sourceFile', entityId: f.id, projectId: f.projectId, siteId: f.siteId, subjectId: f.subjectId, newValue: { restarts: f.restarts + 1 } },
          ]);
        return rows;
      });
      const row = claimed[0];
      if (!row) continue;
      if (f.jobId && live) await this.jobs.cancel(DEID_JOB, f.jobId).catch(() => undefined);
      const language = (info?.data as DeidJobData | undefined)?.language ?? 'zh_CN';
      if (f.progressItemId) {
        const note = translator(language)(give ? 'documents.error.interrupted' : 'documents.error.restarted', { count: f.restarts + 1 });
        await this.db
          .update(progressItems)
          .set({ status: PROGRESS_STATUS.error, displayInformation: sql`left(${progressItems.displayInformation} || ' — ' || ${note}, 500)`, updatedAt: now })
          .where(eq(progressItems.id, f.progressItemId));
      }
      if (give) {
        failed++;
        continue;
      }
      await this.enqueue(row, f.createdBy, language, ptsNo, jobId);
      restarted++;
    }
    return { restarted, failed };
  }
}

function asFailure(err: unknown, id: number): DeidFailure {
  if (err instanceof DeidFailure) return err;
  if (isRedactError(err)) return new DeidFailure('documents.error.badFile', { code: err.code });
  return new DeidFailure('documents.error.internal', { ref: `source-file-${id}` });
}

export function registerDocumentJobs(jobs: JobRunner, database: Database, store: FileStore): DeidJob {
  const job = new DeidJob(database, jobs, store);
  jobs.define<DeidJobData>(DEID_JOB, (data, ctx) => job.run(data, ctx), { retryLimit: 0 });
  return job;
}

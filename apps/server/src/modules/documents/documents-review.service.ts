/**
 * Source documents, review step (issue 12): the project-wide file list and the de-identification message counts, a
 * file's detail (page sizes, and the text read on its pages for callers who may see the original), page images of the
 * copy or the original (audited), and manual de-identification: boxes drawn by hand and text masks, the copy redacted
 * again from the original, version-checked and audited in one transaction.
 */
import { and, asc, desc, eq, ilike, inArray, sql } from 'drizzle-orm';
import sharp from 'sharp';
import type { z } from 'zod';
import {
  SOURCE_FILE_EDITABLE,
  SOURCE_FILE_TABS,
  overlappingMasks,
  type SourceFileBox,
  type SourceFileDetail,
  type sourceFilePageRequest,
  type sourceFileSaveBoxesRequest,
  type sourceFileSearchRequest,
} from '@esource/shared';
import { DEFAULT_SCALE, inspectImage, openPdf, pdfPagePixels, redactImage, redactPdf, renderPdfPage, type PdfDoc } from '@esource/redact';
import type { Db } from '../../db/client';
import { isfKinds, sourceFiles, subjects, users } from '../../db/schema';
import { kindView } from '../isf/isf-kind';
import { AppError } from '../../lib/errors';
import type { ProjectScopedContext } from '../../lib/context';
import { translator } from '../../lib/i18n';
import { likeOf } from '../../lib/sql';
import { staleWrite } from '../../lib/stale';
import { fieldError } from '../../lib/validate';
import { actorOf, recordAudit } from '../audit/audit.service';
import { padOf, textItemPiece } from './deid-boxes';
import { mayReadOriginal, toView, type DocumentsService } from './documents.service';
import type { FileStore } from './file-store';
import { DOCUMENT_MAX_PAGES } from './upload-check';

type FileRow = typeof sourceFiles.$inferSelect;
type PageSize = { width: number; height: number };
type SearchRequest = z.output<typeof sourceFileSearchRequest>;

const SORT = {
  createTime: sourceFiles.createdAt,
  updateTime: sourceFiles.updatedAt,
  ptsNo: subjects.ptsNo,
  fileName: sourceFiles.fileName,
  status: sourceFiles.status,
  size: sourceFiles.size,
} as const satisfies Record<SearchRequest['sortField'], unknown>;

/**
 * Page sizes by original content key: stored content never changes under its key (content-addressed), so an entry is
 * never stale; bounded so that a long-running server does not grow.
 */
const SIZE_CACHE_MAX = 500;
const sizeCache = new Map<string, PageSize[]>();

export class DocumentsReviewService {
  constructor(
    private readonly db: Db,
    private readonly store: FileStore,
    private readonly docs: DocumentsService,
  ) {}

  // ── the project's list and the message counts ──
  async page(ctx: ProjectScopedContext, q: SearchRequest) {
    const where = and(
      this.docs.scope(ctx),
      q.siteId !== undefined ? eq(sourceFiles.siteId, q.siteId) : undefined,
      q.ptsId !== undefined ? eq(sourceFiles.subjectId, q.ptsId) : undefined,
      q.ptsNo ? ilike(subjects.ptsNo, likeOf(q.ptsNo)) : undefined,
      q.fileName ? ilike(sourceFiles.fileName, likeOf(q.fileName)) : undefined,
      q.status !== undefined ? eq(sourceFiles.status, q.status) : undefined,
      q.tab ? inArray(sourceFiles.status, [...SOURCE_FILE_TABS[q.tab]]) : undefined,
      q.docType !== undefined ? eq(sourceFiles.docType, q.docType) : undefined,
      q.kind ? eq(sourceFiles.kind, q.kind) : undefined,
    );
    const dir = q.sortOrder === 'asc' ? asc : desc;
    return this.docs.filePage(ctx, q, where, [dir(SORT[q.sortField]), dir(sourceFiles.id)]);
  }

  /** Files per message tab in the caller's scope, in one statement. */
  async tabCounts(ctx: ProjectScopedContext): Promise<{ pending: number; processed: number; invalid: number }> {
    const n = (tab: keyof typeof SOURCE_FILE_TABS) => sql<number>`count(*) filter (where ${inArray(sourceFiles.status, [...SOURCE_FILE_TABS[tab]])})`.mapWith(Number);
    const [r] = await this.db
      .select({ pending: n('pending'), processed: n('processed'), invalid: n('invalid') })
      .from(sourceFiles)
      .innerJoin(subjects, eq(subjects.id, sourceFiles.subjectId))
      .where(this.docs.scope(ctx));
    return { pending: r?.pending ?? 0, processed: r?.processed ?? 0, invalid: r?.invalid ?? 0 };
  }

  // ── one file ──
  async detail(ctx: ProjectScopedContext, id: number): Promise<SourceFileDetail> {
    const [r] = await this.db
      .select({ f: sourceFiles, ptsNo: subjects.ptsNo, createdBy: users.name })
      .from(sourceFiles)
      .leftJoin(subjects, eq(subjects.id, sourceFiles.subjectId))
      .leftJoin(users, eq(users.id, sourceFiles.createdBy))
      .where(and(eq(sourceFiles.id, id), this.docs.scope(ctx)));
    if (!r) throw new AppError('NOT_FOUND', { entity: 'sourceFile' });
    const { f } = r;
    const canOriginal = mayReadOriginal(ctx);
    const [kind] = f.isfKindId === null ? [] : await this.db.select().from(isfKinds).where(eq(isfKinds.id, f.isfKindId));
    return {
      ...toView(ctx.language, f, r.ptsNo, r.createdBy),
      pageSizes: await this.pageSizes(f),
      // the text read on the pages holds the identifiers the copy hides
      lines: canOriginal ? f.ocr : [],
      canOriginal,
      isfKind: kind ? kindView(ctx.language, kind).label : null,
      canEdit: this.mayEdit(ctx, f) && SOURCE_FILE_EDITABLE.includes(f.status),
    };
  }

  /**
   * Changing the boxes needs the upload permission (`source:file:upload`; `isf:file:upload` for an ISF document) and
   * the original's rule: whoever may remove a box would otherwise see, in the copy made again, what the box hid.
   */
  private mayEdit(ctx: ProjectScopedContext, f: Pick<FileRow, 'isfKindId'>): boolean {
    return ctx.pms.has(f.isfKindId === null ? 'source:file:upload' : 'isf:file:upload') && mayReadOriginal(ctx);
  }

  /** Each page's pixel size as rendered (images: after EXIF orientation; PDFs: at 150 dpi), from the original. */
  private async pageSizes(f: FileRow, doc?: PdfDoc): Promise<PageSize[]> {
    const hit = sizeCache.get(f.originalKey);
    if (hit) return hit;
    let sizes: PageSize[];
    if (f.kind === 'image') {
      const info = await inspectImage(await this.docs.stored(f.originalKey), { decode: false });
      sizes = [{ width: info.width, height: info.height }];
    } else {
      const measure = async (d: PdfDoc) => {
        const out: PageSize[] = [];
        for (let i = 0; i < d.numPages; i++) out.push(await pdfPagePixels(d, i, DEFAULT_SCALE));
        return out;
      };
      if (doc) sizes = await measure(doc);
      else {
        const opened = await openPdf(await this.docs.stored(f.originalKey), { maxPages: DOCUMENT_MAX_PAGES });
        try {
          sizes = await measure(opened);
        } finally {
          await opened.close();
        }
      }
    }
    if (sizeCache.size >= SIZE_CACHE_MAX) sizeCache.delete(sizeCache.keys().next().value!);
    sizeCache.set(f.originalKey, sizes);
    return sizes;
  }

  /**
   * One page as an image: the copy's page (images: the stored redacted JPEG; PDFs: the redacted PDF's page rendered at
   * 150 dpi, PNG), or the original's (the original's rule; audited with the page). `width` scales it down to a JPEG.
   */
  async pageImage(ctx: ProjectScopedContext, q: z.output<typeof sourceFilePageRequest>): Promise<{ bytes: Buffer; mime: string }> {
    const f = await this.docs.find(this.db, ctx, q.id);
    if (q.copy === 'original' && !mayReadOriginal(ctx)) throw new AppError('FORBIDDEN');
    if (q.page >= f.pages) throw fieldError(ctx.language, 'page', 'documents.review.noPage', { page: q.page + 1, pages: f.pages });
    let key: string;
    if (q.copy === 'redacted') {
      if (!f.redactedKey) throw new AppError('DOCUMENT_NOT_READY');
      key = f.redactedKey;
    } else key = f.originalKey;
    const src = await this.docs.stored(key);
    let bytes: Buffer;
    let mime: string;
    if (f.kind === 'pdf') {
      bytes = (await renderPdfPage(src, q.page, DEFAULT_SCALE, { maxPages: DOCUMENT_MAX_PAGES })).bytes;
      mime = 'image/png';
    } else {
      bytes = src;
      mime = q.copy === 'redacted' || (await inspectImage(src, { decode: false })).format === 'jpeg' ? 'image/jpeg' : 'image/png';
    }
    if (q.copy === 'original')
      await this.db.transaction((tx) =>
        recordAudit(tx, actorOf(ctx), [
          { action: 'document.readOriginal', entity: 'sourceFile', entityId: f.id, projectId: f.projectId, siteId: f.siteId, subjectId: f.subjectId, newValue: { fileName: f.fileName, page: q.page + 1 } },
        ]),
      );
    if (q.width !== undefined) {
      // rotate(): an original image's EXIF orientation applied, as the page sizes are
      bytes = await sharp(bytes).rotate().resize({ width: q.width, withoutEnlargement: true }).jpeg({ quality: 80 }).toBuffer();
      mime = 'image/jpeg';
    }
    return { bytes, mime };
  }

  // ── manual de-identification ──
  async saveBoxes(ctx: ProjectScopedContext, input: z.output<typeof sourceFileSaveBoxesRequest>): Promise<SourceFileDetail> {
    const lang = ctx.language;
    const t = translator(lang);
    const f = await this.docs.find(this.db, ctx, input.id);
    if (!this.mayEdit(ctx, f)) throw new AppError('FORBIDDEN');
    if (!SOURCE_FILE_EDITABLE.includes(f.status)) throw new AppError('DOCUMENT_NOT_EDITABLE', { status: t(`documents.status.${f.status}`, { defaultValue: String(f.status) }) });
    if (f.version !== input.version) throw await staleWrite(this.db, f.updatedBy, f.updatedAt);
    // the text masks first: they need nothing but the row
    input.masks.forEach((m, i) => {
      const line = f.ocr[m.line];
      if (!line) throw fieldError(lang, `masks.${i}.line`, 'documents.review.maskLine', { n: i + 1, line: m.line + 1, lines: f.ocr.length });
      if (m.start >= m.end) throw fieldError(lang, `masks.${i}`, 'documents.review.maskEmpty', { n: i + 1, line: m.line + 1 });
      if (m.end > line.text.length) throw fieldError(lang, `masks.${i}.end`, 'documents.review.maskRange', { n: i + 1, line: m.line + 1, end: m.end, length: line.text.length });
    });
    const overlap = overlappingMasks(input.masks)[0];
    if (overlap) {
      const [a, b] = overlap.map((i) => input.masks[i]!) as [(typeof input.masks)[number], (typeof input.masks)[number]];
      const params = { line: a.line + 1, first: `${a.start + 1}–${a.end}`, second: `${b.start + 1}–${b.end}` };
      throw new AppError('DOCUMENT_MASK_OVERLAP', params, [{ field: `masks.${overlap[1]}`, message: t('errors.DOCUMENT_MASK_OVERLAP', params) }]);
    }
    const original = await this.docs.stored(f.originalKey);
    const doc = f.kind === 'pdf' ? await openPdf(original, { maxPages: DOCUMENT_MAX_PAGES }) : undefined;
    let boxes: SourceFileBox[];
    let redacted: Uint8Array;
    try {
      const sizes = await this.pageSizes(f, doc);
      boxes = input.boxes.map((b, i) => {
        const size = sizes[b.page];
        if (!size) throw fieldError(lang, `boxes.${i}.page`, 'documents.review.boxPage', { n: i + 1, page: b.page + 1, pages: sizes.length });
        // clipped to the page, and out to whole pixels (a box never covers less than was drawn)
        const x = Math.floor(Math.min(b.x, size.width));
        const y = Math.floor(Math.min(b.y, size.height));
        const x2 = Math.ceil(Math.min(b.x + b.width, size.width));
        const y2 = Math.ceil(Math.min(b.y + b.height, size.height));
        if (x2 <= x || y2 <= y) throw fieldError(lang, `boxes.${i}`, 'documents.review.boxOutside', { n: i + 1, page: b.page + 1, width: size.width, height: size.height });
        return { page: b.page, x, y, width: x2 - x, height: y2 - y, kind: b.kind, reason: b.reason };
      });
      for (const m of input.masks) {
        const line = f.ocr[m.line]!;
        const size = sizes[line.page];
        if (!size) continue;
        const r = textItemPiece(line, size).place(m.start, m.end, padOf(line.height));
        if (r.width > 0 && r.height > 0) boxes.push({ page: line.page, ...r, kind: 'mask', reason: '' });
      }
      // the heavy part runs outside the transaction; its copy is stored by content hash, harmless when left unused
      redacted = doc ? (await redactPdf(doc, boxes, { scale: DEFAULT_SCALE })).bytes : (await redactImage(original, boxes)).bytes;
    } finally {
      await doc?.close();
    }
    const { key } = await this.store.put(redacted);
    await this.db.transaction(async (tx) => {
      const [after] = await tx
        .update(sourceFiles)
        .set({ boxes, redactedKey: key, version: f.version + 1, updatedBy: ctx.user.id, updatedAt: new Date() })
        .where(and(eq(sourceFiles.id, f.id), eq(sourceFiles.version, f.version), inArray(sourceFiles.status, [...SOURCE_FILE_EDITABLE])))
        .returning({ id: sourceFiles.id });
      if (!after) {
        const [now] = await tx.select({ updatedBy: sourceFiles.updatedBy, updatedAt: sourceFiles.updatedAt }).from(sourceFiles).where(eq(sourceFiles.id, f.id));
        throw await staleWrite(tx, now?.updatedBy, now?.updatedAt ?? f.updatedAt);
      }
      // counts only: the boxes' places say nothing, the masked text must not reach the trail
      await recordAudit(tx, actorOf(ctx), [
        { action: 'document.boxes', entity: 'sourceFile', entityId: f.id, projectId: f.projectId, siteId: f.siteId, subjectId: f.subjectId, field: 'boxes', oldValue: { boxes: f.boxes.length }, newValue: { boxes: boxes.length, masks: input.masks.length } },
      ]);
    });
    return this.detail(ctx, f.id);
  }
}

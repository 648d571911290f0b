/**
 * The investigator site file (ISF, issue 12 item 8, spec §2 /project/researchFile, §7 /rf/file/getUnUploadNum).
 *
 * - Document kinds: configured per project and environment by the data manager (`isf:kind:config`): name in both
 *   languages, required or optional, every site or the listed ones, order. Removing one keeps its versions readable.
 * - Uploads: one file per version (1, 2, … per kind and site), checked by content like a subject's source documents,
 *   stored by hash, de-identified by the same job, reviewed on the same screen and audited. One version of a kind at a
 *   site is de-identified at a time.
 * - The not-uploaded count behind the ISF dot: required (kind, site) pairs of the caller's sites without a usable
 *   version (one whose automatic de-identification did not fail).
 * A caller reaches the ISF of its own sites only (the subject list's site rule).
 */
import { and, asc, count, desc, eq, ilike, inArray, isNotNull, max, or, sql, type SQL } from 'drizzle-orm';
import type { z } from 'zod';
import {
  SOURCE_FILE_STATUS,
  type IsfDocPage,
  type IsfKindView,
  type Language,
  type SourceFileView,
  type isfDocPageRequest,
  type isfFileDeleteRequest,
  type isfKindDeleteRequest,
  type isfKindSaveRequest,
  type isfUploadFields,
} from '@esource/shared';
import type { Db, Tx } from '../../db/client';
import { isfKinds, sites, sourceFiles, users } from '../../db/schema';
import { kindView } from './isf-kind';
import type { ProjectScopedContext } from '../../lib/context';
import { isUniqueViolation } from '../../lib/db-errors';
import { AppError } from '../../lib/errors';
import { offsetOf, pageOf } from '../../lib/page';
import { reachesSite, siteScope } from '../../lib/site-scope';
import { likeOf } from '../../lib/sql';
import { staleWrite } from '../../lib/stale';
import { fieldError } from '../../lib/validate';
import { actorOf, recordAudit } from '../audit/audit.service';
import { toView } from '../documents/documents.service';
import type { DeidJob } from '../documents/deid.job';
import { retainContent } from '../documents/file-refs';
import type { FileStore } from '../documents/file-store';
import type { CheckedFile } from '../documents/upload-check';

type KindRow = typeof isfKinds.$inferSelect;
const S = SOURCE_FILE_STATUS;
/** a version counts as uploaded unless its automatic de-identification failed (or it never got a status) */
const usable = sql`${sourceFiles.status} >= ${S.auditFailed}`;

export class IsfService {
  constructor(
    private readonly db: Db,
    private readonly store: FileStore,
    private readonly job: DeidJob,
  ) {}

  private liveKinds(ctx: ProjectScopedContext): SQL {
    return and(eq(isfKinds.projectId, ctx.project.id), eq(isfKinds.env, ctx.env), eq(isfKinds.status, 1))!;
  }

  /** The (kind, site) pairs a kind applies to, for the caller's sites: the query must join sites on this. */
  private kindSite(ctx: ProjectScopedContext): SQL {
    return and(
      eq(sites.projectId, isfKinds.projectId),
      eq(sites.env, isfKinds.env),
      sql`(${isfKinds.siteIds} is null or ${sites.id} = any(${isfKinds.siteIds}))`,
      siteScope(sites.id, ctx),
    )!;
  }

  // ── kinds ──
  async kinds(ctx: ProjectScopedContext): Promise<IsfKindView[]> {
    const rows = await this.db.select().from(isfKinds).where(this.liveKinds(ctx)).orderBy(asc(isfKinds.sort), asc(isfKinds.name), asc(isfKinds.id));
    return rows.map((k) => kindView(ctx.language, k));
  }

  private async kind(db: Db | Tx, ctx: ProjectScopedContext, id: number): Promise<KindRow> {
    const [k] = await db.select().from(isfKinds).where(and(eq(isfKinds.id, id), this.liveKinds(ctx)));
    if (!k) throw new AppError('NOT_FOUND', { entity: 'isfKind' });
    return k;
  }

  async saveKind(ctx: ProjectScopedContext, input: z.output<typeof isfKindSaveRequest>): Promise<IsfKindView> {
    const siteIds = input.siteIds === null ? null : [...new Set(input.siteIds)].sort((a, b) => a - b);
    if (siteIds) {
      const found = await this.db
        .select({ id: sites.id })
        .from(sites)
        .where(and(inArray(sites.id, siteIds), eq(sites.projectId, ctx.project.id), eq(sites.env, ctx.env)));
      const known = new Set(found.map((r) => r.id));
      // named by its place in the request
      const i = input.siteIds!.findIndex((id) => !known.has(id));
      if (i >= 0) throw fieldError(ctx.language, `siteIds.${i}`, 'isf.unknownSite', { id: input.siteIds![i] });
    }
    const values = { name: input.name, nameEn: input.nameEn, required: input.required, siteIds, sort: input.sort };
    try {
      return await this.db.transaction(async (tx) => {
        if (input.id === undefined) {
          const [k] = await tx
            .insert(isfKinds)
            .values({ ...values, env: ctx.env, projectId: ctx.project.id, createdBy: ctx.user.id, updatedBy: ctx.user.id })
            .returning();
          await recordAudit(tx, actorOf(ctx), [{ action: 'isf.kind.add', entity: 'isfKind', entityId: k!.id, projectId: ctx.project.id, newValue: values }]);
          return kindView(ctx.language, k!);
        }
        if (input.version === undefined) throw fieldError(ctx.language, 'version', 'validation.required');
        const before = await this.kind(tx, ctx, input.id);
        if (before.version !== input.version) throw await staleWrite(tx, before.updatedBy, before.updatedAt);
        const [k] = await tx
          .update(isfKinds)
          .set({ ...values, version: before.version + 1, updatedBy: ctx.user.id, updatedAt: new Date() })
          .where(and(eq(isfKinds.id, before.id), eq(isfKinds.version, before.version)))
          .returning();
        if (!k) throw await staleWrite(tx, before.updatedBy, before.updatedAt);
        const old = { name: before.name, nameEn: before.nameEn, required: before.required, siteIds: before.siteIds, sort: before.sort };
        await recordAudit(tx, actorOf(ctx), [{ action: 'isf.kind.update', entity: 'isfKind', entityId: k.id, projectId: ctx.project.id, oldValue: old, newValue: values }]);
        return kindView(ctx.language, k);
      });
    } catch (err) {
      if (isUniqueViolation(err)) throw new AppError('ISF_KIND_NAME_TAKEN', { name: input.name });
      throw err;
    }
  }

  /** Removes a kind from the ISF (its versions stay readable in the trail; nothing requires it any more). */
  async deleteKind(ctx: ProjectScopedContext, input: z.output<typeof isfKindDeleteRequest>): Promise<void> {
    await this.db.transaction(async (tx) => {
      const before = await this.kind(tx, ctx, input.id);
      if (before.version !== input.version) throw await staleWrite(tx, before.updatedBy, before.updatedAt);
      const [k] = await tx
        .update(isfKinds)
        .set({ status: 0, version: before.version + 1, updatedBy: ctx.user.id, updatedAt: new Date() })
        .where(and(eq(isfKinds.id, before.id), eq(isfKinds.version, before.version)))
        .returning({ id: isfKinds.id });
      if (!k) throw await staleWrite(tx, before.updatedBy, before.updatedAt);
      await recordAudit(tx, actorOf(ctx), [{ action: 'isf.kind.delete', entity: 'isfKind', entityId: before.id, projectId: ctx.project.id, oldValue: { name: before.name, required: before.required } }]);
    });
  }

  // ── the ISF list ──
  async page(ctx: ProjectScopedContext, q: z.output<typeof isfDocPageRequest>): Promise<IsfDocPage> {
    const onPair = and(eq(sourceFiles.isfKindId, isfKinds.id), eq(sourceFiles.siteId, sites.id));
    const versions = sql<number>`(select count(*) from ${sourceFiles} where ${onPair})`.mapWith(Number);
    const latest = sql<number | null>`(select ${sourceFiles.id} from ${sourceFiles} where ${onPair} order by ${sourceFiles.isfVersion} desc limit 1)`;
    const uploaded = sql`exists (select 1 from ${sourceFiles} where ${onPair} and ${usable})`;
    const where = and(
      this.liveKinds(ctx),
      q.siteId !== undefined ? eq(sites.id, q.siteId) : undefined,
      q.keyword ? or(ilike(isfKinds.name, likeOf(q.keyword)), ilike(isfKinds.nameEn, likeOf(q.keyword))) : undefined,
      q.required !== undefined ? eq(isfKinds.required, q.required) : undefined,
      q.state === 'uploaded' ? uploaded : q.state === 'missing' ? and(eq(isfKinds.required, true), sql`not ${uploaded}`) : undefined,
    );
    const [total] = await this.db.select({ n: count() }).from(isfKinds).innerJoin(sites, this.kindSite(ctx)).where(where);
    const rows = await this.db
      .select({ k: isfKinds, siteId: sites.id, siteName: sites.name, versions, latest, uploaded: sql<boolean>`${uploaded}` })
      .from(isfKinds)
      .innerJoin(sites, this.kindSite(ctx))
      .where(where)
      .orderBy(asc(isfKinds.sort), asc(isfKinds.name), asc(isfKinds.id), asc(sites.siteNo))
      .limit(q.pageSize)
      .offset(offsetOf(q));
    const ids = rows.map((r) => r.latest).filter((x): x is number => x !== null);
    const files = new Map((await this.views(ctx.language, ids.length ? inArray(sourceFiles.id, ids) : sql`false`)).map((f) => [f.id, f]));
    return pageOf(
      q,
      total?.n ?? 0,
      rows.map((r) => ({
        kind: kindView(ctx.language, r.k),
        siteId: r.siteId,
        siteName: r.siteName,
        versions: r.versions,
        latest: r.latest === null ? null : (files.get(r.latest) ?? null),
        missing: r.k.required && !r.uploaded,
      })),
    );
  }

  /** Every version of one kind at one site, newest first. */
  async versions(ctx: ProjectScopedContext, kindId: number, siteId: number): Promise<SourceFileView[]> {
    if (!reachesSite(siteId, ctx)) throw new AppError('SITE_FORBIDDEN');
    // a removed kind's versions stay readable: no live-kind check here, the project and environment are
    return this.views(ctx.language, and(eq(sourceFiles.isfKindId, kindId), eq(sourceFiles.siteId, siteId), eq(sourceFiles.projectId, ctx.project.id), eq(sourceFiles.env, ctx.env)));
  }

  private views(lang: Language, where: SQL | undefined): Promise<SourceFileView[]> {
    return this.db
      .select({ f: sourceFiles, createdBy: users.name })
      .from(sourceFiles)
      .leftJoin(users, eq(users.id, sourceFiles.createdBy))
      .where(and(isNotNull(sourceFiles.isfKindId), where))
      .orderBy(desc(sourceFiles.isfVersion), desc(sourceFiles.id))
      .then((rows) => rows.map((r) => toView(lang, r.f, null, r.createdBy)));
  }

  /** GET /rf/file/getUnUploadNum: required (kind, site) pairs of the caller's sites with no usable version. */
  async unUploaded(ctx: ProjectScopedContext): Promise<number> {
    const onPair = and(eq(sourceFiles.isfKindId, isfKinds.id), eq(sourceFiles.siteId, sites.id));
    const [r] = await this.db
      .select({ n: count() })
      .from(isfKinds)
      .innerJoin(sites, this.kindSite(ctx))
      .where(and(this.liveKinds(ctx), eq(isfKinds.required, true), sql`not exists (select 1 from ${sourceFiles} where ${onPair} and ${usable})`));
    return r?.n ?? 0;
  }

  // ── uploads ──
  /** A new version of a kind at a site: one file, checked by content; de-identified by the documents' job. */
  async upload(ctx: ProjectScopedContext, fields: z.output<typeof isfUploadFields>, files: CheckedFile[]): Promise<SourceFileView> {
    if (files.length === 0) throw new AppError('DOCUMENT_NO_FILE');
    if (files.length > 1) throw new AppError('ISF_ONE_FILE', { count: files.length });
    const file = files[0]!;
    const k = await this.kind(this.db, ctx, fields.kindId);
    const [site] = await this.db
      .select()
      .from(sites)
      .where(and(eq(sites.id, fields.siteId), eq(sites.projectId, ctx.project.id), eq(sites.env, ctx.env)));
    if (!site) throw new AppError('NOT_FOUND', { entity: 'site' });
    if (!reachesSite(site.id, ctx)) throw new AppError('SITE_FORBIDDEN');
    const kindName = kindView(ctx.language, k).label;
    if (k.siteIds !== null && !k.siteIds.includes(site.id)) throw new AppError('ISF_KIND_NOT_FOR_SITE', { kind: kindName, site: site.name });
    // stored by hash before the transaction: a refusal below leaves unreferenced content only, never half a file
    const { key } = await this.store.put(file.bytes);
    const row = await this.db.transaction(async (tx) => {
      await tx.execute(sql`select pg_advisory_xact_lock(hashtext(${`isf-upload:${k.id}:${site.id}`}))`);
      // the same content may be a generated file being deleted right now (file-refs.ts)
      await retainContent(tx, this.store, [{ key, bytes: file.bytes }]);
      const pair = and(eq(sourceFiles.isfKindId, k.id), eq(sourceFiles.siteId, site.id));
      const [r] = await tx
        .select({ last: max(sourceFiles.isfVersion), busy: sql<number>`count(*) filter (where ${sourceFiles.status} = ${S.autoDeidentifying})`.mapWith(Number) })
        .from(sourceFiles)
        .where(pair);
      if ((r?.busy ?? 0) > 0) throw new AppError('ISF_UPLOAD_BUSY', { kind: kindName });
      const [inserted] = await tx
        .insert(sourceFiles)
        .values({
          env: ctx.env,
          projectId: ctx.project.id,
          siteId: site.id,
          subjectId: null,
          docType: null,
          isfKindId: k.id,
          isfVersion: (r?.last ?? 0) + 1,
          fileName: file.name.slice(0, 255),
          kind: file.kind,
          size: file.bytes.length,
          pages: file.pages,
          originalKey: key,
          status: S.autoDeidentifying,
          createdBy: ctx.user.id,
          updatedBy: ctx.user.id,
        })
        .returning();
      const f = inserted!;
      await recordAudit(tx, actorOf(ctx), [
        {
          action: 'isf.upload',
          entity: 'sourceFile',
          entityId: f.id,
          projectId: ctx.project.id,
          siteId: site.id,
          newValue: { kind: k.name, version: f.isfVersion, fileName: f.fileName, fileKind: f.kind, size: f.size, pages: f.pages, sha256: f.originalKey },
        },
      ]);
      return f;
    });
    await this.job.enqueue(row, ctx.user.id, ctx.language, null);
    return (await this.views(ctx.language, eq(sourceFiles.id, row.id)))[0]!;
  }

  /** A version removed by the data manager (`isf:file:delete`) with a reason; its content stays in the store. */
  async deleteFile(ctx: ProjectScopedContext, input: z.output<typeof isfFileDeleteRequest>): Promise<void> {
    await this.db.transaction(async (tx) => {
      const [f] = await tx
        .select()
        .from(sourceFiles)
        .where(and(eq(sourceFiles.id, input.id), isNotNull(sourceFiles.isfKindId), eq(sourceFiles.projectId, ctx.project.id), eq(sourceFiles.env, ctx.env)));
      if (!f || !reachesSite(f.siteId, ctx)) throw new AppError('NOT_FOUND', { entity: 'sourceFile' });
      if (f.version !== input.version) throw await staleWrite(tx, f.updatedBy, f.updatedAt);
      if (f.status === S.autoDeidentifying) {
        const [k] = await tx.select().from(isfKinds).where(eq(isfKinds.id, f.isfKindId!));
        throw new AppError('ISF_UPLOAD_BUSY', { kind: k ? kindView(ctx.language, k).label : '' });
      }
      const gone = await tx
        .delete(sourceFiles)
        .where(and(eq(sourceFiles.id, f.id), eq(sourceFiles.version, f.version)))
        .returning({ id: sourceFiles.id });
      if (!gone.length) throw await staleWrite(tx, f.updatedBy, f.updatedAt);
      await recordAudit(tx, actorOf(ctx), [
        {
          action: 'isf.delete',
          entity: 'sourceFile',
          entityId: f.id,
          projectId: f.projectId,
          siteId: f.siteId,
          oldValue: { kindId: f.isfKindId, version: f.isfVersion, fileName: f.fileName, status: f.status, sha256: f.originalKey },
          reason: input.reason,
        },
      ]);
    });
  }
}

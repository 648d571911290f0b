/**
 * Files of eCRF file items (spec §7 POST /common/upload; §9 image batches of at most 100 files and 1 GB): images
 * checked by their content like source documents (PNG/JPEG ≤ 2 MB, no pixel bombs), stored by hash in the file store,
 * recorded per project and environment, all or nothing. The item's value names the upload (`upl:<id>:<name>`).
 * GET /common/file reads one: its uploader (before the form is saved), or whoever reaches a form value naming it (the
 * subject list's site scope) — a file is never readable by its id alone.
 */
import { and, eq, isNull, ne, sql } from 'drizzle-orm';
import { z } from 'zod';
import { LIMITS, commonUploadResult, idSchema, uploadRef } from '@esource/shared';
import { inspectImage } from '@esource/redact';
import type { AppDeps } from '../../app-deps';
import { crfInstances, crfValues, subjects, uploads } from '../../db/schema';
import { AppError } from '../../lib/errors';
import { contentDisposition } from '../../lib/excel';
import { defineRoute, type RouteSpec } from '../../lib/route';
import { fieldError } from '../../lib/validate';
import { actorOf, recordAudit } from '../audit/audit.service';
import { readUpload } from '../documents/documents.routes';
import { fileStoreOf } from '../documents/file-store';
import { retainContent } from '../documents/file-refs';
import { SubjectsService } from '../subjects/subjects.service';

export function uploadRoutes({ database, config }: AppDeps): RouteSpec[] {
  const db = database.db;
  const store = fileStoreOf(config);
  const subjectsService = new SubjectsService(db);
  const tags = ['uploads'];
  return [
    defineRoute({
      method: 'POST',
      url: '/common/upload',
      guard: { permission: { anyOf: ['crf:result:save'] }, scope: 'project' },
      summary: 'Upload the images of an eCRF file item (multipart files: PNG/JPEG ≤ 2 MB each, at most 100 and 1 GB per batch), checked by content, all or nothing',
      tags,
      bodyType: 'multipart',
      // 100 images of 2 MB and the multipart framing
      bodyLimit: LIMITS.imageBatchCount * LIMITS.imageMaxBytes + 1024 * 1024,
      response: commonUploadResult,
      handler: async ({ ctx, req }) => {
        const { files } = await readUpload(req, ctx.language);
        if (files.length === 0) throw new AppError('DOCUMENT_NO_FILE');
        const total = files.reduce((n, f) => n + f.bytes.length, 0);
        if (files.length > LIMITS.imageBatchCount || total > LIMITS.imageBatchBytes) {
          throw fieldError(ctx.language, 'files', 'documents.batch.limit', { max: LIMITS.imageBatchCount, gb: LIMITS.imageBatchBytes / 1024 ** 3, count: files.length });
        }
        const pdf = files.find((f) => f.kind !== 'image');
        if (pdf) throw fieldError(ctx.language, 'files', 'documents.batch.imagesOnly', { name: pdf.name });
        const keys: string[] = [];
        for (const f of files) keys.push((await store.put(f.bytes)).key);
        const rows = await db.transaction(async (tx) => {
          // the same content may be a file whose last holder is being deleted right now (file-refs.ts)
          await retainContent(tx, store, files.map((f, i) => ({ key: keys[i]!, bytes: f.bytes })));
          const inserted = await tx
            .insert(uploads)
            .values(files.map((f, i) => ({ env: ctx.env, projectId: ctx.project.id, fileKey: keys[i]!, name: f.name.slice(0, 200), kind: f.kind, size: f.bytes.length, createdBy: ctx.user.id })))
            .returning();
          await recordAudit(
            tx,
            actorOf(ctx),
            inserted.map((r) => ({ action: 'upload.add', entity: 'upload', entityId: r.id, projectId: ctx.project.id, newValue: { name: r.name, size: r.size, sha256: r.fileKey } })),
          );
          return inserted;
        });
        return rows.map((r) => ({ id: r.id, name: r.name, size: r.size, kind: r.kind, ref: uploadRef(r.id, r.name) }));
      },
    }),
    defineRoute({
      method: 'GET',
      url: '/common/file',
      guard: { permission: 'any', scope: 'project' },
      summary: 'An eCRF file item\'s image: for its uploader, or whoever reaches a form value naming it',
      tags,
      query: z.object({ id: idSchema }),
      response: z.unknown(),
      raw: true,
      handler: async ({ ctx, query, reply }) => {
        const [u] = await db.select().from(uploads).where(and(eq(uploads.id, query.id), eq(uploads.projectId, ctx.project.id), eq(uploads.env, ctx.env)));
        if (!u) throw new AppError('NOT_FOUND', { entity: 'file' });
        if (u.createdBy !== ctx.user.id) {
          // others read a file through the form that holds it
          if (!ctx.pms.has('crf:result:query')) throw new AppError('NOT_FOUND', { entity: 'file' });
          const [named] = await db
            .select({ id: crfValues.id })
            .from(crfValues)
            .innerJoin(crfInstances, eq(crfInstances.id, crfValues.instanceId))
            .innerJoin(subjects, eq(subjects.id, crfInstances.subjectId))
            .where(
              and(
                sql`${crfValues.value} ->> 'v' like ${`upl:${u.id}:%`}`,
                isNull(crfInstances.deletedAt),
                subjectsService.scope(ctx),
                ne(subjects.status, 0),
              ),
            )
            .limit(1);
          if (!named) throw new AppError('NOT_FOUND', { entity: 'file' });
        }
        let bytes: Buffer;
        try {
          bytes = await store.get(u.fileKey);
        } catch {
          throw new AppError('NOT_FOUND', { entity: 'file' });
        }
        const mime = (await inspectImage(bytes, { decode: false })).format === 'png' ? 'image/png' : 'image/jpeg';
        await reply.header('content-type', mime).header('cache-control', 'no-store').header('content-disposition', contentDisposition(u.name, `file-${u.id}`)).send(bytes);
        return undefined;
      },
    }),
  ];
}

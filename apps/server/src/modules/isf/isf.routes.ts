/**
 * Routes of the investigator site file (ISF, issue 12 item 8, spec §2 /project/researchFile, §7
 * /rf/file/getUnUploadNum): the document kinds (read: isf:file:query; configured: isf:kind:config), the list of the
 * caller's sites' documents, versions, upload (isf:file:upload; multipart, one file), removal of a version
 * (isf:file:delete, with a reason), and the count behind the ISF dot. An uploaded version is reviewed and audited
 * through the source documents' calls (/source/file/detail, pageImage, saveBoxes, updateStatus, withdrawStatus).
 */
import { z } from 'zod';
import {
  isfDocPage,
  isfDocPageRequest,
  isfFileDeleteRequest,
  isfKindDeleteRequest,
  isfKindSaveRequest,
  isfKindView,
  isfUploadFields,
  isfVersionsRequest,
  sourceFileView,
} from '@esource/shared';
import type { AppDeps } from '../../app-deps';
import { defineRoute, type RouteSpec } from '../../lib/route';
import { parseInput } from '../../lib/validate';
import { DeidJob } from '../documents/deid.job';
import { readUpload } from '../documents/documents.routes';
import { fileStoreOf } from '../documents/file-store';
import { IsfService } from './isf.service';

const READ = { permission: { anyOf: ['isf:file:query'] }, scope: 'project' } as const;

export function isfRoutes({ database, jobs, config }: AppDeps): RouteSpec[] {
  const store = fileStoreOf(config);
  const svc = new IsfService(database.db, store, new DeidJob(database, jobs, store));
  const tags = ['isf'];
  return [
    defineRoute({
      method: 'GET',
      url: '/rf/file/getUnUploadNum',
      guard: { permission: 'any', scope: 'project' },
      summary: "Number of required ISF documents of the caller's sites not uploaded yet (the ISF dot; site users poll it every 3 s)",
      tags,
      response: z.number().int(),
      // a caller without the ISF has nothing to upload there
      handler: ({ ctx }) => (ctx.pms.has('isf:file:query') ? svc.unUploaded(ctx) : Promise.resolve(0)),
    }),
    defineRoute({ method: 'GET', url: '/rf/kind/list', guard: READ, summary: 'The ISF document kinds of the project (this environment), in order', tags, response: z.array(isfKindView), handler: ({ ctx }) => svc.kinds(ctx) }),
    defineRoute({
      method: 'POST',
      url: '/rf/kind/save',
      guard: { permission: { anyOf: ['isf:kind:config'] }, scope: 'project' },
      summary: 'Add an ISF document kind (no id) or change one (id, version): names, required, sites (null: every site), order',
      tags,
      body: isfKindSaveRequest,
      response: isfKindView,
      handler: ({ ctx, body }) => svc.saveKind(ctx, body),
    }),
    defineRoute({
      method: 'POST',
      url: '/rf/kind/delete',
      guard: { permission: { anyOf: ['isf:kind:config'] }, scope: 'project' },
      summary: 'Remove an ISF document kind (its versions stay readable)',
      tags,
      body: isfKindDeleteRequest,
      response: z.null(),
      handler: async ({ ctx, body }) => {
        await svc.deleteKind(ctx, body);
        return null;
      },
    }),
    defineRoute({
      method: 'POST',
      url: '/rf/file/page',
      guard: READ,
      summary: "The ISF of the caller's sites: one row per kind and site with its newest version (filter by site, name, state, required)",
      tags,
      body: isfDocPageRequest,
      response: isfDocPage,
      handler: ({ ctx, body }) => svc.page(ctx, body),
    }),
    defineRoute({ method: 'POST', url: '/rf/file/versions', guard: READ, summary: 'Every version of one ISF document kind at one site, newest first', tags, body: isfVersionsRequest, response: z.array(sourceFileView), handler: ({ ctx, body }) => svc.versions(ctx, body.kindId, body.siteId) }),
    defineRoute({
      method: 'POST',
      url: '/rf/file/upload',
      guard: { permission: { anyOf: ['isf:file:upload'] }, scope: 'project' },
      summary: 'Upload a new version of an ISF document (multipart: kindId, siteId, one file): checked by content, then de-identified by a job',
      tags,
      bodyType: 'multipart',
      response: sourceFileView,
      handler: async ({ ctx, req }) => {
        const { fields, files } = await readUpload(req, ctx.language);
        const input = parseInput(isfUploadFields, fields, ctx.language, 'body');
        return svc.upload(ctx, input, files);
      },
    }),
    defineRoute({
      method: 'POST',
      url: '/rf/file/delete',
      guard: { permission: { anyOf: ['isf:file:delete'] }, scope: 'project' },
      summary: 'Remove a version of an ISF document, with a reason (audited; not while it is being de-identified)',
      tags,
      body: isfFileDeleteRequest,
      response: z.null(),
      handler: async ({ ctx, body }) => {
        await svc.deleteFile(ctx, body);
        return null;
      },
    }),
  ];
}

import { z } from 'zod';
import {
  subjectCreate,
  subjectDeleteRequest,
  subjectIdQuery,
  subjectListPage,
  subjectListRequest,
  subjectPage,
  subjectRow,
  subjectStatusRequest,
  subjectUpdate,
  visitQueryTally,
} from '@esource/shared';
import { defineRoute, type RouteSpec } from '../../lib/route';
import type { AppDeps } from '../../app-deps';
import { SubjectsService } from './subjects.service';

export function subjectRoutes({ database }: AppDeps): RouteSpec[] {
  const svc = new SubjectsService(database.db);
  const list = (url: string, summary: string) =>
    defineRoute({
      method: 'POST',
      url,
      guard: { permission: { anyOf: ['patient:page:query'] }, scope: 'project' },
      summary,
      tags: ['subjects'],
      body: subjectListRequest,
      response: subjectListPage,
      handler: ({ ctx, body }) => svc.listPage(ctx, body),
    });
  return [
    list('/project/manage/ptsList', 'Subjects the caller may see: filters, sort, paging (identifiers masked unless permitted), open and replied queries per subject'),
    list('/project/manage/centerPtsPageQuery', 'Subject list for central users (same as ptsList)'),
    defineRoute({
      method: 'GET',
      url: '/project/pts/visitQueries',
      // counts of what the query list shows: whoever sees open or replied queries (the service counts each status by its permission)
      guard: { permission: { anyOf: ['doubt:querying:query', 'doubt:replied:query'] }, scope: 'project' },
      summary: "A subject's visit occurrences with open or replied queries, and how many (the visit cards' markers)",
      tags: ['subjects'],
      query: subjectIdQuery,
      response: z.array(visitQueryTally),
      handler: ({ ctx, query }) => svc.visitQueries(ctx, query.ptsId),
    }),
    defineRoute({
      method: 'GET',
      url: '/project/manage/getPtsByProIdAndPtsId',
      guard: { permission: { anyOf: ['patient:page:query'] }, scope: 'project' },
      summary: 'One subject (a full read of identifiers is audited)',
      tags: ['subjects'],
      query: subjectIdQuery,
      response: subjectRow,
      handler: ({ ctx, query }) => svc.read(ctx, query.ptsId),
    }),
    defineRoute({
      method: 'POST',
      url: '/project/managePts/add',
      guard: { permission: { anyOf: ['patient:page:add'] }, scope: 'project' },
      summary: 'Enrol a subject at one of the caller\'s sites (number generated as <siteNo>-NNN when absent)',
      tags: ['subjects'],
      body: subjectCreate,
      response: subjectRow,
      handler: ({ ctx, body }) => svc.create(ctx, body),
    }),
    defineRoute({
      method: 'POST',
      url: '/project/managePts/update',
      guard: { permission: { anyOf: ['patient:page:update'] }, scope: 'project' },
      summary: 'Edit a subject (version for optimistic locking; every field change audited)',
      tags: ['subjects'],
      body: subjectUpdate,
      response: subjectRow,
      handler: ({ ctx, body }) => svc.update(ctx, body),
    }),
    defineRoute({
      method: 'POST',
      url: '/project/managePts/updateStatus',
      guard: { permission: { anyOf: ['patient:page:update'] }, scope: 'project' },
      summary: 'Change a subject\'s status along the allowed transitions (reason for screening failed, dropped out, quit)',
      tags: ['subjects'],
      body: subjectStatusRequest,
      response: subjectRow,
      handler: ({ ctx, body }) => svc.setStatus(ctx, body.ptsId, body.version, body.status, body.reason),
    }),
    defineRoute({
      method: 'POST',
      url: '/project/managePts/delete',
      guard: { permission: { anyOf: ['patient:page:delete'] }, scope: 'project' },
      summary: 'Move a subject to the recycle bin (status 0), with a reason',
      tags: ['subjects'],
      body: subjectDeleteRequest,
      response: z.null(),
      handler: async ({ ctx, body }) => {
        await svc.remove(ctx, body.ptsId, body.reason);
        return null;
      },
    }),
    defineRoute({
      method: 'POST',
      url: '/project/failedPts/list',
      guard: { permission: { anyOf: ['patient:page:query'] }, scope: 'project' },
      summary: 'The subject recycle bin',
      tags: ['subjects'],
      body: subjectListRequest,
      response: subjectPage,
      handler: ({ ctx, body }) => svc.page(ctx, body, true),
    }),
    defineRoute({
      method: 'POST',
      url: '/project/failedPts/restore',
      guard: { permission: { anyOf: ['patient:page:restore'] }, scope: 'project' },
      summary: 'Restore a subject from the recycle bin to the status it had',
      tags: ['subjects'],
      body: subjectDeleteRequest,
      response: subjectRow,
      handler: ({ ctx, body }) => svc.restore(ctx, body.ptsId, body.reason),
    }),
  ];
}

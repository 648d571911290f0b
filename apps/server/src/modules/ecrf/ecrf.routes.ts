import { z } from 'zod';
import {
  certifyBatchRequest,
  certifyBatchSignedRequest,
  certifyRequest,
  certifySignedRequest,
  certifyResult,
  crfInstanceView,
  crfKey,
  formGroupRequest,
  formGroupRow,
  historyRow,
  saveBatchRequest,
  scheduleVisit,
  subjectIdQuery,
  unscheduledRequest,
  visitOccurrencesRequest,
  visitOccurrencesResult,
  idSchema,
} from '@esource/shared';
import { defineRoute, type RouteSpec } from '../../lib/route';
import type { AppDeps } from '../../app-deps';
import { EcrfService } from './ecrf.service';
import { VisitOccurrencesService } from './visit-occurrences';

export function ecrfRoutes({ database, auth }: AppDeps): RouteSpec[] {
  const svc = new EcrfService(database.db);
  const occurrences = new VisitOccurrencesService(database.db);
  const read = { permission: { anyOf: ['crf:result:query', 'patient:page:query'] }, scope: 'project' } as const;
  // form values and their history are clinical data: crf:result:query only, never the subject list's
  // patient:page:query (which the adverse-event reviewer holds; security issue item 9)
  const readValues = { permission: { anyOf: ['crf:result:query'] }, scope: 'project' } as const;
  return [
    defineRoute({
      method: 'GET',
      url: '/project/pts/visits',
      guard: read,
      summary: "A subject's visits: planned dates and windows from the first visit, state, forms and their status",
      tags: ['ecrf'],
      query: subjectIdQuery,
      response: z.array(scheduleVisit),
      handler: ({ ctx, query }) => svc.schedule(ctx, query.ptsId),
    }),
    defineRoute({
      method: 'POST',
      url: '/project/visits/occurrences',
      // who may list subjects may see their visits (the subject list's guard and site scope)
      guard: { permission: { anyOf: ['patient:page:query'] }, scope: 'project' },
      summary: "Every live subject's visits (planned and unscheduled) whose window overlaps a date range, with state and forms done; capped",
      tags: ['ecrf'],
      bodyType: 'json',
      body: visitOccurrencesRequest,
      response: visitOccurrencesResult,
      handler: ({ ctx, body }) => occurrences.list(ctx, body),
    }),
    defineRoute({
      method: 'POST',
      url: '/crf/prefill/visit/addOrUpdateUnscheduled',
      guard: { permission: { anyOf: ['crf:result:save'] }, scope: 'project' },
      summary: 'Add an unscheduled visit for a subject on a date',
      tags: ['ecrf'],
      body: unscheduledRequest,
      response: z.object({ id: z.number().int() }),
      handler: ({ ctx, body }) => svc.addUnscheduled(ctx, body),
    }),
    defineRoute({
      method: 'GET',
      url: '/crf/form/item/result/list',
      guard: readValues,
      summary: 'One form instance: its definition, status, version and values with entry mode',
      tags: ['ecrf'],
      query: crfKey,
      response: crfInstanceView,
      handler: ({ ctx, query }) => svc.view(ctx, query),
    }),
    defineRoute({
      method: 'GET',
      url: '/crf/form/item/result/listFormGroup',
      guard: readValues,
      summary: 'The repeats (groups) of one form at one visit of a subject: repeat number, status, version, last change; deleted ones on request',
      tags: ['ecrf'],
      query: formGroupRequest,
      response: z.array(formGroupRow),
      handler: ({ ctx, query }) => svc.formGroups(ctx, query),
    }),
    defineRoute({
      method: 'POST',
      url: '/crf/form/item/result/saveBatch',
      guard: { permission: { anyOf: ['crf:result:save'] }, scope: 'project' },
      summary: 'Save items of one form (stash 0 skips required checks; manual 2 / direct 3 complete it); stale saves are refused',
      tags: ['ecrf'],
      bodyType: 'json',
      body: saveBatchRequest,
      response: crfInstanceView,
      handler: ({ ctx, body }) => svc.saveBatch(ctx, body),
    }),
    defineRoute({
      method: 'GET',
      url: '/crf/form/item/result/history',
      guard: readValues,
      summary: 'History of the items of an instance (who, when, old, new, reason, entry mode)',
      tags: ['ecrf'],
      query: z.object({ instanceId: idSchema, variable: z.string().max(40).optional() }),
      response: z.array(historyRow),
      handler: ({ ctx, query }) => svc.history(ctx, query.instanceId, query.variable),
    }),
    defineRoute({
      method: 'POST',
      url: '/crf/report/check',
      guard: { permission: { anyOf: ['crf:result:check'] }, scope: 'project' },
      summary: 'Certify a completed form (an electronic signature: the password digest re-authenticates the signer): it becomes read-only',
      tags: ['ecrf'],
      body: certifySignedRequest,
      response: certifyResult,
      handler: async ({ ctx, body }) => {
        // 21 CFR Part 11 §11.200: the signer re-authenticates at signing (counted against the login lockout)
        await auth.reauthenticate(ctx, body.password, 'crf.certify');
        return svc.certify(ctx, body.instanceId, body.version, true, body.reason, { meaning: body.meaning });
      },
    }),
    defineRoute({
      method: 'POST',
      url: '/crf/report/checkCancel',
      guard: { permission: { anyOf: ['crf:result:uncheck'] }, scope: 'project' },
      summary: 'Uncertify a form, with a reason',
      tags: ['ecrf'],
      body: certifyRequest,
      response: certifyResult,
      handler: ({ ctx, body }) => svc.certify(ctx, body.instanceId, body.version, false, body.reason),
    }),
    ...(['/crf/form/item/result/checkBatch', '/crf/report/saveItemCertified'] as const).map((url) =>
      defineRoute({
        method: 'POST',
        url,
        guard: { permission: { anyOf: ['crf:result:check'] }, scope: 'project' },
        summary: 'Certify several completed forms at once (e.g. a whole visit) with one electronic signature (password digest), each at the version shown; all or nothing',
        tags: ['ecrf'],
        body: certifyBatchSignedRequest,
        response: z.array(certifyResult),
        handler: async ({ ctx, body }) => {
          await auth.reauthenticate(ctx, body.password, 'crf.certify');
          return svc.certifyBatch(ctx, body.items, true, body.reason, { meaning: body.meaning });
        },
      }),
    ),
    defineRoute({
      method: 'POST',
      url: '/crf/form/item/result/checkCancel',
      guard: { permission: { anyOf: ['crf:result:uncheck'] }, scope: 'project' },
      summary: 'Uncertify several forms at once, with a reason; all or nothing',
      tags: ['ecrf'],
      body: certifyBatchRequest,
      response: z.array(certifyResult),
      handler: ({ ctx, body }) => svc.certifyBatch(ctx, body.items, false, body.reason),
    }),
    defineRoute({
      method: 'POST',
      url: '/crf/form/item/result/deleteRepeatForm',
      guard: { permission: { anyOf: ['crf:result:save'] }, scope: 'project' },
      summary: 'Delete one repeat of a cycle form (kept and marked deleted), with a reason',
      tags: ['ecrf'],
      body: z.object({ instanceId: idSchema, reason: z.string().min(1).max(500) }),
      response: z.null(),
      handler: async ({ ctx, body }) => {
        await svc.deleteRepeat(ctx, body.instanceId, body.reason);
        return null;
      },
    }),
  ];
}

/**
 * Routes of mapping, synonyms, pre-fill, source record, traceability, decisions log and schedule config (spec §7
 * names; form-encoded except where the body holds lists of objects: mapping save/test and confirm are JSON).
 */
import { z } from 'zod';
import {
  listCommValuesRequest,
  listCommValuesResult,
  listFieldRequest,
  listFieldResult,
  listSelectedCrfFormRequest,
  mappingRuleDelete,
  mappingRuleRow,
  mappingRuleSave,
  mappingTestRequest,
  mappingTestResult,
  prefillCleanRequest,
  prefillCleanResult,
  prefillConfirmRequest,
  prefillConfirmResult,
  prefillExecuteRequest,
  prefillExecuteResult,
  prefillFormCount,
  prefillLogPage,
  prefillLogRequest,
  prefillScheduleSave,
  prefillScheduleView,
  prefillVisitListRequest,
  prefillVisitRow,
  sourceRecordRequest,
  sourceRecordView,
  synonymDelete,
  synonymListRequest,
  synonymPage,
  synonymRow,
  synonymSave,
  traceabilityPage,
  traceabilityRequest,
} from '@esource/shared';
import { defineRoute, type RouteSpec } from '../../lib/route';
import type { AppDeps } from '../../app-deps';
import { contentDisposition, downloadStamp, XLSX_MIME } from '../../lib/excel';
import { translator } from '../../lib/i18n';
import { MappingService } from './mapping.service';
import { PrefillService } from './prefill.service';
import { TraceService } from './trace.service';

const tags = ['prefill'];
const configRead = { permission: { anyOf: ['source:config:query', 'crf:prefill:query'] }, scope: 'project' } as const;
const configWrite = { permission: { anyOf: ['source:config:update', 'crf:prefill:config'] }, scope: 'project' } as const;
const prefillRead = { permission: { anyOf: ['crf:prefill:query'] }, scope: 'project' } as const;
const prefillWrite = { permission: { allOf: ['crf:prefill:execute', 'crf:result:save'] }, scope: 'project' } as const;
// global synonyms: system level (the system configuration permission, or source configuration on a system role)
const globalRead = { permission: { anyOf: ['source:config:query', 'system:config:query'] }, scope: 'system' } as const;
const globalWrite = { permission: { anyOf: ['source:config:update', 'system:config:update'] }, scope: 'system' } as const;
const projectSynRead = { permission: { anyOf: ['source:config:query'] }, scope: 'project' } as const;
const projectSynWrite = { permission: { anyOf: ['source:config:update'] }, scope: 'project' } as const;

export function prefillRoutes({ database }: AppDeps): RouteSpec[] {
  const mapping = new MappingService(database.db);
  const prefill = new PrefillService(database.db);
  const trace = new TraceService(database.db);

  const synonymRoutes = (kind: 'ocr' | 'text', project: boolean): RouteSpec[] => {
    const base = `${project ? '/project' : ''}/${kind}Config/same`;
    const read = project ? projectSynRead : globalRead;
    const write = project ? projectSynWrite : globalWrite;
    const pid = (ctx: { project: { id: number } | null }) => (project ? ctx.project!.id : null);
    return [
      defineRoute({
        method: 'POST',
        url: `${base}/list`,
        guard: read,
        summary: `${project ? "The project's" : 'Global'} ${kind} synonyms, paged, filtered by term`,
        tags,
        body: synonymListRequest,
        response: synonymPage,
        handler: ({ ctx, body }) => mapping.listSynonyms(kind, pid(ctx), body),
      }),
      defineRoute({
        method: 'POST',
        url: `${base}/save`,
        guard: write,
        summary: `Add (no id) or update a ${kind} synonym term; a term already there is refused`,
        tags,
        body: synonymSave,
        response: synonymRow,
        handler: ({ ctx, body }) => mapping.saveSynonym(ctx, kind, pid(ctx), body),
      }),
      defineRoute({
        method: 'POST',
        url: `${base}/delete`,
        guard: write,
        summary: `Delete a ${kind} synonym term`,
        tags,
        body: synonymDelete,
        response: z.object({ id: z.number().int() }),
        handler: ({ ctx, body }) => mapping.deleteSynonym(ctx, kind, pid(ctx), body.id),
      }),
    ];
  };

  return [
    // ── mapping ──
    defineRoute({
      method: 'POST',
      url: '/crf/config/listField',
      guard: configRead,
      summary: 'Items of a form (its design version) with their current mapping rule',
      tags,
      body: listFieldRequest,
      response: listFieldResult,
      handler: ({ ctx, body }) => mapping.listField(ctx, body.formId),
    }),
    defineRoute({
      method: 'POST',
      url: '/crf/config/listCommValues',
      guard: configRead,
      summary: "A coded item's options and the distinct source values seen for its rule's codes (to map them)",
      tags,
      body: listCommValuesRequest,
      response: listCommValuesResult,
      handler: ({ ctx, body }) => mapping.listCommValues(ctx, body.formId, body.variable, body.codes),
    }),
    defineRoute({
      method: 'POST',
      url: '/crf/config/mapping/save',
      guard: configWrite,
      summary: 'Save the mapping rule of an item (FHIRPath must compile, option sources unique, unit UCUM)',
      tags,
      bodyType: 'json',
      body: mappingRuleSave,
      response: mappingRuleRow,
      handler: ({ ctx, body }) => mapping.save(ctx, body),
    }),
    defineRoute({
      method: 'POST',
      url: '/crf/config/mapping/delete',
      guard: configWrite,
      summary: 'Delete a mapping rule',
      tags,
      body: mappingRuleDelete,
      response: z.object({ id: z.number().int() }),
      handler: ({ ctx, body }) => mapping.remove(ctx, body.id, body.version),
    }),
    defineRoute({
      method: 'POST',
      url: '/crf/config/mapping/test',
      guard: configRead,
      summary: "Run a rule (saved or not) against a subject visit's records: the value it would fill and why; changes nothing",
      tags,
      bodyType: 'json',
      body: mappingTestRequest,
      response: mappingTestResult,
      handler: ({ ctx, body }) => mapping.test(ctx, body),
    }),
    ...synonymRoutes('ocr', false),
    ...synonymRoutes('text', false),
    ...synonymRoutes('ocr', true),
    ...synonymRoutes('text', true),
    // ── pre-fill ──
    defineRoute({
      method: 'POST',
      url: '/crf/prefill/visit/list',
      guard: prefillRead,
      summary: "A subject's visits with the pre-fill candidates waiting per form",
      tags,
      body: prefillVisitListRequest,
      response: z.array(prefillVisitRow),
      handler: ({ ctx, body }) => prefill.visits(ctx, body.ptsId),
    }),
    defineRoute({
      method: 'POST',
      url: '/crf/prefill/instance/listSelectedCrfForm',
      guard: prefillRead,
      summary: 'Forms of a subject visit that have mapping rules, with their candidates waiting',
      tags,
      body: listSelectedCrfFormRequest,
      response: z.array(prefillFormCount),
      handler: ({ ctx, body }) => prefill.listForms(ctx, body),
    }),
    defineRoute({
      method: 'POST',
      url: '/crf/prefill/execute',
      guard: prefillRead,
      summary: 'The pre-fill candidates of one form of a subject visit: new, same, conflict or problem, with their source',
      tags,
      body: prefillExecuteRequest,
      response: prefillExecuteResult,
      handler: ({ ctx, body }) => prefill.execute(ctx, body),
    }),
    defineRoute({
      method: 'POST',
      url: '/crf/prefill/visit/confirm',
      guard: prefillWrite,
      summary: 'Apply new / merge / ignore decisions to a form at the version seen (values saved as gather 5 with their source)',
      tags,
      bodyType: 'json',
      body: prefillConfirmRequest,
      response: prefillConfirmResult,
      handler: ({ ctx, body }) => prefill.confirm(ctx, body),
    }),
    defineRoute({
      method: 'POST',
      url: '/crf/prefill/clean',
      guard: prefillWrite,
      summary: 'Forget the ignore decisions of a visit (or one form) so that their candidates come back',
      tags,
      body: prefillCleanRequest,
      response: prefillCleanResult,
      handler: ({ ctx, body }) => prefill.clean(ctx, body),
    }),
    defineRoute({
      method: 'GET',
      url: '/crf/prefill/source/record',
      guard: prefillRead,
      summary: 'A source record (one version of it) with its raw payload, in the caller’s site scope',
      tags,
      query: sourceRecordRequest,
      response: sourceRecordView,
      handler: ({ ctx, query }) => prefill.record(ctx, query.id, query.version),
    }),
    // ── traceability, log, schedule ──
    defineRoute({
      method: 'POST',
      url: '/project/icrc-source',
      guard: { permission: { anyOf: ['report:traceability:query'] }, scope: 'project' },
      summary: 'Traceability: pre-filled value → source record version, flagged when the record changed since',
      tags,
      body: traceabilityRequest,
      response: traceabilityPage,
      handler: ({ ctx, body }) => trace.traceability(ctx, body),
    }),
    defineRoute({
      method: 'GET',
      url: '/project/icrc-source/export',
      guard: { permission: { anyOf: ['report:traceability:export'] }, scope: 'project' },
      summary: 'Traceability report as .xlsx (text cells formula-neutralised)',
      tags,
      query: traceabilityRequest.omit({ pageNumber: true, pageSize: true }),
      response: z.null(),
      raw: true,
      handler: async ({ ctx, query, reply }) => {
        const buf = await trace.exportTraceability(ctx, query);
        const name = `${translator(ctx.language)('prefill.trace.fileName')}-${downloadStamp()}.xlsx`;
        void reply.header('content-type', XLSX_MIME).header('content-disposition', contentDisposition(name, 'traceability.xlsx')).header('cache-control', 'no-store').send(buf);
        return null;
      },
    }),
    defineRoute({
      method: 'POST',
      url: '/audit/log/preFillCrfQuery',
      guard: { permission: { anyOf: ['crf:prefill:query', 'prolog:audit-action:query'] }, scope: 'project' },
      summary: 'Pre-fill decisions log: who accepted, merged, ignored (or injected) what, when',
      tags,
      body: prefillLogRequest,
      response: prefillLogPage,
      handler: ({ ctx, body }) => trace.decisionsLog(ctx, body),
    }),
    defineRoute({
      method: 'POST',
      url: '/crf/prefill/schedule/config/info',
      guard: { permission: { anyOf: ['crf:prefill:query', 'crf:prefill:config'] }, scope: 'project' },
      summary: "The project environment's pre-fill schedule (null: none)",
      tags,
      response: prefillScheduleView.nullable(),
      handler: ({ ctx }) => trace.scheduleInfo(ctx),
    }),
    defineRoute({
      method: 'POST',
      url: '/crf/prefill/schedule/config/savaOrUpdate',
      guard: { permission: { anyOf: ['crf:prefill:config'] }, scope: 'project' },
      summary: 'Save the pre-fill schedule: start/end date, daily / weekly (weekdays 1-7) / monthly (days 1-31)',
      tags,
      body: prefillScheduleSave,
      response: prefillScheduleView,
      handler: ({ ctx, body }) => trace.saveSchedule(ctx, body),
    }),
  ];
}

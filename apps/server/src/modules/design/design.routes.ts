/**
 * Visit plan, design versions and the form designer's storage (spec §2 form designer, §7 eCRF, issue 4 §5–6).
 * Reading: any project member with the query permission, in any environment (outside DEV only published
 * versions). Editing: DEV, unpublished versions only.
 */
import { Readable } from 'node:stream';
import { z } from 'zod';
import { designToOdmMetadata } from '@esource/interop';
import {
  designExportFile,
  formItemListQuery,
  formItemRow,
  formItemSaveBatch,
  formMaster,
  formMasterRequest,
  formsByStage,
  formsByStageRequest,
  formDefinition,
  formExportFile,
  designImportResult,
  formListQuery,
  formRow,
  formSave,
  idRequest,
  stageInput,
  stageRow,
  versionCreate,
  versionPublish,
  versionRow,
  visitInput,
  visitRow,
  visitUpdate,
  type Language,
  idSchema,
} from '@esource/shared';
import { defineRoute, type RouteSpec } from '../../lib/route';
import type { AppDeps } from '../../app-deps';
import { AppError } from '../../lib/errors';
import { translateMaybe, translator } from '../../lib/i18n';
import { zodLocale } from '../../lib/validate';
import { DesignService } from './design.service';
import { looksLikeXml, parseOdmDesign } from './odm-design-import';

const designRead = { permission: { anyOf: ['crf:form:query', 'project:version:query', 'project:visit:query'] }, scope: 'project' } as const;
const versionWrite = { permission: { anyOf: ['project:version:update'] }, scope: 'project' } as const;
const visitWrite = { permission: { anyOf: ['project:visit:update'] }, scope: 'project' } as const;

/** The parser's own message ("Expected property name or '}' in JSON…") is English only: the catalogue's instead. */
function notJson(lang: Language, field: string): AppError {
  const message = translator(lang)('validation.notJson');
  return new AppError('IMPORT_FORMAT', { detail: `${field}: ${message}` }, [{ field, message }]);
}

/** Parses an imported form file; every problem becomes 'Import failed, data format is not correct' with its reason. */
export function parseFormImport(content: string, lang: Language) {
  let json: unknown;
  try {
    json = JSON.parse(content);
  } catch {
    throw notJson(lang, 'form');
  }
  const opts = { error: zodLocale(lang) };
  const wrapped = formExportFile.safeParse(json, opts);
  const r = wrapped.success ? formDefinition.safeParse(wrapped.data.form, opts) : formDefinition.safeParse(json, opts);
  if (!r.success) {
    const detail = r.error.issues.map((i) => ({ field: i.path.join('.') || 'form', message: translateMaybe(lang, i.message) }));
    throw new AppError('IMPORT_FORMAT', { detail: `${detail[0]!.field}: ${detail[0]!.message}` }, detail);
  }
  return r.data;
}

/** Parses an imported design file with the same 'Import failed, data format is not correct' reasons. */
export function parseDesignImport(content: string, lang: Language) {
  let json: unknown;
  try {
    json = JSON.parse(content);
  } catch {
    throw notJson(lang, 'file');
  }
  const r = designExportFile.safeParse(json, { error: zodLocale(lang) });
  if (!r.success) {
    const detail = r.error.issues.map((i) => ({ field: i.path.join('.') || 'file', message: translateMaybe(lang, i.message) }));
    throw new AppError('IMPORT_FORMAT', { detail: `${detail[0]!.field}: ${detail[0]!.message}` }, detail);
  }
  return r.data;
}

export function designRoutes({ database, hooks }: AppDeps): RouteSpec[] {
  const svc = new DesignService(database.db, hooks.collectingChecks);
  const versionList = (url: string) =>
    defineRoute({
      method: 'POST',
      url,
      guard: designRead,
      summary: 'Design versions of the project (outside DEV: the ones published to this environment)',
      tags: ['design'],
      response: z.array(versionRow),
      handler: ({ ctx }) => svc.versions(ctx),
    });
  return [
    versionList('/crf/version/list'),
    versionList('/design/version/list'),
    defineRoute({
      method: 'POST',
      url: '/crf/version/add',
      guard: versionWrite,
      summary: 'New design version (DEV): empty, or a copy of basedOnId / the newest version',
      tags: ['design'],
      body: versionCreate,
      response: versionRow,
      handler: ({ ctx, body }) => svc.createVersion(ctx, body.name, body.basedOnId),
    }),
    defineRoute({
      method: 'POST',
      url: '/crf/version/publish',
      guard: { permission: { anyOf: ['project:version:publish'] }, scope: 'project' },
      summary: 'Publish a version to UAT and/or PRO; it becomes read-only',
      tags: ['design'],
      body: versionPublish,
      response: versionRow,
      handler: ({ ctx, body }) => svc.publish(ctx, body.id, body.envs),
    }),
    defineRoute({
      method: 'POST',
      url: '/crf/version/delete',
      guard: versionWrite,
      summary: 'Delete an unpublished version (DEV)',
      tags: ['design'],
      body: idRequest,
      response: z.null(),
      handler: async ({ ctx, body }) => {
        await svc.deleteVersion(ctx, body.id);
        return null;
      },
    }),
    defineRoute({
      method: 'GET',
      url: '/pro/stage/list',
      guard: designRead,
      summary: 'Stages of a version',
      tags: ['design'],
      query: formListQuery,
      response: z.array(stageRow),
      handler: ({ ctx, query }) => svc.stages(ctx, query.versionId),
    }),
    defineRoute({
      method: 'POST',
      url: '/pro/stage/save',
      guard: visitWrite,
      summary: 'Add (no id) or update a stage',
      tags: ['design'],
      body: stageInput.extend({ id: idSchema.optional() }),
      response: stageRow,
      handler: ({ ctx, body }) => svc.saveStage(ctx, body),
    }),
    defineRoute({
      method: 'POST',
      url: '/pro/stage/delete',
      guard: visitWrite,
      summary: 'Delete a stage (its visits stay, without a stage)',
      tags: ['design'],
      body: idRequest,
      response: z.null(),
      handler: async ({ ctx, body }) => {
        await svc.deleteStage(ctx, body.id);
        return null;
      },
    }),
    defineRoute({
      method: 'GET',
      url: '/pro/visit/list',
      guard: designRead,
      summary: 'Visits of a version with their windows and forms',
      tags: ['design'],
      query: formListQuery,
      response: z.array(visitRow),
      handler: async ({ ctx, query }) => {
        await svc.version(database.db, ctx, query.versionId);
        return svc.visits(database.db, query.versionId);
      },
    }),
    defineRoute({
      method: 'POST',
      url: '/pro/visit/listByEnabledVersion',
      guard: designRead,
      summary: 'Visits of the version in force in this environment',
      tags: ['design'],
      response: z.object({ version: versionRow.nullable(), visits: z.array(visitRow) }),
      handler: ({ ctx }) => svc.enabledVersionVisits(ctx),
    }),
    defineRoute({
      method: 'POST',
      url: '/pro/visit/add',
      guard: visitWrite,
      summary: 'Add a visit: order, day offset from the first visit, window −/+ days, or unscheduled; its forms',
      tags: ['design'],
      body: visitInput,
      response: visitRow,
      handler: ({ ctx, body }) => svc.saveVisit(ctx, body),
    }),
    defineRoute({
      method: 'POST',
      url: '/pro/visit/update',
      guard: visitWrite,
      summary: 'Update a visit and its forms',
      tags: ['design'],
      body: visitUpdate,
      response: visitRow,
      handler: ({ ctx, body }) => svc.saveVisit(ctx, body),
    }),
    defineRoute({
      method: 'POST',
      url: '/pro/visit/delete',
      guard: visitWrite,
      summary: 'Delete a visit',
      tags: ['design'],
      body: idRequest,
      response: z.null(),
      handler: async ({ ctx, body }) => {
        await svc.deleteVisit(ctx, body.id);
        return null;
      },
    }),
    defineRoute({
      method: 'GET',
      url: '/crf/form/list',
      guard: designRead,
      summary: 'Forms of a version',
      tags: ['design'],
      query: formListQuery,
      response: z.array(formRow),
      handler: ({ ctx, query }) => svc.formsOf(ctx, query.versionId),
    }),
    defineRoute({
      method: 'GET',
      url: '/crf/form/get',
      guard: designRead,
      summary: 'One form definition',
      tags: ['design'],
      query: idRequest,
      response: formRow,
      handler: ({ ctx, query }) => svc.form(ctx, query.id),
    }),
    defineRoute({
      method: 'POST',
      url: '/crf/form/listByEnabledVersionAndStage',
      guard: designRead,
      summary: 'Forms of the version in force in this environment; of one stage\'s visits when stageId is given',
      tags: ['design'],
      body: formsByStageRequest,
      response: formsByStage,
      handler: ({ ctx, body }) => svc.enabledForms(ctx, body.stageId),
    }),
    defineRoute({
      method: 'POST',
      url: '/crf/form/checkHaveMaster',
      guard: designRead,
      summary: 'Whether the form has a master: the same form code in the newest version published to UAT or PRO',
      tags: ['design'],
      body: formMasterRequest,
      response: formMaster,
      handler: ({ ctx, body }) => svc.formMaster(ctx, body.formId),
    }),
    defineRoute({
      method: 'GET',
      url: '/crf/form/item/list',
      guard: designRead,
      summary: "A form's items in order (those inside tables too): variable, type, labels, unit, flags, options",
      tags: ['design'],
      query: formItemListQuery,
      response: z.array(formItemRow),
      handler: ({ ctx, query }) => svc.formItems(ctx, query.formId),
    }),
    defineRoute({
      method: 'POST',
      url: '/crf/form/item/saveBatch',
      guard: { permission: { anyOf: ['crf:form:update'] }, scope: 'project' },
      summary: "Change several items of an editable form at once (labels, unit, required, hidden), with the form's lockVersion; all or nothing",
      tags: ['design'],
      bodyType: 'json',
      body: formItemSaveBatch,
      response: formRow,
      handler: ({ ctx, body }) => svc.saveFormItems(ctx, body.formId, body.lockVersion, body.items),
    }),
    defineRoute({
      method: 'POST',
      url: '/crf/form/save',
      guard: { permission: { anyOf: ['crf:form:add', 'crf:form:update'] }, scope: 'project' },
      summary: 'Save a form definition (new without id; lockVersion guards against lost updates)',
      tags: ['design'],
      bodyType: 'json',
      body: formSave,
      response: formRow,
      handler: ({ ctx, body }) => svc.saveForm(ctx, body.versionId, body.id, body.lockVersion, body.definition),
    }),
    defineRoute({
      method: 'POST',
      url: '/crf/form/delete',
      guard: { permission: { anyOf: ['crf:form:delete'] }, scope: 'project' },
      summary: 'Delete a form of an unpublished version',
      tags: ['design'],
      body: idRequest,
      response: z.null(),
      handler: async ({ ctx, body }) => {
        await svc.deleteForm(ctx, body.id);
        return null;
      },
    }),
    defineRoute({
      method: 'POST',
      url: '/crf/form/import',
      guard: { permission: { allOf: ['crf:form:import'] }, scope: 'project' },
      summary: 'Import a form from its JSON export into a version ("Import failed, data format is not correct" with the reason)',
      tags: ['design'],
      bodyType: 'json',
      body: z.object({ versionId: idSchema, content: z.string().min(1).max(2_000_000) }),
      response: formRow,
      handler: ({ ctx, body }) => svc.saveForm(ctx, body.versionId, undefined, undefined, parseFormImport(body.content, ctx.language)),
    }),
    defineRoute({
      method: 'GET',
      url: '/project/info/export',
      guard: { permission: { allOf: ['project:info:export'] }, scope: 'project' },
      summary: "The project's design (stages, visits, forms) as a JSON file, or with format=odm as a CDISC ODM 1.3.2 study definition; default the newest version",
      tags: ['design'],
      query: z.object({ versionId: idSchema.optional(), format: z.enum(['json', 'odm']).default('json') }),
      response: z.null(),
      raw: true,
      handler: async ({ ctx, query, reply }) => {
        const file = await svc.exportDesign(ctx, query.versionId);
        if (query.format === 'odm') {
          const name = `${ctx.project.no}.odm.xml`;
          await reply
            .header('content-type', 'application/xml; charset=utf-8')
            .header('content-disposition', `attachment; filename="${name}"; filename*=UTF-8''${encodeURIComponent(name)}`)
            .send(Readable.from(designToOdmMetadata(file)));
          return null;
        }
        const name = `${ctx.project.no}.design.json`;
        await reply
          .header('content-type', 'application/json; charset=utf-8')
          .header('content-disposition', `attachment; filename="${name}"; filename*=UTF-8''${encodeURIComponent(name)}`)
          .send(JSON.stringify(file, null, 2));
        return null;
      },
    }),
    defineRoute({
      method: 'POST',
      url: '/project/info/import',
      guard: { permission: { allOf: ['project:info:import'] }, scope: 'project' },
      summary: 'Import a design file (our JSON, or a CDISC ODM 1.3.2 study definition) as a new unpublished version of the open project (DEV)',
      tags: ['design'],
      bodyType: 'json',
      body: z.object({ content: z.string().min(1).max(10_000_000), name: z.string().min(1).max(50).optional() }),
      response: designImportResult,
      handler: async ({ ctx, body }) => {
        if (!looksLikeXml(body.content)) return svc.importDesign(ctx, parseDesignImport(body.content, ctx.language), body.name);
        if (ctx.env !== 'DEV') throw new AppError('ENV_FORBIDDEN', { env: ctx.env });
        const { design, unmapped } = await parseOdmDesign(body.content, ctx.language);
        return { ...(await svc.importDesign(ctx, design, body.name, { source: 'odm', unmapped: unmapped.length })), unmapped };
      },
    }),
    defineRoute({
      method: 'GET',
      url: '/crf/form/export',
      guard: { permission: { allOf: ['crf:form:export'] }, scope: 'project' },
      summary: 'A form definition as a JSON file (import it back with /crf/form/import)',
      tags: ['design'],
      query: idRequest,
      response: z.null(),
      raw: true,
      handler: async ({ ctx, query, reply }) => {
        const f = await svc.form(ctx, query.id);
        const file = { kind: 'esource.form', schemaVersion: 1, form: f.definition };
        const name = `${f.code}.form.json`;
        await reply
          .header('content-type', 'application/json; charset=utf-8')
          .header('content-disposition', `attachment; filename="${name}"; filename*=UTF-8''${encodeURIComponent(name)}`)
          .send(JSON.stringify(file, null, 2));
        return null;
      },
    }),
  ];
}

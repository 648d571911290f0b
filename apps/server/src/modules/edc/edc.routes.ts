/**
 * EDC routes (issue 14 items 2–4; spec §7). Configuration and mapping: edc:sync:config. Starting a sync:
 * edc:sync:execute. Status lists: edc:sync:query. The EDC log: prolog:upload-edc-log:query / export.
 */
import ExcelJS from 'exceljs';
import { z } from 'zod';
import {
  edcConfigSave,
  edcConfigView,
  edcItemList,
  edcLinkRemove,
  edcLinkRow,
  edcLinkSave,
  edcItemListRequest,
  edcLogDetail,
  edcLogListRequest,
  edcLogPage,
  edcMappingRequest,
  edcMappingSave,
  edcMappingView,
  edcRunListRequest,
  edcRunPage,
  edcRunView,
  edcStartRequest,
  idSchema,
  ptsEdcFormRow,
  ptsEdcListRequest,
  ptsEdcPage,
  ptsEdcRequest,
  syncCenterStatusRow,
} from '@esource/shared';
import type { AppDeps } from '../../app-deps';
import { contentDisposition, downloadStamp, safeRow } from '../../lib/excel';
import { translator } from '../../lib/i18n';
import { defineRoute, type RouteSpec } from '../../lib/route';
import { actorOf, recordAudit } from '../audit/audit.service';
import { edcAdapterFor } from './adapters';
import { EdcLinkService } from './edc-link.service';
import { EdcService } from './edc.service';
import { EdcSyncService } from './edc-sync.service';

const CONFIG = { permission: { allOf: ['edc:sync:config'] }, scope: 'project' } as const;
const CONFIG_OR_QUERY = { permission: { anyOf: ['edc:sync:config', 'edc:sync:query'] }, scope: 'project' } as const;
const QUERY = { permission: { anyOf: ['edc:sync:query', 'edc:sync:execute'] }, scope: 'project' } as const;
const EXECUTE = { permission: { allOf: ['edc:sync:execute'] }, scope: 'project' } as const;
const LOG = { permission: { anyOf: ['prolog:upload-edc-log:query', 'edc:sync:query'] }, scope: 'project' } as const;
const LOG_EXPORT = { permission: { allOf: ['prolog:upload-edc-log:export'] }, scope: 'project' } as const;
/**
 * Associate EDC (/edc-link): any logged-in user, for their own account only. It lists the EDCs of every project
 * environment they are a member of, so it is not bound to the open project (scope 'system'); the service admits
 * login type 1 only and checks the membership per EDC the way scope 'project' does (active member, role allowed in
 * that environment, project not deleted).
 */
const OWN_LINK = { permission: 'any', scope: 'system' } as const;
/** rows an EDC log export holds at most */
const EXPORT_MAX = 50_000;

export function edcRoutes({ database, jobs }: AppDeps): RouteSpec[] {
  const svc = new EdcService(database.db, edcAdapterFor);
  const sync = new EdcSyncService(database.db, edcAdapterFor, jobs);
  const links = new EdcLinkService(database.db, edcAdapterFor);
  const tags = ['edc'];
  return [
    defineRoute({ method: 'POST', url: '/edc/config/get', guard: CONFIG_OR_QUERY, summary: "The project environment's EDC (the secret is never returned)", tags, response: edcConfigView.nullable(), handler: ({ ctx }) => svc.getConfig(ctx) }),
    defineRoute({ method: 'POST', url: '/edc/config/save', guard: CONFIG, summary: 'Create or update the EDC (kind 1 ODM over HTTP, kind 3 REDCap), its secret encrypted', tags, bodyType: 'json', body: edcConfigSave, response: edcConfigView, handler: ({ ctx, body }) => svc.saveConfig(ctx, body) }),
    defineRoute({ method: 'POST', url: '/edc/config/test', guard: CONFIG, summary: 'Try the saved EDC with its secret', tags, response: z.object({ ok: z.boolean(), message: z.string(), httpStatus: z.number().int().nullable(), ms: z.number() }), handler: ({ ctx }) => svc.testConfig(ctx) }),
    defineRoute({ method: 'POST', url: '/edc/link/list', guard: OWN_LINK, summary: "The EDCs of the caller's project environments with the caller's own link (never a secret)", tags, response: z.array(edcLinkRow), handler: ({ ctx }) => links.list(ctx) }),
    defineRoute({ method: 'POST', url: '/edc/link/save', guard: OWN_LINK, summary: "Link the caller's own EDC account: the secret is tried at the EDC first and kept (encrypted) only when accepted", tags, bodyType: 'json', body: edcLinkSave, response: edcLinkRow, rateLimit: { max: 20, timeWindow: '1 minute' }, handler: ({ ctx, body }) => links.save(ctx, body) }),
    defineRoute({ method: 'POST', url: '/edc/link/remove', guard: OWN_LINK, summary: "Remove the caller's own EDC link", tags, body: edcLinkRemove, response: z.object({ removed: z.literal(true) }), handler: ({ ctx, body }) => links.remove(ctx, body.configId) }),
    defineRoute({ method: 'POST', url: '/crf/form/item/getEDCItemList', guard: CONFIG_OR_QUERY, summary: 'The items the EDC offers (read from it again with refresh)', tags, body: edcItemListRequest, response: edcItemList, handler: ({ ctx, body }) => svc.itemList(ctx, body.refresh) }),
    defineRoute({ method: 'POST', url: '/edc/mapping/list', guard: CONFIG_OR_QUERY, summary: "A design version's EDC mapping with what blocks a sync", tags, body: edcMappingRequest, response: edcMappingView, handler: ({ ctx, body }) => svc.mapping(ctx, body.versionId) }),
    defineRoute({ method: 'POST', url: '/edc/mapping/save', guard: CONFIG, summary: 'Save mapping rows (an empty target removes one), in one transaction', tags, bodyType: 'json', body: edcMappingSave, response: edcMappingView, handler: ({ ctx, body }) => svc.saveMapping(ctx, body) }),
    defineRoute({ method: 'POST', url: '/edc/mapping/auto', guard: CONFIG, summary: 'Map what matches by code (visits, forms, items, option codes); existing rows are kept', tags, body: edcMappingRequest, response: edcMappingView, handler: ({ ctx, body }) => svc.autoMap(ctx, body.versionId) }),
    defineRoute({ method: 'POST', url: '/project/pts/job/handEDCStart', guard: EXECUTE, summary: 'Sync a subject, a site or the study to the EDC (a job; progress type 3)', tags, bodyType: 'json', body: edcStartRequest, response: edcRunView, handler: ({ ctx, body }) => sync.start(ctx, body) }),
    defineRoute({ method: 'POST', url: '/project/pts/job/getFormByStageId', guard: QUERY, summary: "A subject's completed forms of a visit with their EDC sync state", tags, body: ptsEdcRequest, response: z.array(ptsEdcFormRow), handler: ({ ctx, body }) => svc.subjectForms(ctx, body.ptsId, body.visitId) }),
    defineRoute({ method: 'POST', url: '/SyncCenterStatus/getSyncCenterStatusList', guard: QUERY, summary: 'Per site: completed forms pending, syncing, synced and failed at the EDC', tags, response: z.array(syncCenterStatusRow), handler: ({ ctx }) => svc.centerStatus(ctx) }),
    defineRoute({ method: 'POST', url: '/edcLog/getPtsEdcList', guard: LOG, summary: 'Subjects with their forms’ EDC sync states', tags, body: ptsEdcListRequest, response: ptsEdcPage, handler: ({ ctx, body }) => svc.subjectList(ctx, body) }),
    defineRoute({ method: 'POST', url: '/edcLog/getPtsEdc', guard: LOG, summary: "One subject's forms at the EDC", tags, body: ptsEdcRequest, response: z.array(ptsEdcFormRow), handler: ({ ctx, body }) => svc.subjectForms(ctx, body.ptsId, body.visitId) }),
    defineRoute({ method: 'POST', url: '/edcLog/list', guard: LOG, summary: 'The EDC log: every record sent, refused or in conflict, and failed exchanges', tags, body: edcLogListRequest, response: edcLogPage, handler: ({ ctx, body }) => svc.logs(ctx, body) }),
    defineRoute({ method: 'POST', url: '/edcLog/getChangeLogList', guard: LOG, summary: "One log entry's item changes and the exchange with the EDC", tags, body: z.object({ id: idSchema }), response: edcLogDetail, handler: ({ ctx, body }) => svc.logDetail(ctx, body.id) }),
    defineRoute({ method: 'POST', url: '/edcLog/getDataNameList', guard: LOG, summary: 'The visit / form names in the log (filter options)', tags, response: z.array(z.string()), handler: ({ ctx }) => svc.dataNames(ctx) }),
    defineRoute({ method: 'POST', url: '/edcLog/getCreator', guard: LOG, summary: 'Who started syncs (filter options)', tags, response: z.array(z.object({ id: z.number().int(), name: z.string() })), handler: ({ ctx }) => svc.creators(ctx) }),
    defineRoute({ method: 'POST', url: '/edcLog/exportList', guard: LOG, summary: 'The sync runs, newest first', tags, body: edcRunListRequest, response: edcRunPage, handler: ({ ctx, body }) => svc.runs(ctx, body) }),
    defineRoute({
      method: 'GET',
      url: '/edcLog/export',
      guard: LOG_EXPORT,
      summary: 'The EDC log of the filters as an Excel file (at most 50,000 rows)',
      tags,
      query: edcLogListRequest,
      response: z.unknown(),
      handler: async ({ ctx, query, reply }) => {
        const t = translator(ctx.language);
        const rows = await svc.logsForExport(ctx, query, EXPORT_MAX);
        const wb = new ExcelJS.Workbook();
        const ws = wb.addWorksheet(t('edc.log.sheet'));
        ws.columns = [
          { header: t('edc.log.col.time'), key: 'createTime', width: 22 },
          { header: t('edc.log.col.run'), key: 'runId', width: 8 },
          { header: t('edc.log.col.site'), key: 'siteName', width: 20 },
          { header: t('edc.log.col.subject'), key: 'ptsNo', width: 14 },
          { header: t('edc.log.col.data'), key: 'dataName', width: 30 },
          { header: t('edc.log.col.action'), key: 'action', width: 12 },
          { header: t('edc.log.col.status'), key: 'status', width: 10 },
          { header: t('edc.log.col.changes'), key: 'changes', width: 60 },
          { header: t('edc.log.col.reason'), key: 'reason', width: 50 },
          { header: t('edc.log.col.http'), key: 'httpStatus', width: 8 },
          { header: t('edc.log.col.by'), key: 'createdByName', width: 14 },
        ];
        ws.getRow(1).font = { bold: true };
        for (const r of rows)
          ws.addRow(
            safeRow({
              createTime: r.createTime,
              runId: r.runId,
              siteName: r.siteName ?? '',
              ptsNo: r.ptsNo ?? '',
              dataName: r.dataName ?? '',
              action: t(`edc.log.action.${r.action}`),
              status: t(r.status === 2 ? 'edc.log.ok' : 'edc.log.failed'),
              changes: r.changesText,
              reason: r.reason ?? '',
              httpStatus: r.httpStatus ?? '',
              createdByName: r.createdByName ?? '',
            }),
          );
        await database.db.transaction((tx) => recordAudit(tx, actorOf(ctx), [{ action: 'edc.log.export', entity: 'edcLog', entityId: null, projectId: ctx.project.id, newValue: { rows: rows.length } }]));
        const buf = Buffer.from(await wb.xlsx.writeBuffer());
        const name = `edc-log-${downloadStamp()}.xlsx`;
        await reply.header('content-type', 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet').header('content-disposition', contentDisposition(name, name)).send(buf);
        return undefined;
      },
    }),
  ];
}

/** Routes of the source-data module (issue 11): connections, extraction tasks, source records, matching queue, reports. */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import { pipeline } from 'node:stream/promises';
import { z } from 'zod';
import ExcelJS from 'exceljs';
import {
  addPtsTaskRequest,
  addPtsTaskResult,
  changeReportPage,
  changeReportRequest,
  changeRow,
  connectionDeleteRequest,
  connectionEnableRequest,
  connectionIdRequest,
  connectionListRequest,
  connectionSave,
  connectionTestRequest,
  connectionTestResult,
  connectionUploadResult,
  connectionView,
  docTypeCount,
  extractReportPage,
  extractReportRequest,
  gatherDataDetail,
  gatherPtsDataDetail,
  matchAssignRequest,
  matchDismissRequest,
  matchQueuePage,
  matchQueueRequest,
  matchResult,
  patientChangeRequest,
  processBarResult,
  ptsIdRequest,
  sourceRecordDetail,
  sourceRecordDetailRequest,
  sourceRecordListRequest,
  sourceRecordPage,
  taskIdRequest,
  taskView,
  updatePtsTaskRequest,
} from '@esource/shared';
import { defineRoute, type RouteSpec } from '../../lib/route';
import type { AppDeps } from '../../app-deps';
import { AppError } from '../../lib/errors';
import { translator } from '../../lib/i18n';
import { XLSX_MIME, contentDisposition, downloadStamp, formatTime, neutraliseFormula } from '../../lib/excel';
import { ConnectionsService } from './connections.service';
import { ExtractService } from './extract.service';
import { RecordsService } from './records.service';
import { projectZone } from '../prefill/prefill-engine';

const CONFIG_READ = { permission: { anyOf: ['source:config:query', 'source:config:update'] }, scope: 'project' } as const;
const CONFIG_WRITE = { permission: { anyOf: ['source:config:update'] }, scope: 'project' } as const;
const EXTRACT_READ = { permission: { anyOf: ['source:extract:query', 'source:extract:execute'] }, scope: 'project' } as const;
const EXTRACT_RUN = { permission: { anyOf: ['source:extract:execute'] }, scope: 'project' } as const;
const FILE_LIMIT = 200 * 1024 * 1024;

export function sourceRoutes({ database, jobs }: AppDeps): RouteSpec[] {
  const conns = new ConnectionsService(database.db);
  const extract = new ExtractService(database, jobs);
  const records = new RecordsService(database.db, extract);
  const tags = ['sources'];
  return [
    // ── connections ──
    defineRoute({ method: 'POST', url: '/project/source/connection/list', guard: CONFIG_READ, summary: "Hospital connections of the caller's sites (secrets never included)", tags, body: connectionListRequest, response: z.array(connectionView), handler: ({ ctx, body }) => conns.list(ctx, body) }),
    defineRoute({ method: 'GET', url: '/project/source/connection/detail', guard: CONFIG_READ, summary: 'One connection', tags, query: connectionIdRequest, response: connectionView, handler: ({ ctx, query }) => conns.get(ctx, query.id) }),
    defineRoute({ method: 'POST', url: '/project/source/connection/add', guard: CONFIG_WRITE, summary: 'Add a connection (config validated per kind; the secret stored encrypted)', tags, bodyType: 'json', body: connectionSave, response: connectionView, handler: ({ ctx, body }) => conns.save(ctx, { ...body, id: undefined }) }),
    defineRoute({
      method: 'POST',
      url: '/project/source/connection/update',
      guard: CONFIG_WRITE,
      summary: 'Update a connection (id + version; a secret only when sent)',
      tags,
      bodyType: 'json',
      body: connectionSave,
      response: connectionView,
      handler: ({ ctx, body }) => {
        if (!body.id || !body.version) throw new AppError('VALIDATION', { detail: 'id, version' }, [{ field: body.id ? 'version' : 'id', message: 'validation.required' }]);
        return conns.save(ctx, body);
      },
    }),
    defineRoute({
      method: 'POST',
      url: '/project/source/connection/delete',
      guard: CONFIG_WRITE,
      summary: 'Delete a connection (soft)',
      tags,
      body: connectionDeleteRequest,
      response: z.null(),
      handler: async ({ ctx, body }) => {
        await conns.remove(ctx, body.id, body.version);
        return null;
      },
    }),
    defineRoute({ method: 'POST', url: '/project/source/connection/enable', guard: CONFIG_WRITE, summary: 'Enable or disable a connection', tags, body: connectionEnableRequest, response: connectionView, handler: ({ ctx, body }) => conns.enable(ctx, body.id, body.version, body.enabled) }),
    defineRoute({ method: 'POST', url: '/project/source/connection/test', guard: CONFIG_READ, summary: 'Reach the source and report what it found (storing nothing)', tags, bodyType: 'json', body: connectionTestRequest, response: connectionTestResult, handler: ({ ctx, body }) => conns.test(ctx, body) }),
    defineRoute({
      method: 'POST',
      url: '/project/source/connection/upload',
      guard: { permission: { anyOf: ['source:extract:execute', 'source:config:update'] }, scope: 'project' },
      summary: 'Upload a FHIR Bundle or Bulk Data NDJSON file for a fhir_file connection (streamed to disk, ingested as a job)',
      tags,
      bodyType: 'multipart',
      bodyLimit: FILE_LIMIT,
      response: connectionUploadResult,
      handler: async ({ ctx, req }) => {
        if (!req.isMultipart()) throw new AppError('UNSUPPORTED_MEDIA_TYPE', { type: req.headers['content-type'] ?? '' });
        const part = await req.file({ limits: { fileSize: FILE_LIMIT, files: 1 } });
        if (!part) throw new AppError('SOURCE_FILE_FORMAT');
        const fields = part.fields as Record<string, { value?: unknown } | undefined>;
        const id = Number(fields.id?.value ?? (req.query as Record<string, unknown>).id);
        if (!Number.isInteger(id) || id < 1) {
          part.file.resume();
          throw new AppError('VALIDATION', { detail: 'id' }, [{ field: 'id', message: 'validation.id' }]);
        }
        const tmp = path.join(os.tmpdir(), `esource-upload-${randomUUID()}`);
        await pipeline(part.file, fs.createWriteStream(tmp, { mode: 0o600 }));
        if (part.file.truncated) {
          fs.rmSync(tmp, { force: true });
          throw new AppError('PAYLOAD_TOO_LARGE');
        }
        const c = await conns.find(database.db, ctx, id).catch((err: unknown) => {
          fs.rmSync(tmp, { force: true });
          throw err;
        });
        if (c.kind !== 'fhir_file') {
          fs.rmSync(tmp, { force: true });
          throw new AppError('SOURCE_CONNECTION_KIND', { kind: c.kind });
        }
        return { taskId: await extract.addFileTask(ctx, id, tmp, part.filename.slice(0, 200)) };
      },
    }),
    // ── extraction tasks ──
    defineRoute({ method: 'POST', url: '/project/managePts/addPtsTask', guard: EXTRACT_RUN, summary: 'Manual extraction for one or more subjects (refused for a subject with a live task)', tags, body: addPtsTaskRequest, response: addPtsTaskResult, handler: async ({ ctx, body }) => ({ tasks: await extract.addTasks(ctx, body) }) }),
    defineRoute({ method: 'POST', url: '/project/managePts/update/ptsTask', guard: EXTRACT_RUN, summary: 'Cancel or retry an extraction task', tags, body: updatePtsTaskRequest, response: taskView, handler: ({ ctx, body }) => extract.updateTask(ctx, body.taskId, body.action) }),
    defineRoute({ method: 'POST', url: '/project/managePts/queryTypeList', guard: EXTRACT_READ, summary: "A subject's source records by document type", tags, body: ptsIdRequest, response: z.array(docTypeCount), handler: ({ ctx, body }) => records.typeCounts(ctx, body.ptsId) }),
    defineRoute({ method: 'POST', url: '/project/manage/queryProcessBar', guard: EXTRACT_READ, summary: "A subject's latest extraction and its progress", tags, body: ptsIdRequest, response: processBarResult, handler: ({ ctx, body }) => records.processBar(ctx, body.ptsId) }),
    defineRoute({ method: 'POST', url: '/project/SickFile/gatherPtsData/detail', guard: EXTRACT_READ, summary: "A subject's data acquisition page: tasks, counts by type, connections", tags, body: ptsIdRequest, response: gatherPtsDataDetail, handler: ({ ctx, body }) => records.gatherPts(ctx, body.ptsId) }),
    defineRoute({ method: 'POST', url: '/project/gatherData/detail', guard: EXTRACT_READ, summary: 'One extraction task with the records it stored or changed', tags, body: taskIdRequest, response: gatherDataDetail, handler: ({ ctx, body }) => records.gatherTask(ctx, body.taskId) }),
    // ── records ──
    defineRoute({ method: 'POST', url: '/project/source/records/list', guard: EXTRACT_READ, summary: "A subject's source records: type, dates, text; by effective date", tags, body: sourceRecordListRequest, response: sourceRecordPage, handler: ({ ctx, body }) => records.list(ctx, body) }),
    defineRoute({ method: 'GET', url: '/project/source/record/detail', guard: EXTRACT_READ, summary: 'A source record (or a version) with its raw payload and versions (read audited)', tags, query: sourceRecordDetailRequest, response: sourceRecordDetail, handler: ({ ctx, query }) => records.detail(ctx, query.id, query.version) }),
    // ── matching queue ──
    defineRoute({ method: 'POST', url: '/project/source/match/list', guard: EXTRACT_READ, summary: "Source patients of the caller's sites waiting for a subject (names read audited)", tags, body: matchQueueRequest, response: matchQueuePage, handler: ({ ctx, body }) => records.matchQueue(ctx, body) }),
    defineRoute({ method: 'POST', url: '/project/source/match/assign', guard: EXTRACT_RUN, summary: 'This source patient is that subject (same site); its records follow', tags, body: matchAssignRequest, response: matchResult, handler: ({ ctx, body }) => records.decide(ctx, body.id, body.ptsId) }),
    defineRoute({ method: 'POST', url: '/project/source/match/dismiss', guard: EXTRACT_RUN, summary: 'This source patient is not in the study', tags, body: matchDismissRequest, response: matchResult, handler: ({ ctx, body }) => records.decide(ctx, body.id, null) }),
    // ── reports ──
    defineRoute({ method: 'POST', url: '/pts/extract/report/listByPage', guard: { permission: { anyOf: ['report:extract:query'] }, scope: 'project' }, summary: 'Extraction tasks with their stats', tags, body: extractReportRequest, response: extractReportPage, handler: ({ ctx, body }) => records.extractReport(ctx, body) }),
    defineRoute({ method: 'POST', url: '/pts/extract/report/syncChangeListByPage', guard: { permission: { anyOf: ['report:sync-change:query'] }, scope: 'project' }, summary: 'Records the hospital changed: old → new, when', tags, body: changeReportRequest, response: changeReportPage, handler: ({ ctx, body }) => records.changeReport(ctx, body) }),
    defineRoute({ method: 'POST', url: '/pts/extract/report/getPatientDataChangeDTOList', guard: { permission: { anyOf: ['report:sync-change:query', 'report:data-change:query'] }, scope: 'project' }, summary: "A subject's source data changes", tags, body: patientChangeRequest, response: z.array(changeRow), handler: ({ ctx, body }) => records.patientChanges(ctx, body.ptsId, body.docType) }),
    defineRoute({ method: 'POST', url: '/dataChangeReport/pageQuery', guard: { permission: { anyOf: ['report:data-change:query'] }, scope: 'project' }, summary: 'Data change report', tags, body: changeReportRequest, response: changeReportPage, handler: ({ ctx, body }) => records.changeReport(ctx, body) }),
    defineRoute({
      method: 'GET',
      url: '/dataChangeReport/export',
      guard: { permission: { anyOf: ['report:data-change:export'] }, scope: 'project' },
      summary: 'Data change report as Excel (formulas neutralised)',
      tags,
      query: changeReportRequest.partial(),
      response: z.unknown(),
      raw: true,
      handler: async ({ ctx, query, reply }) => {
        const rows = await records.changeExportRows(ctx, query);
        const t = translator(ctx.language);
        const wb = new ExcelJS.Workbook();
        const ws = wb.addWorksheet(t('source.export.sheet'));
        const cols = ['ptsNo', 'site', 'docType', 'resourceType', 'code', 'display', 'changed', 'oldValue', 'newValue', 'oldUnit', 'newUnit', 'oldEffective', 'newEffective', 'version', 'changeTime'] as const;
        ws.addRow(cols.map((c) => t(`source.export.${c}`)));
        // times in the project's time zone (the one its visit windows and daily extraction go by)
        const tz = await projectZone(database.db, ctx.project.id);
        for (const r of rows) {
          ws.addRow(
            [r.ptsNo ?? '', r.siteName, t(`source.docType.${r.docType}`), r.resourceType, r.code ?? '', r.display ?? '', r.changed.join(', '), r.oldValue ?? '', r.newValue ?? '', r.oldUnit ?? '', r.newUnit ?? '', r.oldEffective ?? '', r.newEffective ?? '', r.version, formatTime(new Date(r.changeTime), tz)].map(
              (v) => neutraliseFormula(v),
            ),
          );
        }
        const buf = Buffer.from(await wb.xlsx.writeBuffer());
        const name = `${t('source.export.sheet')}-${downloadStamp()}.xlsx`;
        await reply.header('content-type', XLSX_MIME).header('content-disposition', contentDisposition(name, `data-changes-${downloadStamp()}.xlsx`)).send(buf);
        return undefined;
      },
    }),
  ];
}

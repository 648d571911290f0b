/**
 * Study data exports (issue 14 item 7), generated as jobs and streamed in constant memory whatever the study's size:
 *
 * - `study-odm`: CDISC ODM 1.3.2 ClinicalData (Snapshot) of the subjects on one design version, with each item's
 *   last change as its AuditRecord and AdminData (users, sites) on request; the study definition itself is
 *   /project/info/export?format=odm (same OIDs). Valid against the official XSD (tests).
 * - `study-xlsx`: an Excel workbook (exceljs streaming writer), one sheet per form: a row per form instance, a column
 *   per item, option labels and units in the header.
 * - `study-datasetjson`: CDISC Dataset-JSON 1.1 of one form (one dataset per file, as the standard has it).
 *
 * Subjects and instances are read in keyset pages (by id), so memory does not grow with the study. A caller who
 * reaches only some sites exports one of them (`siteId`); central users may export every site.
 */
import type { Writable } from 'node:stream';
import { and, asc, eq, gt, inArray, isNull, ne, sql } from 'drizzle-orm';
import type ExcelJS from 'exceljs';
import { sheetDrained } from '../../../lib/xlsx-backpressure';
import { z } from 'zod';
// ODM's writing side alone, not the package's index: that would load the FHIR, HL7, FHIRPath, UCUM and XSD code into
// every export process (bench/study-export-e2e.ts measures its memory)
import { formItemGroups, odmClinicalChunks, odmFormLayout, odmOid, type OdmSubject } from '@esource/interop/odm-write';
import { LANGUAGES, formFields, idSchema, type FieldComponent, type FormDefinition } from '@esource/shared';
import type { Db } from '../../../db/client';
import { crfInstances, crfValueHistory, crfValues, designVersions, forms, projects, sites, subjectUnscheduledVisits, subjects, users, visits } from '../../../db/schema';
import { AppError } from '../../../lib/errors';
import { translator } from '../../../lib/i18n';
import { reachesSite } from '../../../lib/site-scope';
import { groupBy } from '../../../lib/group';
import { rowsOf } from '../../../lib/sql';
import type { ExportKindDef, GenerateInput, ReportProgress } from '../exports.types';

const PAGE = 500;
const boolish = z.preprocess((v) => (v === 'true' || v === '1' ? true : v === 'false' || v === '0' || v === '' ? false : v), z.boolean());
const blank = (v: unknown) => (v === '' || v === null ? undefined : v);

export const studyExportRequest = z.object({
  /** the design version whose subjects are exported; default the newest version any subject in scope is on */
  versionId: z.preprocess(blank, idSchema.optional()),
  /** one site (required for a caller who does not reach every site) */
  siteId: z.preprocess(blank, idSchema.optional()),
  language: z.enum(LANGUAGES).default('zh_CN'),
  /** ODM: each item's last change as an AuditRecord (with AdminData) */
  audit: boolish.default(false),
  /** Dataset-JSON: the form */
  formId: z.preprocess(blank, idSchema.optional()),
});
export type StudyExportRequest = z.infer<typeof studyExportRequest>;

interface Scope {
  projectId: number;
  env: string;
  siteId: number | null;
  versionId: number;
}

interface DesignOf {
  project: { no: string; name: string };
  version: { id: number; name: string };
  forms: { id: number; code: string; name: string; nameEn: string | null; definition: FormDefinition }[];
  visits: Map<number, { code: string; name: string; nameEn: string | null; unscheduled: boolean }>;
}

async function designOf(db: Db, projectId: number, versionId: number): Promise<DesignOf> {
  const [p] = await db.select({ no: projects.no, name: projects.name }).from(projects).where(eq(projects.id, projectId));
  const [v] = await db.select({ id: designVersions.id, name: designVersions.name }).from(designVersions).where(and(eq(designVersions.id, versionId), eq(designVersions.projectId, projectId)));
  if (!p || !v) throw new AppError('NOT_FOUND', { entity: 'version' });
  const fs = await db.select().from(forms).where(eq(forms.versionId, versionId)).orderBy(asc(forms.sortOrder), asc(forms.code));
  const vs = await db.select().from(visits).where(eq(visits.versionId, versionId));
  return {
    project: p,
    version: v,
    forms: fs.map((f) => ({ id: f.id, code: f.code, name: f.name, nameEn: f.nameEn, definition: f.definition as unknown as FormDefinition })),
    visits: new Map(vs.map((x) => [x.id, { code: x.code, name: x.name, nameEn: x.nameEn, unscheduled: x.unscheduled }])),
  };
}

function subjectWhere(s: Scope) {
  return and(eq(subjects.projectId, s.projectId), eq(subjects.env, s.env), ne(subjects.status, 0), eq(subjects.designVersionId, s.versionId), s.siteId !== null ? eq(subjects.siteId, s.siteId) : undefined);
}

async function countSubjects(db: Db, s: Scope): Promise<number> {
  const [r] = await db.select({ n: sql<number>`count(*)::int` }).from(subjects).where(subjectWhere(s));
  return r?.n ?? 0;
}

/**
 * The values of an instance as one JSON object (variable → value) built in the database: a row per instance instead of
 * one per value, so that the export reads and decodes a tenth of the rows (issue 14 item 7: decoding 5 million value
 * rows was most of an export's time at 100,000 subjects).
 */
// (`${crfInstances}.id` written out: drizzle leaves a column of a one-table query unqualified, which would be the id of v)
const valuesOfInstance = sql<Record<string, unknown> | null>`(select jsonb_object_agg(v.variable, v.value -> 'v') from ${crfValues} v where v.instance_id = ${crfInstances}.id)`;

/** The saved value of a variable in `valuesOfInstance` (own keys only: a variable may be named `constructor`). */
const valueAt = (values: Record<string, unknown> | null, variable: string): unknown => (values && Object.hasOwn(values, variable) ? values[variable] : undefined);

/** One page of the scope's subjects after subject `after` with their saved forms and values; null after the last. */
async function subjectPage(db: Db, s: Scope, withAudit: boolean, after: number) {
  const subs = await db
    .select({ id: subjects.id, ptsNo: subjects.ptsNo, siteNo: sites.siteNo })
    .from(subjects)
    .innerJoin(sites, eq(sites.id, subjects.siteId))
    .where(and(subjectWhere(s), gt(subjects.id, after)))
    .orderBy(asc(subjects.id))
    .limit(PAGE);
  if (!subs.length) return null;
  const ids = subs.map((x) => x.id);
  const inst = await db
    .select({ id: crfInstances.id, subjectId: crfInstances.subjectId, visitId: crfInstances.visitId, unscheduledId: crfInstances.unscheduledId, formId: crfInstances.formId, repeatNo: crfInstances.repeatNo, status: crfInstances.status, values: valuesOfInstance })
    .from(crfInstances)
    .where(and(sql`${crfInstances.subjectId} = any(${sql.param(ids)}::int[])`, isNull(crfInstances.deletedAt)))
    .orderBy(asc(crfInstances.subjectId), asc(crfInstances.visitId), asc(crfInstances.unscheduledId), asc(crfInstances.formId), asc(crfInstances.repeatNo));
  const instIds = inst.map((i) => i.id);
  const unscheduled = await db
    .select({ id: subjectUnscheduledVisits.id, subjectId: subjectUnscheduledVisits.subjectId, visitId: subjectUnscheduledVisits.visitId })
    .from(subjectUnscheduledVisits)
    .where(inArray(subjectUnscheduledVisits.subjectId, ids))
    .orderBy(asc(subjectUnscheduledVisits.id));
  const histRows =
    withAudit && instIds.length
      ? rowsOf<{ instanceId: number; variable: string; userId: number | null; reason: string | null; at: string | Date }>(
          await db.execute(sql`
            select distinct on (instance_id, variable) instance_id as "instanceId", variable, user_id as "userId", reason, created_at as "at"
            from ${crfValueHistory} where instance_id = any(${sql.param(instIds)}::int[])
            order by instance_id, variable, id desc`),
        )
      : [];
  return { subs, inst, unscheduled, history: histRows };
}

/**
 * Pages read one ahead: the next page is read while the caller writes this one (at most two pages in memory), so the
 * database and the writer overlap. `read(after)` answers the page after key `after` (0: the first), null when done.
 */
async function* readAhead<T>(read: (after: number) => Promise<T | null>, lastKey: (page: T) => number) {
  let next = read(0);
  try {
    for (;;) {
      const page = await next;
      if (!page) return;
      next = read(lastKey(page));
      yield page;
    }
  } finally {
    // a writer that stopped early (an error) leaves the read ahead unawaited: its failure is not this one's
    next.catch(() => undefined);
  }
}

/** The subjects of the scope with their saved forms and values, a page at a time (keyset on the subject id). */
const subjectPages = (db: Db, s: Scope, withAudit: boolean) =>
  readAhead((after) => subjectPage(db, s, withAudit, after), (p) => p.subs.at(-1)!.id);

/** The instances of one form in the scope with their values, a page at a time (keyset on the instance id). */
const formInstancePages = (db: Db, s: Scope, formId: number) =>
  readAhead(
    async (after) => {
      const rows = await db
        .select({ id: crfInstances.id, ptsNo: subjects.ptsNo, siteNo: sites.siteNo, visitId: crfInstances.visitId, repeatNo: crfInstances.repeatNo, unscheduledId: crfInstances.unscheduledId, status: crfInstances.status, values: valuesOfInstance })
        .from(crfInstances)
        .innerJoin(subjects, eq(subjects.id, crfInstances.subjectId))
        .innerJoin(sites, eq(sites.id, subjects.siteId))
        .where(and(subjectWhere(s), eq(crfInstances.formId, formId), isNull(crfInstances.deletedAt), gt(crfInstances.id, after)))
        .orderBy(asc(crfInstances.id))
        .limit(PAGE);
      return rows.length ? rows : null;
    },
    (rows) => rows.at(-1)!.id,
  );

/** The newest design version any subject of the scope is on. */
async function defaultVersion(db: Db, projectId: number, env: string, siteId: number | null): Promise<number | null> {
  const [r] = await db
    .select({ v: sql<number | null>`max(${subjects.designVersionId})` })
    .from(subjects)
    .where(and(eq(subjects.projectId, projectId), eq(subjects.env, env), ne(subjects.status, 0), siteId !== null ? eq(subjects.siteId, siteId) : undefined));
  return r?.v ?? null;
}

async function scopeOf(input: GenerateInput<StudyExportRequest>): Promise<Scope> {
  const versionId = input.params.versionId ?? (await defaultVersion(input.db, input.projectId, input.env, input.siteId));
  if (!versionId) throw new AppError('NOT_FOUND', { entity: 'version' });
  return { projectId: input.projectId, env: input.env, siteId: input.siteId, versionId };
}

const fileSafe = (s: string) => s.replace(/[\\/:*?"<>|\s]+/g, '_');

/** The request-time checks every study export shares: the site, the version and (Dataset-JSON) the form. */
function prepareStudy(kind: 'odm' | 'xlsx' | 'datasetjson', ext: string): ExportKindDef<StudyExportRequest>['prepare'] {
  return async (db, ctx, p) => {
    const t = translator(ctx.language);
    const siteId = p.siteId ?? ctx.siteId;
    if (siteId === null && ctx.project.siteIds !== null) throw new AppError('SITE_REQUIRED');
    if (siteId !== null && siteId !== undefined && !reachesSite(siteId, ctx)) throw new AppError('NOT_FOUND', { entity: 'site' });
    const versionId = p.versionId ?? (await defaultVersion(db, ctx.project.id, ctx.env, siteId ?? null));
    if (!versionId) throw new AppError('NOT_FOUND', { entity: 'version' });
    const [v] = await db.select({ id: designVersions.id, name: designVersions.name }).from(designVersions).where(and(eq(designVersions.id, versionId), eq(designVersions.projectId, ctx.project.id)));
    if (!v) throw new AppError('NOT_FOUND', { entity: 'version' });
    let formCode = '';
    if (kind === 'datasetjson') {
      if (!p.formId) throw new AppError('INVALID_REFERENCE', { field: 'formId' });
      const [f] = await db.select({ code: forms.code }).from(forms).where(and(eq(forms.id, p.formId), eq(forms.versionId, v.id)));
      if (!f) throw new AppError('INVALID_REFERENCE', { field: 'formId' });
      formCode = `-${f.code}`;
    }
    const [site] = siteId ? await db.select({ siteNo: sites.siteNo }).from(sites).where(eq(sites.id, siteId)) : [];
    const title = `${ctx.project.no} ${v.name}${site ? ` · ${site.siteNo}` : ''}${formCode ? ` · ${formCode.slice(1)}` : ''}`;
    return {
      siteId: siteId ?? null,
      subjectId: null,
      scopeKey: `study:${v.id}:${siteId ?? 'all'}${formCode}`,
      title,
      fileName: `${fileSafe(ctx.project.no)}-${fileSafe(v.name)}${site ? `-site${fileSafe(site.siteNo)}` : ''}${formCode}.${ext}`,
      progressText: t(`exports.progress.study.${kind}`, { title }),
    };
  };
}

/** Writes a chunk, waiting when the stream is full (constant memory). */
async function write(out: Writable, chunk: string): Promise<void> {
  if (!out.write(chunk)) await new Promise<void>((resolve) => out.once('drain', resolve));
}

// ── ODM ──

async function generateOdm(input: GenerateInput<StudyExportRequest>, out: Writable, report: ReportProgress): Promise<void> {
  const scope = await scopeOf(input);
  const d = await designOf(input.db, input.projectId, scope.versionId);
  const total = await countSubjects(input.db, scope);
  // each form's ODM layout once, not per record
  const formById = new Map(d.forms.map((f) => [f.id, { ...f, layout: odmFormLayout(f.definition) }]));
  const studyOid = odmOid.study(d.project.no);
  const audit = input.params.audit;
  // AdminData: the users who changed values and the sites, written before ClinicalData
  const userRows = audit
    ? await input.db
        .selectDistinct({ id: users.id, name: users.name, account: users.account })
        .from(crfValueHistory)
        .innerJoin(crfInstances, eq(crfInstances.id, crfValueHistory.instanceId))
        .innerJoin(users, eq(users.id, crfValueHistory.userId))
        .where(and(eq(crfInstances.projectId, input.projectId), eq(crfInstances.env, input.env)))
    : [];
  const siteRows = audit ? await input.db.select({ siteNo: sites.siteNo, name: sites.name }).from(sites).where(and(eq(sites.projectId, input.projectId), eq(sites.env, input.env))) : [];
  const mdvOid = odmOid.metaDataVersion(d.version.name);
  let done = 0;
  async function* subjectsOf(): AsyncGenerator<OdmSubject> {
    for await (const page of subjectPages(input.db, scope, audit)) {
      // the page's rows by subject and instance, once (not a scan of the page per subject and form)
      const instOf = groupBy(page.inst, (i) => i.subjectId);
      const histOf = groupBy(page.history, (h) => h.instanceId);
      const unschedOf = groupBy(page.unscheduled, (u) => `${u.subjectId}:${u.visitId}`);
      for (const s of page.subs) {
        const mine = instOf.get(s.id) ?? [];
        const events = new Map<string, OdmSubject['events'][number]>();
        for (const i of mine) {
          const form = formById.get(i.formId);
          const visit = d.visits.get(i.visitId);
          if (!form || !visit) continue;
          const last = histOf.get(i.id) ?? [];
          const groups = formItemGroups(form.definition, i.values ?? {}, {
            layout: form.layout,
            ...(audit
              ? {
                  audit: (variable: string) => {
                    const h = last.find((x) => x.variable === variable);
                    return h && h.userId ? { userOid: `USR.${h.userId}`, locationOid: `LOC.${s.siteNo}`, dateTime: new Date(h.at).toISOString(), ...(h.reason ? { reason: h.reason } : {}) } : undefined;
                  },
                }
              : {}),
          });
          if (!groups.length) continue;
          const repeat = visit.unscheduled ? (unschedOf.get(`${s.id}:${i.visitId}`) ?? []).findIndex((u) => u.id === i.unscheduledId) + 1 || 1 : undefined;
          const key = `${visit.code}:${repeat ?? ''}`;
          let e = events.get(key);
          if (!e) events.set(key, (e = { eventOid: odmOid.event(visit.code), ...(repeat ? { repeatKey: String(repeat) } : {}), forms: [] }));
          e.forms.push({ formOid: odmOid.form(form.code), ...(form.definition.cycle ? { repeatKey: String(i.repeatNo) } : {}), groups });
        }
        done++;
        yield { subjectKey: s.ptsNo, ...(audit ? { siteOid: `LOC.${s.siteNo}` } : {}), events: [...events.values()] };
      }
      await report(done, total);
    }
  }
  for await (const chunk of odmClinicalChunks(
    {
      fileOid: `${studyOid}.${mdvOid}.${input.createdAt.getTime()}`,
      fileType: 'Snapshot',
      granularity: 'AllClinicalData',
      creationDateTime: input.createdAt,
      sourceSystem: 'eSource',
      studyOid,
      metaDataVersionOid: mdvOid,
      ...(audit
        ? {
            adminData: {
              users: userRows.map((u) => ({ oid: `USR.${u.id}`, loginName: u.account, fullName: u.name })),
              locations: siteRows.map((l) => ({ oid: `LOC.${l.siteNo}`, name: l.name, locationType: 'Site' as const })),
            },
          }
        : {}),
    } as Parameters<typeof odmClinicalChunks>[0],
    subjectsOf(),
  ))
    await write(out, chunk);
  await report(total, total);
}

// ── Excel ──

/** A value as text (strings as they are). */
function textOf(v: unknown): string {
  return typeof v === 'string' ? v : typeof v === 'number' || typeof v === 'boolean' ? String(v) : JSON.stringify(v);
}

/** An option's label in the language (the value itself when no option has it). */
function labelOf(f: FieldComponent, v: string, en: boolean): string {
  const o = f.options?.find((x) => x.value === v);
  return o ? (en && o.labelEn) || o.label : v;
}

/**
 * A value as the eCRF shows it: option labels, several choices joined. (No closures made per call: it runs for every
 * cell of a study, 5 million at 100,000 subjects × 50 items.)
 */
function shown(f: FieldComponent, raw: unknown, en: boolean): string | number | null {
  if (raw === null || raw === undefined || raw === '') return null;
  if (f.type === 'checkbox') {
    const list = Array.isArray(raw) ? raw : [raw];
    let out = '';
    for (let i = 0; i < list.length; i++) out += (i ? '; ' : '') + labelOf(f, textOf(list[i]), en);
    return out;
  }
  if (f.type === 'radio' || f.type === 'select') return labelOf(f, textOf(raw), en);
  if (f.type === 'number' && typeof raw === 'number') return raw;
  return textOf(raw);
}

/**
 * One style object for every data cell. exceljs gives each new cell a style object of its own and, with styles on,
 * looks each one up by its XML text, once per cell (a fifth of the Excel export's time); a shared object is looked
 * up once (its WeakMap). Data cells carry no style: only the header row is bold.
 */
const PLAIN_CELL: Partial<ExcelJS.Style> = {};
const plainCell = (cell: ExcelJS.Cell) => {
  cell.style = PLAIN_CELL;
};

async function generateXlsx(input: GenerateInput<StudyExportRequest>, out: Writable, report: ReportProgress): Promise<void> {
  const scope = await scopeOf(input);
  const d = await designOf(input.db, input.projectId, scope.versionId);
  const en = input.language === 'en_US';
  const t = translator(input.language);
  // loaded by the Excel export only (an ODM or Dataset-JSON export process does not hold exceljs)
  const { default: Excel } = await import('exceljs');
  const wb = new Excel.stream.xlsx.WorkbookWriter({ stream: out, useSharedStrings: false, useStyles: true });
  // each status's label once (a translation per row was a tenth of the export's time)
  const statusLabels = new Map<number, string>();
  const status = (n: number) => {
    let l = statusLabels.get(n);
    if (l === undefined) statusLabels.set(n, (l = t(`exports.study.status.${n}`)));
    return l;
  };
  const totals = await input.db
    .select({ formId: crfInstances.formId, n: sql<number>`count(*)::int` })
    .from(crfInstances)
    .innerJoin(subjects, eq(subjects.id, crfInstances.subjectId))
    .where(and(subjectWhere(scope), isNull(crfInstances.deletedAt)))
    .groupBy(crfInstances.formId);
  const total = totals.reduce((a, x) => a + x.n, 0);
  let done = 0;
  // one pass per form: each sheet is written whole and committed before the next (exceljs streams one sheet at a time)
  for (const form of d.forms) {
    const fields = formFields(form.definition.components);
    const ws = wb.addWorksheet(fileSafe(form.code).slice(0, 31));
    const head = [t('exports.study.col.subject'), t('exports.study.col.site'), t('exports.study.col.visit'), t('exports.study.col.repeat'), t('exports.study.col.status'), ...fields.map((f) => `${(en && f.labelEn) || f.label}${f.unit ? ` (${f.unit})` : ''} [${f.variable}]`)];
    const headerRow = ws.addRow(head);
    headerRow.font = { bold: true };
    headerRow.commit();
    for await (const rows of formInstancePages(input.db, scope, form.id)) {
      for (const r of rows) {
        const visit = d.visits.get(r.visitId);
        const row = ws.addRow([r.ptsNo, r.siteNo, visit ? (en && visit.nameEn) || visit.name : '', r.unscheduledId ? `${r.repeatNo} (U${r.unscheduledId})` : r.repeatNo, status(r.status), ...fields.map((f) => shown(f, valueAt(r.values, f.variable), en))]);
        row.eachCell({ includeEmpty: true }, plainCell);
        row.commit();
      }
      // wait for the zip to take this page before writing the next (exceljs does not: see xlsx-backpressure.ts)
      await sheetDrained(ws);
      done += rows.length;
      await report(done, total);
    }
    ws.commit();
  }
  await wb.commit();
  await report(total, total);
}

// ── Dataset-JSON 1.1 ──

function datasetType(f: FieldComponent): string {
  switch (f.type) {
    case 'number':
      return f.precision ? 'decimal' : 'integer';
    case 'date':
      return f.partialDate ? 'string' : 'date';
    case 'datetime':
      return 'datetime';
    case 'file':
      return 'URI';
    case 'checkbox':
    case 'radio':
    case 'select':
    case 'text':
    case 'textarea':
      return 'string';
  }
}

async function generateDatasetJson(input: GenerateInput<StudyExportRequest>, out: Writable, report: ReportProgress): Promise<void> {
  const scope = await scopeOf(input);
  const d = await designOf(input.db, input.projectId, scope.versionId);
  const form = d.forms.find((f) => f.id === input.params.formId);
  if (!form) throw new AppError('INVALID_REFERENCE', { field: 'formId' });
  const en = input.language === 'en_US';
  const fields = formFields(form.definition.components);
  const where = and(subjectWhere(scope), eq(crfInstances.formId, form.id), isNull(crfInstances.deletedAt));
  const [{ n: records } = { n: 0 }] = await input.db.select({ n: sql<number>`count(*)::int` }).from(crfInstances).innerJoin(subjects, eq(subjects.id, crfInstances.subjectId)).where(where);
  const studyOid = odmOid.study(d.project.no);
  const col = (itemOID: string, name: string, label: string, dataType: string, extra: Record<string, unknown> = {}) => ({ itemOID, name, label, dataType, ...extra });
  const columns = [
    col(`IT.${form.code}.ITEMGROUPDATASEQ`, 'ITEMGROUPDATASEQ', 'Record identifier', 'integer', { keySequence: 1 }),
    col(`IT.${form.code}.SUBJID`, 'SUBJID', 'Subject identifier', 'string', { keySequence: 2 }),
    col(`IT.${form.code}.SITEID`, 'SITEID', 'Site identifier', 'string'),
    col(`IT.${form.code}.VISIT`, 'VISIT', 'Visit', 'string', { keySequence: 3 }),
    col(`IT.${form.code}.FORMSEQ`, 'FORMSEQ', 'Form repeat', 'integer', { keySequence: 4 }),
    ...fields.map((f) => col(odmOid.item(form.code, f.variable), f.variable, (en && f.labelEn) || f.label, datasetType(f), f.type === 'number' && f.precision ? { displayFormat: `${f.precision}` } : {})),
  ];
  const head = {
    datasetJSONCreationDateTime: input.createdAt.toISOString().slice(0, 19),
    datasetJSONVersion: '1.1.0',
    fileOID: `${studyOid}.${form.code}.${input.createdAt.getTime()}`,
    dbLastModifiedDateTime: new Date().toISOString().slice(0, 19),
    originator: 'eSource',
    sourceSystem: { name: 'eSource', version: process.env.npm_package_version ?? '0.1.0' },
    studyOID: studyOid,
    metaDataVersionOID: odmOid.metaDataVersion(d.version.name),
    itemGroupOID: odmOid.itemGroup(form.code),
    isReferenceData: false,
    records,
    name: form.code,
    label: (en && form.nameEn) || form.name,
    columns,
  };
  const json = JSON.stringify(head);
  await write(out, `${json.slice(0, -1)},"rows":[`);
  let seq = 0;
  for await (const rows of formInstancePages(input.db, scope, form.id)) {
    let chunk = '';
    for (const r of rows) {
      const cells = fields.map((f) => {
        const v = valueAt(r.values, f.variable);
        if (v === null || v === undefined || v === '') return null;
        if (f.type === 'number') return typeof v === 'number' ? v : Number(v);
        if (f.type === 'checkbox') return (Array.isArray(v) ? v : [v]).map((x) => (typeof x === 'string' ? x : JSON.stringify(x))).join(',');
        if (f.type === 'datetime' && typeof v === 'string') return v.replace(' ', 'T');
        return typeof v === 'string' ? v : JSON.stringify(v);
      });
      chunk += `${seq ? ',' : ''}${JSON.stringify([++seq, r.ptsNo, r.siteNo, d.visits.get(r.visitId)?.code ?? '', r.repeatNo, ...cells])}`;
    }
    await write(out, chunk);
    await report(seq, records);
  }
  await write(out, ']}');
  await report(records, records);
}

export const studyOdmKind: ExportKindDef<StudyExportRequest> = {
  kind: 'study-odm',
  params: studyExportRequest,
  permission: 'crf:result:export',
  contentType: 'application/xml',
  prepare: prepareStudy('odm', 'odm.xml'),
  generate: generateOdm,
  ownProcess: true,
};
export const studyXlsxKind: ExportKindDef<StudyExportRequest> = {
  kind: 'study-xlsx',
  params: studyExportRequest,
  permission: 'crf:result:export',
  contentType: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
  prepare: prepareStudy('xlsx', 'xlsx'),
  generate: generateXlsx,
  ownProcess: true,
};
export const studyDatasetJsonKind: ExportKindDef<StudyExportRequest> = {
  kind: 'study-datasetjson',
  params: studyExportRequest,
  permission: 'crf:result:export',
  contentType: 'application/json',
  prepare: prepareStudy('datasetjson', 'json'),
  generate: generateDatasetJson,
  ownProcess: true,
};

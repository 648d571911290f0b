/**
 * Subject Excel I/O (issue 5): the import template, the all-or-nothing import (POST /project/managePts/importPts)
 * and the streamed export of the filtered list. Every subject is created through SubjectsService.create inside
 * ONE transaction, so each is audited exactly as a single enrolment is, and a failure leaves nothing behind.
 * The export reads the list page by page through SubjectsService.page, so filters, site scope and the masking
 * of identifiers are the list's own.
 */
import { PassThrough, type Readable } from 'node:stream';
import ExcelJS from 'exceljs';
import { and, eq, inArray, sql } from 'drizzle-orm';
import {
  LANGUAGES,
  SUBJECT_EXPORT_COLUMNS,
  SUBJECT_IMPORT_COLUMNS,
  SUBJECT_IMPORT_LIMITS,
  SUBJECT_STATUS,
  subjectCreate,
  type Language,
  type SubjectExportColumn,
  type SubjectExportQuery,
  type SubjectImportColumn,
  type SubjectImportResponse,
  type SubjectRow,
} from '@esource/shared';
import type { z } from 'zod';
import type { Db } from '../../db/client';
import { sites, subjects } from '../../db/schema';
import type { ProjectScopedContext } from '../../lib/context';
import { reachesSite } from '../../lib/site-scope';
import { AppError, type FieldProblem } from '../../lib/errors';
import { cellText, formatTime, normHeader, readXlsxRows, safeRow } from '../../lib/excel';
import { translator } from '../../lib/i18n';
import { sheetDrained } from '../../lib/xlsx-backpressure';
import { parseRow } from '../../lib/validate';
import { actorOf, recordAudit } from '../audit/audit.service';
import { SubjectsService } from './subjects.service';

/** Columns an import row must have; the others may be left out of the sheet. */
const REQUIRED_COLUMNS: readonly SubjectImportColumn[] = ['siteNo', 'firstVisitDate'];
/** Typed as text in the template, so that Excel keeps leading zeros and all 18 ID digits. */
const TEXT_COLUMNS: readonly SubjectImportColumn[] = ['ptsNo', 'siteNo', 'medicalRecordId', 'inpatientId', 'outpatientId', 'idCard', 'status'];
const EXPORT_PAGE = 200;

const header = (lang: Language, key: SubjectImportColumn | SubjectExportColumn) => translator(lang)(`subjectsExcel.columns.${key}`);

export interface SubjectSheetRow {
  /** the row number as Excel shows it (the header is row 1) */
  rowNo: number;
  values: Record<SubjectImportColumn, string>;
}

function fileProblem(lang: Language, message: string, params: Record<string, string | number> = {}): AppError {
  const t = translator(lang);
  const m = t(message, params);
  return new AppError('VALIDATION', { detail: t('validation.field', { field: 'file', message: m }) }, [{ field: 'file', message: m }]);
}

function rowsProblem(lang: Language, problems: FieldProblem[]): AppError {
  const first = problems[0]!;
  return new AppError('VALIDATION', { detail: translator(lang)('validation.field', { field: first.field, message: first.message }) }, problems);
}

/** yyyy-mm-dd of a date cell (Excel dates carry no zone: exceljs reads them as UTC midnight). */
const isoDay = (d: Date) => d.toISOString().slice(0, 10);

/**
 * The text of an import cell. Date cells become yyyy-mm-dd; a whole number in the date column is read as an
 * Excel serial date (a date cell whose format was lost).
 */
function importCellText(key: SubjectImportColumn, v: ExcelJS.CellValue): string {
  const raw = v && typeof v === 'object' && ('formula' in v || 'sharedFormula' in v) ? ((v as { result?: unknown }).result as ExcelJS.CellValue) : v;
  if (raw instanceof Date) return Number.isNaN(raw.getTime()) ? '' : key === 'firstVisitDate' ? isoDay(raw) : cellText(raw);
  if (key === 'firstVisitDate' && typeof raw === 'number' && Number.isInteger(raw) && raw > 0 && raw < 2_958_466) {
    return isoDay(new Date(Date.UTC(1899, 11, 30) + raw * 86_400_000));
  }
  return cellText(raw);
}

/**
 * Reads the subject rows of an uploaded workbook (judged by its zip directory and by parsing, not by its name);
 * limits hold before parsing and rows are streamed in a worker (readXlsxRows). Empty rows are skipped.
 */
export async function readSubjectSheet(buffer: Buffer, lang: Language): Promise<SubjectSheetRow[]> {
  const sheet = await readXlsxRows(buffer, lang, SUBJECT_IMPORT_LIMITS.maxRows);
  const index = new Map<string, SubjectImportColumn>();
  for (const key of SUBJECT_IMPORT_COLUMNS) {
    index.set(normHeader(key), key);
    for (const l of LANGUAGES) index.set(normHeader(header(l, key)), key);
  }
  const columnAt = new Map<number, SubjectImportColumn>();
  const head = sheet[0]?.rowNo === 1 ? sheet[0].cells : [];
  head.forEach((v, i) => {
    const key = index.get(normHeader(cellText(v)));
    if (key && ![...columnAt.values()].includes(key)) columnAt.set(i, key);
  });
  const present = new Set(columnAt.values());
  const missing = REQUIRED_COLUMNS.find((c) => !present.has(c));
  if (missing) throw fileProblem(lang, 'validation.importMissingColumn', { column: header(lang, missing) });

  const rows: SubjectSheetRow[] = [];
  for (const row of sheet) {
    if (row.rowNo === 1) continue;
    const values = Object.fromEntries(SUBJECT_IMPORT_COLUMNS.map((k) => [k, ''])) as Record<SubjectImportColumn, string>;
    let any = false;
    for (const [col, key] of columnAt) {
      const text = importCellText(key, row.cells[col] ?? null);
      values[key] = text;
      if (text !== '') any = true;
    }
    if (!any) continue;
    rows.push({ rowNo: row.rowNo, values });
  }
  if (rows.length === 0) throw fileProblem(lang, 'subjectsExcel.importEmpty');
  return rows;
}

/** The template: translated headers, an example row and a sheet of notes. */
export async function buildSubjectTemplate(lang: Language, example: Record<SubjectImportColumn, string>): Promise<Buffer> {
  const t = translator(lang);
  const wb = new ExcelJS.Workbook();
  wb.creator = 'eSource';
  const ws = wb.addWorksheet(t('subjectsExcel.sheet'), { views: [{ state: 'frozen', ySplit: 1 }] });
  ws.columns = SUBJECT_IMPORT_COLUMNS.map((key) => ({
    header: `${REQUIRED_COLUMNS.includes(key) ? '*' : ''}${header(lang, key)}`,
    key,
    width: key === 'idCard' ? 24 : 18,
    ...(TEXT_COLUMNS.includes(key) ? { style: { numFmt: '@' } } : key === 'firstVisitDate' ? { style: { numFmt: 'yyyy-mm-dd' } } : {}),
  }));
  ws.getRow(1).font = { bold: true };
  const ex = ws.addRow(example);
  ex.font = { italic: true, color: { argb: 'FF808080' } };
  const notes = wb.addWorksheet(t('subjectsExcel.notesSheet'));
  notes.columns = [{ width: 20 }, { width: 100 }];
  notes.addRow([t('subjectsExcel.notes.title')]).font = { bold: true };
  for (const key of SUBJECT_IMPORT_COLUMNS) notes.addRow([header(lang, key), t(`subjectsExcel.notes.${key}`)]);
  notes.addRow([]);
  notes.addRow(['', t('subjectsExcel.notes.example')]);
  notes.addRow(['', t('subjectsExcel.notes.allOrNothing')]);
  return Buffer.from(await wb.xlsx.writeBuffer());
}

/** Current visit as the list shows it: its name, 'all visits done' when none is left, else empty. */
function currentVisitText(lang: Language, r: SubjectRow): string {
  if (r.currentVisitName) return r.currentVisitName;
  return (r.formsTotal ?? 0) > 0 ? translator(lang)('subjectsExcel.allVisitsDone') : '';
}

/**
 * Streams the exported subjects as an .xlsx, writing each page as it arrives. A failure half-way destroys the
 * stream (the download breaks rather than ending short).
 */
export function streamSubjectExport(
  lang: Language,
  timeZone: string,
  siteNoOf: (siteId: number) => string,
  pages: AsyncIterable<SubjectRow[]>,
): Readable {
  const t = translator(lang);
  const out = new PassThrough();
  const wb = new ExcelJS.stream.xlsx.WorkbookWriter({ stream: out, useStyles: true, useSharedStrings: false });
  const ws = wb.addWorksheet(t('subjectsExcel.sheet'), { views: [{ state: 'frozen', ySplit: 1 }] });
  ws.columns = SUBJECT_EXPORT_COLUMNS.map((key) => ({ header: header(lang, key), key, width: key === 'siteName' || key === 'idCard' ? 24 : 16 }));
  ws.getRow(1).font = { bold: true };
  const write = async () => {
    for await (const page of pages) {
      for (const r of page) {
        const row: Record<SubjectExportColumn, string> = {
          ptsNo: r.ptsNo,
          siteNo: siteNoOf(r.siteId),
          siteName: r.siteName,
          status: t(`subjectStatus.${r.status}`, { defaultValue: String(r.status) }),
          initials: r.initials ?? '',
          firstVisitDate: r.firstVisitDate,
          medicalRecordId: r.medicalRecordId ?? '',
          inpatientId: r.inpatientId ?? '',
          outpatientId: r.outpatientId ?? '',
          idCard: r.idCard ?? '',
          currentVisit: currentVisitText(lang, r),
          formProgress: (r.formsTotal ?? 0) > 0 ? `${r.formsDone ?? 0}/${r.formsTotal}` : '',
          createTime: formatTime(new Date(r.createTime), timeZone),
        };
        ws.addRow(safeRow(row)).commit();
      }
      // wait for the zip (and the download) to take the page before reading the next
      await sheetDrained(ws);
    }
    ws.commit();
    await wb.commit();
  };
  write().catch((err: unknown) => out.destroy(err instanceof Error ? err : new Error(String(err))));
  return out;
}

type CreateInput = z.output<typeof subjectCreate>;
const rowFields = subjectCreate.omit({ siteId: true, status: true });

export class SubjectsExcelService {
  private readonly subjects: SubjectsService;

  constructor(private readonly db: Db) {
    this.subjects = new SubjectsService(db);
  }

  /** Sites of this project and environment, with whether the caller may enrol there. */
  private async siteChoices(ctx: ProjectScopedContext) {
    const list = await this.db
      .select({ id: sites.id, siteNo: sites.siteNo, status: sites.status })
      .from(sites)
      .where(and(eq(sites.projectId, ctx.project.id), eq(sites.env, ctx.env)))
      .orderBy(sites.siteNo);
    const mine = (id: number) => reachesSite(id, ctx);
    return list.map((s) => ({ ...s, mine: mine(s.id) }));
  }

  async template(ctx: ProjectScopedContext): Promise<Buffer> {
    const site = (await this.siteChoices(ctx)).find((s) => s.mine && s.status === 1);
    return buildSubjectTemplate(ctx.language, {
      ptsNo: '',
      siteNo: site?.siteNo ?? '01',
      firstVisitDate: new Date().toISOString().slice(0, 10),
      initials: 'ZS',
      medicalRecordId: 'MR0001',
      inpatientId: '',
      outpatientId: '',
      idCard: '11010519491231002X',
      status: String(SUBJECT_STATUS.screening),
    });
  }

  /** '' → the default; 1 / 7 or their label in either language → the status; anything else → null (bad). */
  private static statusOf(text: string): number | undefined | null {
    if (text === '') return undefined;
    const allowed: number[] = [SUBJECT_STATUS.screening, SUBJECT_STATUS.informedConsent];
    for (const s of allowed) {
      if (text === String(s)) return s;
      if (LANGUAGES.some((l) => translator(l)(`subjectStatus.${s}`).toLowerCase() === text.toLowerCase())) return s;
    }
    return null;
  }

  /**
   * Imports subjects from an .xlsx, all or nothing: every row is checked first (the rules of a single enrolment,
   * the site among the caller's sites, subject numbers unique in the file and in the project); with any problem
   * nothing is written and every bad row and column is named. Otherwise all rows are created in one transaction.
   */
  async importWorkbook(ctx: ProjectScopedContext, file: Buffer): Promise<SubjectImportResponse> {
    const lang = ctx.language;
    const t = translator(lang);
    const sheet = await readSubjectSheet(file, lang);
    const siteList = await this.siteChoices(ctx);
    const wanted = [...new Set(sheet.map((r) => r.values.ptsNo.toLowerCase()).filter((n) => n !== ''))];
    const taken = new Set<string>();
    for (let i = 0; i < wanted.length; i += 500) {
      const found = await this.db
        .select({ no: sql<string>`lower(${subjects.ptsNo})` })
        .from(subjects)
        .where(and(eq(subjects.projectId, ctx.project.id), eq(subjects.env, ctx.env), inArray(sql`lower(${subjects.ptsNo})`, wanted.slice(i, i + 500))));
      for (const f of found) taken.add(f.no);
    }

    const problems: FieldProblem[] = [];
    const firstRowOf = new Map<string, number>();
    const valid: { rowNo: number; input: CreateInput }[] = [];
    for (const { rowNo, values: v } of sheet) {
      const out: FieldProblem[] = [];
      const fields = parseRow(
        rowFields,
        {
          ptsNo: v.ptsNo,
          // an empty required cell reads as missing ("required")
          firstVisitDate: v.firstVisitDate === '' ? undefined : v.firstVisitDate,
          initials: v.initials,
          medicalRecordId: v.medicalRecordId,
          inpatientId: v.inpatientId,
          outpatientId: v.outpatientId,
          idCard: v.idCard,
        },
        lang,
        out,
      );
      let siteId: number | null = null;
      if (v.siteNo === '') out.push({ field: 'siteNo', message: t('validation.required') });
      else {
        const site = siteList.find((s) => s.siteNo.toLowerCase() === v.siteNo.toLowerCase());
        if (!site || site.status !== 1) out.push({ field: 'siteNo', message: t('subjectsExcel.siteNotFound', { siteNo: v.siteNo }) });
        else if (!site.mine) out.push({ field: 'siteNo', message: t('subjectsExcel.siteNotYours', { siteNo: v.siteNo }) });
        else siteId = site.id;
      }
      const status = SubjectsExcelService.statusOf(v.status);
      if (status === null) out.push({ field: 'status', message: t('subjectsExcel.statusInvalid') });
      if (v.ptsNo !== '' && !out.some((p) => p.field === 'ptsNo')) {
        const key = v.ptsNo.toLowerCase();
        const first = firstRowOf.get(key);
        if (first !== undefined) out.push({ field: 'ptsNo', message: t('subjectsExcel.ptsNoInFile', { row: first }) });
        else {
          firstRowOf.set(key, rowNo);
          if (taken.has(key)) out.push({ field: 'ptsNo', message: t('subjectsExcel.ptsNoTaken', { value: v.ptsNo }) });
        }
      }
      if (out.length) {
        const order = (f: string) => SUBJECT_IMPORT_COLUMNS.indexOf(f as SubjectImportColumn);
        out.sort((a, b) => order(a.field) - order(b.field));
        for (const p of out) problems.push({ field: `row ${rowNo}: ${p.field}`, message: p.message });
      } else valid.push({ rowNo, input: { ...fields!, siteId: siteId!, status: (status ?? SUBJECT_STATUS.screening) as CreateInput['status'] } });
    }
    if (problems.length) throw rowsProblem(lang, problems);

    // rows with a number first, so that generated numbers (<siteNo>-NNN, counted per site) step around them
    const ordered = [...valid.filter((r) => r.input.ptsNo), ...valid.filter((r) => !r.input.ptsNo)];
    const created: SubjectImportResponse['subjects'] = [];
    await this.db.transaction(async (tx) => {
      for (const { rowNo, input } of ordered) {
        try {
          const s = await this.subjects.create(ctx, input, tx);
          created.push({ rowNo, ptsId: s.ptsId, ptsNo: s.ptsNo });
        } catch (err) {
          if (!(err instanceof AppError)) throw err;
          // checked above, so this is a generated number already in use or a change made meanwhile: name the row
          // (the transaction rolls back: nothing of the file is kept)
          const column = err.code === 'DUPLICATE' ? 'ptsNo' : err.code === 'SITE_FORBIDDEN' || err.params.field === 'siteId' ? 'siteNo' : 'ptsNo';
          const message =
            err.code === 'DUPLICATE' && !input.ptsNo
              ? t('subjectsExcel.generatedTaken', { value: String(err.params.value ?? '') })
              : t(`errors.${err.code}`, err.params);
          throw rowsProblem(lang, [{ field: `row ${rowNo}: ${column}`, message }]);
        }
      }
    });
    created.sort((a, b) => a.rowNo - b.rowNo);
    return { imported: created.length, subjects: created };
  }

  /**
   * The filtered list as a streamed .xlsx, read page by page through the list itself (same filters, site scope
   * and masking). The export is audited: it may carry identifiers.
   */
  async export(ctx: ProjectScopedContext, query: SubjectExportQuery): Promise<Readable> {
    const { timeZone, ...filters } = query;
    const q = { ...filters, pageNumber: 1, pageSize: EXPORT_PAGE };
    const first = await this.subjects.page(ctx, q, false);
    await this.db.transaction((tx) =>
      recordAudit(tx, actorOf(ctx), [
        { action: 'subject.export', entity: 'subject', projectId: ctx.project.id, newValue: first.totalCount, reason: JSON.stringify(query) },
      ]),
    );
    // the site number (what the import takes), not the organisation code the row carries
    const siteNos = new Map((await this.siteChoices(ctx)).map((x) => [x.id, x.siteNo]));
    const svc = this.subjects;
    const pageCount = Math.ceil(first.totalCount / EXPORT_PAGE);
    async function* pages() {
      yield first.content;
      for (let n = 2; n <= pageCount; n++) {
        const p = await svc.page(ctx, { ...q, pageNumber: n }, false);
        if (p.content.length === 0) return;
        yield p.content;
      }
    }
    return streamSubjectExport(ctx.language, timeZone, (id) => siteNos.get(id) ?? '', pages());
  }
}

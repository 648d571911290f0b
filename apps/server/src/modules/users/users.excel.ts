/**
 * Excel I/O of the user module (exceljs): the import template, reading an uploaded workbook, and the streamed
 * export. Headers are in the request's language; an uploaded file may use either language's headers.
 */
import { PassThrough, type Readable } from 'node:stream';
import ExcelJS from 'exceljs';
import { LANGUAGES, USER_IMPORT_COLUMNS, USER_IMPORT_LIMITS, type Language, type UserImportColumn } from '@esource/shared';
import { AppError } from '../../lib/errors';
import { cellText, formatTime, normHeader, readXlsxRows, safeRow } from '../../lib/excel';
import { translator } from '../../lib/i18n';
import { sheetDrained } from '../../lib/xlsx-backpressure';
import type { UserListRecord } from './users.repo';

/** Columns an import row must have; the others may be left out of the sheet. */
const REQUIRED_COLUMNS: readonly UserImportColumn[] = ['account', 'name', 'phone', 'orgName', 'loginTypes'];
/** Typed as text in the template, so that Excel keeps leading digits and all 18 ID digits. */
const TEXT_COLUMNS: readonly UserImportColumn[] = ['account', 'phone', 'idNumber', 'loginTypes'];

const EXPORT_COLUMNS = [
  'account',
  'name',
  'phone',
  'mail',
  'orgName',
  'deptName',
  'loginTypes',
  'systemRoleCode',
  'permissionGroupName',
  'status',
  'lastLoginTime',
  'createTime',
] as const;

function header(lang: Language, key: string): string {
  return translator(lang)(`users.columns.${key}`);
}

/** The import template: one sheet with the translated headers and an example row, and a sheet of notes. */
export async function buildTemplate(lang: Language, example: Record<UserImportColumn, string>): Promise<Buffer> {
  const t = translator(lang);
  const wb = new ExcelJS.Workbook();
  wb.creator = 'eSource';
  const ws = wb.addWorksheet(t('users.sheet'), { views: [{ state: 'frozen', ySplit: 1 }] });
  ws.columns = USER_IMPORT_COLUMNS.map((key) => ({
    header: header(lang, key),
    key,
    width: key === 'idNumber' || key === 'mail' ? 24 : 16,
    ...(TEXT_COLUMNS.includes(key) ? { style: { numFmt: '@' } } : {}),
  }));
  ws.getRow(1).font = { bold: true };
  const ex = ws.addRow(example);
  ex.font = { italic: true, color: { argb: 'FF808080' } };
  const notes = wb.addWorksheet(t('users.notesSheet'));
  notes.columns = [{ width: 18 }, { width: 100 }];
  notes.addRow([t('users.notes.title')]).font = { bold: true };
  for (const key of USER_IMPORT_COLUMNS) notes.addRow([header(lang, key), t(`users.notes.${key}`)]);
  notes.addRow([]);
  notes.addRow(['', t('users.notes.example')]);
  notes.addRow(['', t('users.notes.password')]);
  return Buffer.from(await wb.xlsx.writeBuffer());
}

export interface SheetRow {
  /** the row number as Excel shows it (the header is row 1) */
  rowNo: number;
  values: Record<UserImportColumn, string>;
}

const invalid = (field: string, message: string, params: Record<string, string | number> = {}, lang: Language = 'zh_CN') =>
  new AppError('VALIDATION', { detail: translator(lang)('validation.field', { field, message: translator(lang)(message, params) }) }, [
    { field, message: translator(lang)(message, params) },
  ]);

/** Maps a header cell to its column, in either language ('*' marks and spacing ignored). */
function headerIndex(): Map<string, UserImportColumn> {
  const m = new Map<string, UserImportColumn>();
  const norm = normHeader;
  for (const key of USER_IMPORT_COLUMNS) {
    m.set(norm(key), key);
    for (const lang of LANGUAGES) m.set(norm(header(lang, key)), key);
  }
  return m;
}

/**
 * Reads the user rows of an uploaded workbook. Whether it is an .xlsx is decided by its zip directory and by
 * parsing it, not by its name; limits hold before parsing and rows are streamed in a worker (readXlsxRows).
 * Entirely empty rows are skipped.
 */
export async function readUserSheet(buffer: Buffer, lang: Language): Promise<SheetRow[]> {
  const sheet = await readXlsxRows(buffer, lang, USER_IMPORT_LIMITS.maxRows);
  const index = headerIndex();
  const norm = normHeader;
  const columnAt = new Map<number, UserImportColumn>();
  const head = sheet[0]?.rowNo === 1 ? sheet[0].cells : [];
  head.forEach((v, i) => {
    const key = index.get(norm(cellText(v)));
    if (key && ![...columnAt.values()].includes(key)) columnAt.set(i, key);
  });
  const present = new Set(columnAt.values());
  const missing = REQUIRED_COLUMNS.find((c) => !present.has(c));
  if (missing) throw invalid('file', 'validation.importMissingColumn', { column: header(lang, missing) }, lang);

  const rows: SheetRow[] = [];
  for (const row of sheet) {
    if (row.rowNo === 1) continue;
    const values = Object.fromEntries(USER_IMPORT_COLUMNS.map((k) => [k, ''])) as Record<UserImportColumn, string>;
    let any = false;
    for (const [col, key] of columnAt) {
      const text = cellText(row.cells[col] ?? null);
      values[key] = text;
      if (text !== '') any = true;
    }
    if (!any) continue;
    rows.push({ rowNo: row.rowNo, values });
  }
  if (rows.length === 0) throw invalid('file', 'validation.importEmpty', {}, lang);
  return rows;
}

/**
 * Streams the exported users as an .xlsx: rows are written as the batches arrive, so memory stays flat however
 * many users there are. A failure half-way destroys the stream (the download breaks rather than ending short).
 */
export function streamUserExport(lang: Language, timeZone: string, batches: AsyncIterable<UserListRecord[]>): Readable {
  const t = translator(lang);
  const out = new PassThrough();
  const wb = new ExcelJS.stream.xlsx.WorkbookWriter({ stream: out, useStyles: true, useSharedStrings: false });
  const ws = wb.addWorksheet(t('users.sheet'), { views: [{ state: 'frozen', ySplit: 1 }] });
  ws.columns = EXPORT_COLUMNS.map((key) => ({ header: header(lang, key), key, width: key === 'mail' ? 26 : 18 }));
  ws.getRow(1).font = { bold: true };
  const write = async () => {
    for await (const batch of batches) {
      for (const u of batch) {
        ws.addRow(safeRow({
          account: u.account,
          name: u.name,
          phone: u.phone ?? '',
          mail: u.mail ?? '',
          orgName: u.orgName ?? '',
          deptName: u.deptName ?? '',
          loginTypes: u.loginTypes.join(','),
          systemRoleCode: u.systemRoleCode ?? '',
          permissionGroupName: u.permissionGroupName ?? '',
          status: t(`users.status.${u.status}`, { defaultValue: String(u.status) }),
          lastLoginTime: formatTime(u.lastLoginAt, timeZone),
          createTime: formatTime(u.createdAt, timeZone),
        })).commit();
      }
      await sheetDrained(ws);
    }
    ws.commit();
    await wb.commit();
  };
  write().catch((err: unknown) => out.destroy(err instanceof Error ? err : new Error(String(err))));
  return out;
}

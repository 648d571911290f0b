/**
 * Dictionary import files (issue 13 item 5): an .xlsx (first sheet, read in the import worker like every other
 * import) or a CSV text file (UTF-8, or GB18030 as Excel saves "CSV" on Chinese Windows; comma or tab separated,
 * parsed by csv-parse). Columns code, term_zh, term_en and synonyms (';' or '；' between them), with headers as keys
 * or their names in either language. Everything is checked before anything is written: every problem is named by
 * row and column (at most PROBLEMS_MAX, then how many more), so that a refused file can be fixed in one go.
 */
import { Readable } from 'node:stream';
import { parse as parseCsv, CsvError } from 'csv-parse';
import ExcelJS from 'exceljs';
import {
  DICTIONARY_COLUMNS,
  DICTIONARY_LIMITS,
  DICTIONARY_REQUIRED_COLUMNS,
  LANGUAGES,
  SYNONYM_SEPARATOR,
  type DictionaryColumn,
  type DictionaryKind,
  type Language,
} from '@esource/shared';
import { AppError, type FieldProblem } from '../../lib/errors';
import { cellText, importFileProblem, readXlsxRows } from '../../lib/excel';
import { translator } from '../../lib/i18n';
import { normKey, type TermInput } from './dictionary-keys';

export interface ImportRow extends TermInput {
  /** the row as a spreadsheet shows it (the header is row 1) */
  rowNo: number;
}

/** Problems listed at most; beyond, one line says how many more. */
export const PROBLEMS_MAX = 200;
const L = DICTIONARY_LIMITS;

/** Other header names people use, beside the keys and the catalogue's names in both languages. */
const ALIASES: Record<DictionaryColumn, string[]> = {
  code: ['编码', '代码', '编号', 'code'],
  term_zh: ['中文名称', '中文名', '中文术语', '名称', 'chinese', 'termzh', 'zh'],
  term_en: ['英文名称', '英文名', '英文术语', 'english', 'termen', 'en'],
  synonyms: ['同义词', '别名', '同义名', 'synonym', 'aliases'],
};

/** A header reduced for matching: width, case, spaces, '*', '_' and '-' ignored. */
const normHead = (s: string) =>
  s
    .normalize('NFKC')
    .toLowerCase()
    .replace(/[\s*_-]/g, '');

function headerIndex(): Map<string, DictionaryColumn> {
  const index = new Map<string, DictionaryColumn>();
  for (const col of DICTIONARY_COLUMNS) {
    index.set(normHead(col), col);
    for (const a of ALIASES[col]) index.set(normHead(a), col);
    for (const l of LANGUAGES) index.set(normHead(translator(l)(`dictionaries.columns.${col}`)), col);
  }
  return index;
}

/** The header of a column in the request's language. */
export const columnName = (lang: Language, col: DictionaryColumn) =>
  translator(lang)(`dictionaries.columns.${col}`);

function fileProblems(lang: Language, problems: FieldProblem[]): AppError {
  const t = translator(lang);
  const first = problems[0]!;
  return new AppError(
    'VALIDATION',
    { detail: t('validation.field', { field: first.field, message: first.message }) },
    problems,
  );
}

interface RawRow {
  rowNo: number;
  cells: string[];
}

const XLSX_MAGIC = Buffer.from([0x50, 0x4b, 0x03, 0x04]);
const UTF8_BOM = Buffer.from([0xef, 0xbb, 0xbf]);

/** The text of a CSV upload: UTF-8 (with or without a byte-order mark), else GB18030; null for a binary file. */
function decodeText(buf: Buffer): string | null {
  if (buf.includes(0)) return null;
  if (buf.subarray(0, 3).equals(UTF8_BOM)) return new TextDecoder('utf-8').decode(buf.subarray(3));
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(buf);
  } catch {
    try {
      return new TextDecoder('gb18030', { fatal: true }).decode(buf);
    } catch {
      return null;
    }
  }
}

/** Comma-separated unless the first line has more tabs than commas. */
function delimiterOf(text: string): string {
  const first = text.slice(0, text.search(/\r?\n|$/));
  return (first.match(/\t/g)?.length ?? 0) > (first.match(/,/g)?.length ?? 0) ? '\t' : ',';
}

/**
 * The non-empty rows of a CSV text (header included), parsed in chunks so that a large file does not hold the event
 * loop in one piece; reading stops at the first data row over the limit.
 */
async function readCsvRows(text: string, lang: Language): Promise<RawRow[]> {
  const chunks: string[] = [];
  for (let i = 0; i < text.length; i += 256 * 1024) chunks.push(text.slice(i, i + 256 * 1024));
  const parser = Readable.from(chunks).pipe(
    parseCsv({
      delimiter: delimiterOf(text),
      relax_column_count: true,
      relax_quotes: true,
      info: true,
      max_record_size: 64 * 1024,
    }),
  );
  const rows: RawRow[] = [];
  let dataRows = 0;
  try {
    for await (const r of parser as AsyncIterable<{ record: string[]; info: { records: number } }>) {
      const cells = r.record.map((c) => c.trim());
      if (cells.every((c) => c === '')) continue;
      if (rows.length > 0) dataRows += 1;
      if (dataRows > L.maxRows) {
        parser.destroy();
        throw importFileProblem(lang, 'validation.importTooManyRows', { max: L.maxRows });
      }
      rows.push({ rowNo: r.info.records, cells });
    }
  } catch (err) {
    if (err instanceof CsvError) {
      const line = (err as CsvError & { lines?: number }).lines ?? 0;
      throw importFileProblem(lang, 'dictionaries.problem.csv', {
        line,
        reason: err.message.replace(/^[^:]*:\s*/, ''),
      });
    }
    throw err;
  }
  return rows;
}

/** The rows of an uploaded file, judged by its content: an .xlsx zip, else CSV text. */
async function readRows(buf: Buffer, lang: Language): Promise<RawRow[]> {
  if (buf.subarray(0, 4).equals(XLSX_MAGIC)) {
    const rows = await readXlsxRows(buf, lang, L.maxRows, 16);
    return rows.map((r) => ({ rowNo: r.rowNo, cells: r.cells.map((c) => cellText(c)) }));
  }
  const text = decodeText(buf);
  if (text === null) throw importFileProblem(lang, 'dictionaries.problem.notText');
  return readCsvRows(text, lang);
}

// eslint-disable-next-line no-control-regex -- control characters are what it finds
const CONTROL = /[\u0000-\u001f\u007f]/;
/** Terms and synonyms: line breaks and tabs inside a cell become single spaces. */
const oneLine = (s: string) => s.replace(/\s+/g, ' ').trim();

/**
 * Reads and checks an import file: the header (every column known, none twice, the required ones present) and every
 * row (code present, unique in the file in any letter case, one line; a zh or an en term; lengths; synonyms). With any
 * problem nothing is returned: a VALIDATION error lists them, each as `row N: <column>` (or `file`).
 */
export async function readDictionaryFile(buf: Buffer, lang: Language): Promise<ImportRow[]> {
  const t = translator(lang);
  const raw = await readRows(buf, lang);
  const head = raw[0];
  if (!head || raw.length < 2) throw importFileProblem(lang, 'dictionaries.problem.empty');

  const index = headerIndex();
  const at = new Map<DictionaryColumn, number>();
  const headProblems: FieldProblem[] = [];
  const known = DICTIONARY_COLUMNS.map((c) => `${c} (${columnName(lang, c)})`).join(', ');
  head.cells.forEach((h, i) => {
    if (h === '') return;
    const col = index.get(normHead(h));
    if (!col)
      headProblems.push({
        field: 'file',
        message: t('dictionaries.problem.unknownColumn', { column: h, columns: known }),
      });
    else if (at.has(col))
      headProblems.push({ field: 'file', message: t('dictionaries.problem.duplicateColumn', { column: h }) });
    else at.set(col, i);
  });
  for (const c of DICTIONARY_REQUIRED_COLUMNS) {
    if (!at.has(c))
      headProblems.push({
        field: 'file',
        message: t('dictionaries.problem.missingColumn', { column: columnName(lang, c) }),
      });
  }
  if (headProblems.length) throw fileProblems(lang, headProblems);

  const problems: FieldProblem[] = [];
  let more = 0;
  const problem = (rowNo: number, col: DictionaryColumn, message: string) => {
    if (problems.length < PROBLEMS_MAX) problems.push({ field: `row ${rowNo}: ${col}`, message });
    else more += 1;
  };
  const tooLong = (max: number) => t('dictionaries.problem.tooLong', { max });
  const firstRowOf = new Map<string, number>();
  const out: ImportRow[] = [];
  for (const { rowNo, cells } of raw.slice(1)) {
    const cell = (c: DictionaryColumn) => {
      const i = at.get(c);
      return i === undefined ? '' : (cells[i] ?? '');
    };
    let ok = true;
    const bad = (col: DictionaryColumn, message: string) => {
      problem(rowNo, col, message);
      ok = false;
    };
    const code = cell('code').trim();
    if (code === '') bad('code', t('dictionaries.problem.codeRequired'));
    else if (code.length > L.codeMax) bad('code', tooLong(L.codeMax));
    else if (CONTROL.test(code)) bad('code', t('dictionaries.problem.control'));
    else {
      const key = code.toLowerCase();
      const first = firstRowOf.get(key);
      if (first !== undefined) bad('code', t('dictionaries.problem.duplicateCode', { code, rows: first }));
      else firstRowOf.set(key, rowNo);
    }
    const termZh = oneLine(cell('term_zh')) || null;
    const termEn = oneLine(cell('term_en')) || null;
    if (!termZh && !termEn) bad('term_zh', t('dictionaries.problem.termRequired'));
    if (termZh && termZh.length > L.termZhMax) bad('term_zh', tooLong(L.termZhMax));
    else if (termZh && CONTROL.test(termZh)) bad('term_zh', t('dictionaries.problem.control'));
    if (termEn && termEn.length > L.termEnMax) bad('term_en', tooLong(L.termEnMax));
    else if (termEn && CONTROL.test(termEn)) bad('term_en', t('dictionaries.problem.control'));
    const synonyms: string[] = [];
    const seen = new Set<string>();
    for (const part of cell('synonyms').split(SYNONYM_SEPARATOR)) {
      const s = oneLine(part);
      if (!s || seen.has(normKey(s))) continue;
      seen.add(normKey(s));
      synonyms.push(s);
    }
    if (synonyms.length > L.synonymsMax)
      bad('synonyms', t('dictionaries.problem.tooManySynonyms', { max: L.synonymsMax }));
    else if (synonyms.some((s) => s.length > L.synonymMax)) bad('synonyms', tooLong(L.synonymMax));
    else if (synonyms.some((s) => CONTROL.test(s))) bad('synonyms', t('dictionaries.problem.control'));
    if (ok) out.push({ rowNo, code, termZh, termEn, synonyms });
  }
  if (more > 0)
    problems.push({ field: 'file', message: t('dictionaries.problem.moreProblems', { count: more }) });
  if (problems.length) throw fileProblems(lang, problems);
  return out;
}

/** Example rows of the template, per kind (from the demo sets). */
const EXAMPLES: Record<DictionaryKind, string[][]> = {
  drug: [
    ['313782', '对乙酰氨基酚 325 MG 口服片', 'Acetaminophen 325 MG Oral Tablet', '扑热息痛;泰诺'],
    ['316049', '氢氯噻嗪 25 MG', 'Hydrochlorothiazide 25 MG', 'HCTZ'],
  ],
  diagnosis: [
    ['I10', '原发性高血压', 'Essential (primary) hypertension', '高血压;HTN'],
    ['D70.9', '中性粒细胞减少症', 'Neutropenia, unspecified', '粒细胞减少'],
  ],
  surgery: [
    ['47.09', '阑尾切除术', 'Other appendectomy', '阑尾切除'],
    ['45.23', '结肠镜检查', 'Colonoscopy', '肠镜'],
  ],
  examination: [
    [
      '1742-6',
      '丙氨酸氨基转移酶',
      'Alanine aminotransferase [Enzymatic activity/volume] in Serum or Plasma',
      '谷丙转氨酶;ALT;GPT',
    ],
    ['718-7', '血红蛋白', 'Hemoglobin [Mass/volume] in Blood', 'Hb;HGB'],
  ],
};

/** A CSV field, quoted when it holds a separator, a quote or a line break. */
const csvField = (s: string) => (/[",\r\n]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s);

/** The import template: translated headers (required ones marked *), two example rows of the kind, and notes. */
export async function buildTemplate(
  lang: Language,
  kind: DictionaryKind,
  format: 'xlsx' | 'csv',
): Promise<Buffer> {
  const t = translator(lang);
  // '*': a cell every row must fill (a row needs the zh or the en term, not both)
  const headers = DICTIONARY_COLUMNS.map((c) => `${c === 'code' ? '*' : ''}${columnName(lang, c)}`);
  if (format === 'csv') {
    const lines = [headers, ...EXAMPLES[kind]].map((r) => r.map(csvField).join(','));
    // the byte-order mark makes Excel read the file as UTF-8
    return Buffer.concat([UTF8_BOM, Buffer.from(`${lines.join('\r\n')}\r\n`, 'utf8')]);
  }
  const wb = new ExcelJS.Workbook();
  wb.creator = 'eSource';
  const ws = wb.addWorksheet(t('dictionaries.sheet'), { views: [{ state: 'frozen', ySplit: 1 }] });
  ws.columns = DICTIONARY_COLUMNS.map((c, i) => ({
    header: headers[i],
    key: c,
    width: c === 'code' ? 16 : c === 'term_en' ? 48 : 30,
    style: { numFmt: '@' },
  }));
  ws.getRow(1).font = { bold: true };
  for (const r of EXAMPLES[kind]) ws.addRow(r).font = { italic: true, color: { argb: 'FF808080' } };
  const notes = wb.addWorksheet(t('dictionaries.notesSheet'));
  notes.columns = [{ width: 20 }, { width: 110 }];
  notes.addRow([t('dictionaries.notes.title')]).font = { bold: true };
  notes.addRow([columnName(lang, 'code'), t('dictionaries.notes.code', { max: L.codeMax })]);
  notes.addRow([columnName(lang, 'term_zh'), t('dictionaries.notes.term_zh', { max: L.termZhMax })]);
  notes.addRow([columnName(lang, 'term_en'), t('dictionaries.notes.term_en', { max: L.termEnMax })]);
  notes.addRow([
    columnName(lang, 'synonyms'),
    t('dictionaries.notes.synonyms', { count: L.synonymsMax, max: L.synonymMax }),
  ]);
  notes.addRow([]);
  notes.addRow(['', t('dictionaries.notes.headers')]);
  notes.addRow(['', t('dictionaries.notes.allOrNothing')]);
  notes.addRow(['', t('dictionaries.notes.example')]);
  return Buffer.from(await wb.xlsx.writeBuffer());
}

/**
 * The reports' Excel workbooks, written with exceljs's streaming writer: each row is committed as it is written,
 * so a large missing-data or consistency export keeps the same memory whatever its size. Text cells go through
 * safeRow (formula injection); times are shown in the project's time zone. Each workbook ends with the filters it
 * was made with (a workbook passed on without them would be misread).
 */
import { PassThrough, type Readable } from 'node:stream';
import ExcelJS from 'exceljs';
import {
  type ConsistencyRow,
  type CrfMissingRow,
  type CrfMissingSummary,
  type CrfReport,
  type Language,
  type ReportOptions,
} from '@esource/shared';
import { formatTime, safeRow } from '../../lib/excel';
import { translator } from '../../lib/i18n';

type T = ReturnType<typeof translator>;
type Sheet = ExcelJS.Worksheet;
type Writer = ExcelJS.stream.xlsx.WorkbookWriter;

/** A workbook streamed into the returned stream; a failure half-way breaks the download rather than ending it short. */
function streamWorkbook(write: (wb: Writer) => Promise<void>): Readable {
  const out = new PassThrough();
  const wb = new ExcelJS.stream.xlsx.WorkbookWriter({
    stream: out,
    useStyles: true,
    useSharedStrings: false,
  });
  wb.creator = 'eSource';
  write(wb)
    .then(() => wb.commit())
    .catch((err: unknown) => out.destroy(err instanceof Error ? err : new Error(String(err))));
  return out;
}

function sheet(
  wb: Writer,
  name: string,
  columns: { header: string; key: string; width: number; numFmt?: string }[],
): Sheet {
  const ws = wb.addWorksheet(name, { views: [{ state: 'frozen', ySplit: 1 }] });
  ws.columns = columns.map((c) => ({
    header: c.header,
    key: c.key,
    width: c.width,
    ...(c.numFmt ? { style: { numFmt: c.numFmt } } : {}),
  }));
  ws.getRow(1).font = { bold: true };
  return ws;
}

/** An item value as a cell: text and numbers as they are, a multiple choice joined, anything else as JSON. */
export function valueCell(v: unknown): string | number {
  if (v === null || v === undefined) return '';
  if (typeof v === 'string' || typeof v === 'number') return v;
  if (typeof v === 'boolean') return String(v);
  if (Array.isArray(v))
    return v
      .map((x) => (typeof x === 'string' || typeof x === 'number' ? String(x) : JSON.stringify(x)))
      .join(', ');
  return JSON.stringify(v);
}

/** The filters a report was made with, named (site, version, visit and form by name), for the last sheet. */
export interface FilterNames {
  project: string;
  env: string;
  values: Partial<
    Record<
      'site' | 'version' | 'visit' | 'form' | 'subjectStatus' | 'ptsNo' | 'item' | 'formStatus' | 'reason',
      string
    >
  >;
  figures: [string, string | number][];
}

/** Names of the filters from the report options (what the filter row showed). */
export function filterNames(
  t: T,
  o: ReportOptions,
  f: {
    siteId?: number | undefined;
    versionId?: number | undefined;
    visitCode?: string | undefined;
    formCode?: string | undefined;
    subjectStatus?: number | undefined;
    ptsNo?: string | undefined;
    variable?: string | undefined;
    formStatus?: number | undefined;
    reason?: string | undefined;
  },
): FilterNames['values'] {
  const out: FilterNames['values'] = {};
  if (f.siteId !== undefined) {
    const s = o.sites.find((x) => x.id === f.siteId);
    out.site = s ? `${s.siteNo} ${s.name}` : String(f.siteId);
  }
  if (f.versionId !== undefined)
    out.version = o.versions.find((x) => x.id === f.versionId)?.name ?? String(f.versionId);
  if (f.visitCode !== undefined)
    out.visit = o.visits.find((x) => x.code === f.visitCode)?.name ?? f.visitCode;
  const form = f.formCode !== undefined ? o.forms.find((x) => x.code === f.formCode) : undefined;
  if (f.formCode !== undefined) out.form = form?.name ?? f.formCode;
  if (f.subjectStatus !== undefined)
    out.subjectStatus = t(`subjectStatus.${f.subjectStatus}`, { defaultValue: String(f.subjectStatus) });
  if (f.ptsNo) out.ptsNo = f.ptsNo;
  if (f.variable !== undefined)
    out.item = form?.items.find((x) => x.variable === f.variable)?.label ?? f.variable;
  if (f.formStatus !== undefined) out.formStatus = t(`reports.formStatus.${f.formStatus}`);
  if (f.reason !== undefined) out.reason = t(`reports.reason.${f.reason}`);
  return out;
}

function filtersSheet(wb: Writer, t: T, names: FilterNames, keys: (keyof FilterNames['values'])[]) {
  const ws = sheet(wb, t('reports.sheet.filters'), [
    { header: t('reports.col.filter'), key: 'k', width: 28 },
    { header: t('reports.col.value'), key: 'v', width: 44 },
  ]);
  const rows: [string, string | number][] = [
    [t('reports.filter.project'), names.project],
    [t('reports.filter.env'), names.env],
    ...keys.map((k): [string, string] => [t(`reports.filter.${k}`), names.values[k] ?? t('reports.all')]),
    ...names.figures,
    [t('reports.filter.generated'), new Date().toISOString()],
  ];
  for (const [k, v] of rows) ws.addRow(safeRow({ k, v })).commit();
  ws.commit();
}

/** eCRF completion: by site, by visit, by form, and the filters. */
export function completionWorkbook(
  lang: Language,
  reports: { site: CrfReport; visit: CrfReport; form: CrfReport },
  names: FilterNames,
): Readable {
  const t = translator(lang);
  return streamWorkbook(async (wb) => {
    const groups = [
      ['site', 'bySite'],
      ['visit', 'byVisit'],
      ['form', 'byForm'],
    ] as const;
    for (const [g, sheetKey] of groups) {
      const ws = sheet(wb, t(`reports.sheet.${sheetKey}`), [
        { header: t('reports.col.code'), key: 'code', width: 12 },
        { header: t(`reports.col.${g}`), key: 'name', width: 30 },
        { header: t('reports.col.expected'), key: 'expected', width: 14 },
        { header: t('reports.col.notStarted'), key: 'notStarted', width: 12 },
        { header: t('reports.col.draft'), key: 'draft', width: 10 },
        { header: t('reports.col.completed'), key: 'completed', width: 12 },
        { header: t('reports.col.certified'), key: 'certified', width: 12 },
        { header: t('reports.col.done'), key: 'done', width: 16 },
        { header: t('reports.col.rate'), key: 'rate', width: 14, numFmt: '0.0%' },
      ]);
      const r = reports[g];
      for (const row of r.rows) {
        ws.addRow(
          safeRow({
            code: row.code,
            name: row.name,
            expected: row.expected,
            notStarted: row.notStarted,
            draft: row.draft,
            completed: row.completed,
            certified: row.certified,
            done: row.done,
            rate: row.rate,
          }),
        ).commit();
      }
      const total = ws.addRow(safeRow({ code: '', name: t('reports.total'), ...r.totals }));
      total.font = { bold: true };
      total.commit();
      ws.commit();
    }
    filtersSheet(wb, t, names, ['site', 'version', 'visit', 'form', 'subjectStatus']);
  });
}

/** Missing data: every missing item (chunks as they come), the summary by item, and the filters. */
export function missingWorkbook(
  lang: Language,
  timeZone: string,
  summary: CrfMissingSummary,
  chunks: AsyncIterable<CrfMissingRow[]>,
  names: FilterNames,
): Readable {
  const t = translator(lang);
  return streamWorkbook(async (wb) => {
    const ws = sheet(wb, t('reports.sheet.missing'), [
      { header: t('reports.col.subject'), key: 'ptsNo', width: 14 },
      { header: t('reports.col.site'), key: 'site', width: 24 },
      { header: t('reports.col.visit'), key: 'visit', width: 20 },
      { header: t('reports.col.form'), key: 'form', width: 20 },
      { header: t('reports.col.repeat'), key: 'repeat', width: 8 },
      { header: t('reports.col.formStatus'), key: 'status', width: 12 },
      { header: t('reports.col.item'), key: 'item', width: 24 },
      { header: t('reports.col.variable'), key: 'variable', width: 14 },
      { header: t('reports.col.updatedBy'), key: 'by', width: 18 },
      { header: t('reports.col.updateTime'), key: 'at', width: 20 },
    ]);
    for await (const rows of chunks) {
      for (const r of rows) {
        ws.addRow(
          safeRow({
            ptsNo: r.ptsNo,
            site: r.siteName,
            visit: r.visitName,
            form: r.formName,
            repeat: r.repeatNo,
            status: t(`reports.formStatus.${r.formStatus}`),
            item: r.itemLabel,
            variable: r.variable,
            by: r.updatedBy ?? '',
            at: formatTime(new Date(r.updateTime), timeZone),
          }),
        ).commit();
      }
    }
    ws.commit();
    const byItem = sheet(wb, t('reports.sheet.byItem'), [
      { header: t('reports.col.form'), key: 'form', width: 24 },
      { header: t('reports.col.item'), key: 'item', width: 28 },
      { header: t('reports.col.variable'), key: 'variable', width: 14 },
      { header: t('reports.col.missing'), key: 'missing', width: 14 },
    ]);
    for (const r of summary.byItem)
      byItem
        .addRow(safeRow({ form: r.formName, item: r.itemLabel, variable: r.variable, missing: r.missing }))
        .commit();
    byItem.commit();
    filtersSheet(wb, t, names, [
      'site',
      'version',
      'visit',
      'form',
      'item',
      'formStatus',
      'subjectStatus',
      'ptsNo',
    ]);
  });
}

/** Data consistency: every listed value (chunks as they come) and the filters. */
export function consistencyWorkbook(
  lang: Language,
  timeZone: string,
  chunks: AsyncIterable<ConsistencyRow[]>,
  names: FilterNames,
): Readable {
  const t = translator(lang);
  return streamWorkbook(async (wb) => {
    const ws = sheet(wb, t('reports.sheet.consistency'), [
      { header: t('reports.col.subject'), key: 'ptsNo', width: 14 },
      { header: t('reports.col.site'), key: 'site', width: 22 },
      { header: t('reports.col.visit'), key: 'visit', width: 18 },
      { header: t('reports.col.form'), key: 'form', width: 18 },
      { header: t('reports.col.repeat'), key: 'repeat', width: 8 },
      { header: t('reports.col.item'), key: 'item', width: 22 },
      { header: t('reports.col.variable'), key: 'variable', width: 12 },
      { header: t('reports.col.crfValue'), key: 'crf', width: 14 },
      { header: t('reports.col.filledValue'), key: 'filled', width: 16 },
      { header: t('reports.col.unit'), key: 'unit', width: 10 },
      { header: t('reports.col.reasons'), key: 'reasons', width: 26 },
      { header: t('reports.col.sourceRecord'), key: 'record', width: 12 },
      { header: t('reports.col.sourceCode'), key: 'code', width: 12 },
      { header: t('reports.col.sourceDisplay'), key: 'display', width: 22 },
      { header: t('reports.col.sourceValue'), key: 'sourceValue', width: 14 },
      { header: t('reports.col.sourceUnit'), key: 'sourceUnit', width: 12 },
      { header: t('reports.col.filledSourceValue'), key: 'filledSourceValue', width: 16 },
      { header: t('reports.col.filledSourceUnit'), key: 'filledSourceUnit', width: 14 },
      { header: t('reports.col.versions'), key: 'versions', width: 14 },
      { header: t('reports.col.sourceDate'), key: 'sourceDate', width: 12 },
      { header: t('reports.col.updatedBy'), key: 'by', width: 18 },
      { header: t('reports.col.updateTime'), key: 'at', width: 20 },
    ]);
    let n = 0;
    for await (const rows of chunks) {
      for (const r of rows) {
        n += 1;
        ws.addRow(
          safeRow({
            ptsNo: r.ptsNo,
            site: r.siteName,
            visit: r.visitName,
            form: r.formName,
            repeat: r.repeatNo,
            item: r.itemLabel,
            variable: r.variable,
            crf: valueCell(r.crfValue),
            filled: valueCell(r.filledValue),
            unit: r.itemUnit ?? '',
            reasons: r.reasons.map((x) => t(`reports.reason.${x}`)).join(', '),
            record: r.sourceRecordId,
            code: r.sourceCode ?? '',
            display: r.sourceDisplay ?? '',
            sourceValue: r.sourceValue ?? '',
            sourceUnit: r.sourceUnit ?? '',
            filledSourceValue: r.filledSourceValue ?? '',
            filledSourceUnit: r.filledSourceUnit ?? '',
            versions: `v${r.filledVersion} → v${r.currentVersion}`,
            sourceDate: r.sourceDate ?? '',
            by: r.updatedBy ?? '',
            at: formatTime(new Date(r.updateTime), timeZone),
          }),
        ).commit();
      }
    }
    ws.commit();
    filtersSheet(wb, t, { ...names, figures: [...names.figures, [t('reports.filter.rows'), n]] }, [
      'site',
      'version',
      'visit',
      'form',
      'ptsNo',
      'reason',
    ]);
  });
}

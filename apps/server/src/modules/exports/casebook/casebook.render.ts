/**
 * The casebook PDF (issue 14 item 6): a cover (project, site, subject, design version, what it contains, printed by
 * and when, language), then per visit in plan order (unscheduled occurrences by date) per form (repeats numbered):
 * each item's label in the chosen language, its value as the eCRF shows it (option labels, units, partial dates), entry
 * mode and last change (an eCRF table as a grid, each value's entry mode and last change in a legend under it); the
 * form's status and signatures; with history, every change of each item (when, who, old → new, reason). A blank
 * casebook has the same layout with empty fields and option lists. Times are printed in the project's time zone,
 * which the cover names.
 */
import type { Writable } from 'node:stream';
import { PDFDocument, rgb } from 'pdf-lib';
import type { TFunction } from 'i18next';
import {
  cellText,
  CHOICE_TYPES,
  CRF_STATUS,
  formFields,
  isCalendarDate,
  parseUploadRef,
  partialDateSpan,
  settleConditions,
  type FieldComponent,
  type FormComponent,
  type ItemValues,
  type Language,
  type TableCell,
  type TableComponent,
} from '@esource/shared';
import { translator } from '../../../lib/i18n';
import { casebookFonts, fontkitForPdfLib } from './casebook-font';
import type { CasebookData, CasebookForm, CasebookInstance, CasebookVisit } from './casebook.data';
import { GREY, LIGHT, PdfLayout, type GridCell, type Run, type TableRow } from './pdf-layout';

export interface CasebookOptions {
  mode: 'blank' | 'filled';
  history: boolean;
  signatures: boolean;
  language: Language;
  /** the visits and forms were narrowed down */
  subset: boolean;
  printedBy: string;
  printedAt: Date;
}

const VISIT_FILL = rgb(0.86, 0.9, 0.97);
const NOTE = rgb(0.55, 0.35, 0.05);

const formats = new Map<string, Intl.DateTimeFormat | null>();

/** 'YYYY-MM-DD HH:mm' of an instant in a time zone (an unknown zone falls back to UTC). */
export function zonedTime(at: Date, timeZone: string): string {
  let f = formats.get(timeZone);
  if (f === undefined) {
    try {
      f = new Intl.DateTimeFormat('en-CA', {
        timeZone,
        year: 'numeric',
        month: '2-digit',
        day: '2-digit',
        hour: '2-digit',
        minute: '2-digit',
        hourCycle: 'h23',
      });
    } catch {
      f = null;
    }
    formats.set(timeZone, f);
  }
  if (!f) return `${at.toISOString().slice(0, 16).replace('T', ' ')} UTC`;
  const parts = f.formatToParts(at);
  const get = (t: string) => parts.find((p) => p.type === t)?.value ?? '';
  return `${get('year')}-${get('month')}-${get('day')} ${get('hour')}:${get('minute')}`;
}

/** The zone's offset at an instant, as 'UTC+08:00'. */
function zoneOffset(at: Date, timeZone: string): string {
  try {
    const name =
      new Intl.DateTimeFormat('en-US', { timeZone, timeZoneName: 'longOffset' })
        .formatToParts(at)
        .find((p) => p.type === 'timeZoneName')?.value ?? 'GMT';
    return name === 'GMT' ? 'UTC' : name.replace('GMT', 'UTC');
  } catch {
    return 'UTC';
  }
}

const blankValue = (v: unknown) =>
  v === null || v === undefined || v === '' || (Array.isArray(v) && v.length === 0);

/** An item's label (or option's) in the casebook's language. */
const labelOf = (x: { label: string; labelEn?: string | undefined }, lang: Language) =>
  lang === 'en_US' && x.labelEn ? x.labelEn : x.label;

/** A value as the eCRF shows it: option labels, the unit after a number, a partial date with what is unknown. */
export function valueText(f: FieldComponent, v: unknown, lang: Language): string {
  if (blankValue(v)) return '';
  const t = translator(lang);
  const option = (x: unknown) => {
    const o = f.options?.find((op) => op.value === x);
    return o ? labelOf(o, lang) : String(x);
  };
  switch (f.type) {
    case 'number':
      return `${String(v)}${f.unit ? ` ${f.unit}` : ''}`;
    case 'date':
      if (typeof v === 'string' && !isCalendarDate(v) && partialDateSpan(v))
        return t('casebook.partialDate', {
          value: v,
          unknown: t(v.length === 4 ? 'casebook.unknownMonth' : 'casebook.unknownDay'),
        });
      return String(v);
    case 'radio':
    case 'select':
      return option(v);
    case 'checkbox':
      return (Array.isArray(v) ? v : [v]).map(option).join(lang === 'zh_CN' ? '；' : '; ');
    case 'file':
      return parseUploadRef(v)?.name ?? String(v);
    case 'text':
    case 'textarea':
    case 'datetime':
      return typeof v === 'string' ? v : JSON.stringify(v);
  }
}

/**
 * Renders the casebook and writes the PDF to `out`; `progress` is called after each form (done, total).
 */
export async function renderCasebook(
  data: CasebookData,
  opts: CasebookOptions,
  out: Writable,
  progress: (done: number, total: number) => Promise<void>,
): Promise<void> {
  const lang = opts.language;
  const t = translator(lang);
  const tz = data.project.timezone;
  const when = (d: Date) => zonedTime(d, tz);
  const fonts = await casebookFonts();
  const doc = await PDFDocument.create();
  doc.registerFontkit(fontkitForPdfLib);
  const regular = await doc.embedFont(fonts.regular, { subset: true });
  const bold = await doc.embedFont(fonts.bold, { subset: true });
  const charset = new Set(regular.getCharacterSet());
  const L = new PdfLayout(doc, regular, bold, (cp) => charset.has(cp));
  const filled = opts.mode === 'filled';
  const title = t(filled ? 'casebook.titleFilled' : 'casebook.titleBlank');
  doc.setTitle(L.clean(`${data.subject.ptsNo} ${title}`));
  doc.setSubject(L.clean(`${data.project.no} ${data.project.name}`));
  doc.setProducer('eSource');
  doc.setCreator('eSource casebook');
  doc.setCreationDate(opts.printedAt);
  doc.setLanguage(lang === 'zh_CN' ? 'zh-CN' : 'en-US');

  const total = data.visits.reduce(
    (n, v) => n + v.forms.reduce((m, f) => m + Math.max(1, f.instances.length), 0),
    0,
  );
  let done = 0;
  await progress(0, total);

  // ── cover ──
  L.newPage();
  L.paragraph([{ text: title, bold: true, size: 20 }]);
  L.space(4);
  L.paragraph([{ text: `${data.project.no} · ${data.project.name}`, size: 11, color: GREY }]);
  L.space(14);
  const yes = (b: boolean) => t(b ? 'casebook.yes' : 'casebook.no');
  const versionText = data.version
    ? `V${data.version.versionNo} · ${data.version.name}`
    : t('casebook.noVersion');
  const cover: [string, string][] = [
    [t('casebook.cover.project'), `${data.project.no} · ${data.project.name}`],
    [t('casebook.cover.site'), `${data.site.no} · ${data.site.name}`],
    [t('casebook.cover.subject'), data.subject.ptsNo],
    [t('casebook.cover.initials'), data.subject.initials ?? '—'],
    [
      t('casebook.cover.subjectStatus'),
      t(`subjectStatus.${data.subject.status}`, { defaultValue: String(data.subject.status) }),
    ],
    [t('casebook.cover.firstVisitDate'), data.subject.firstVisitDate],
    [t('casebook.cover.version'), versionText],
    [t('casebook.cover.content'), t(filled ? 'casebook.content.filled' : 'casebook.content.blank')],
    [t('casebook.cover.history'), yes(filled && opts.history)],
    [t('casebook.cover.signatures'), yes(filled && opts.signatures)],
    [
      t('casebook.cover.selection'),
      t(opts.subset ? 'casebook.selection.subset' : 'casebook.selection.all', {
        visits: data.visits.length,
        forms: total,
      }),
    ],
    [t('casebook.cover.language'), t(`casebook.language.${lang}`)],
    [t('casebook.cover.printedBy'), opts.printedBy],
    [t('casebook.cover.printedAt'), `${when(opts.printedAt)} (${tz}, ${zoneOffset(opts.printedAt, tz)})`],
  ];
  L.table(
    [
      { width: 30, header: t('casebook.cover.field') },
      { width: 70, header: t('casebook.cover.value') },
    ],
    cover.map(([k, v]) => ({ cells: [[{ text: k, bold: true }], [{ text: v }]] })),
  );
  L.space(12);
  L.paragraph([{ text: t('casebook.cover.timeNote', { zone: tz }), size: 8, color: GREY }]);
  if (filled && opts.signatures)
    L.paragraph([{ text: t('casebook.cover.signatureNote'), size: 8, color: GREY }]);
  if (data.visits.length === 0) {
    L.space(12);
    L.paragraph([{ text: t(data.version ? 'casebook.nothing' : 'casebook.noVersion'), color: NOTE }]);
  }

  // ── visits and forms ──
  for (const v of data.visits) {
    L.newPage();
    L.heading(visitTitle(v, t, lang), { size: 12, fill: VISIT_FILL, keepWithNext: 60 });
    L.paragraph([{ text: visitLine(v, t), size: 8.5, color: GREY }]);
    L.space(6);
    for (const f of v.forms) {
      const instances: (CasebookInstance | null)[] = filled
        ? f.instances.length
          ? f.instances
          : [null]
        : [null];
      for (const inst of instances) {
        renderForm(L, f, inst, { opts, t, lang, when, filled, cycleBlank: !filled && f.definition.cycle });
        done += 1;
        await progress(done, total);
      }
    }
  }

  const subjectLine = `${data.project.no} · ${t('casebook.cover.subject')} ${data.subject.ptsNo}`;
  L.decorate({ left: subjectLine, right: `${title} · ${data.site.no} ${data.site.name}` }, (page, pages) => ({
    left: t('casebook.footer.printed', {
      by: opts.printedBy,
      at: `${when(opts.printedAt)} ${zoneOffset(opts.printedAt, tz)}`,
    }),
    right: t('casebook.footer.page', { page, pages }),
  }));
  const bytes = await doc.save();
  await new Promise<void>((resolve, reject) => out.write(bytes, (err) => (err ? reject(err) : resolve())));
}

function visitTitle(v: CasebookVisit, t: TFunction, lang: Language): string {
  const name = lang === 'en_US' && v.nameEn ? v.nameEn : v.name;
  return `${v.code} · ${name}${v.label ? ` · ${v.label}` : ''}${v.unscheduled ? ` (${t('casebook.unscheduled')})` : ''}`;
}

function visitLine(v: CasebookVisit, t: TFunction): string {
  if (v.unscheduled) return v.date ? t('casebook.visitOn', { date: v.date }) : t('casebook.visitDateBlank');
  return t('casebook.visitPlanned', {
    planned: v.date ?? '—',
    start: v.window?.start ?? '—',
    end: v.window?.end ?? '—',
  });
}

interface FormCtx {
  opts: CasebookOptions;
  t: TFunction;
  lang: Language;
  when: (d: Date) => string;
  filled: boolean;
  cycleBlank: boolean;
}

function renderForm(L: PdfLayout, f: CasebookForm, inst: CasebookInstance | null, c: FormCtx): void {
  const { t, lang, when } = c;
  const formName =
    lang === 'en_US' && (f.nameEn || f.definition.nameEn) ? (f.nameEn || f.definition.nameEn)! : f.name;
  const repeat = f.definition.cycle ? (inst ? ` #${inst.repeatNo}` : c.cycleBlank ? ' #____' : '') : '';
  L.space(8);
  L.heading(`${formName}${repeat}  (${f.code})`, { size: 10.5, keepWithNext: 50 });
  const status = inst?.status ?? CRF_STATUS.notStarted;
  if (c.filled) {
    const parts = [t('casebook.status.label', { status: t(`casebook.status.${status}`) })];
    if (inst) parts.push(t('casebook.lastSaved', { at: when(inst.updatedAt), by: inst.updatedBy ?? '—' }));
    if (inst?.status === CRF_STATUS.certified && c.opts.signatures && inst.certifiedAt)
      parts.push(t('casebook.certifiedBy', { by: inst.certifiedBy ?? '—', at: when(inst.certifiedAt) }));
    L.paragraph([{ text: parts.join('   ·   '), size: 8.5, color: GREY }]);
    L.space(3);
    if (!inst) {
      L.paragraph([{ text: t('casebook.notStarted'), color: NOTE }]);
      return;
    }
  }

  const values: ItemValues = {};
  if (inst) for (const [k, v] of inst.values) values[k] = v.value;
  const shown = inst ? settleConditions(f.definition.components, values).shown : null;
  const columns = c.filled
    ? [
        { width: 30, header: t('casebook.col.item') },
        { width: 38, header: t('casebook.col.value') },
        { width: 12, header: t('casebook.col.mode') },
        { width: 20, header: t('casebook.col.lastChange') },
      ]
    : [
        { width: 36, header: t('casebook.col.item') },
        { width: 64, header: t('casebook.col.entry') },
      ];
  // items outside tables in a list (label, value, entry mode, last change); each table as a grid where it sits
  let rows: TableRow[] = [];
  const flush = () => {
    if (rows.length) L.table(columns, rows);
    rows = [];
  };
  for (const comp of f.definition.components) {
    if (comp.type === 'table') {
      flush();
      renderGrid(L, comp, inst, shown, c);
      continue;
    }
    const fl = comp;
    if (fl.hidden) continue;
    const label: Run[] = [
      { text: `${labelOf(fl, lang)}${fl.required ? ' *' : ''}`, bold: true },
      { text: fl.variable, size: 7, color: GREY },
    ];
    if (!c.filled) {
      rows.push({ cells: [label, blankEntry(fl, lang, t)] });
      continue;
    }
    const stored = inst!.values.get(fl.variable);
    const hidden = shown !== null && !shown.has(fl.variable);
    const valueRuns: Run[] = [];
    const text = stored ? valueText(fl, stored.value, lang) : '';
    if (hidden && !text) valueRuns.push({ text: t('casebook.notApplicable'), color: GREY, size: 8 });
    else valueRuns.push({ text: text || '—', ...(text ? {} : { color: GREY }) });
    if (stored?.quality === 'range')
      valueRuns.push({ text: t('casebook.outOfRange'), size: 7.5, color: NOTE });
    rows.push({
      cells: [
        label,
        valueRuns,
        [
          {
            text: stored
              ? t(`casebook.mode.${stored.entryMode}`, { defaultValue: String(stored.entryMode) })
              : '—',
            size: 8,
          },
        ],
        stored
          ? [
              { text: stored.updatedBy ?? '—', size: 8 },
              { text: when(stored.updatedAt), size: 7.5, color: GREY },
            ]
          : [{ text: '—', size: 8, color: GREY }],
      ],
    });
  }
  flush();

  if (inst && c.opts.signatures && inst.signatures.length) {
    L.space(4);
    L.paragraph([{ text: t('casebook.signatures'), bold: true, size: 8.5 }], { keepWithNext: 14 });
    for (const s of inst.signatures) {
      const key = s.action === 'certify' ? 'casebook.signed' : 'casebook.unsigned';
      L.paragraph(
        [{ text: t(key, { at: when(s.at), by: s.userName ?? '—', text: s.text ?? '' }), size: 8 }],
        { indent: 8 },
      );
    }
  }

  if (inst && c.opts.history) {
    const fields = new Map(formFields(f.definition.components).map((x) => [x.variable, x]));
    // (an item of a table is named with its table and row: every row of a grid may have the same labels)
    const places = gridPlaces(f.definition.components, lang);
    const order = [...fields.keys()];
    const hist = [...inst.history].sort(
      (a, b) => order.indexOf(a.variable) - order.indexOf(b.variable) || a.at.getTime() - b.at.getTime(),
    );
    L.space(4);
    L.paragraph([{ text: t('casebook.history'), bold: true, size: 8.5 }], { keepWithNext: 30 });
    if (hist.length === 0) {
      L.paragraph([{ text: t('casebook.noHistory'), size: 8, color: GREY }], { indent: 8 });
      return;
    }
    L.table(
      [
        { width: 20, header: t('casebook.col.item') },
        { width: 15, header: t('casebook.col.when') },
        { width: 14, header: t('casebook.col.who') },
        { width: 29, header: t('casebook.col.change') },
        { width: 22, header: t('casebook.col.reason') },
      ],
      hist.map((h) => {
        const fl = fields.get(h.variable);
        const show = (x: unknown) =>
          (fl ? valueText(fl, x, lang) : blankValue(x) ? '' : JSON.stringify(x)) || '—';
        const reason: Run[] = [];
        if (h.cause === 'condition')
          reason.push({ text: t('casebook.clearedByCondition'), size: 7.5, color: NOTE });
        reason.push({ text: h.reason ?? (h.cause ? '' : '—'), size: 8 });
        return {
          cells: [
            [
              { text: fl ? labelOf(fl, lang) : h.variable, size: 8 },
              ...(places.has(h.variable) ? [{ text: places.get(h.variable)!, size: 7, color: GREY }] : []),
            ],
            [{ text: when(h.at), size: 8 }],
            [
              { text: h.userName ?? '—', size: 8 },
              {
                text: t(`casebook.mode.${h.entryMode}`, { defaultValue: String(h.entryMode) }),
                size: 7,
                color: GREY,
              },
            ],
            [{ text: `${show(h.oldValue)} → ${show(h.newValue)}`, size: 8 }],
            reason,
          ],
        };
      }),
    );
  }
}

/** A table's header rows: the leading rows (with the rows their cells span into) that hold no item (0 if none do). */
function headerRowsOf(tb: TableComponent): number {
  let h = 0;
  grow: while (h < tb.rows) {
    let end = h + 1;
    for (let r = h; r < end; r++)
      for (const x of tb.cells)
        if (x.row === r) {
          if (x.component) break grow;
          end = Math.max(end, r + x.rowSpan);
        }
    h = Math.min(end, tb.rows);
  }
  return h >= tb.rows ? 0 : h;
}

/** Where each item of a form's tables sits: the table's label and the grid's row number (rows holding items, from 1). */
function gridPlaces(components: readonly FormComponent[], lang: Language): Map<string, string> {
  const out = new Map<string, string>();
  for (const tb of components) {
    if (tb.type !== 'table') continue;
    const title = labelOf({ label: tb.label, labelEn: tb.labelEn }, lang);
    let n = 0;
    for (let r = headerRowsOf(tb); r < tb.rows; r++) {
      const items = tb.cells.filter((x) => x.row === r && x.component);
      if (items.length) n += 1;
      for (const x of items) out.set(x.component!.variable, `${title ? `${title} ` : ''}#${n}`);
    }
  }
  return out;
}

/** How wide a blank grid cell is at least, to write a value of the type by hand (points). */
const WRITE_IN: Partial<Record<FieldComponent['type'], number>> = {
  text: 80,
  textarea: 120,
  number: 45,
  date: 60,
  datetime: 80,
  file: 60,
};

/** 'a', 'b', … 'z', 'a2', 'b2', …: the marker of the n-th (from 0) distinct entry of a grid's legend. */
const marker = (n: number) => `${String.fromCharCode(97 + (n % 26))}${n >= 26 ? Math.floor(n / 26) + 1 : ''}`;

/**
 * An eCRF table as a grid: the design's leading rows without items as header rows, then a header row naming each
 * column whose items all carry the same label (in the casebook's language; a column whose items differ shows each
 * item's label in its cell), a row-number column, and one row per table row with the cells as designed (merged
 * cells too). Leading columns holding only texts (row labels) are key columns, repeated with the row number when
 * the columns are split into parts. A filled value carries a letter pointing to the legend below the grid: entry
 * mode, who changed it last and when (values entered together share one letter).
 */
function renderGrid(
  L: PdfLayout,
  tb: TableComponent,
  inst: CasebookInstance | null,
  shown: Set<string> | null,
  c: FormCtx,
): void {
  const { t, lang, when } = c;
  const cells = [...tb.cells].sort((a, b) => a.row - b.row || a.col - b.col);
  /** a cell's label text in the casebook's language */
  const textOf = (x: TableCell) => cellText(x, lang);
  const rowsOf = (r: number) => cells.filter((x) => x.row === r);
  const h = headerRowsOf(tb);
  const bodyCells = cells.filter((x) => x.row >= h);
  // key columns: the leading columns whose body cells are texts only (row labels)
  let stub = 0;
  for (let s = 1; s < tb.cols; s++) {
    const left = bodyCells.filter((x) => x.col < s);
    if (left.every((x) => !x.component && x.col + x.colSpan <= s) && left.some((x) => textOf(x))) stub = s;
  }
  // a column's label: the one label all the items starting in it share (then cells show only values); with several
  // rows of items, a column needs two or more items to have one
  const itemRows = new Set(bodyCells.filter((x) => x.component).map((x) => x.row)).size;
  const colLabel = new Map<number, { text: string; span: number }>();
  for (let col = stub; col < tb.cols; col++) {
    const items = bodyCells.filter((x) => x.col === col && x.component);
    if (items.length === 0 || (items.length === 1 && itemRows > 1)) continue;
    const labels = new Set(items.map((x) => labelOf(x.component!, lang)));
    const spans = new Set(items.map((x) => x.colSpan));
    const span = items[0]!.colSpan;
    const clash = bodyCells.some((x) => x.component && x.col > col && x.col < col + span);
    if (labels.size !== 1 || spans.size !== 1 || clash) continue;
    const required = items.every((x) => x.component!.required);
    colLabel.set(col, { text: `${[...labels][0]!}${required ? ' *' : ''}`, span });
  }
  // (a label the design's own header already prints in that column is not repeated)
  const lastHeader = h > 0 ? cells.filter((x) => x.row < h && x.row + x.rowSpan === h) : [];
  const fresh = [...colLabel].filter(
    ([col, l]) => !lastHeader.some((x) => x.col === col && textOf(x)?.trim() === l.text.replace(/ \*$/, '')),
  );
  const uniform = (col: number) => colLabel.has(col);

  const head = (text: string): Run[] => [{ text, bold: true, size: 8 }];
  const header: GridCell[][] = [];
  const headerRows = h + (fresh.length ? 1 : 0);
  for (let r = 0; r < h; r++)
    header.push(
      rowsOf(r).map((x) => ({
        col: x.col + 1,
        colSpan: x.colSpan,
        rowSpan: x.rowSpan,
        runs: textOf(x) ? head(textOf(x)!) : [],
        fill: LIGHT,
      })),
    );
  if (fresh.length)
    header.push(
      fresh.map(([col, l]) => ({ col: col + 1, colSpan: l.span, runs: head(l.text), fill: LIGHT })),
    );
  if (headerRows) header[0]!.unshift({ col: 0, rowSpan: headerRows, runs: head('#'), fill: LIGHT });

  const legend = new Map<string, { mark: string; text: string }>();
  let notApplicable = false;
  const body: GridCell[][] = [];
  let rowNo = 0;
  for (let r = h; r < tb.rows; r++) {
    const row = rowsOf(r);
    const numbered = row.some((x) => x.component);
    if (numbered) rowNo += 1;
    const out: GridCell[] = [
      { col: 0, runs: numbered ? [{ text: String(rowNo), size: 8, color: GREY }] : [] },
    ];
    for (const x of row) {
      const runs: Run[] = [];
      const fl = x.component;
      const label = textOf(x);
      if (label)
        runs.push({ text: label, bold: x.col < stub || Boolean(fl), size: x.col < stub ? 8.5 : 8 });
      if (fl && !fl.hidden) {
        if (!label && !uniform(x.col))
          runs.push({
            text: `${labelOf(fl, lang)}${fl.required ? ' *' : ''}`,
            bold: true,
            size: 7.5,
            color: GREY,
          });
        if (!c.filled) runs.push(...blankCell(fl, lang, t));
        else {
          const stored = inst?.values.get(fl.variable);
          const text = stored ? valueText(fl, stored.value, lang) : '';
          if (text && stored) {
            const key = `${stored.entryMode}|${stored.updatedBy ?? ''}|${when(stored.updatedAt)}`;
            let e = legend.get(key);
            if (!e) {
              e = {
                mark: marker(legend.size),
                text: t('casebook.grid.entry', {
                  mode: t(`casebook.mode.${stored.entryMode}`, { defaultValue: String(stored.entryMode) }),
                  by: stored.updatedBy ?? '—',
                  at: when(stored.updatedAt),
                }),
              };
              legend.set(key, e);
            }
            runs.push({ text, size: 8.5, note: e.mark });
          } else if (shown !== null && !shown.has(fl.variable)) {
            notApplicable = true;
            runs.push({ text: t('casebook.grid.notApplicable'), size: 7.5, color: GREY });
          }
          if (stored?.quality === 'range')
            runs.push({ text: t('casebook.grid.outOfRange'), size: 7, color: NOTE });
        }
      }
      // (a blank casebook's write-in cells are wide enough to write in)
      const room = !c.filled && fl && !fl.hidden ? WRITE_IN[fl.type] : undefined;
      out.push({
        col: x.col + 1,
        colSpan: x.colSpan,
        rowSpan: x.rowSpan,
        runs,
        ...(room ? { minWidth: room } : {}),
      });
    }
    body.push(out);
  }

  L.space(4);
  const title = labelOf({ label: tb.label, labelEn: tb.labelEn }, lang);
  if (title) L.paragraph([{ text: title, bold: true, size: 9 }], { keepWithNext: 40 });
  if (!c.filled && tb.displayCondition)
    L.paragraph(
      [{ text: t('casebook.condition', { condition: tb.displayCondition }), size: 7.5, color: NOTE }],
      {
        keepWithNext: 40,
      },
    );
  L.space(2);
  L.grid({
    columns: tb.cols + 1,
    header,
    rows: body,
    keyColumns: stub + 1,
    ...(c.filled ? {} : { minRowHeight: 24 }),
    partTitle: (part, parts, from, to, count) => [
      { text: t('casebook.grid.part', { part, parts, from, to, count }), size: 7.5, color: GREY },
    ],
  });
  if (legend.size || notApplicable) {
    L.space(2);
    const lines: Run[] = [];
    if (legend.size) {
      lines.push({ text: t('casebook.grid.legend'), size: 7, color: GREY });
      for (const e of legend.values()) lines.push({ text: `${e.mark}  ${e.text}`, size: 7.5, color: GREY });
    }
    if (notApplicable) lines.push({ text: t('casebook.grid.notApplicableNote'), size: 7, color: GREY });
    L.paragraph(lines, { indent: 4, keepTogether: true });
  }
  L.space(4);
}

/** What a blank entry must look like: its unit, date format and range. */
function entryHints(f: FieldComponent, t: TFunction): string[] {
  return [
    f.unit ? t('casebook.unit', { unit: f.unit }) : null,
    f.type === 'date' ? t(f.partialDate ? 'casebook.format.partialDate' : 'casebook.format.date') : null,
    f.type === 'datetime' ? t('casebook.format.datetime') : null,
    f.type === 'number' && (f.min !== undefined || f.max !== undefined)
      ? t('casebook.range', { min: f.min ?? '—', max: f.max ?? '—' })
      : null,
  ].filter((x): x is string => x !== null);
}

/** A blank grid cell: options with empty boxes, or what the entry must look like (the cell is the room to write). */
function blankCell(f: FieldComponent, lang: Language, t: TFunction): Run[] {
  const runs: Run[] = [];
  if (CHOICE_TYPES.includes(f.type))
    for (const o of f.options ?? [])
      runs.push({ text: labelOf(o, lang), mark: f.type === 'checkbox' ? 'square' : 'circle', size: 8 });
  else {
    const hint = entryHints(f, t);
    if (hint.length) runs.push({ text: hint.join('  '), size: 7, color: GREY });
  }
  if (f.displayCondition)
    runs.push({ text: t('casebook.condition', { condition: f.displayCondition }), size: 7, color: NOTE });
  return runs;
}

/** A blank item: options with empty boxes, or an empty field with the unit and what the entry must look like. */
function blankEntry(f: FieldComponent, lang: Language, t: TFunction): Run[] {
  const runs: Run[] = [];
  if (CHOICE_TYPES.includes(f.type)) {
    const mark = f.type === 'checkbox' ? 'square' : 'circle';
    for (const o of f.options ?? []) runs.push({ text: labelOf(o, lang), mark });
  } else {
    runs.push({ text: '', field: true });
    const hint = entryHints(f, t);
    if (hint.length) runs.push({ text: hint.join('   '), size: 7.5, color: GREY });
    if (f.type === 'textarea') runs.push({ text: '', field: true }, { text: '', field: true });
  }
  if (f.displayCondition)
    runs.push({ text: t('casebook.condition', { condition: f.displayCondition }), size: 7.5, color: NOTE });
  return runs;
}

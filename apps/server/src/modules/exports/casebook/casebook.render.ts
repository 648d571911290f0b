/**
 * The casebook PDF (issue 14 item 6): a cover (project, site, subject, design version, what it contains, printed by
 * and when, language), then per visit in plan order (unscheduled occurrences by date) per form (repeats numbered):
 * each item's label in the chosen language, its value as the eCRF shows it (option labels, units, partial dates), entry
 * mode and last change; the form's status and signatures; with history, every change of each item (when, who,
 * old → new, reason). A blank casebook has the same layout with empty fields and option lists. Times are printed in
 * the project's time zone, which the cover names.
 */
import type { Writable } from 'node:stream';
import { PDFDocument, rgb } from 'pdf-lib';
import type { TFunction } from 'i18next';
import {
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
} from '@esource/shared';
import { translator } from '../../../lib/i18n';
import { casebookFonts, fontkitForPdfLib } from './casebook-font';
import type { CasebookData, CasebookForm, CasebookInstance, CasebookVisit } from './casebook.data';
import { GREY, LIGHT, PdfLayout, type Run, type TableRow } from './pdf-layout';

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

/** A form's items in order, each with the text of the table row it sits in (a table's row header), if any. */
type FormItem =
  { kind: 'table'; label: string } | { kind: 'field'; field: FieldComponent; rowLabel: string | null };

function itemsOf(components: readonly FormComponent[], lang: Language): FormItem[] {
  const out: FormItem[] = [];
  for (const c of components) {
    if (c.type !== 'table') {
      out.push({ kind: 'field', field: c, rowLabel: null });
      continue;
    }
    const label = labelOf({ label: c.label, labelEn: c.labelEn }, lang);
    if (label) out.push({ kind: 'table', label });
    const cells = [...c.cells].sort((a, b) => a.row - b.row || a.col - b.col);
    for (const cell of cells) {
      if (!cell.component) continue;
      const rowText =
        cells.find((x) => x.row === cell.row && x.text && !x.component && x.col < cell.col)?.text ?? null;
      out.push({ kind: 'field', field: cell.component, rowLabel: rowText });
    }
  }
  return out;
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
  const items = itemsOf(f.definition.components, lang).filter((x) => x.kind === 'table' || !x.field.hidden);
  const rows: TableRow[] = [];
  for (const it of items) {
    if (it.kind === 'table') {
      rows.push({ span: true, fill: LIGHT, cells: [[{ text: it.label, bold: true }]] });
      continue;
    }
    const fl = it.field;
    const label: Run[] = [
      {
        text: `${it.rowLabel ? `${it.rowLabel} · ` : ''}${labelOf(fl, lang)}${fl.required ? ' *' : ''}`,
        bold: true,
      },
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
  if (rows.length === 0) return;
  L.table(
    c.filled
      ? [
          { width: 30, header: t('casebook.col.item') },
          { width: 38, header: t('casebook.col.value') },
          { width: 12, header: t('casebook.col.mode') },
          { width: 20, header: t('casebook.col.lastChange') },
        ]
      : [
          { width: 36, header: t('casebook.col.item') },
          { width: 64, header: t('casebook.col.entry') },
        ],
    rows,
  );

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
            [{ text: fl ? labelOf(fl, lang) : h.variable, size: 8 }],
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

/** A blank item: options with empty boxes, or an empty field with the unit and what the entry must look like. */
function blankEntry(f: FieldComponent, lang: Language, t: TFunction): Run[] {
  const runs: Run[] = [];
  if (CHOICE_TYPES.includes(f.type)) {
    const mark = f.type === 'checkbox' ? 'square' : 'circle';
    for (const o of f.options ?? []) runs.push({ text: labelOf(o, lang), mark });
  } else {
    runs.push({ text: '', field: true });
    const hint = [
      f.unit ? t('casebook.unit', { unit: f.unit }) : null,
      f.type === 'date' ? t(f.partialDate ? 'casebook.format.partialDate' : 'casebook.format.date') : null,
      f.type === 'datetime' ? t('casebook.format.datetime') : null,
      f.type === 'number' && (f.min !== undefined || f.max !== undefined)
        ? t('casebook.range', { min: f.min ?? '—', max: f.max ?? '—' })
        : null,
    ].filter(Boolean);
    if (hint.length) runs.push({ text: hint.join('   '), size: 7.5, color: GREY });
    if (f.type === 'textarea') runs.push({ text: '', field: true }, { text: '', field: true });
  }
  if (f.displayCondition)
    runs.push({ text: t('casebook.condition', { condition: f.displayCondition }), size: 7.5, color: NOTE });
  return runs;
}

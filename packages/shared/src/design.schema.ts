/**
 * Study design contracts: design versions, stages, visits, and eCRF form definitions (the form designer's JSON),
 * with every rule of spec §5 "Form designer": form name and code required, a non-empty component list, no
 * duplicate option value or mapping, merges refused on the last row/column, display conditions that compile
 * and only read variables of the same form.
 */
import { z } from 'zod';
import { idSchema, intSchema } from './common.schema';
import { conditionError, referencedVariables } from './conditions';
import { siteDetailRow } from './projects.schema';

export const FIELD_TYPES = ['text', 'textarea', 'number', 'date', 'datetime', 'radio', 'checkbox', 'select', 'file'] as const;
export const COMPONENT_TYPES = [...FIELD_TYPES, 'table'] as const;
export type FieldType = (typeof FIELD_TYPES)[number];
export const CHOICE_TYPES: readonly FieldType[] = ['radio', 'checkbox', 'select'];

const boolish = z.preprocess((v) => (v === 'true' || v === '1' ? true : v === 'false' || v === '0' ? false : v), z.boolean());

export const optionSchema = z.object({
  value: z.string().min(1).max(50),
  label: z.string().min(1).max(100),
  labelEn: z.string().max(100).optional(),
  /** code the value maps to in an external EDC or dictionary */
  mapping: z.string().max(50).optional(),
});
export type FormOption = z.infer<typeof optionSchema>;

export const fieldComponent = z.object({
  id: z.string().min(1).max(40),
  type: z.enum(FIELD_TYPES),
  label: z.string().min(1).max(100),
  labelEn: z.string().max(100).optional(),
  /** variable code: unique in the form, what conditions and mappings refer to */
  variable: z.string().regex(/^[A-Za-z][A-Za-z0-9_]{0,39}$/, { message: 'validation.variable' }),
  required: z.boolean().optional(),
  hidden: z.boolean().optional(),
  disabled: z.boolean().optional(),
  readOnly: z.boolean().optional(),
  displayCondition: z.string().max(500).optional(),
  unit: z.string().max(20).optional(),
  precision: z.number().int().min(0).max(6).optional(),
  min: z.number().optional(),
  max: z.number().optional(),
  /** number items: min/max are a soft (expected) range — a value outside is saved with a data-quality warning */
  softRange: z.boolean().optional(),
  /** date and datetime items: a date after today is accepted (off by default: see dateMeaning / ecrf-values.ts) */
  allowFuture: z.boolean().optional(),
  /** date items: a partial date (YYYY-MM, day unknown; YYYY, day and month unknown) is accepted */
  partialDate: z.boolean().optional(),
  /** date items: what the date is (birth adds an age plausibility check); absent: known from the variable code */
  dateMeaning: z.enum(['birth', 'consent', 'visit', 'other']).optional(),
  placeholder: z.string().max(100).optional(),
  options: z.array(optionSchema).max(200).optional(),
});
export type FieldComponent = z.infer<typeof fieldComponent>;

export const tableCell = z.object({
  row: z.number().int().min(0),
  col: z.number().int().min(0),
  rowSpan: z.number().int().min(1).default(1),
  colSpan: z.number().int().min(1).default(1),
  /** a label text or an item in the cell */
  text: z.string().max(200).optional(),
  /** the label text in English (shown to en_US readers, see cellText) */
  textEn: z.string().max(200).optional(),
  component: fieldComponent.optional(),
});
export type TableCell = z.infer<typeof tableCell>;

/**
 * A table cell's label text in the reader's language: the English text when the language is en_US and the cell
 * has one, else the text. Every screen and document that shows a cell text goes through this.
 */
export function cellText(cell: { text?: string | undefined; textEn?: string | undefined }, language: string | undefined): string | undefined {
  return language === 'en_US' && cell.text && cell.textEn ? cell.textEn : cell.text;
}

export const tableComponent = z.object({
  id: z.string().min(1).max(40),
  type: z.literal('table'),
  label: z.string().max(100).default(''),
  labelEn: z.string().max(100).optional(),
  rows: z.number().int().min(1).max(50),
  cols: z.number().int().min(1).max(20),
  cells: z.array(tableCell).max(1000),
  displayCondition: z.string().max(500).optional(),
});
export type TableComponent = z.infer<typeof tableComponent>;

export const formComponent = z.discriminatedUnion('type', [fieldComponent, tableComponent]);
export type FormComponent = z.infer<typeof formComponent>;

/** Every field of a form with the table it sits in (null outside tables), including table cells, in order. */
export function formFieldsInTables(components: readonly FormComponent[]): { field: FieldComponent; table: TableComponent | null }[] {
  const out: { field: FieldComponent; table: TableComponent | null }[] = [];
  for (const c of components) {
    if (c.type === 'table') {
      for (const cell of [...c.cells].sort((a, b) => a.row - b.row || a.col - b.col)) if (cell.component) out.push({ field: cell.component, table: c });
    } else out.push({ field: c, table: null });
  }
  return out;
}

/** Every field of a form, including the ones inside table cells, in order. */
export function formFields(components: readonly FormComponent[]): FieldComponent[] {
  return formFieldsInTables(components).map((x) => x.field);
}

/** The grid positions a table's cells cover; null when two cells overlap or one leaves the grid. */
export function tableCoverage(t: Pick<TableComponent, 'rows' | 'cols' | 'cells'>): string | null {
  const seen = new Set<string>();
  for (const cell of t.cells) {
    if (cell.row + cell.rowSpan > t.rows || cell.col + cell.colSpan > t.cols) return `cell ${cell.row},${cell.col} leaves the table`;
    for (let r = cell.row; r < cell.row + cell.rowSpan; r++)
      for (let c = cell.col; c < cell.col + cell.colSpan; c++) {
        const k = `${r},${c}`;
        if (seen.has(k)) return `cell ${k} is covered twice`;
        seen.add(k);
      }
  }
  return null;
}

export type MergeError = 'mergeLastRow' | 'mergeLastCol' | 'mergeUneven' | 'noCell';

/**
 * Merge-down: the cell at (row, col) absorbs the cell below it. Refused on the last row (spec §5) and when the
 * cell below does not line up. Returns the new cell list or an error key.
 */
export function mergeDown(t: Pick<TableComponent, 'rows' | 'cols' | 'cells'>, row: number, col: number): TableCell[] | MergeError {
  const cell = t.cells.find((c) => c.row === row && c.col === col);
  if (!cell) return 'noCell';
  const belowRow = cell.row + cell.rowSpan;
  if (belowRow >= t.rows) return 'mergeLastRow';
  const below = t.cells.find((c) => c.row === belowRow && c.col === cell.col);
  if (!below || below.colSpan !== cell.colSpan) return 'mergeUneven';
  return t.cells
    .filter((c) => c !== below)
    .map((c) => (c === cell ? { ...c, rowSpan: c.rowSpan + below.rowSpan, component: c.component ?? below.component } : c));
}

/** Merge-right: the cell absorbs the cell to its right. Refused on the last column (spec §5). */
export function mergeRight(t: Pick<TableComponent, 'rows' | 'cols' | 'cells'>, row: number, col: number): TableCell[] | MergeError {
  const cell = t.cells.find((c) => c.row === row && c.col === col);
  if (!cell) return 'noCell';
  const rightCol = cell.col + cell.colSpan;
  if (rightCol >= t.cols) return 'mergeLastCol';
  const right = t.cells.find((c) => c.col === rightCol && c.row === cell.row);
  if (!right || right.rowSpan !== cell.rowSpan) return 'mergeUneven';
  return t.cells
    .filter((c) => c !== right)
    .map((c) => (c === cell ? { ...c, colSpan: c.colSpan + right.colSpan, component: c.component ?? right.component } : c));
}

/** A full grid of 1×1 cells for a new table. */
export function emptyTableCells(rows: number, cols: number): TableCell[] {
  const cells: TableCell[] = [];
  for (let r = 0; r < rows; r++) for (let c = 0; c < cols; c++) cells.push({ row: r, col: c, rowSpan: 1, colSpan: 1 });
  return cells;
}

type Issue = { path: (string | number)[]; message: string };

/** Cross-item rules of a form: unique variables, options, conditions, table geometry. */
export function formProblems(components: readonly FormComponent[]): Issue[] {
  const issues: Issue[] = [];
  const variables = new Set(formFields(components).map((f) => f.variable));
  const seenVars = new Set<string>();
  const checkField = (f: FieldComponent, path: (string | number)[]) => {
    if (seenVars.has(f.variable)) issues.push({ path: [...path, 'variable'], message: 'validation.duplicateVariable' });
    seenVars.add(f.variable);
    if (CHOICE_TYPES.includes(f.type) && (!f.options || f.options.length === 0))
      issues.push({ path: [...path, 'options'], message: 'validation.optionsRequired' });
    const values = new Set<string>();
    const mappings = new Set<string>();
    (f.options ?? []).forEach((o, i) => {
      if (values.has(o.value)) issues.push({ path: [...path, 'options', i, 'value'], message: 'validation.duplicateOptionValue' });
      values.add(o.value);
      if (o.mapping) {
        if (mappings.has(o.mapping)) issues.push({ path: [...path, 'options', i, 'mapping'], message: 'validation.duplicateOptionMapping' });
        mappings.add(o.mapping);
      }
    });
    if (f.type !== 'number' && f.precision !== undefined) issues.push({ path: [...path, 'precision'], message: 'validation.precisionNumberOnly' });
    if (f.min !== undefined && f.max !== undefined && f.min > f.max) issues.push({ path: [...path, 'min'], message: 'validation.minAboveMax' });
    checkCondition(f.displayCondition, [...path, 'displayCondition'], f.variable);
  };
  const checkCondition = (expr: string | undefined, path: (string | number)[], self: string | null) => {
    if (!expr || !expr.trim()) return;
    const err = conditionError(expr);
    if (err) {
      issues.push({ path, message: 'validation.condition' });
      return;
    }
    for (const v of referencedVariables(expr)) {
      if (!variables.has(v) || v === self) issues.push({ path, message: 'validation.conditionVariable' });
    }
  };
  components.forEach((c, i) => {
    if (c.type === 'table') {
      const geo = tableCoverage(c);
      if (geo) issues.push({ path: ['components', i, 'cells'], message: 'validation.tableCells' });
      checkCondition(c.displayCondition, ['components', i, 'displayCondition'], null);
      c.cells.forEach((cell, j) => {
        if (cell.component) checkField(cell.component, ['components', i, 'cells', j, 'component']);
      });
    } else checkField(c, ['components', i]);
  });
  return issues;
}

export const FORM_LAYOUTS = ['vertical', 'horizontal', 'grid'] as const;

/** A form definition as the designer saves it and JSON export/import carries it. */
export const formDefinition = z
  .object({
    name: z.string().trim().min(1, { message: 'validation.formName' }).max(100),
    code: z.string().trim().min(1, { message: 'validation.formCode' }).max(50).regex(/^[A-Za-z0-9_-]*$/, { message: 'validation.formCodeChars' }),
    nameEn: z.string().max(100).optional(),
    cycle: z.boolean().default(false),
    layout: z.enum(FORM_LAYOUTS).default('vertical'),
    labelWidth: z.number().int().min(60).max(400).default(120),
    /** follow-up record type: medical record or scoring */
    recordType: z.enum(['medical', 'scoring']).default('medical'),
    components: z.array(formComponent).min(1, { message: 'validation.componentsEmpty' }).max(500),
  })
  .superRefine((f, ctx) => {
    for (const p of formProblems(f.components)) ctx.addIssue({ code: 'custom', path: p.path, message: p.message });
  });
export type FormDefinition = z.infer<typeof formDefinition>;
export type FormDefinitionInput = z.input<typeof formDefinition>;

/** The JSON export file of one form: a marker, the schema version and the definition. */
export const formExportFile = z.object({
  kind: z.literal('esource.form'),
  schemaVersion: z.literal(1),
  form: formDefinition,
});

// ── versions, stages, visits ──
/** A list of ids from a form body (repeated, comma-separated) or JSON. */
function idList(v: unknown): unknown {
  if (v === undefined || v === '') return [];
  if (Array.isArray(v)) return v as unknown[];
  return typeof v === 'string' || typeof v === 'number' ? String(v).split(',') : v;
}

export const versionRow = z.object({
  id: z.number().int(),
  versionNo: z.number().int(),
  name: z.string(),
  status: z.number().int(),
  publishedEnvs: z.array(z.string()),
  publishedAt: z.string().nullable(),
  collecting: z.boolean(),
  formCount: z.number().int(),
  visitCount: z.number().int(),
  createTime: z.string(),
});
export type VersionRow = z.infer<typeof versionRow>;
/** POST /project/info/import: the new version, and (an ODM file) what of the file the design could not hold */
export const designImportResult = versionRow.extend({
  unmapped: z.array(z.object({ line: z.number().int(), oid: z.string(), what: z.string(), reason: z.string(), message: z.string() })).optional(),
});
export type DesignImportResult = z.infer<typeof designImportResult>;
export const versionCreate = z.object({ name: z.string().min(1).max(50), basedOnId: idSchema.optional() });
export const versionPublish = z.object({
  id: idSchema,
  envs: z.preprocess((v) => (typeof v === 'string' ? v.split(',') : v), z.array(z.enum(['UAT', 'PRO'])).min(1)),
});

export const stageInput = z.object({ versionId: idSchema, name: z.string().min(1).max(50), sortOrder: intSchema(0).default(0) });
export const stageRow = z.object({ id: z.number().int(), versionId: z.number().int(), name: z.string(), sortOrder: z.number().int() });

export const visitInput = z
  .object({
    versionId: idSchema,
    stageId: idSchema.optional(),
    code: z.string().min(1).max(30).regex(/^[A-Za-z0-9_-]+$/, { message: 'validation.formCodeChars' }),
    name: z.string().min(1).max(50),
    /** the name shown when the language is en_US; empty or absent: none (the name is shown) */
    nameEn: z.string().max(50).optional(),
    sortOrder: intSchema(0).default(0),
    dayOffset: intSchema(-3650, 3650).default(0),
    windowBefore: intSchema(0, 365).default(0),
    windowAfter: intSchema(0, 365).default(0),
    unscheduled: boolish.default(false),
    formIds: z.preprocess(idList, z.array(idSchema).max(200)).default([]),
  });
export const visitUpdate = visitInput.omit({ versionId: true }).extend({ id: idSchema });
export const visitRow = z.object({
  id: z.number().int(),
  versionId: z.number().int(),
  stageId: z.number().int().nullable(),
  code: z.string(),
  name: z.string(),
  nameEn: z.string().nullable(),
  sortOrder: z.number().int(),
  dayOffset: z.number().int(),
  windowBefore: z.number().int(),
  windowAfter: z.number().int(),
  unscheduled: z.boolean(),
  formIds: z.array(z.number().int()),
});
export type VisitRow = z.infer<typeof visitRow>;

/**
 * A site's visit schedule (GET /pro/site/schedule/get): the design version in force in the environment (null when
 * none is published to it) with its visits, and the stages and forms those visits name by id.
 */
export const siteSchedule = z.object({
  site: siteDetailRow,
  version: versionRow.nullable(),
  visits: z.array(visitRow),
  stages: z.array(z.object({ id: z.number().int(), name: z.string(), sortOrder: z.number().int() })),
  forms: z.array(z.object({ id: z.number().int(), code: z.string(), name: z.string(), nameEn: z.string().nullable() })),
});
export type SiteSchedule = z.infer<typeof siteSchedule>;

export const formSave = z.object({
  versionId: idSchema,
  /** absent: a new form */
  id: idSchema.optional(),
  /** the lockVersion the editor loaded (optimistic locking) */
  lockVersion: idSchema.optional(),
  definition: formDefinition,
});
export const formRow = z.object({
  id: z.number().int(),
  versionId: z.number().int(),
  code: z.string(),
  name: z.string(),
  nameEn: z.string().nullable(),
  lockVersion: z.number().int(),
  fieldCount: z.number().int(),
  definition: formDefinition,
  updateTime: z.string(),
});
export type FormRow = z.infer<typeof formRow>;
export const formListQuery = z.object({ versionId: idSchema });

/** A project's whole design as one file: stages, forms and visits (with their forms by code). */
export const designExportFile = z
  .object({
    kind: z.literal('esource.design'),
    schemaVersion: z.literal(1),
    project: z.object({ no: z.string(), name: z.string() }).optional(),
    version: z.object({ name: z.string().min(1).max(50) }),
    stages: z.array(z.object({ name: z.string().min(1).max(50), sortOrder: intSchema(0) })).max(100),
    forms: z.array(formDefinition).max(500),
    visits: z
      .array(
        z.object({
          code: z.string().min(1).max(30),
          name: z.string().min(1).max(50),
          /** absent in files exported before visits had English names */
          nameEn: z.string().max(50).nullable().optional(),
          stage: z.string().max(50).nullable(),
          sortOrder: intSchema(0),
          dayOffset: intSchema(-3650, 3650),
          windowBefore: intSchema(0, 365),
          windowAfter: intSchema(0, 365),
          unscheduled: z.boolean(),
          forms: z.array(z.string()),
        }),
      )
      .max(500),
  })
  .superRefine((d, ctx) => {
    const codes = new Set<string>();
    d.forms.forEach((f, i) => {
      if (codes.has(f.code)) ctx.addIssue({ code: 'custom', path: ['forms', i, 'code'], message: 'validation.duplicateCode' });
      codes.add(f.code);
    });
    const stageNames = new Set(d.stages.map((s) => s.name));
    const visitCodes = new Set<string>();
    d.visits.forEach((v, i) => {
      if (visitCodes.has(v.code)) ctx.addIssue({ code: 'custom', path: ['visits', i, 'code'], message: 'validation.duplicateCode' });
      visitCodes.add(v.code);
      if (v.stage !== null && !stageNames.has(v.stage)) ctx.addIssue({ code: 'custom', path: ['visits', i, 'stage'], message: 'validation.unknownReference' });
      v.forms.forEach((c, j) => {
        if (!codes.has(c)) ctx.addIssue({ code: 'custom', path: ['visits', i, 'forms', j], message: 'validation.unknownReference' });
      });
    });
  });
export type DesignExportFile = z.infer<typeof designExportFile>;

/** POST /crf/form/listByEnabledVersionAndStage: forms of the version in force, those of one stage's visits when named. */
export const formsByStageRequest = z.object({ stageId: z.preprocess((v) => (v === '' ? undefined : v), idSchema.optional()) });
export const formsByStage = z.object({ version: versionRow.nullable(), forms: z.array(formRow) });

/**
 * POST /crf/form/checkHaveMaster: whether a form of a version not yet in force has a master — the form with the same
 * code in the newest version published to UAT or PRO, which subjects' data already follow.
 */
export const formMasterRequest = z.object({ formId: idSchema });
export const formMaster = z.object({
  hasMaster: z.boolean(),
  master: z.object({ formId: z.number().int(), versionId: z.number().int(), versionNo: z.number().int(), versionName: z.string(), publishedEnvs: z.array(z.string()) }).nullable(),
});

/** GET /crf/form/item/list: a form's items in order (those inside tables too), as pickers and mappings need them. */
export const formItemListQuery = z.object({ formId: idSchema });
export const formItemRow = z.object({
  variable: z.string(),
  type: z.string(),
  label: z.string(),
  labelEn: z.string().nullable(),
  unit: z.string().nullable(),
  required: z.boolean(),
  hidden: z.boolean(),
  /** the label of the table the item sits in, if any */
  table: z.string().nullable(),
  options: z.array(z.object({ value: z.string(), label: z.string(), labelEn: z.string().nullable() })),
});
export type FormItemRow = z.infer<typeof formItemRow>;

/**
 * POST /crf/form/item/saveBatch (JSON): change the texts and flags of several items of a form of an editable
 * version at once (label, English label, unit, required, hidden); the form is saved through the form save with its
 * lockVersion, so every rule and the audit apply, all or nothing.
 */
export const formItemPatch = z.object({
  variable: z.string().min(1).max(40),
  label: z.string().min(1).max(100).optional(),
  labelEn: z.string().max(100).optional(),
  unit: z.string().max(20).optional(),
  required: z.boolean().optional(),
  hidden: z.boolean().optional(),
});
export const formItemSaveBatch = z.object({
  formId: idSchema,
  lockVersion: idSchema,
  items: z.array(formItemPatch).min(1).max(1000),
});

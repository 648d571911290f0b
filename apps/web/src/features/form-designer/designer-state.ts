import {
  CHOICE_TYPES,
  emptyTableCells,
  formDefinition,
  formExportFile,
  formFields,
  mergeDown,
  mergeRight,
  type FieldComponent,
  type FieldType,
  type FormComponent,
  type FormDefinition,
  type FormOption,
  type MergeError,
  type TableCell,
  type TableComponent,
} from '@esource/shared';

/**
 * The form designer's state as pure functions over a draft form definition: add / move / delete / duplicate
 * components, edit their properties, table cells (resize, merge-down / merge-right with the shared rules, split,
 * text or a field in a cell), local validation with every issue placed on its component, and the JSON export
 * file. The page (form-designer-page.tsx) holds a draft and calls these.
 */

export type Draft = FormDefinition;
export type ComponentType = FieldType | 'table';

export function newDraft(): Draft {
  return { name: '', code: '', cycle: false, layout: 'vertical', labelWidth: 120, recordType: 'medical', components: [] };
}

let seq = 0;
export function newId(prefix = 'c'): string {
  seq = (seq + 1) % 1_000_000;
  return `${prefix}${Date.now().toString(36)}${seq.toString(36)}${Math.floor(Math.random() * 1296).toString(36)}`;
}

/** A variable code not used in the form yet: TEXT_1, NUMBER_2… */
export function freeVariable(components: readonly FormComponent[], type: FieldType, taken: Set<string> = new Set()): string {
  const used = new Set([...formFields(components).map((f) => f.variable), ...taken]);
  const base = type.toUpperCase();
  for (let n = 1; ; n++) if (!used.has(`${base}_${n}`)) return `${base}_${n}`;
}

/** Labels the page gives new components (in the designer's language). */
export interface NewLabels {
  label: (type: ComponentType) => string;
  option: (n: number) => string;
}
const DEFAULT_LABELS: NewLabels = { label: (t) => t, option: (n) => `Option ${n}` };

export function newField(type: FieldType, components: readonly FormComponent[], labels: NewLabels = DEFAULT_LABELS, taken?: Set<string>): FieldComponent {
  const f: FieldComponent = { id: newId(), type, label: labels.label(type), variable: freeVariable(components, type, taken) };
  if (CHOICE_TYPES.includes(type)) f.options = [1, 2].map((n) => ({ value: String(n), label: labels.option(n) }));
  return f;
}

export function newComponent(type: ComponentType, components: readonly FormComponent[], labels: NewLabels = DEFAULT_LABELS): FormComponent {
  if (type === 'table') return { id: newId('t'), type: 'table', label: labels.label('table'), rows: 2, cols: 2, cells: emptyTableCells(2, 2) };
  return newField(type, components, labels);
}

export function addComponent(d: Draft, type: ComponentType, index = d.components.length, labels?: NewLabels): { draft: Draft; id: string } {
  const c = newComponent(type, d.components, labels);
  const components = [...d.components];
  components.splice(Math.max(0, Math.min(index, components.length)), 0, c);
  return { draft: { ...d, components }, id: c.id };
}

export function moveComponent(d: Draft, from: number, to: number): Draft {
  if (from === to || from < 0 || from >= d.components.length) return d;
  const components = [...d.components];
  const [c] = components.splice(from, 1);
  components.splice(Math.max(0, Math.min(to, components.length)), 0, c!);
  return { ...d, components };
}

export function removeComponent(d: Draft, id: string): Draft {
  return { ...d, components: d.components.filter((c) => c.id !== id) };
}

/** A copy right after the original, with new ids and new variable codes (also for a table's fields). */
export function duplicateComponent(d: Draft, id: string): { draft: Draft; id: string } {
  const i = d.components.findIndex((c) => c.id === id);
  if (i < 0) return { draft: d, id };
  const src = d.components[i]!;
  const taken = new Set<string>();
  const copyField = (f: FieldComponent): FieldComponent => {
    const variable = freeVariable(d.components, f.type, taken);
    taken.add(variable);
    return { ...structuredClone(f), id: newId(), variable };
  };
  const copy: FormComponent =
    src.type === 'table'
      ? { ...structuredClone(src), id: newId('t'), cells: src.cells.map((c) => (c.component ? { ...c, component: copyField(c.component) } : { ...c })) }
      : copyField(src);
  const components = [...d.components];
  components.splice(i + 1, 0, copy);
  return { draft: { ...d, components }, id: copy.id };
}

export function updateComponent(d: Draft, id: string, patch: Partial<FieldComponent> | Partial<TableComponent>): Draft {
  return { ...d, components: d.components.map((c) => (c.id === id ? ({ ...c, ...patch } as FormComponent) : c)) };
}

export function findComponent(d: Draft, id: string | null): FormComponent | undefined {
  return id ? d.components.find((c) => c.id === id) : undefined;
}

// ── tables ──

/** New size; cells that no longer fit are dropped and the uncovered positions filled with 1×1 cells. */
export function resizeTable(t: TableComponent, rows: number, cols: number): TableComponent {
  const kept = t.cells.filter((c) => c.row + c.rowSpan <= rows && c.col + c.colSpan <= cols);
  return { ...t, rows, cols, cells: fillGaps(kept, rows, cols) };
}

function fillGaps(cells: TableCell[], rows: number, cols: number): TableCell[] {
  const covered = new Set<string>();
  for (const c of cells) for (let r = c.row; r < c.row + c.rowSpan; r++) for (let k = c.col; k < c.col + c.colSpan; k++) covered.add(`${r},${k}`);
  const out = [...cells];
  for (let r = 0; r < rows; r++) for (let k = 0; k < cols; k++) if (!covered.has(`${r},${k}`)) out.push({ row: r, col: k, rowSpan: 1, colSpan: 1 });
  return out.sort((a, b) => a.row - b.row || a.col - b.col);
}

/** Merge-down / merge-right with the shared rules (refused on the last row / column): the table or an error key. */
export function mergeCell(t: TableComponent, row: number, col: number, dir: 'down' | 'right'): TableComponent | MergeError {
  const r = dir === 'down' ? mergeDown(t, row, col) : mergeRight(t, row, col);
  return typeof r === 'string' ? r : { ...t, cells: r };
}

/** Undoes merges of a cell: it becomes 1×1 again and the freed positions get empty cells. */
export function splitCell(t: TableComponent, row: number, col: number): TableComponent {
  const cells = t.cells.map((c) => (c.row === row && c.col === col ? { ...c, rowSpan: 1, colSpan: 1 } : c));
  return { ...t, cells: fillGaps(cells, t.rows, t.cols) };
}

export function cellAt(t: TableComponent, row: number, col: number): TableCell | undefined {
  return t.cells.find((c) => c.row === row && c.col === col);
}

export function updateCell(t: TableComponent, row: number, col: number, patch: Partial<TableCell>): TableComponent {
  return {
    ...t,
    cells: t.cells.map((c) => {
      if (c.row !== row || c.col !== col) return c;
      const next = { ...c, ...patch };
      if (next.text === '') delete next.text;
      if (next.textEn === '' || ('textEn' in patch && patch.textEn === undefined)) delete next.textEn;
      if ('component' in patch && patch.component === undefined) delete next.component;
      return next;
    }),
  };
}

// ── options ──

/** Duplicate option values and mappings, by option index (shown inline by the options editor). */
export function optionProblems(options: readonly FormOption[]): Record<number, { value?: boolean; mapping?: boolean }> {
  const out: Record<number, { value?: boolean; mapping?: boolean }> = {};
  const values = new Map<string, number>();
  const mappings = new Map<string, number>();
  options.forEach((o, i) => {
    if (o.value !== '' && values.has(o.value)) out[i] = { ...out[i], value: true };
    else values.set(o.value, i);
    if (o.mapping) {
      if (mappings.has(o.mapping)) out[i] = { ...out[i], mapping: true };
      else mappings.set(o.mapping, i);
    }
  });
  return out;
}

// ── validation ──

export interface DesignIssue {
  /** a component id, or null for the form itself */
  componentId: string | null;
  /** the property, e.g. 'name', 'label', 'options.1.value', 'cells.3.component.variable' */
  field: string;
  /** 'validation.xxx' (translated from packages/shared) or a zod issue code */
  message: string;
  params?: Record<string, unknown>;
}

const OPTIONAL_TEXT = ['labelEn', 'displayCondition', 'unit', 'placeholder', 'nameEn', 'mapping'] as const;

function stripEmpty<T extends object>(o: T): T {
  const drop = (k: string, v: unknown) =>
    ((OPTIONAL_TEXT as readonly string[]).includes(k) && (v === '' || v === undefined)) || (['min', 'max', 'precision'].includes(k) && (v === null || v === undefined));
  return Object.fromEntries(Object.entries(o).filter(([k, v]) => !drop(k, v))) as T;
}

/** The draft as it is saved: empty optional texts left out. */
export function cleanDraft(d: Draft): Draft {
  const field = (f: FieldComponent): FieldComponent => {
    const g = stripEmpty(f);
    if (g.options) g.options = g.options.map((o) => stripEmpty(o));
    if (!CHOICE_TYPES.includes(g.type)) delete g.options;
    return g;
  };
  return stripEmpty({
    ...d,
    components: d.components.map((c) =>
      c.type === 'table' ? stripEmpty({ ...c, cells: c.cells.map((cell) => (cell.component ? { ...cell, component: field(cell.component) } : cell)) }) : field(c),
    ),
  });
}

/** Runs the shared formDefinition schema and places each problem on its component. */
export function validateDraft(d: Draft): { ok: true; definition: FormDefinition } | { ok: false; issues: DesignIssue[] } {
  const clean = cleanDraft(d);
  const r = formDefinition.safeParse(clean);
  if (r.success) return { ok: true, definition: r.data };
  return { ok: false, issues: r.error.issues.map((i) => toIssue(clean, i.path, i.message, i.code, i as unknown as Record<string, unknown>)) };
}

function toIssue(d: Draft, path: PropertyKey[], message: string, code: string, raw: Record<string, unknown>): DesignIssue {
  const msg = message.startsWith('validation.') ? message : `issue.${code}`;
  const params = { minimum: raw.minimum, maximum: raw.maximum };
  if (path[0] === 'components' && typeof path[1] === 'number' && path.length > 2) {
    const c = d.components[path[1]];
    return { componentId: c?.id ?? null, field: path.slice(2).map(String).join('.'), message: msg, params };
  }
  return { componentId: null, field: path.map(String).join('.') || 'components', message: msg, params };
}

/** Server 400 detail fields ('definition.components.2.label') as issues. */
export function issuesFromServer(d: Draft, detail: { field: string; message: string }[]): DesignIssue[] {
  return detail.map((x) => {
    const parts: PropertyKey[] = x.field.replace(/^definition\./, '').split('.').map((p) => (/^\d+$/.test(p) ? Number(p) : p));
    const i = toIssue(d, parts, 'validation.server', 'custom', {});
    return { ...i, message: x.message, params: { raw: true } };
  });
}

// ── export / import ──

export interface FormExportFile {
  kind: 'esource.form';
  schemaVersion: 1;
  form: FormDefinition;
}

export function exportFile(definition: FormDefinition): FormExportFile {
  return { kind: 'esource.form', schemaVersion: 1, form: definition };
}

/** Reads an export file (or a bare definition) the way the server does; the definition or the first problem. */
export function readImport(text: string): { ok: true; form: FormDefinition } | { ok: false; reason: string } {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (e) {
    return { ok: false, reason: e instanceof Error ? e.message : 'not JSON' };
  }
  const wrapped = formExportFile.safeParse(json);
  const r = wrapped.success ? formDefinition.safeParse(wrapped.data.form) : formDefinition.safeParse(json);
  if (r.success) return { ok: true, form: r.data };
  const first = r.error.issues[0]!;
  return { ok: false, reason: `${first.path.join('.') || 'form'}: ${first.message}` };
}

/** The file text with another form code (import a copy next to the original). */
export function withCode(text: string, code: string): string {
  try {
    const json = JSON.parse(text) as Record<string, unknown>;
    if (json && typeof json === 'object' && json.form && typeof json.form === 'object') (json.form as Record<string, unknown>).code = code;
    else if (json && typeof json === 'object') json.code = code;
    return JSON.stringify(json, null, 2);
  } catch {
    return text;
  }
}

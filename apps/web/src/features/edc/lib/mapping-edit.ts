/**
 * The mapping editor's rules, pure: the edits a user made over the rows the server gave, the rows to save (only
 * those that differ from the server's), and the targets the EDC's item list offers per level.
 */
import type { EdcMappingRow, EdcMappingProblem, EdcTargetItemView } from '@esource/shared';
import type { MappingSaveRow } from '../api/edc-api';

/** What a user may change on a row. */
export interface MappingEdit {
  target: string | null;
  targetGroup: string | null;
  valueMap: Record<string, string> | null;
}
export type MappingEdits = Readonly<Record<string, MappingEdit>>;

export const rowKey = (r: Pick<EdcMappingRow, 'level' | 'localKey'>) => `${r.level}:${r.localKey}`;

/** An empty value map is no value map; entries with an empty code are none. */
export function normalValueMap(m: Record<string, string> | null | undefined): Record<string, string> | null {
  if (!m) return null;
  const kept = Object.entries(m).filter(([, v]) => v !== '');
  return kept.length ? Object.fromEntries(kept.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) : null;
}

export function sameEdit(a: MappingEdit, b: MappingEdit): boolean {
  if ((a.target ?? null) !== (b.target ?? null)) return false;
  // without a target the rest means nothing (the row is removed)
  if (a.target === null) return true;
  if ((a.targetGroup ?? null) !== (b.targetGroup ?? null)) return false;
  return JSON.stringify(normalValueMap(a.valueMap)) === JSON.stringify(normalValueMap(b.valueMap));
}

const editOf = (r: EdcMappingRow): MappingEdit => ({
  target: r.target,
  targetGroup: r.targetGroup,
  valueMap: r.valueMap,
});

/** The rows as the user sees them: the server's with the edits over them. */
export function applyEdits(rows: readonly EdcMappingRow[], edits: MappingEdits): EdcMappingRow[] {
  return rows.map((r) => {
    const e = edits[rowKey(r)];
    return e ? { ...r, ...e } : r;
  });
}

/** Sets one row's edit; an edit back to the server's value is dropped (the row is no longer changed). */
export function withEdit(
  rows: readonly EdcMappingRow[],
  edits: MappingEdits,
  key: string,
  edit: MappingEdit,
): MappingEdits {
  const base = rows.find((r) => rowKey(r) === key);
  const others = Object.entries(edits).filter(([k]) => k !== key);
  return Object.fromEntries(base && sameEdit(editOf(base), edit) ? others : [...others, [key, edit]]);
}

/** The rows to send: only those whose edit differs from the server's row. A row without a target is removed. */
export function changedRows(rows: readonly EdcMappingRow[], edits: MappingEdits): MappingSaveRow[] {
  const out: MappingSaveRow[] = [];
  for (const r of rows) {
    const e = edits[rowKey(r)];
    if (!e || sameEdit(editOf(r), e)) continue;
    if (!e.target) {
      out.push({ level: r.level, localKey: r.localKey });
      continue;
    }
    const valueMap = normalValueMap(e.valueMap);
    out.push({
      level: r.level,
      localKey: r.localKey,
      target: e.target,
      ...(e.targetGroup ? { targetGroup: e.targetGroup } : {}),
      ...(valueMap ? { valueMap } : {}),
    });
  }
  return out;
}

/** Drops edits the server's rows now hold already (after an auto-map, say). */
export function pruneEdits(rows: readonly EdcMappingRow[], edits: MappingEdits): MappingEdits {
  const byKey = new Map(rows.map((r) => [rowKey(r), r]));
  return Object.fromEntries(
    Object.entries(edits).filter(([k, e]) => {
      const r = byKey.get(k);
      return r !== undefined && !sameEdit(editOf(r), e);
    }),
  );
}

/** One target item a mapping may point at (an item the EDC has on several events counts once per group). */
export interface TargetItemChoice {
  item: string;
  group: string | null;
  label: string | null;
  dataType: string;
  required: boolean;
  codes: { value: string; label?: string }[];
}

export interface TargetChoices {
  events: string[];
  forms: string[];
  /** per EDC form, its items */
  items: Map<string, TargetItemChoice[]>;
}

/** What the EDC's item list offers per level, in the list's order. */
export function targetChoices(list: readonly EdcTargetItemView[] | undefined): TargetChoices {
  const events = new Set<string>();
  const forms = new Set<string>();
  const items = new Map<string, TargetItemChoice[]>();
  for (const i of list ?? []) {
    if (i.event) events.add(i.event);
    forms.add(i.form);
    const inForm = items.get(i.form) ?? [];
    if (!inForm.some((x) => x.item === i.item && x.group === (i.group ?? null)))
      inForm.push({
        item: i.item,
        group: i.group ?? null,
        label: i.label ?? null,
        dataType: i.dataType,
        required: i.required,
        codes: i.codes ?? [],
      });
    items.set(i.form, inForm);
  }
  return { events: [...events], forms: [...forms], items };
}

/** A select value for an item target: group and item (an OID never holds '/'). */
export const itemChoiceValue = (item: string, group: string | null) => `${group ?? ''}/${item}`;
export function parseItemChoice(v: string): { item: string; group: string | null } {
  const at = v.indexOf('/');
  return at < 0 ? { item: v, group: null } : { item: v.slice(at + 1), group: v.slice(0, at) || null };
}

/** The target item a row points at, within its form's mapped EDC form. */
export function targetItemOf(
  choices: TargetChoices,
  formTarget: string | null,
  row: Pick<EdcMappingRow, 'target' | 'targetGroup'>,
): TargetItemChoice | undefined {
  if (!formTarget || !row.target) return undefined;
  const inForm = choices.items.get(formTarget) ?? [];
  return (
    inForm.find(
      (c) =>
        c.item === row.target &&
        (row.targetGroup === null || c.group === null || c.group === row.targetGroup),
    ) ?? undefined
  );
}

/** A form with its items, as the editor's table shows them. */
export interface FormSection {
  form: EdcMappingRow;
  items: EdcMappingRow[];
}

export function sections(rows: readonly EdcMappingRow[]): { events: EdcMappingRow[]; forms: FormSection[] } {
  const events = rows.filter((r) => r.level === 'event');
  const forms: FormSection[] = rows
    .filter((r) => r.level === 'form')
    .map((form) => ({ form, items: rows.filter((r) => r.level === 'item' && r.formCode === form.localKey) }));
  return { events, forms };
}

/** The problems that name a row. */
export function problemsByRow(problems: readonly EdcMappingProblem[]): Map<string, EdcMappingProblem[]> {
  const out = new Map<string, EdcMappingProblem[]>();
  for (const p of problems) {
    if (!p.level || !p.localKey) continue;
    const k = `${p.level}:${p.localKey}`;
    out.set(k, [...(out.get(k) ?? []), p]);
  }
  return out;
}

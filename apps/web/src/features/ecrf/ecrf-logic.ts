import { ENTRY_MODE, type ItemValues } from '@esource/shared';

/**
 * The eCRF entry's pure rules: what the editor sends (the items that changed from what it loaded, and the saved
 * values a display condition now hides, sent as cleared so that the user sees them and gives a reason), which of
 * them need a reason (a value saved other than as a draft and now changed or cleared), re-applying the user's
 * edits on top of a reloaded form, and the text of a value for the history.
 */

export interface StoredValue {
  value: unknown;
  entryMode: number;
  /** the source record a pre-filled value (entry mode 5/6) came from: 'source:<id>:v<version>' */
  sourceRef?: string | null;
  updatedBy: string | null;
  updateTime: string;
}
export type StoredValues = Record<string, StoredValue>;

export function emptyValue(v: unknown): boolean {
  return (
    v === null ||
    v === undefined ||
    (typeof v === 'string' && v.trim() === '') ||
    (Array.isArray(v) && v.length === 0)
  );
}

export function sameValue(a: unknown, b: unknown): boolean {
  if (emptyValue(a) && emptyValue(b)) return true;
  if (typeof a === 'number' || typeof b === 'number') return String(a) === String(b);
  return JSON.stringify(a) === JSON.stringify(b);
}

export function plainValues(stored: StoredValues): ItemValues {
  return Object.fromEntries(Object.entries(stored).map(([k, v]) => [k, v.value]));
}

/**
 * Variables whose value differs from the loaded one: the items that show and were changed, and the items a
 * display condition now hides whose loaded value the save will clear (see clearedVariables).
 */
export function changedVariables(
  stored: StoredValues,
  values: ItemValues,
  shown: ReadonlySet<string>,
): string[] {
  const vars = new Set([...Object.keys(stored), ...Object.keys(values)]);
  return [...vars]
    .filter((k) => (shown.has(k) ? !sameValue(stored[k]?.value, values[k]) : !emptyValue(stored[k]?.value)))
    .sort();
}

/** Of the changed variables, those whose loaded value is cleared because a display condition now hides them. */
export function clearedVariables(stored: StoredValues, changed: readonly string[], shown: ReadonlySet<string>): string[] {
  return changed.filter((k) => !shown.has(k) && !emptyValue(stored[k]?.value));
}

/** Of the changed variables, those whose stored value was saved (not a draft) and not empty: changing them needs a reason. */
export function needReason(stored: StoredValues, changed: readonly string[]): string[] {
  return changed.filter((k) => {
    const old = stored[k];
    return Boolean(old && old.entryMode !== ENTRY_MODE.stash && !emptyValue(old.value));
  });
}

export interface SaveItem {
  variable: string;
  value: unknown;
  reason?: string;
}

export function saveItems(
  values: ItemValues,
  changed: readonly string[],
  reasons: Record<string, string>,
): SaveItem[] {
  return changed.map((k) => {
    const value = emptyValue(values[k]) ? null : values[k];
    const reason = reasons[k]?.trim();
    return reason ? { variable: k, value, reason } : { variable: k, value };
  });
}

/** The user's edits (relative to what they loaded) re-applied over a freshly loaded form, and the variables they touch. */
export function rebase(
  oldStored: StoredValues,
  edited: ItemValues,
  fresh: StoredValues,
): { values: ItemValues; kept: string[] } {
  const vars = new Set([...Object.keys(oldStored), ...Object.keys(edited)]);
  const kept = [...vars].sort().filter((k) => !sameValue(oldStored[k]?.value, edited[k]));
  const values: ItemValues = { ...plainValues(fresh) };
  for (const k of kept) values[k] = edited[k];
  return { values: Object.fromEntries(Object.entries(values).filter(([, v]) => !emptyValue(v))), kept };
}

/** A value as text for the history and the reason dialog. */
export function valueText(v: unknown, options?: readonly { value: string; label: string }[]): string {
  if (emptyValue(v)) return '—';
  const label = (x: unknown) => options?.find((o) => o.value === x)?.label ?? String(x);
  if (Array.isArray(v)) return v.map(label).join(', ');
  if (typeof v === 'object') return JSON.stringify(v);
  return label(v);
}

/** Field errors from a 400 answer's detail (field → message). */
export function fieldMessages(detail: readonly { field: string; message: string }[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const d of detail) if (d.field && !out[d.field]) out[d.field] = d.message;
  return out;
}

import { formFields, isShown, type FieldComponent, type FormComponent, type ItemValues } from '@esource/shared';

/**
 * The pure rules of the eCRF renderer: which items show (display conditions, evaluated with the same filtrex
 * evaluator the server uses), clearing the values of items that a condition hides, validation of what shows,
 * and number rounding. The component in form-renderer.tsx only draws what these functions decide.
 */

/** The subset of a form definition the renderer needs (designer drafts and saved definitions both fit). */
export interface RenderableForm {
  layout?: 'vertical' | 'horizontal' | 'grid';
  labelWidth?: number;
  components: readonly FormComponent[];
}

export interface FieldError {
  /** key in the `crf` namespace, under `error.` */
  key: 'required' | 'number' | 'min' | 'max';
  params?: Record<string, string | number>;
}
export type FieldErrors = Record<string, FieldError>;

export function isEmptyValue(v: unknown): boolean {
  return v === null || v === undefined || (typeof v === 'string' && v.trim() === '') || (Array.isArray(v) && v.length === 0);
}

/** Rounds half away from zero to `precision` decimals (no precision: unchanged). */
export function roundTo(n: number, precision: number | undefined): number {
  if (precision === undefined || !Number.isFinite(n)) return n;
  const f = 10 ** precision;
  const r = (Math.sign(n) * Math.round(Math.abs(n) * f + Number.EPSILON * f)) / f;
  return Object.is(r, -0) ? 0 : r;
}

/**
 * Variables of the fields whose display condition holds (a table's condition applies to its cells). Conditions
 * read the values as they are after the hidden items are cleared, so a chain (A shows B, B shows C) settles.
 */
export function shownVariables(components: readonly FormComponent[], values: ItemValues): Set<string> {
  return shownAndSettled(components, values).shown;
}

function shownAndSettled(components: readonly FormComponent[], values: ItemValues): { shown: Set<string>; values: ItemValues } {
  let current: ItemValues = values;
  const all = formFields(components);
  // at most one pass per field: each pass can only hide more
  for (let pass = 0; pass <= all.length; pass++) {
    const shown = new Set<string>();
    for (const c of components) {
      if (c.type === 'table') {
        if (!isShown(c.displayCondition, current)) continue;
        for (const cell of c.cells) if (cell.component && isShown(cell.component.displayCondition, current)) shown.add(cell.component.variable);
      } else if (isShown(c.displayCondition, current)) shown.add(c.variable);
    }
    const hiddenWithValue = all.filter((f) => !shown.has(f.variable) && !isEmptyValue(current[f.variable]));
    if (hiddenWithValue.length === 0) return { shown, values: current };
    const drop = new Set(hiddenWithValue.map((f) => f.variable));
    current = Object.fromEntries(Object.entries(current).filter(([k]) => !drop.has(k)));
  }
  return { shown: new Set(), values: current };
}

/** The values with every item a display condition hides cleared (what is kept, and what the server gets). */
export function applyConditions(components: readonly FormComponent[], values: ItemValues): ItemValues {
  return shownAndSettled(components, values).values;
}

/** Errors of the fields that show and are not statically hidden: required, number shape, min / max. */
export function validateForm(components: readonly FormComponent[], values: ItemValues): FieldErrors {
  const shown = shownVariables(components, values);
  const errors: FieldErrors = {};
  for (const f of formFields(components)) {
    if (!shown.has(f.variable) || f.hidden) continue;
    const e = fieldError(f, values[f.variable]);
    if (e) errors[f.variable] = e;
  }
  return errors;
}

export function fieldError(f: FieldComponent, v: unknown): FieldError | null {
  if (isEmptyValue(v)) return f.required ? { key: 'required' } : null;
  if (f.type === 'number') {
    const n = typeof v === 'number' ? v : Number(v);
    if (!Number.isFinite(n)) return { key: 'number' };
    if (f.min !== undefined && n < f.min) return { key: 'min', params: { min: f.min } };
    if (f.max !== undefined && n > f.max) return { key: 'max', params: { max: f.max } };
  }
  return null;
}

/** The label in the reader's language (English label when there is one). */
export function labelFor(item: { label: string; labelEn?: string | undefined }, language: string): string {
  return language === 'en_US' && item.labelEn ? item.labelEn : item.label;
}

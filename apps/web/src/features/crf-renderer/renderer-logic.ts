import dayjs from 'dayjs';
import {
  formFields,
  rangeText,
  settleConditions,
  valueIssue,
  type FieldComponent,
  type FormComponent,
  type ItemValues,
  type ValueClock,
  type ValueIssueCode,
} from '@esource/shared';

/**
 * The pure rules of the eCRF renderer: which items show (display conditions, evaluated by the same interpreter
 * the server uses), clearing the values of items that a condition hides, validation of what shows,
 * and number rounding. The component in form-renderer.tsx only draws what these functions decide.
 */

/** The subset of a form definition the renderer needs (designer drafts and saved definitions both fit). */
export interface RenderableForm {
  layout?: 'vertical' | 'horizontal' | 'grid';
  labelWidth?: number;
  components: readonly FormComponent[];
}

export interface FieldError {
  /** key in the `crf` namespace, under `error.` (the shared value rules' codes, and 'required') */
  key: 'required' | ValueIssueCode;
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
 * read the values as they are after the hidden items are cleared, so a chain (A shows B, B shows C) settles —
 * the shared `settleConditions`, which the server applies on save.
 */
export function shownVariables(components: readonly FormComponent[], values: ItemValues): Set<string> {
  return settleConditions(components, values).shown;
}

/** The values with every item a display condition hides cleared (what is kept, and what the server gets). */
export function applyConditions(components: readonly FormComponent[], values: ItemValues): ItemValues {
  return settleConditions(components, values).values;
}

/** The user's own wall clock, for the future-date rule (the server allows for every time zone). */
export function browserClock(): ValueClock {
  const now = dayjs();
  return { today: now.format('YYYY-MM-DD'), now: now.format('YYYY-MM-DD HH:mm') };
}

/**
 * Errors of the fields that show and are not statically hidden: required, and the shared value rules (number,
 * precision, hard range, real calendar dates and times, partial dates, future dates) — what the server refuses.
 */
export function validateForm(components: readonly FormComponent[], values: ItemValues, clock: ValueClock = browserClock()): FieldErrors {
  return checkShown(components, values, (f, v) => fieldError(f, v, clock));
}

/** Data-quality warnings of the fields that show: values outside a soft range (saved, and flagged). */
export function formWarnings(components: readonly FormComponent[], values: ItemValues): FieldErrors {
  return checkShown(components, values, (f, v) => {
    const i = valueIssue(f, v);
    return i?.soft ? { key: i.code, params: { ...i.params, range: rangeText(i.params) } } : null;
  });
}

function checkShown(components: readonly FormComponent[], values: ItemValues, check: (f: FieldComponent, v: unknown) => FieldError | null): FieldErrors {
  const shown = shownVariables(components, values);
  const out: FieldErrors = {};
  for (const f of formFields(components)) {
    if (!shown.has(f.variable) || f.hidden) continue;
    const e = check(f, values[f.variable]);
    if (e) out[f.variable] = e;
  }
  return out;
}

export function fieldError(f: FieldComponent, v: unknown, clock?: ValueClock): FieldError | null {
  if (isEmptyValue(v)) return f.required ? { key: 'required' } : null;
  const i = valueIssue(f, v, clock);
  if (!i || i.soft) return null;
  return { key: i.code, params: { ...i.params, range: rangeText(i.params) } };
}

/** The label in the reader's language (English label when there is one). */
export function labelFor(item: { label: string; labelEn?: string | undefined }, language: string): string {
  return language === 'en_US' && item.labelEn ? item.labelEn : item.label;
}

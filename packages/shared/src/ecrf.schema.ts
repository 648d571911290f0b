/**
 * eCRF data entry contracts and the rules both sides apply: item value checks by component type, required
 * items (only when shown by their display condition), and visit dates/windows from the first-visit date.
 */
import { z } from 'zod';
import { ENTRY_MODE } from './enums';
import { isShown, type ItemValues } from './conditions';
import { formFields, type FieldComponent, type FormDefinition } from './design.schema';

export const CRF_STATUS = { notStarted: 0, draft: 1, completed: 2, certified: 3 } as const;
export const SAVE_MODES = [ENTRY_MODE.stash, ENTRY_MODE.manual, ENTRY_MODE.direct] as const;

export type ValueProblem = 'number' | 'precision' | 'range' | 'date' | 'datetime' | 'option' | 'list' | 'text';

/** Checks one item's value against its component; null/'' means unanswered and is always acceptable here. */
export function valueProblem(f: FieldComponent, v: unknown): ValueProblem | null {
  if (v === null || v === undefined || v === '' || (Array.isArray(v) && v.length === 0)) return null;
  switch (f.type) {
    case 'number': {
      const n = typeof v === 'number' ? v : typeof v === 'string' && v.trim() !== '' ? Number(v) : NaN;
      if (!Number.isFinite(n)) return 'number';
      const decimals = (typeof v === 'number' ? String(v) : (v as string)).split('.')[1]?.length ?? 0;
      if (f.precision !== undefined && decimals > f.precision) return 'precision';
      if ((f.min !== undefined && n < f.min) || (f.max !== undefined && n > f.max)) return 'range';
      return null;
    }
    case 'date':
      return typeof v === 'string' && /^\d{4}-\d{2}-\d{2}$/.test(v) && !Number.isNaN(Date.parse(`${v}T00:00:00Z`)) ? null : 'date';
    case 'datetime':
      return typeof v === 'string' && /^\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(:\d{2})?/.test(v) && !Number.isNaN(Date.parse(v.replace(' ', 'T'))) ? null : 'datetime';
    case 'radio':
    case 'select':
      return typeof v === 'string' && (f.options ?? []).some((o) => o.value === v) ? null : 'option';
    case 'checkbox':
      return Array.isArray(v) && v.every((x) => typeof x === 'string' && (f.options ?? []).some((o) => o.value === x)) ? null : 'list';
    case 'text':
    case 'textarea':
    case 'file':
      return typeof v === 'string' && v.length <= (f.type === 'textarea' ? 5000 : 500) ? null : 'text';
  }
}

/** Items that are shown and required but have no value, for the given values. */
export function missingRequired(def: Pick<FormDefinition, 'components'>, values: ItemValues): string[] {
  const out: string[] = [];
  for (const f of formFields(def.components)) {
    if (!f.required || f.hidden) continue;
    if (!isShown(f.displayCondition, values)) continue;
    const v = values[f.variable];
    if (v === null || v === undefined || v === '' || (Array.isArray(v) && v.length === 0)) out.push(f.variable);
  }
  return out;
}

/** Items hidden by their display condition (their values are cleared on save). */
export function hiddenByCondition(def: Pick<FormDefinition, 'components'>, values: ItemValues): string[] {
  return formFields(def.components)
    .filter((f) => f.displayCondition && !isShown(f.displayCondition, values))
    .map((f) => f.variable);
}

export type VisitState = 'upcoming' | 'inWindow' | 'overdue' | 'done';

/** A scheduled visit's planned date and window from the first-visit date (clinical dates, YYYY-MM-DD). */
export function visitWindow(firstVisitDate: string, v: { dayOffset: number; windowBefore: number; windowAfter: number }) {
  const base = Date.parse(`${firstVisitDate}T00:00:00Z`);
  const day = (n: number) => new Date(base + n * 86_400_000).toISOString().slice(0, 10);
  return { planned: day(v.dayOffset), start: day(v.dayOffset - v.windowBefore), end: day(v.dayOffset + v.windowAfter) };
}

export function visitState(w: { start: string; end: string }, done: boolean, today: string): VisitState {
  if (done) return 'done';
  if (today < w.start) return 'upcoming';
  if (today > w.end) return 'overdue';
  return 'inWindow';
}

// ── API ──
export const crfKey = z.object({
  ptsId: z.coerce.number().int().positive(),
  visitId: z.coerce.number().int().positive(),
  formId: z.coerce.number().int().positive(),
  unscheduledId: z.coerce.number().int().min(0).default(0),
  repeatNo: z.coerce.number().int().min(1).default(1),
});
export const saveBatchRequest = crfKey.extend({
  /** the instance version the editor loaded; absent for a form not started yet */
  version: z.coerce.number().int().positive().optional(),
  entryMode: z.coerce.number().int().refine((n) => (SAVE_MODES as readonly number[]).includes(n), { message: 'validation.entryMode' }),
  items: z
    .array(z.object({ variable: z.string().min(1).max(40), value: z.unknown(), reason: z.string().max(500).optional() }))
    .max(500),
});
export const itemValue = z.object({
  value: z.unknown(),
  entryMode: z.number().int(),
  sourceRef: z.string().nullable(),
  updatedBy: z.string().nullable(),
  updateTime: z.string(),
});
export const crfInstanceView = z.object({
  instance: z
    .object({
      id: z.number().int(),
      status: z.number().int(),
      version: z.number().int(),
      repeatNo: z.number().int(),
      certifiedBy: z.string().nullable(),
      certifiedAt: z.string().nullable(),
      updateTime: z.string(),
    })
    .nullable(),
  values: z.record(z.string(), itemValue),
  formId: z.number().int(),
  formName: z.string(),
  formCode: z.string(),
  cycle: z.boolean(),
  definition: z.unknown(),
});
export type CrfInstanceView = z.infer<typeof crfInstanceView>;
export const historyRow = z.object({
  id: z.number().int(),
  variable: z.string(),
  oldValue: z.unknown(),
  newValue: z.unknown(),
  entryMode: z.number().int(),
  reason: z.string().nullable(),
  userName: z.string().nullable(),
  createTime: z.string(),
});
export const certifyRequest = z.object({
  instanceId: z.coerce.number().int().positive(),
  version: z.coerce.number().int().positive(),
  reason: z.string().max(500).optional(),
});
/** Certify (or uncertify, with a reason) several forms at once, all or nothing, each at the version the user saw. */
export const certifyBatchRequest = z.object({
  items: z
    .array(z.object({ instanceId: z.coerce.number().int().positive(), version: z.coerce.number().int().positive() }))
    .min(1)
    .max(200),
  reason: z.string().max(500).optional(),
});
export const certifyResult = z.object({ id: z.number().int(), status: z.number().int(), version: z.number().int() });
export const scheduleVisit = z.object({
  visitId: z.number().int(),
  unscheduledId: z.number().int(),
  code: z.string(),
  name: z.string(),
  unscheduled: z.boolean(),
  planned: z.string().nullable(),
  start: z.string().nullable(),
  end: z.string().nullable(),
  state: z.enum(['upcoming', 'inWindow', 'overdue', 'done']),
  forms: z.array(
    z.object({ formId: z.number().int(), code: z.string(), name: z.string(), nameEn: z.string().nullable(), cycle: z.boolean(), status: z.number().int(), instances: z.array(z.object({ id: z.number().int(), repeatNo: z.number().int(), status: z.number().int(), version: z.number().int() })) }),
  ),
});
export type ScheduleVisit = z.infer<typeof scheduleVisit>;
export const unscheduledRequest = z.object({
  ptsId: z.coerce.number().int().positive(),
  visitId: z.coerce.number().int().positive(),
  visitDate: z.string().regex(/^\d{4}-\d{2}-\d{2}$/, { message: 'validation.date' }),
  label: z.string().max(100).optional(),
});

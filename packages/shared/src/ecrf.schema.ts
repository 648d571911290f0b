/**
 * eCRF data entry contracts and the rules both sides apply: item value checks by component type, required
 * items (only when shown by their display condition), and visit dates/windows from the first-visit date.
 */
import { z } from 'zod';
import { dateSchema, idSchema, intSchema } from './common.schema';
import { ENTRY_MODE } from './enums';
import { isShown, type ItemValues } from './conditions';
import { formFields, type FieldComponent, type FormComponent, type FormDefinition } from './design.schema';
import { valueIssue, type ValueClock, type ValueIssueCode } from './ecrf-values';

export const CRF_STATUS = { notStarted: 0, draft: 1, completed: 2, certified: 3 } as const;
export const SAVE_MODES = [ENTRY_MODE.stash, ENTRY_MODE.manual, ENTRY_MODE.direct] as const;

export type ValueProblem = ValueIssueCode;

/**
 * Checks one item's value against its component (see `valueIssue`, which also gives the message parameters);
 * null/'' means unanswered and is always acceptable here. A value outside a soft range is not a problem.
 */
export function valueProblem(f: FieldComponent, v: unknown, clock?: ValueClock): ValueProblem | null {
  const i = valueIssue(f, v, clock);
  return i && !i.soft ? i.code : null;
}

const blank = (v: unknown) => v === null || v === undefined || v === '' || (Array.isArray(v) && v.length === 0);

/**
 * Which items show for the given values, and the values once every item a display condition hides is cleared.
 * A table's condition applies to its cells. Conditions read the values as they are after hidden items are
 * cleared, so a chain (A shows B, B shows C) settles. The web renderer and the server both use this.
 */
export function settleConditions(components: readonly FormComponent[], values: ItemValues): { shown: Set<string>; values: ItemValues } {
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
    const drop = new Set(all.filter((f) => !shown.has(f.variable) && !blank(current[f.variable])).map((f) => f.variable));
    if (drop.size === 0) return { shown, values: current };
    current = Object.fromEntries(Object.entries(current).filter(([k]) => !drop.has(k)));
  }
  return { shown: new Set(), values: current };
}

/** Items that are shown and required but have no value, for the given values. */
export function missingRequired(def: Pick<FormDefinition, 'components'>, values: ItemValues): string[] {
  const { shown } = settleConditions(def.components, values);
  const out: string[] = [];
  for (const f of formFields(def.components)) {
    if (!f.required || f.hidden || !shown.has(f.variable)) continue;
    if (blank(values[f.variable])) out.push(f.variable);
  }
  return out;
}

/** Items with a value that a display condition hides (their values are cleared on save), after chains settle. */
export function hiddenByCondition(def: Pick<FormDefinition, 'components'>, values: ItemValues): string[] {
  const { shown } = settleConditions(def.components, values);
  return formFields(def.components)
    .filter((f) => !shown.has(f.variable) && !blank(values[f.variable]))
    .map((f) => f.variable);
}

export type VisitState = 'upcoming' | 'inWindow' | 'overdue' | 'done';

/** A scheduled visit's planned date and window from the first-visit date (clinical dates, YYYY-MM-DD). */
export function visitWindow(firstVisitDate: string, v: { dayOffset: number; windowBefore: number; windowAfter: number }) {
  const base = Date.parse(`${firstVisitDate}T00:00:00Z`);
  const day = (n: number) => new Date(base + n * 86_400_000).toISOString().slice(0, 10);
  return { planned: day(v.dayOffset), start: day(v.dayOffset - v.windowBefore), end: day(v.dayOffset + v.windowAfter) };
}

/**
 * A visit's state today. An unscheduled visit has no window (start = end = its date), so it is never overdue: it
 * is upcoming before its date and open ('inWindow') from then until its forms are done.
 */
export function visitState(w: { start: string; end: string }, done: boolean, today: string, unscheduled = false): VisitState {
  if (done) return 'done';
  if (today < w.start) return 'upcoming';
  if (!unscheduled && today > w.end) return 'overdue';
  return 'inWindow';
}

// ── API ──
export const crfKey = z.object({
  ptsId: idSchema,
  visitId: idSchema,
  formId: idSchema,
  unscheduledId: intSchema(0).default(0),
  repeatNo: intSchema(1).default(1),
});
/** GET /crf/form/item/result/listFormGroup: the repeats (groups) of one form at one visit of a subject */
export const formGroupRequest = crfKey.omit({ repeatNo: true }).extend({
  /** also the repeats deleted with a reason (kept, marked deleted) */
  withDeleted: z.preprocess((v) => v === true || v === 'true' || v === '1', z.boolean()).default(false),
});
export const formGroupRow = z.object({
  instanceId: z.number().int(),
  repeatNo: z.number().int(),
  status: z.number().int(),
  version: z.number().int(),
  pendingReview: z.boolean(),
  updatedAt: z.string(),
  updatedBy: z.string().nullable(),
  deletedAt: z.string().nullable(),
});
export type FormGroupRow = z.infer<typeof formGroupRow>;

export const saveBatchRequest = crfKey.extend({
  /** the instance version the editor loaded; absent for a form not started yet */
  version: idSchema.optional(),
  entryMode: intSchema().refine((n) => (SAVE_MODES as readonly number[]).includes(n), { message: 'validation.entryMode' }),
  items: z
    .array(z.object({ variable: z.string().min(1).max(40), value: z.unknown(), reason: z.string().max(500).optional() }))
    .max(500),
});
export const itemValue = z.object({
  value: z.unknown(),
  entryMode: z.number().int(),
  sourceRef: z.string().nullable(),
  /** a data-quality warning the value was accepted with ('range': outside a soft range) */
  quality: z.string().nullable().optional(),
  updatedBy: z.string().nullable(),
  updateTime: z.string(),
});
/** The site's review a participant's answers wait for (a shared form, issue 15 item 6): the link and when it was submitted. */
export const pendingReview = z.object({
  shareId: z.number().int(),
  submittedAt: z.string(),
});
export type PendingReview = z.infer<typeof pendingReview>;
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
      /** filled by the participant through a shared link and not reviewed by the site yet (ddc.schema.ts) */
      pendingReview: pendingReview.nullable().optional(),
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
  /** 'condition': the value was cleared because a display condition hid the item (reason: the user's) */
  cause: z.string().nullable().optional(),
  /** a data-quality warning the new value carried ('range': outside a soft range) */
  quality: z.string().nullable().optional(),
  /** pre-filled values (entry mode 4/5/6): the source record version the value came from ('source:<id>:v<version>'; KBMS 4: a record read from a source document, see ocr-association.schema.ts) */
  sourceRef: z.string().nullable().optional(),
  userName: z.string().nullable(),
  createTime: z.string(),
});
export const certifyRequest = z.object({
  instanceId: idSchema,
  version: idSchema,
  reason: z.string().max(500).optional(),
});
/** Certify (or uncertify, with a reason) several forms at once, all or nothing, each at the version the user saw. */
export const certifyBatchRequest = z.object({
  items: z
    .array(z.object({ instanceId: idSchema, version: idSchema }))
    .min(1)
    .max(200),
  reason: z.string().max(500).optional(),
});
export const certifyResult = z.object({ id: z.number().int(), status: z.number().int(), version: z.number().int() });
/** One visit occurrence of a subject (planned or unscheduled) with its window: the schedule's and pre-fill's rows. */
export const visitSlot = z.object({
  visitId: z.number().int(),
  unscheduledId: z.number().int(),
  code: z.string(),
  name: z.string(),
  /** the English name (an unscheduled visit: with its label), null when the visit has none */
  nameEn: z.string().nullable(),
  unscheduled: z.boolean(),
  planned: z.string().nullable(),
  start: z.string().nullable(),
  end: z.string().nullable(),
});
export const scheduleVisit = visitSlot.extend({
  state: z.enum(['upcoming', 'inWindow', 'overdue', 'done']),
  forms: z.array(
    z.object({
      formId: z.number().int(),
      code: z.string(),
      name: z.string(),
      nameEn: z.string().nullable(),
      cycle: z.boolean(),
      status: z.number().int(),
      instances: z.array(z.object({ id: z.number().int(), repeatNo: z.number().int(), status: z.number().int(), version: z.number().int(), pendingReview: z.boolean().optional() })),
      /** some instance holds a participant's answers the site has not reviewed yet (shared forms) */
      pendingReview: z.boolean().optional(),
    }),
  ),
});
export type ScheduleVisit = z.infer<typeof scheduleVisit>;
export const unscheduledRequest = z.object({
  ptsId: idSchema,
  visitId: idSchema,
  visitDate: dateSchema,
  label: z.string().max(100).optional(),
});

/**
 * Where a judged "yes" goes (issue 13 item 4): the study's log form of its category, found in the subject's design
 * by its code (AE, CM, PR, MH; HISS / SH / SURG for surgical history) or else by the CDASH variable a form of that
 * kind has (AETERM, CMTRT, PRTRT, MHTERM), and the items written, by CDASH / SDTM variable name (AETERM, AESTDTC or
 * AESTDAT, AETOXGR, AESER, AEREL, AEACN, AEOUT, CMTRT, CMDOSE …). A choice item gets the option whose mapping
 * (else value, else label) is the CDISC submission value. An item the form lacks is left out; a value the item
 * cannot take (no such option, a partial date in a full-date item) is left out and listed. Pure: the service saves
 * through the eCRF's normal path.
 */
import { formFields, type FieldComponent, type FormDefinition, type SafetyCategory, type ScheduleVisit } from '@esource/shared';

const FORM_CODES: Record<SafetyCategory, readonly string[]> = {
  ae: ['AE'],
  cm: ['CM'],
  pr: ['PR'],
  mh: ['MH'],
  hiss: ['HISS', 'SH', 'SURG', 'SURGHX', 'HS'],
};
const KEY_VARIABLE: Record<SafetyCategory, string> = { ae: 'AETERM', cm: 'CMTRT', pr: 'PRTRT', mh: 'MHTERM', hiss: 'PRTRT' };

export interface DesignForm {
  id: number;
  code: string;
  definition: FormDefinition;
}

const hasVar = (def: FormDefinition, v: string) => formFields(def.components).some((f) => f.variable.toUpperCase() === v);

/** The log form of a category in a design: a cycle form by code first, else by its key variable. */
export function findLogForm(forms: readonly DesignForm[], category: SafetyCategory): DesignForm | null {
  const cycle = forms.filter((f) => f.definition.cycle);
  const byCode = cycle.find((f) => FORM_CODES[category].includes(f.code.toUpperCase()));
  if (byCode) return byCode;
  const taken = new Set(Object.values(FORM_CODES).flat());
  return cycle.find((f) => !taken.has(f.code.toUpperCase()) && hasVar(f.definition, KEY_VARIABLE[category])) ?? null;
}

/**
 * The visit the record goes into: among the subject's visits holding the form, the one whose window holds the date,
 * else the latest one that starts on or before it, else the first.
 */
export function placeFor(schedule: readonly ScheduleVisit[], formId: number, date: string | null): ScheduleVisit | null {
  const holding = schedule.filter((v) => v.forms.some((f) => f.formId === formId));
  if (!holding.length) return null;
  if (date && date.length === 10) {
    const inWindow = holding.find((v) => v.start && v.end && v.start <= date && date <= v.end);
    if (inWindow) return inWindow;
    const before = holding.filter((v) => (v.start ?? v.planned) && (v.start ?? v.planned)! <= date);
    if (before.length) return before.sort((a, b) => (a.start ?? a.planned)!.localeCompare((b.start ?? b.planned)!))[before.length - 1]!;
  }
  return holding.find((v) => !v.unscheduled) ?? holding[0]!;
}

const SEVERITY = ['', 'MILD', 'MODERATE', 'SEVERE', 'SEVERE', 'SEVERE'];
const yn = (b: boolean | undefined) => (b === undefined ? undefined : b ? 'Y' : 'N');

/** The CDISC variables of a judgement (alternatives: the first the form has is written). */
export function cdiscValues(category: SafetyCategory, fields: Record<string, unknown>): [string[], unknown][] {
  const f = fields as Record<string, unknown> & { coded?: { code: string; term: string } };
  const coded = f.coded?.term;
  const codedCode = f.coded?.code;
  switch (category) {
    case 'ae': {
      const crit = new Set((f.criteria as string[] | undefined) ?? []);
      const serious = f.serious === true;
      return [
        [['AETERM'], f.term],
        [['AEDECOD', 'AELLT', 'AEPT'], coded],
        [['AEDECODCD', 'AELLTCD', 'AEPTCD', 'AEDICTCD'], codedCode],
        [['AESTDTC', 'AESTDAT'], f.onset],
        [['AEENDTC', 'AEENDAT'], f.end],
        [['AEONGO', 'AEENRF'], f.ongoing === true ? 'Y' : f.end ? 'N' : undefined],
        [['AETOXGR', 'AEGRADE'], f.grade],
        [['AESEV'], typeof f.grade === 'number' ? SEVERITY[f.grade] : undefined],
        [['AESER'], yn(f.serious as boolean | undefined)],
        ...(['AESDTH', 'AESLIFE', 'AESHOSP', 'AESDISAB', 'AESCONG', 'AESMIE'] as const).map((c): [string[], unknown] => [[c], serious ? yn(crit.has(c)) : undefined]),
        [['AEREL'], f.relatedness],
        [['AEACN'], f.action],
        [['AEOUT'], f.outcome],
      ];
    }
    case 'cm':
      return [
        [['CMTRT'], f.term],
        [['CMDECOD'], coded],
        [['CMDECODCD', 'CMCODE'], codedCode],
        [['CMDOSE', 'CMDSTXT'], f.dose],
        [['CMDOSU'], f.unit],
        [['CMROUTE'], f.route],
        [['CMDOSFRQ'], f.frequency],
        [['CMINDC'], f.indication],
        [['CMSTDTC', 'CMSTDAT'], f.start],
        [['CMENDTC', 'CMENDAT'], f.end],
        [['CMONGO', 'CMENRF'], f.ongoing === true ? 'Y' : f.end ? 'N' : undefined],
      ];
    case 'pr':
    case 'hiss':
      return [
        [['PRTRT', 'MHTERM'], f.term],
        [['PRDECOD', 'MHDECOD'], coded],
        [['PRDECODCD', 'MHDECODCD'], codedCode],
        [['PRSTDTC', 'PRSTDAT', 'MHSTDTC', 'MHSTDAT'], f.date],
      ];
    case 'mh':
      return [
        [['MHTERM'], f.term],
        [['MHDECOD'], coded],
        [['MHDECODCD'], codedCode],
        [['MHSTDTC', 'MHSTDAT'], f.onset],
        [['MHONGO', 'MHENRF'], yn(f.ongoing as boolean | undefined)],
      ];
  }
}

/** a value as the item takes it, or undefined when it cannot take it */
function valueFor(field: FieldComponent, value: string | number | boolean): unknown {
  if (value === '') return undefined;
  if (field.options?.length) {
    const want = String(value).toUpperCase();
    const o =
      field.options.find((x) => x.mapping?.toUpperCase() === want) ??
      field.options.find((x) => x.value.toUpperCase() === want) ??
      field.options.find((x) => x.label.toUpperCase() === want || x.labelEn?.toUpperCase() === want);
    if (!o) return undefined;
    return field.type === 'checkbox' ? [o.value] : o.value;
  }
  switch (field.type) {
    case 'number':
      return typeof value === 'number' ? value : Number.isFinite(Number(value)) ? Number(value) : undefined;
    case 'date':
      return typeof value === 'string' && (value.length === 10 || field.partialDate) ? value : undefined;
    case 'text':
    case 'textarea':
      return String(value);
    case 'datetime':
    case 'radio':
    case 'checkbox':
    case 'select':
    case 'file':
      return undefined;
  }
}

export interface LogItems {
  items: { variable: string; value: unknown }[];
  /** CDISC variables with a value that the form could not take (no such item, or no such option) */
  skipped: string[];
}

/** The items to save into the log form for a judgement. */
export function logItems(def: FormDefinition, category: SafetyCategory, fields: Record<string, unknown>): LogItems {
  const byVar = new Map(formFields(def.components).map((f) => [f.variable.toUpperCase(), f]));
  const out: LogItems = { items: [], skipped: [] };
  for (const [names, value] of cdiscValues(category, fields)) {
    if (value === undefined || value === null || value === '' || typeof value === 'object') continue;
    const field = names.map((n) => byVar.get(n)).find((f) => f !== undefined);
    if (!field) continue;
    const v = valueFor(field, value as string | number | boolean);
    if (v === undefined) out.skipped.push(field.variable);
    else out.items.push({ variable: field.variable, value: v });
  }
  return out;
}

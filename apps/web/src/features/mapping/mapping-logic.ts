import type { MappingFieldRow, MappingRuleInput, MappingRuleRow } from '@esource/shared';

/**
 * The data-mapping screen's pure rules: the editor's values from a saved rule (or the defaults for an item without
 * one), the rule the editor sends, and where a refused save's messages go (a field, or a row of the option map).
 */
export const LOINC = 'http://loinc.org';
export const CHOICE_TYPES = ['radio', 'select', 'checkbox'] as const;

export type SelectionChoice = 'nearest' | 'first' | 'last' | 'worstHigh' | 'worstLow';

export interface RuleFormValues {
  method: 'code' | 'fhirpath';
  codes: { system?: string; code: string }[];
  useSynonyms: boolean;
  expression?: string;
  docTypes: number[];
  unit?: string;
  selection: SelectionChoice;
  windowOnly: boolean;
  optionMap: { source: string; value: string }[];
}

export function isChoice(type: string): boolean {
  return (CHOICE_TYPES as readonly string[]).includes(type);
}

/** The editor's values: the saved rule's, or a code rule on LOINC in the item's unit for a new one. */
export function ruleToForm(field: Pick<MappingFieldRow, 'unit' | 'rule'>): RuleFormValues {
  const r = field.rule;
  if (!r)
    return {
      method: 'code',
      codes: [{ system: LOINC, code: '' }],
      useSynonyms: true,
      expression: '',
      docTypes: [],
      unit: field.unit ?? '',
      selection: 'nearest',
      windowOnly: true,
      optionMap: [],
    };
  return {
    method: r.method,
    codes: r.codes.length ? r.codes.map((c) => ({ system: c.system ?? '', code: c.code })) : [{ system: LOINC, code: '' }],
    useSynonyms: r.useSynonyms,
    expression: r.expression ?? '',
    docTypes: [...r.docTypes],
    unit: r.unit ?? '',
    selection: r.selection === 'worst' ? (r.worst === 'low' ? 'worstLow' : 'worstHigh') : r.selection,
    windowOnly: r.windowOnly,
    optionMap: r.optionMap.map((o) => ({ ...o })),
  };
}

const blankToUndefined = (s: string | undefined): string | undefined => {
  const v = s?.trim();
  return v ? v : undefined;
};

/** The rule the editor sends (save and test): only the method's own parts, empty rows dropped. */
export function formToInput(v: RuleFormValues, formId: number, variable: string, choice: boolean): MappingRuleInput {
  const worst = v.selection === 'worstHigh' ? 'high' : v.selection === 'worstLow' ? 'low' : undefined;
  const expression = v.method === 'fhirpath' ? blankToUndefined(v.expression) : undefined;
  const unit = blankToUndefined(v.unit);
  return {
    formId,
    variable,
    method: v.method,
    docTypes: [...(v.docTypes ?? [])].sort((a, b) => a - b),
    codes:
      v.method === 'code'
        ? (v.codes ?? [])
            .filter((c) => c.code?.trim())
            .map((c) => {
              const system = blankToUndefined(c.system);
              return system ? { system, code: c.code.trim() } : { code: c.code.trim() };
            })
        : [],
    useSynonyms: v.method === 'code' ? v.useSynonyms : false,
    ...(expression ? { expression } : {}),
    ...(unit ? { unit } : {}),
    selection: worst ? 'worst' : (v.selection as MappingRuleInput['selection']),
    ...(worst ? { worst } : {}),
    windowOnly: v.windowOnly,
    optionMap: choice
      ? (v.optionMap ?? []).filter((o) => o.source?.trim() && o.value).map((o) => ({ source: o.source.trim(), value: o.value }))
      : [],
  };
}

/** Option-map rows whose source appears before (case-insensitive): the server refuses them, the editor says so first. */
export function duplicateSources(rows: readonly { source?: string }[]): number[] {
  const seen = new Set<string>();
  const out: number[] = [];
  rows.forEach((r, i) => {
    const k = r.source?.trim().toLowerCase();
    if (!k) return;
    if (seen.has(k)) out.push(i);
    seen.add(k);
  });
  return out;
}

/**
 * A refused save's detail as form fields: 'expression' → ['expression'], 'optionMap.2.source' →
 * ['optionMap', 2, 'source'], 'worst' → the selection; anything unknown goes to the general message.
 */
export function detailToFields(
  detail: readonly { field: string; message: string }[],
): { fields: { name: (string | number)[]; errors: string[] }[]; rest: string[] } {
  const known = new Set(['method', 'codes', 'useSynonyms', 'expression', 'docTypes', 'unit', 'selection', 'windowOnly', 'optionMap']);
  const fields: { name: (string | number)[]; errors: string[] }[] = [];
  const rest: string[] = [];
  for (const d of detail) {
    const parts = d.field.split('.').map((p) => (/^\d+$/.test(p) ? Number(p) : p));
    const head = parts[0];
    if (head === 'worst') fields.push({ name: ['selection'], errors: [d.message] });
    else if (typeof head === 'string' && known.has(head)) {
      // a code row's message sits on its code input; an option row's on the field it names (source by default)
      const name =
        head === 'optionMap' && typeof parts[1] === 'number'
          ? ['optionMap', parts[1], parts[2] === 'value' ? 'value' : 'source']
          : head === 'codes' && typeof parts[1] === 'number'
            ? ['codes', parts[1], parts[2] === 'system' ? 'system' : 'code']
            : [head];
      fields.push({ name, errors: [d.message] });
    } else rest.push(d.message);
  }
  return { fields, rest };
}

/** The short rule summary of the item list: method and what it matches. */
export function ruleMatchText(r: Pick<MappingRuleRow, 'method' | 'codes' | 'expression'>): string {
  if (r.method === 'fhirpath') return r.expression ?? '';
  return r.codes.map((c) => (c.system && c.system !== LOINC ? `${c.system}|${c.code}` : c.code)).join(', ');
}

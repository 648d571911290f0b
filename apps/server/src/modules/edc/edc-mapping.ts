/**
 * The EDC mapping's rules, pure (no database): which of our visits, forms and items a design version offers, what is
 * wrong with a mapping against the items the EDC offers (what blocks a sync), an automatic proposal by name, and our
 * values in the EDC's terms (canonical forms the adapters turn into the target's own formats).
 */
import { CHOICE_TYPES, formFields, type FieldComponent, type FormDefinition } from '@esource/shared';
import type { EdcRecordItem, EdcTargetItem } from './adapters/adapter';

export interface MappingDesign {
  visits: { id: number; code: string; name: string; nameEn: string | null; unscheduled: boolean; formIds: number[] }[];
  forms: { id: number; code: string; name: string; nameEn: string | null; definition: FormDefinition }[];
}

export interface MappingEntry {
  level: 'event' | 'form' | 'item';
  localKey: string;
  target: string;
  targetGroup: string | null;
  valueMap: Record<string, string> | null;
}

export type ProblemCode =
  | 'noItemList'
  | 'nothingMapped'
  | 'unknownEvent'
  | 'unknownForm'
  | 'unknownItem'
  | 'itemOtherForm'
  | 'formUnmapped'
  | 'eventUnmapped'
  | 'requiredUnmapped'
  | 'codeUnmapped'
  | 'unknownCode'
  | 'duplicateTarget'
  | 'unknownLocal';

export interface Problem {
  level: 'event' | 'form' | 'item' | null;
  localKey: string | null;
  target: string | null;
  code: ProblemCode;
  params: Record<string, string>;
}

/** Items that can be sent: every field but file uploads (documents are not EDC data). */
export function syncableFields(def: FormDefinition): FieldComponent[] {
  return formFields(def.components).filter((f) => f.type !== 'file');
}

export const itemKey = (formCode: string, variable: string) => `${formCode}.${variable}`;

/** Mapping entries by level and local key. */
export function indexMapping(entries: readonly MappingEntry[]) {
  const by = { event: new Map<string, MappingEntry>(), form: new Map<string, MappingEntry>(), item: new Map<string, MappingEntry>() };
  for (const e of entries) by[e.level].set(e.localKey, e);
  return by;
}

/**
 * Everything wrong with a mapping: targets the EDC does not offer, forms whose required EDC items nothing fills,
 * option values without an EDC code, two of our items on one EDC item. An empty list lets a sync start.
 */
export function mappingProblems(design: MappingDesign, entries: readonly MappingEntry[], targetItems: readonly EdcTargetItem[] | null): Problem[] {
  const out: Problem[] = [];
  const p = (level: Problem['level'], localKey: string | null, target: string | null, code: ProblemCode, params: Record<string, string> = {}) =>
    out.push({ level, localKey, target, code, params });
  if (!targetItems) {
    p(null, null, null, 'noItemList');
    return out;
  }
  const by = indexMapping(entries);
  if (!by.form.size) p(null, null, null, 'nothingMapped');
  const targetForms = new Set(targetItems.map((i) => i.form));
  const targetEvents = new Set(targetItems.flatMap((i) => (i.event ? [i.event] : [])));
  const itemsOf = new Map<string, EdcTargetItem[]>();
  for (const i of targetItems) itemsOf.set(i.form, [...(itemsOf.get(i.form) ?? []), i]);
  const formByCode = new Map(design.forms.map((f) => [f.code, f]));
  const visitByCode = new Map(design.visits.map((v) => [v.code, v]));

  for (const e of by.event.values()) {
    if (!visitByCode.has(e.localKey)) p('event', e.localKey, e.target, 'unknownLocal', { local: e.localKey });
    else if (targetEvents.size && !targetEvents.has(e.target)) p('event', e.localKey, e.target, 'unknownEvent', { target: e.target });
  }
  for (const e of by.form.values()) {
    const form = formByCode.get(e.localKey);
    if (!form) {
      p('form', e.localKey, e.target, 'unknownLocal', { local: e.localKey });
      continue;
    }
    if (!targetForms.has(e.target)) {
      p('form', e.localKey, e.target, 'unknownForm', { target: e.target });
      continue;
    }
    // the visits holding this form need their event where the EDC has events
    if (targetEvents.size) {
      for (const v of design.visits.filter((v) => v.formIds.includes(form.id))) {
        if (!by.event.has(v.code)) p('event', v.code, null, 'eventUnmapped', { visit: v.name, form: form.name });
      }
    }
    // every item the EDC requires on this form is filled by one of ours
    const filled = new Set(
      [...by.item.values()].filter((i) => by.form.get(i.localKey.split('.')[0]!)?.target === e.target).map((i) => i.target),
    );
    // (an item the EDC has on several events is one item of the form)
    const required = new Set((itemsOf.get(e.target) ?? []).filter((t) => t.required).map((t) => t.item));
    for (const item of required) if (!filled.has(item)) p('form', e.localKey, item, 'requiredUnmapped', { target: item, form: e.target });
  }
  const seen = new Map<string, string>();
  for (const e of by.item.values()) {
    const [formCode, variable] = [e.localKey.slice(0, e.localKey.indexOf('.')), e.localKey.slice(e.localKey.indexOf('.') + 1)];
    const form = formByCode.get(formCode);
    const field = form ? syncableFields(form.definition).find((f) => f.variable === variable) : undefined;
    if (!form || !field) {
      p('item', e.localKey, e.target, 'unknownLocal', { local: e.localKey });
      continue;
    }
    const formMap = by.form.get(formCode);
    if (!formMap) {
      p('item', e.localKey, e.target, 'formUnmapped', { form: form.name });
      continue;
    }
    const candidates = targetItems.filter((t) => t.item === e.target);
    const t = candidates.find((c) => c.form === formMap.target && (!e.targetGroup || !c.group || c.group === e.targetGroup));
    if (!candidates.length) {
      p('item', e.localKey, e.target, 'unknownItem', { target: e.target });
      continue;
    }
    if (!t) {
      p('item', e.localKey, e.target, 'itemOtherForm', { target: e.target, form: formMap.target });
      continue;
    }
    const dupKey = `${formMap.target}\u0000${e.target}`;
    const other = seen.get(dupKey);
    if (other) p('item', e.localKey, e.target, 'duplicateTarget', { target: e.target, other });
    seen.set(dupKey, e.localKey);
    if (CHOICE_TYPES.includes(field.type) && t.codes?.length) {
      const codes = new Set(t.codes.map((c) => c.value));
      for (const o of field.options ?? []) {
        const code = e.valueMap?.[o.value] ?? o.mapping ?? o.value;
        if (!codes.has(code)) p('item', e.localKey, e.target, e.valueMap?.[o.value] !== undefined ? 'unknownCode' : 'codeUnmapped', { option: o.label, value: o.value, code, target: e.target });
      }
    }
  }
  return out;
}

const norm = (s: string) => s.toLowerCase().replace(/[^a-z0-9]/g, '');

/**
 * A proposal for what is not mapped yet: visits to events, forms to forms and items to items whose codes match once
 * case and punctuation are ignored (OIDs like SE.V1, F.DM, I.DM.BRTHDAT match V1, DM, BRTHDAT), options to codes by
 * value, mapping or label. Existing entries are kept.
 */
export function proposeMapping(design: MappingDesign, entries: readonly MappingEntry[], targetItems: readonly EdcTargetItem[]): MappingEntry[] {
  const by = indexMapping(entries);
  const out: MappingEntry[] = [];
  // OIDs (SE.V1, I.DM.BRTHDAT) by their last part; REDCap's unique event names (v1_arm_1) without the arm
  const tail = (oid: string) => norm((oid.split('.').pop() ?? oid).replace(/_arm_\d+$/i, ''));
  const match = (code: string, candidates: Iterable<string>) => {
    const n = norm(code);
    for (const c of candidates) if (norm(c) === n || tail(c) === n) return c;
    return undefined;
  };
  const events = new Set(targetItems.flatMap((i) => (i.event ? [i.event] : [])));
  for (const v of design.visits) {
    if (by.event.has(v.code)) continue;
    const t = match(v.code, events);
    if (t) out.push({ level: 'event', localKey: v.code, target: t, targetGroup: null, valueMap: null });
  }
  const forms = new Set(targetItems.map((i) => i.form));
  const formTarget = new Map<string, string>();
  for (const f of design.forms) {
    const existing = by.form.get(f.code)?.target;
    const t = existing ?? match(f.code, forms);
    if (!t) continue;
    formTarget.set(f.code, t);
    if (!existing) out.push({ level: 'form', localKey: f.code, target: t, targetGroup: null, valueMap: null });
  }
  for (const f of design.forms) {
    const tf = formTarget.get(f.code);
    if (!tf) continue;
    const inForm = targetItems.filter((i) => i.form === tf);
    for (const field of syncableFields(f.definition)) {
      const key = itemKey(f.code, field.variable);
      if (by.item.has(key)) continue;
      const n = norm(field.variable);
      const t = inForm.find((i) => norm(i.item) === n || tail(i.item) === n);
      if (!t) continue;
      let valueMap: Record<string, string> | null = null;
      if (CHOICE_TYPES.includes(field.type) && t.codes?.length) {
        valueMap = {};
        for (const o of field.options ?? []) {
          const c =
            t.codes.find((c) => c.value === (o.mapping ?? o.value)) ??
            t.codes.find((c) => c.value === o.value) ??
            t.codes.find((c) => c.label !== undefined && (norm(c.label) === norm(o.label) || (o.labelEn !== undefined && norm(c.label) === norm(o.labelEn))));
          if (c) valueMap[o.value] = c.value;
        }
      }
      out.push({ level: 'item', localKey: key, target: t.item, targetGroup: t.group ?? null, valueMap });
    }
  }
  return out;
}

/**
 * The items one form instance sends, in the EDC's terms: each mapped field's canonical value, the target item group
 * the mapping gives it (a form whose EDC design has several groups is sent as several ItemGroupData) and whether it
 * is a multiple choice; with our labels of the target items in both languages (for the EDC log).
 */
export function recordItems(
  form: { code: string; definition: FormDefinition },
  values: ReadonlyMap<string, unknown>,
  by: ReturnType<typeof indexMapping>,
): { items: EdcRecordItem[]; locals: Record<string, { zh: string; en: string | null }> } {
  const items: EdcRecordItem[] = [];
  const locals: Record<string, { zh: string; en: string | null }> = {};
  for (const field of syncableFields(form.definition)) {
    const im = by.item.get(itemKey(form.code, field.variable));
    if (!im) continue;
    items.push({
      item: im.target,
      value: canonicalValue(field, values.get(field.variable), im.valueMap),
      ...(im.targetGroup ? { group: im.targetGroup } : {}),
      ...(field.type === 'checkbox' ? { multiple: true } : {}),
    });
    locals[im.target] = { zh: field.label, en: field.labelEn ?? null };
  }
  return { items, locals };
}

/**
 * One of our values in the EDC's terms, in canonical form: numbers as decimal text, dates YYYY-MM-DD (or the partial
 * YYYY-MM, YYYY), datetimes YYYY-MM-DDTHH:mm:ss, a choice as the EDC's code, several choices as codes joined by ','.
 * Empty → null. The adapters turn these into their target's own formats.
 */
export function canonicalValue(field: FieldComponent, raw: unknown, valueMap: Record<string, string> | null): string | null {
  if (raw === null || raw === undefined || raw === '' || (Array.isArray(raw) && raw.length === 0)) return null;
  const text = (v: unknown): string => (typeof v === 'string' ? v : typeof v === 'number' || typeof v === 'boolean' ? String(v) : JSON.stringify(v));
  const code = (v: string) => valueMap?.[v] ?? field.options?.find((o) => o.value === v)?.mapping ?? v;
  switch (field.type) {
    case 'number':
      return text(raw).trim();
    case 'datetime': {
      const s = text(raw);
      const m = /^(\d{4}-\d{2}-\d{2})[ T](\d{2}:\d{2})(:\d{2})?/.exec(s);
      return m ? `${m[1]}T${m[2]}${m[3] ?? ':00'}` : s;
    }
    case 'radio':
    case 'select':
      return code(text(raw));
    case 'checkbox':
      return (Array.isArray(raw) ? raw.map(text) : text(raw).split(',')).map(code).join(',');
    case 'date':
    case 'text':
    case 'textarea':
    case 'file':
      return text(raw);
  }
}

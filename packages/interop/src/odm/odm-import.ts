/**
 * An ODM study definition (parseOdmStudy's model) as a design of ours: StudyEventDefs → visits (Category → stage,
 * Type Unscheduled → unscheduled), FormDefs → forms (Repeating → cycle), the items of their ItemGroups → fields
 * (DataType → field type, CodeList → options with zh/en decodes, MeasurementUnitRef → unit, RangeChecks → min/max
 * and softRange, Question → label, Mandatory → required, CollectionExceptionCondition of context "eSource" →
 * display condition). The result always passes `designExportFile.parse`.
 *
 * Nothing is dropped silently: every element, reference or value that has no place in the design, or that had to
 * be changed to fit it (a code our rules refuse, a text over our length limits, an approximated range), is listed
 * in `unmapped` with its line, its OID (or the nearest enclosing one) and a reason code. The reasons are codes for
 * the caller to translate; `detail` carries the facts (the DataType, the comparator, "old → new").
 */
import {
  designExportFile,
  formProblems,
  type DesignExportFile,
  type FieldComponent,
  type FormDefinition,
  type FormOption,
} from '@esource/shared';
import { ODM_ALIAS, ODM_CONDITION_CONTEXT, ODM_TEXT_LENGTH } from './odm-metadata';
import type {
  OdmAlias,
  OdmCodeListDef,
  OdmExpressionDef,
  OdmItemDef,
  OdmItemGroupDef,
  OdmMetaDataVersionDef,
  OdmRef,
  OdmStudyDef,
  OdmStudyModel,
  OdmText,
} from './odm-parse';

export type OdmUnmappedReason =
  /** from the parser: a reference to an OID nothing defines, an OID defined twice */
  | 'undefinedOid'
  | 'duplicateOid'
  /** an ODM element the design has no place for (Presentation, ArchiveLayout, ImputationMethod, vendor extensions …) */
  | 'element'
  | 'otherStudy'
  | 'otherMetaDataVersion'
  /** ClinicalData in the file: data, not design */
  | 'clinicalData'
  | 'alias'
  /** a Description with no place in the design (groups, code lists, items that have a Question …) */
  | 'description'
  /** TranslatedText in languages other than zh and en (one entry per file) */
  | 'otherLanguages'
  | 'methodDef'
  /** a condition that is not an eSource expression, or one that does not compile against the imported form */
  | 'condition'
  /** StudyEventDef Type Common: imported as an unscheduled visit */
  | 'eventType'
  /** a repeating scheduled StudyEventDef: imported as one visit */
  | 'repeatingEvent'
  /** a repeating ItemGroup in a non-repeating form (or in a repeating one): its items imported once */
  | 'repeatingGroup'
  /** a DataType we have no field type for: imported as a text field */
  | 'dataType'
  /** boolean DataType: imported as a radio item with options 1 / 0 */
  | 'booleanAsChoice'
  /** a RangeCheck we cannot express as min/max (comparator, expression, not a number item, exclusive bound) */
  | 'rangeCheck'
  /** soft RangeChecks where hard ones exist (an item has one range, hard or soft) */
  | 'rangeCheckSoft'
  /** a second MeasurementUnitRef of an item */
  | 'unit'
  | 'externalCodeList'
  /** an OID or coded value that is not a valid code of ours: a valid unique code was derived */
  | 'codeDerived'
  /** a text over our length limit: cut */
  | 'truncated'
  /** over our count limits (options, components, forms, visits) */
  | 'tooMany'
  /** a form with no item: not imported (a form needs one component) */
  | 'emptyForm'
  /** the same item twice in one form: the second left out */
  | 'duplicateItem'
  /** a definition no imported form, visit or item refers to */
  | 'unused'
  | 'precision'
  /** an attribute of a vendor's namespace (REDCap, OpenClinica …): ignored, as ODM lets a receiver do */
  | 'vendorAttribute';

export interface OdmUnmapped {
  line: number;
  oid: string;
  /** the element (and attribute) concerned, e.g. "ItemDef", "RangeCheck", "ItemRef/@MethodOID" */
  what: string;
  reason: OdmUnmappedReason;
  detail?: string;
}

export interface OdmImportOptions {
  /** the Study to import; default the first */
  studyOid?: string;
  /** the MetaDataVersion to import; default the last of the study (the newest) */
  metaDataVersionOid?: string;
  /** the design version's name; default the MetaDataVersion's Name */
  versionName?: string;
}

export interface OdmImportResult {
  design: DesignExportFile;
  unmapped: OdmUnmapped[];
}

// limits of design.schema.ts
const MAX = {
  label: 100,
  optionValue: 50,
  formName: 100,
  visitName: 50,
  unit: 20,
  versionName: 50,
  stage: 50,
  components: 500,
  options: 200,
  forms: 500,
  visits: 500,
};
const VARIABLE_RE = /^[A-Za-z][A-Za-z0-9_]{0,39}$/;
const FORM_CODE_RE = /^[A-Za-z0-9_-]{1,50}$/;
const VISIT_CODE_RE = /^[A-Za-z0-9_-]{1,30}$/;

type Lang = 'zh' | 'en' | 'plain' | 'other';
function langOf(lang: string | null): Lang {
  if (lang === null || lang === '') return 'plain';
  const l = lang.toLowerCase();
  if (/^(zh|chi|zho)\b/.test(l)) return 'zh';
  if (/^(en|eng)\b/.test(l)) return 'en';
  return 'other';
}

/** The first `max` UTF-16 units of a text (zod's length), never half a surrogate pair. */
function head(s: string, max: number): string {
  const out = s.slice(0, max);
  return /[\uD800-\uDBFF]$/.test(out) ? out.slice(0, -1) : out;
}

/** Cuts a text to our limit (the last character an ellipsis). */
function cut(s: string, max: number): string {
  return s.length <= max ? s : head(s, max - 1) + '…';
}

class Importer {
  readonly unmapped: OdmUnmapped[] = [];
  private readonly otherLangs = new Map<string, number>();

  /** the file is one of ours (SourceSystem eSource): form and visit Descriptions are their zh / en names */
  constructor(readonly own: boolean) {}

  add(line: number, oid: string, what: string, reason: OdmUnmappedReason, detail?: string): void {
    this.unmapped.push({ line, oid, what, reason, ...(detail !== undefined ? { detail } : {}) });
  }

  /** zh / en / no-language text of a TranslatedText list; other languages are counted for one summary entry. */
  pick(list: OdmText[], line: number): { zh?: string; en?: string; plain?: string } {
    const out: { zh?: string; en?: string; plain?: string } = {};
    for (const t of list) {
      const l = langOf(t.lang);
      if (l === 'other') {
        if (!this.otherLangs.has(t.lang!)) this.otherLangs.set(t.lang!, line);
        continue;
      }
      if (t.text && out[l] === undefined) out[l] = t.text;
    }
    return out;
  }

  /** The entries by line, each once (an item shared by several forms is converted, and reported, once per form). */
  result(): OdmUnmapped[] {
    const seen = new Set<string>();
    return this.unmapped
      .filter((u) => {
        const k = JSON.stringify([u.line, u.oid, u.what, u.reason, u.detail]);
        if (seen.has(k)) return false;
        seen.add(k);
        return true;
      })
      .sort((a, b) => a.line - b.line);
  }

  finishLanguages(): void {
    if (!this.otherLangs.size) return;
    this.add(
      Math.min(...this.otherLangs.values()),
      '',
      'TranslatedText',
      'otherLanguages',
      [...this.otherLangs.keys()].join(', '),
    );
  }

  /** A text within `max`, listed when cut. */
  fit(text: string, max: number, line: number, oid: string, what: string): string {
    const out = cut(text, max);
    if (out !== text) this.add(line, oid, what, 'truncated', `${text.length} > ${max}`);
    return out;
  }

  aliases(list: OdmAlias[], oid: string, what: string, own: readonly string[] = []): void {
    for (const a of list)
      if (!own.includes(a.context))
        this.add(a.line, oid, `${what}/Alias`, 'alias', `${a.context}: ${a.name}`);
  }

  description(list: OdmText[], line: number, oid: string, what: string): void {
    if (list.some((t) => t.text)) this.add(line, oid, `${what}/Description`, 'description');
  }

  /**
   * A code of ours from an OID: its last dot-separated part (ours are `F.<code>`, `SE.<code>`, `I.<form>.<var>`;
   * others' are often `IT.DM.SEX`, `ODM.F.DM`), characters our rules refuse replaced by `_`, cut to the limit,
   * made unique with `_2`, `_3` …; listed when it is not the OID (or, for our own files, its last part).
   */
  code(
    oid: string,
    used: Set<string>,
    kind: 'form' | 'visit' | 'variable',
    line: number,
    what: string,
  ): string {
    const max = kind === 'form' ? 50 : kind === 'visit' ? 30 : 40;
    const re = kind === 'form' ? FORM_CODE_RE : kind === 'visit' ? VISIT_CODE_RE : VARIABLE_RE;
    const last = oid.split('.').filter(Boolean).at(-1) ?? '';
    let base = last.replace(kind === 'variable' ? /[^A-Za-z0-9_]/g : /[^A-Za-z0-9_-]/g, '_');
    if (kind === 'variable' && !/^[A-Za-z]/.test(base)) base = `V${base}`;
    if (!base) base = kind === 'variable' ? 'V' : '_';
    base = base.slice(0, max);
    let code = base;
    for (let n = 2; used.has(code.toLowerCase()) || !re.test(code); n++) {
      const suffix = `_${n}`;
      code = base.slice(0, max - suffix.length) + suffix;
    }
    used.add(code.toLowerCase());
    const expected = this.own ? last : oid;
    if (code !== expected) this.add(line, oid, what, 'codeDerived', `${oid} → ${code}`);
    return code;
  }
}

/** Definitions of the chosen MetaDataVersion and of those it includes (its own win). */
interface Lookup {
  events: Map<string, OdmMetaDataVersionDef['events'][number]>;
  forms: Map<string, OdmMetaDataVersionDef['forms'][number]>;
  groups: Map<string, OdmItemGroupDef>;
  items: Map<string, OdmItemDef>;
  codeLists: Map<string, OdmCodeListDef>;
  conditions: Map<string, OdmExpressionDef>;
}

function lookup(study: OdmStudyDef, chosen: OdmMetaDataVersionDef, all: OdmStudyDef[]): Lookup {
  const chain: OdmMetaDataVersionDef[] = [chosen];
  for (let cur = chosen, guard = 0; cur.include && guard < 20; guard++) {
    const s = all.find((x) => x.oid === cur.include!.studyOid) ?? study;
    const inc = s.metaDataVersions.find((m) => m.oid === cur.include!.metaDataVersionOid);
    if (!inc) break;
    chain.push(inc);
    cur = inc;
  }
  const map = <T extends { oid: string }>(get: (m: OdmMetaDataVersionDef) => T[]) => {
    const out = new Map<string, T>();
    for (const m of [...chain].reverse()) for (const d of get(m)) out.set(d.oid, d);
    return out;
  };
  return {
    events: map((m) => m.events),
    forms: map((m) => m.forms),
    groups: map((m) => m.itemGroups),
    items: map((m) => m.items),
    codeLists: map((m) => m.codeLists),
    conditions: map((m) => m.conditions),
  };
}

/** The OrderNumbers when every element has a distinct one, else null (then document order counts). */
function byOrder<T extends { orderNumber?: number }>(list: T[]): T[] {
  const nums = list.map((r) => r.orderNumber);
  if (nums.every((n) => n !== undefined) && new Set(nums).size === nums.length)
    return [...list].sort((a, b) => a.orderNumber! - b.orderNumber!);
  return list;
}

function and(a: string | undefined, b: string | undefined): string | undefined {
  if (a && b) return `(${a}) and (${b})`;
  return a || b || undefined;
}

/**
 * Turns a parsed ODM study definition into a design. Everything not mapped, or mapped only approximately, is
 * listed in `unmapped` (see OdmUnmappedReason).
 */
export function odmToDesign(model: OdmStudyModel, opts: OdmImportOptions = {}): OdmImportResult {
  const imp = new Importer(model.sourceSystem === 'eSource');
  for (const p of model.problems) imp.add(p.line, p.oid, p.what, p.reason);
  for (const i of model.ignored) imp.add(i.line, i.oid, i.element, 'element');
  for (const c of model.clinicalData)
    imp.add(c.line, c.studyOid, 'ClinicalData', 'clinicalData', `${c.subjects} subjects`);

  const study =
    (opts.studyOid ? model.studies.find((s) => s.oid === opts.studyOid) : model.studies[0]) ?? null;
  for (const s of model.studies) if (s !== study) imp.add(s.line, s.oid, 'Study', 'otherStudy');
  const mdvs = study?.metaDataVersions ?? [];
  const mdv =
    (opts.metaDataVersionOid ? mdvs.find((m) => m.oid === opts.metaDataVersionOid) : mdvs.at(-1)) ?? null;
  for (const m of mdvs) if (m !== mdv) imp.add(m.line, m.oid, 'MetaDataVersion', 'otherMetaDataVersion');

  const versionName = imp.fit(
    (opts.versionName ?? mdv?.name ?? study?.studyName ?? model.fileOid) || 'ODM',
    MAX.versionName,
    mdv?.line ?? 1,
    mdv?.oid ?? '',
    'MetaDataVersion/@Name',
  );
  const design: DesignExportFile = {
    kind: 'esource.design',
    schemaVersion: 1,
    ...(study
      ? { project: { no: study.protocolName || study.oid, name: study.studyName || study.oid } }
      : {}),
    version: { name: versionName },
    stages: [],
    forms: [],
    visits: [],
  };
  if (!study || !mdv) {
    imp.finishLanguages();
    return { design: designExportFile.parse(design), unmapped: imp.result() };
  }
  const L = lookup(study, mdv, model.studies);
  const units = new Map(study.units.map((u) => [u.oid, u]));
  const used = {
    groups: new Set<string>(),
    items: new Set<string>(),
    codeLists: new Set<string>(),
    conditions: new Set<string>(),
    units: new Set<string>(),
  };

  /** A display condition from a CollectionExceptionCondition (eSource: `not (x)` → x); listed when it is not ours. */
  const condition = (
    oid: string | undefined,
    line: number,
    owner: string,
    what: string,
  ): string | undefined => {
    if (!oid) return undefined;
    const c = L.conditions.get(oid);
    if (!c) return undefined; // listed by the parser as undefinedOid
    used.conditions.add(oid);
    const e = c.expressions.find((x) => x.context === ODM_CONDITION_CONTEXT);
    if (!e) {
      imp.add(
        line,
        owner,
        what,
        'condition',
        `${oid}: ${c.expressions.map((x) => x.context ?? '').join(', ') || 'no FormalExpression'}`,
      );
      return undefined;
    }
    const m = /^not\s*\(([\s\S]*)\)$/.exec(e.text.trim());
    return m ? m[1]!.trim() : `not (${e.text.trim()})`;
  };

  // ── forms ──
  const formCodes = new Set<string>();
  const formByOid = new Map<string, string>();
  for (const fd of L.forms.values()) {
    if (
      !mdv.forms.includes(fd) &&
      ![...L.events.values()].some((e) => e.formRefs.some((r) => r.oid === fd.oid))
    )
      continue;
    const texts = imp.pick(fd.description, fd.line);
    const name = imp.fit(
      (imp.own ? (texts.zh ?? texts.plain) : undefined) ?? fd.name ?? fd.oid,
      MAX.formName,
      fd.line,
      fd.oid,
      'FormDef/@Name',
    );
    const nameEn =
      imp.own && texts.en
        ? imp.fit(texts.en, MAX.formName, fd.line, fd.oid, 'FormDef/Description')
        : undefined;
    if (!imp.own) imp.description(fd.description, fd.line, fd.oid, 'FormDef');
    imp.aliases(fd.aliases, fd.oid, 'FormDef');

    // the items of the form's groups, with the group's condition and repetition
    type Cand = {
      ref: OdmRef;
      item: OdmItemDef;
      group: OdmItemGroupDef;
      groupCondition?: string;
      checkbox: boolean;
      gi: number;
      ii: number;
    };
    const cands: Cand[] = [];
    byOrder(fd.itemGroupRefs).forEach((gr, gi) => {
      const g = L.groups.get(gr.oid);
      if (!g) return;
      used.groups.add(g.oid);
      imp.description(g.description, g.line, g.oid, 'ItemGroupDef');
      imp.aliases(g.aliases, g.oid, 'ItemGroupDef');
      const groupCondition = condition(
        gr.conditionOid,
        gr.line,
        fd.oid,
        'ItemGroupRef/@CollectionExceptionConditionOID',
      );
      const refs = byOrder(g.itemRefs);
      const only = refs.length === 1 ? L.items.get(refs[0]!.oid) : undefined;
      // the "select all that apply" pattern: one coded item in a repeating group (in a repeating form only when the
      // file is ours — other systems mark a repeating form's only group Repeating too)
      const checkbox =
        g.repeating &&
        (imp.own || !fd.repeating) &&
        only !== undefined &&
        only.codeListRef !== undefined &&
        L.codeLists.get(only.codeListRef.oid)?.external === undefined &&
        L.codeLists.has(only.codeListRef.oid);
      if (g.repeating && !checkbox)
        imp.add(
          g.line,
          g.oid,
          'ItemGroupDef/@Repeating',
          'repeatingGroup',
          fd.repeating ? 'inside a repeating form' : 'inside a non-repeating form',
        );
      refs.forEach((r, ii) => {
        const item = L.items.get(r.oid);
        if (!item) return;
        // a checkbox group's own ItemRef is always Mandatory; whether the item is required is the group's
        cands.push({
          ref: checkbox ? { ...r, mandatory: gr.mandatory } : r,
          item,
          group: g,
          ...(groupCondition ? { groupCondition } : {}),
          checkbox,
          gi,
          ii,
        });
      });
    });
    const orders = cands.map((c) => c.ref.orderNumber);
    const global = orders.every((n) => n !== undefined) && new Set(orders).size === orders.length;
    cands.sort((a, b) => (global ? a.ref.orderNumber! - b.ref.orderNumber! : a.gi - b.gi || a.ii - b.ii));

    const variables = new Set<string>();
    const seenItems = new Set<string>();
    const fields: FieldComponent[] = [];
    const fieldOids: string[] = [];
    for (const c of cands) {
      if (seenItems.has(c.item.oid)) {
        imp.add(c.ref.line, c.item.oid, 'ItemRef', 'duplicateItem', fd.oid);
        continue;
      }
      seenItems.add(c.item.oid);
      if (fields.length >= MAX.components) {
        imp.add(
          c.ref.line,
          c.item.oid,
          'ItemRef',
          'tooMany',
          `more than ${MAX.components} items in ${fd.oid}`,
        );
        continue;
      }
      used.items.add(c.item.oid);
      if (c.ref.methodOid)
        imp.add(c.ref.line, c.item.oid, 'ItemRef/@MethodOID', 'methodDef', c.ref.methodOid);
      const itemCondition = condition(
        c.ref.conditionOid,
        c.ref.line,
        c.item.oid,
        'ItemRef/@CollectionExceptionConditionOID',
      );
      fields.push(
        itemToField(
          imp,
          c.item,
          c.ref,
          c.checkbox,
          and(c.groupCondition, itemCondition),
          variables,
          L,
          units,
          used,
        ),
      );
      fieldOids.push(c.item.oid);
    }
    if (!fields.length) {
      imp.add(fd.line, fd.oid, 'FormDef', 'emptyForm');
      continue;
    }
    if (design.forms.length >= MAX.forms) {
      imp.add(fd.line, fd.oid, 'FormDef', 'tooMany', `more than ${MAX.forms} forms`);
      continue;
    }
    // conditions that do not compile here (another system's syntax, a variable renamed or left out) are dropped
    for (const p of formProblems(fields)) {
      if (p.path[0] !== 'components' || p.path[2] !== 'displayCondition') continue;
      const at = p.path[1] as number;
      const f = fields[at];
      if (f?.displayCondition === undefined) continue;
      imp.add(
        fd.line,
        fieldOids[at] ?? '',
        'ItemRef/@CollectionExceptionConditionOID',
        'condition',
        f.displayCondition,
      );
      delete f.displayCondition;
    }
    const code = imp.code(fd.oid, formCodes, 'form', fd.line, 'FormDef/@OID');
    formByOid.set(fd.oid, code);
    const form: FormDefinition = {
      name,
      code,
      ...(nameEn ? { nameEn } : {}),
      cycle: fd.repeating,
      layout: 'vertical',
      labelWidth: 120,
      recordType: 'medical',
      components: fields,
    };
    design.forms.push(form);
  }

  // ── visits ──
  const visitCodes = new Set<string>();
  const protocolRefs = byOrder(mdv.protocol?.eventRefs ?? []);
  if (mdv.protocol) {
    imp.description(mdv.protocol.description, mdv.protocol.line, mdv.oid, 'Protocol');
    imp.aliases(mdv.protocol.aliases, mdv.oid, 'Protocol');
  }
  for (const r of protocolRefs)
    if (r.conditionOid)
      imp.add(r.line, r.oid, 'StudyEventRef/@CollectionExceptionConditionOID', 'condition', r.conditionOid);
  const ordered = [
    ...protocolRefs.map((r) => L.events.get(r.oid)).filter((e) => e !== undefined),
    ...[...L.events.values()].filter((e) => !protocolRefs.some((r) => r.oid === e.oid)),
  ];
  const stageNames: string[] = [];
  for (const [i, ev] of [...new Set(ordered)].entries()) {
    if (design.visits.length >= MAX.visits) {
      imp.add(ev.line, ev.oid, 'StudyEventDef', 'tooMany', `more than ${MAX.visits} visits`);
      continue;
    }
    const texts = imp.pick(ev.description, ev.line);
    const name = imp.fit(
      (imp.own ? (texts.zh ?? texts.plain) : undefined) ?? ev.name ?? ev.oid,
      MAX.visitName,
      ev.line,
      ev.oid,
      'StudyEventDef/@Name',
    );
    const nameEn =
      imp.own && texts.en
        ? imp.fit(texts.en, MAX.visitName, ev.line, ev.oid, 'StudyEventDef/Description')
        : null;
    if (!imp.own) imp.description(ev.description, ev.line, ev.oid, 'StudyEventDef');
    imp.aliases(ev.aliases, ev.oid, 'StudyEventDef', [ODM_ALIAS.schedule]);
    let unscheduled = ev.type === 'Unscheduled';
    if (ev.type === 'Common') {
      unscheduled = true;
      imp.add(ev.line, ev.oid, 'StudyEventDef/@Type', 'eventType', 'Common → unscheduled');
    } else if (ev.repeating && !unscheduled)
      imp.add(ev.line, ev.oid, 'StudyEventDef/@Repeating', 'repeatingEvent');
    const stage = ev.category
      ? imp.fit(ev.category, MAX.stage, ev.line, ev.oid, 'StudyEventDef/@Category')
      : null;
    if (stage && !stageNames.includes(stage)) stageNames.push(stage);
    const sched = ev.aliases.find((a) => a.context === ODM_ALIAS.schedule)?.name ?? '';
    const num = (k: string, min: number, max: number) => {
      const m = new RegExp(`(?:^|;)${k}=(-?\\d+)`).exec(sched);
      const n = m ? Number(m[1]) : 0;
      return n >= min && n <= max ? n : 0;
    };
    const forms: string[] = [];
    for (const r of byOrder(ev.formRefs)) {
      if (r.conditionOid)
        imp.add(r.line, r.oid, 'FormRef/@CollectionExceptionConditionOID', 'condition', r.conditionOid);
      const code = formByOid.get(r.oid);
      if (code && !forms.includes(code)) forms.push(code);
    }
    design.visits.push({
      code: imp.code(ev.oid, visitCodes, 'visit', ev.line, 'StudyEventDef/@OID'),
      name,
      nameEn,
      stage,
      sortOrder: i + 1,
      dayOffset: num('dayOffset', -3650, 3650),
      windowBefore: num('windowBefore', 0, 365),
      windowAfter: num('windowAfter', 0, 365),
      unscheduled,
      forms,
    });
  }
  design.stages = stageNames.map((name, i) => ({ name, sortOrder: i }));

  // ── what nothing used ──
  for (const m of mdv.methods) imp.add(m.line, m.oid, 'MethodDef', 'methodDef');
  for (const g of L.groups.values())
    if (!used.groups.has(g.oid)) imp.add(g.line, g.oid, 'ItemGroupDef', 'unused');
  for (const i of L.items.values()) if (!used.items.has(i.oid)) imp.add(i.line, i.oid, 'ItemDef', 'unused');
  for (const c of L.codeLists.values())
    if (!used.codeLists.has(c.oid)) imp.add(c.line, c.oid, 'CodeList', 'unused');
  for (const c of L.conditions.values())
    if (!used.conditions.has(c.oid)) imp.add(c.line, c.oid, 'ConditionDef', 'unused');
  for (const u of study.units) {
    if (!used.units.has(u.oid)) imp.add(u.line, u.oid, 'MeasurementUnit', 'unused');
    else imp.aliases(u.aliases, u.oid, 'MeasurementUnit');
  }

  imp.finishLanguages();
  return { design: designExportFile.parse(design), unmapped: imp.result() };
}

function itemToField(
  imp: Importer,
  item: OdmItemDef,
  ref: OdmRef,
  checkbox: boolean,
  displayCondition: string | undefined,
  variables: Set<string>,
  L: Lookup,
  units: Map<string, OdmStudyDef['units'][number]>,
  used: { codeLists: Set<string>; units: Set<string> },
): FieldComponent {
  const q = imp.pick(item.question, item.line);
  const d = imp.pick(item.description, item.line);
  const hasQuestion = Boolean(q.zh ?? q.en ?? q.plain);
  if (hasQuestion) imp.description(item.description, item.line, item.oid, 'ItemDef');
  const rawLabel = q.zh ?? q.plain ?? q.en ?? d.zh ?? d.plain ?? d.en ?? (item.name || item.oid);
  const rawLabelEn = hasQuestion ? q.en : d.en;
  const control = item.aliases.find((a) => a.context === ODM_ALIAS.control)?.name;
  imp.aliases(item.aliases, item.oid, 'ItemDef', [ODM_ALIAS.control]);

  const field: FieldComponent = {
    id: '',
    type: 'text',
    label: imp.fit(rawLabel, MAX.label, item.line, item.oid, 'ItemDef/Question'),
    ...(rawLabelEn
      ? { labelEn: imp.fit(rawLabelEn, MAX.label, item.line, item.oid, 'ItemDef/Question') }
      : {}),
    variable: imp.code(item.oid, variables, 'variable', item.line, 'ItemDef/@OID'),
    ...(ref.mandatory ? { required: true } : {}),
    ...(displayCondition ? { displayCondition } : {}),
  };
  field.id = field.variable.toLowerCase().slice(0, 40);

  const cl = item.codeListRef ? L.codeLists.get(item.codeListRef.oid) : undefined;
  if (cl) {
    used.codeLists.add(cl.oid);
    imp.description(cl.description, cl.line, cl.oid, 'CodeList');
    imp.aliases(cl.aliases, cl.oid, 'CodeList');
  }
  if (cl?.external) {
    imp.add(
      cl.external.line,
      cl.oid,
      'ExternalCodeList',
      'externalCodeList',
      [cl.external.dictionary, cl.external.version].filter(Boolean).join(' '),
    );
  } else if (cl) {
    field.type = checkbox ? 'checkbox' : control === 'radio' ? 'radio' : 'select';
    field.options = codeListOptions(imp, cl);
    if (!field.options.length) {
      // a code list with no usable entry: the item stays a text field
      field.type = 'text';
      delete field.options;
    }
  }
  if (!field.options) {
    switch (item.dataType) {
      case 'text':
      case 'string':
        field.type = control === 'textarea' || (item.length ?? 0) > ODM_TEXT_LENGTH ? 'textarea' : 'text';
        break;
      case 'integer':
        field.type = 'number';
        field.precision = 0;
        break;
      case 'float':
      case 'double':
        field.type = 'number';
        if (item.significantDigits !== undefined) {
          if (item.significantDigits <= 6) field.precision = item.significantDigits;
          else
            imp.add(
              item.line,
              item.oid,
              'ItemDef/@SignificantDigits',
              'precision',
              `${item.significantDigits} > 6`,
            );
        }
        break;
      case 'date':
        field.type = 'date';
        break;
      case 'partialDate':
        field.type = 'date';
        field.partialDate = true;
        break;
      case 'datetime':
        field.type = 'datetime';
        break;
      case 'URI':
        field.type = 'file';
        break;
      case 'boolean':
        field.type = 'radio';
        field.options = [
          { value: '1', label: '是', labelEn: 'Yes' },
          { value: '0', label: '否', labelEn: 'No' },
        ];
        imp.add(item.line, item.oid, 'ItemDef/@DataType', 'booleanAsChoice', 'boolean');
        break;
      default:
        // time, partialTime, partialDatetime, durationDatetime, intervalDatetime, incomplete*, hexBinary,
        // base64Binary, hexFloat, base64Float: kept as a text field
        imp.add(item.line, item.oid, 'ItemDef/@DataType', 'dataType', item.dataType);
    }
  }
  // a checkbox group whose code list could not be used is imported once (repetition listed by the caller)
  if (checkbox && field.type !== 'checkbox')
    imp.add(
      item.line,
      item.oid,
      'ItemGroupDef/@Repeating',
      'repeatingGroup',
      'multiple choice without a usable code list',
    );

  // unit: the first MeasurementUnitRef; with none, the unit all the RangeChecks are in (the values must be in it)
  item.unitRefs.slice(1).forEach((u) => imp.add(u.line, item.oid, 'MeasurementUnitRef', 'unit', u.oid));
  const checkUnits = [...new Set(item.rangeChecks.map((r) => r.unitRef?.oid))];
  const unitOid = item.unitRefs[0]?.oid ?? (checkUnits.length === 1 ? checkUnits[0] : undefined);
  const def = unitOid !== undefined ? units.get(unitOid) : undefined;
  if (def) {
    used.units.add(def.oid);
    const s = imp.pick(def.symbol, def.line);
    field.unit = imp.fit(
      s.plain ?? s.en ?? s.zh ?? def.name ?? def.oid,
      MAX.unit,
      def.line,
      def.oid,
      'MeasurementUnit/Symbol',
    );
  }

  rangeChecks(imp, item, field, unitOid);
  return field;
}

function codeListOptions(imp: Importer, cl: OdmCodeListDef): FormOption[] {
  const values = new Set<string>();
  const options: FormOption[] = [];
  for (const it of byOrder(cl.items)) {
    if (options.length >= MAX.options) {
      imp.add(it.line, cl.oid, 'CodeListItem', 'tooMany', `more than ${MAX.options} options`);
      break;
    }
    const ownValue = it.aliases.find((a) => a.context === ODM_ALIAS.value)?.name;
    imp.aliases(it.aliases, cl.oid, 'CodeListItem', [ODM_ALIAS.value]);
    const t = imp.pick(it.decode, it.line);
    let value = ownValue ?? it.codedValue;
    // our option values: 1–50 characters, unique in the item
    const base = head(value.trim() || '_', MAX.optionValue);
    value = base;
    for (let n = 2; values.has(value); n++)
      value = `${base.slice(0, MAX.optionValue - String(n).length - 1)}_${n}`;
    if (value !== (ownValue ?? it.codedValue))
      imp.add(
        it.line,
        cl.oid,
        'CodeListItem/@CodedValue',
        'codeDerived',
        `${ownValue ?? it.codedValue} → ${value}`,
      );
    values.add(value);
    let mapping: string | undefined = ownValue !== undefined ? it.codedValue : undefined;
    if (mapping !== undefined && mapping.length > MAX.optionValue) {
      imp.add(it.line, cl.oid, 'CodeListItem/@CodedValue', 'truncated', `${mapping} (mapping)`);
      mapping = cut(mapping, MAX.optionValue);
    }
    const label = t.zh ?? t.plain ?? t.en ?? it.codedValue;
    options.push({
      value,
      label: imp.fit(label || value, MAX.label, it.line, cl.oid, 'Decode'),
      ...(t.en ? { labelEn: imp.fit(t.en, MAX.label, it.line, cl.oid, 'Decode') } : {}),
      ...(mapping !== undefined ? { mapping } : {}),
    });
  }
  // a mapping must be unique in the item too (cutting may have made two equal)
  const mappings = new Set<string>();
  for (const o of options) {
    if (o.mapping === undefined) continue;
    if (mappings.has(o.mapping)) {
      imp.add(cl.line, cl.oid, 'CodeListItem', 'truncated', `mapping ${o.mapping} left out (not unique)`);
      delete o.mapping;
    } else mappings.add(o.mapping);
  }
  return options;
}

const NUMBER = /^[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?$/;

/** RangeChecks → min / max / softRange (number items only): the tightest hard bounds, else the soft ones. */
function rangeChecks(
  imp: Importer,
  item: OdmItemDef,
  field: FieldComponent,
  unitOid: string | undefined,
): void {
  if (!item.rangeChecks.length) return;
  type Bound = { side: 'min' | 'max'; value: number; soft: boolean; line: number };
  const bounds: Bound[] = [];
  for (const rc of item.rangeChecks) {
    const cv = rc.checkValues[0];
    if (rc.unitRef && rc.unitRef.oid !== unitOid) {
      imp.add(
        rc.line,
        item.oid,
        'RangeCheck/MeasurementUnitRef',
        'rangeCheck',
        `${rc.comparator ?? ''} ${rc.checkValues.join(' ')} in ${rc.unitRef.oid}, the item's unit is ${unitOid ?? 'none'}`,
      );
      continue;
    }
    const ok =
      field.type === 'number' &&
      rc.formalExpressions.length === 0 &&
      rc.checkValues.length === 1 &&
      cv !== undefined &&
      NUMBER.test(cv) &&
      ['LT', 'LE', 'GT', 'GE'].includes(rc.comparator ?? '');
    if (!ok) {
      imp.add(
        rc.line,
        item.oid,
        'RangeCheck',
        'rangeCheck',
        `${rc.comparator ?? '(no comparator)'} ${rc.checkValues.join(' ') || rc.formalExpressions.map((e) => e.text).join(' ')}`.trim(),
      );
      continue;
    }
    let value = Number(cv);
    const exclusive = rc.comparator === 'LT' || rc.comparator === 'GT';
    const side = rc.comparator === 'LT' || rc.comparator === 'LE' ? 'max' : 'min';
    if (exclusive) {
      if (field.precision === 0) value = side === 'max' ? Math.ceil(value) - 1 : Math.floor(value) + 1;
      else
        imp.add(
          rc.line,
          item.oid,
          'RangeCheck/@Comparator',
          'rangeCheck',
          `${rc.comparator} ${cv} imported as ${side === 'max' ? '≤' : '≥'} ${cv}`,
        );
    }
    bounds.push({ side, value, soft: rc.softHard === 'Soft', line: rc.line });
  }
  const hard = bounds.filter((b) => !b.soft);
  const chosen = hard.length ? hard : bounds;
  if (hard.length)
    for (const b of bounds.filter((x) => x.soft))
      imp.add(b.line, item.oid, 'RangeCheck', 'rangeCheckSoft', `${b.side} ${b.value}`);
  const mins = chosen.filter((b) => b.side === 'min').map((b) => b.value);
  const maxs = chosen.filter((b) => b.side === 'max').map((b) => b.value);
  const min = mins.length ? Math.max(...mins) : undefined;
  const max = maxs.length ? Math.min(...maxs) : undefined;
  if (min !== undefined && max !== undefined && min > max) {
    imp.add(chosen[0]!.line, item.oid, 'RangeCheck', 'rangeCheck', `min ${min} > max ${max}`);
    return;
  }
  if (min !== undefined) field.min = min;
  if (max !== undefined) field.max = max;
  if ((min !== undefined || max !== undefined) && !hard.length) field.softRange = true;
}

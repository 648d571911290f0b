/**
 * Reading CDISC ODM with line numbers, on saxes (a streaming, non-validating SAX parser that resolves no external
 * entity — an ODM file cannot make us read a file or the network). A document that is not well-formed is refused
 * with an OdmError at the line and column where the parser stopped.
 *
 * - `parseOdmStudy(xml)` builds a typed model of the Study metadata (every MetaDataVersion with its events, forms,
 *   item groups, items, code lists, conditions, methods; the study's units) and checks every OID reference —
 *   within the metadata, and from ClinicalData and AdminData of the same file to it — listing each reference to an
 *   undefined OID (and each duplicate OID) with its line. ODM elements the model does not hold are listed in
 *   `ignored`, so that an import can say what it did not take.
 * - `parseOdmClinical(input)` streams the SubjectData of a document (a string or chunks of text or bytes) as
 *   OdmSubject objects, one at a time, holding only the subject being read.
 */
import { SaxesParser, type SaxesTagNS } from 'saxes';
import type {
  OdmAudit,
  OdmForm,
  OdmItem,
  OdmItemGroup,
  OdmEvent,
  OdmSignature,
  OdmSubject,
  OdmTransactionType,
} from './odm-clinical';
import { ODM_NS } from './odm-xml';

/** A document that is not well-formed XML, or not an ODM document. */
export class OdmError extends Error {
  override readonly name = 'OdmError';
  constructor(
    readonly line: number,
    readonly column: number,
    readonly reason: string,
  ) {
    super(`line ${line}, column ${column}: ${reason}`);
  }
}

/** A TranslatedText: its xml:lang (null when absent) and text. */
export interface OdmText {
  lang: string | null;
  text: string;
}
export interface OdmAlias {
  context: string;
  name: string;
  line: number;
}
/** A reference element (StudyEventRef, FormRef, ItemGroupRef, ItemRef). */
export interface OdmRef {
  oid: string;
  line: number;
  orderNumber?: number;
  mandatory: boolean;
  conditionOid?: string;
  methodOid?: string;
}
export interface OdmEventDef {
  oid: string;
  name: string;
  line: number;
  repeating: boolean;
  type: string;
  category?: string;
  description: OdmText[];
  formRefs: OdmRef[];
  aliases: OdmAlias[];
}
export interface OdmFormDef {
  oid: string;
  name: string;
  line: number;
  repeating: boolean;
  description: OdmText[];
  itemGroupRefs: OdmRef[];
  aliases: OdmAlias[];
}
export interface OdmItemGroupDef {
  oid: string;
  name: string;
  line: number;
  repeating: boolean;
  domain?: string;
  description: OdmText[];
  itemRefs: OdmRef[];
  aliases: OdmAlias[];
}
export interface OdmRangeCheckDef {
  line: number;
  /** the unit the CheckValue is in, when the RangeCheck names one */
  unitRef?: { oid: string; line: number };
  comparator?: string;
  softHard: string;
  checkValues: string[];
  formalExpressions: { context?: string; text: string }[];
  errorMessage: OdmText[];
}
export interface OdmItemDef {
  oid: string;
  name: string;
  line: number;
  dataType: string;
  length?: number;
  significantDigits?: number;
  sasFieldName?: string;
  sdsVarName?: string;
  description: OdmText[];
  question: OdmText[];
  unitRefs: { oid: string; line: number }[];
  rangeChecks: OdmRangeCheckDef[];
  codeListRef?: { oid: string; line: number };
  aliases: OdmAlias[];
}
export interface OdmCodeListItemDef {
  codedValue: string;
  line: number;
  orderNumber?: number;
  /** empty for an EnumeratedItem */
  decode: OdmText[];
  aliases: OdmAlias[];
}
export interface OdmCodeListDef {
  oid: string;
  name: string;
  line: number;
  dataType: string;
  items: OdmCodeListItemDef[];
  enumerated: boolean;
  external?: { dictionary?: string; version?: string; line: number };
  description: OdmText[];
  aliases: OdmAlias[];
}
export interface OdmExpressionDef {
  oid: string;
  name: string;
  line: number;
  description: OdmText[];
  expressions: { context?: string; text: string; line: number }[];
  aliases: OdmAlias[];
}
export interface OdmUnitDef {
  oid: string;
  name: string;
  line: number;
  symbol: OdmText[];
  aliases: OdmAlias[];
}
export interface OdmMetaDataVersionDef {
  oid: string;
  name: string;
  description?: string;
  line: number;
  include?: { studyOid: string; metaDataVersionOid: string; line: number };
  protocol: { line: number; description: OdmText[]; eventRefs: OdmRef[]; aliases: OdmAlias[] } | null;
  events: OdmEventDef[];
  forms: OdmFormDef[];
  itemGroups: OdmItemGroupDef[];
  items: OdmItemDef[];
  codeLists: OdmCodeListDef[];
  conditions: OdmExpressionDef[];
  methods: OdmExpressionDef[];
}
export interface OdmStudyDef {
  oid: string;
  line: number;
  studyName: string;
  studyDescription: string;
  protocolName: string;
  units: OdmUnitDef[];
  metaDataVersions: OdmMetaDataVersionDef[];
}
/** A reference to an OID that no element defines, or an OID defined twice. */
export interface OdmProblem {
  line: number;
  column: number;
  oid: string;
  /** the referring element and attribute, e.g. "ItemRef/@ItemOID"; for a duplicate, the element */
  what: string;
  reason: 'undefinedOid' | 'duplicateOid';
}
/** An ODM element the model does not hold (e.g. Presentation, ArchiveLayout, a vendor extension). */
export interface OdmIgnored {
  line: number;
  element: string;
  /** the OID of the element, or of the nearest enclosing element that has one */
  oid: string;
}
export interface OdmStudyModel {
  fileOid: string;
  fileType: string;
  odmVersion?: string;
  granularity?: string;
  sourceSystem?: string;
  creationDateTime?: string;
  studies: OdmStudyDef[];
  problems: OdmProblem[];
  ignored: OdmIgnored[];
  /** ClinicalData blocks of the file (not read into the model; their references are checked) */
  clinicalData: { line: number; studyOid: string; metaDataVersionOid: string; subjects: number }[];
}

// ── saxes plumbing ──

interface XNode {
  name: string;
  /** in the ODM namespace (or in none) */
  odm: boolean;
  attrs: Record<string, string>;
  line: number;
  column: number;
  children: XNode[];
  text: string;
  used: boolean;
}

type Parser = SaxesParser<{ xmlns: true; position: true }>;

function newParser(): { parser: Parser; position: { line: number; column: number } } {
  const parser = new SaxesParser({ xmlns: true, position: true });
  const position = { line: 1, column: 1 };
  parser.on('error', (err) => {
    throw new OdmError(parser.line, parser.column + 1, err.message.replace(/^\d+:\d+: /, ''));
  });
  parser.on('opentagstart', (tag) => {
    position.line = parser.line;
    // the parser has read the name and the character after it
    position.column = Math.max(1, parser.column - tag.name.length - 1);
  });
  return { parser, position };
}

function isOdmNs(uri: string | undefined): boolean {
  return uri === ODM_NS || uri === '' || uri === undefined;
}

/** A vendor element's name as written (redcap:SurveysEnabled), or {namespace}name when it has no prefix. */
function foreignName(tag: SaxesTagNS): string {
  return tag.prefix ? tag.name : `{${tag.uri}}${tag.local}`;
}

function plainAttrs(tag: SaxesTagNS): Record<string, string> {
  const out: Record<string, string> = {};
  for (const a of Object.values(tag.attributes)) {
    if (a.uri === '' || a.prefix === '') out[a.local] = a.value;
    else if (a.prefix === 'xml') out[`xml:${a.local}`] = a.value;
  }
  return out;
}

function checkRoot(tag: SaxesTagNS, line: number, column: number): void {
  if (tag.local !== 'ODM' || !isOdmNs(tag.uri))
    throw new OdmError(line, column, `the root element is <${tag.name}>, not an ODM 1.3 <ODM> element`);
}

// ── tree → model ──

function kids(n: XNode, name: string): XNode[] {
  const out = n.children.filter((c) => c.odm && c.name === name);
  for (const c of out) c.used = true;
  return out;
}
function kid(n: XNode, name: string): XNode | undefined {
  return kids(n, name)[0];
}
function texts(n: XNode | undefined): OdmText[] {
  if (!n) return [];
  return kids(n, 'TranslatedText').map((t) => ({ lang: t.attrs['xml:lang'] ?? null, text: t.text.trim() }));
}
function aliases(n: XNode): OdmAlias[] {
  return kids(n, 'Alias').map((a) => ({
    context: a.attrs.Context ?? '',
    name: a.attrs.Name ?? '',
    line: a.line,
  }));
}
function int(v: string | undefined): number | undefined {
  if (v === undefined || !/^\s*[+-]?\d+\s*$/.test(v)) return undefined;
  return Number(v);
}
function ref(n: XNode, oidAttr: string): OdmRef {
  return {
    oid: n.attrs[oidAttr] ?? '',
    line: n.line,
    ...(int(n.attrs.OrderNumber) !== undefined ? { orderNumber: int(n.attrs.OrderNumber) } : {}),
    mandatory: n.attrs.Mandatory === 'Yes',
    ...(n.attrs.CollectionExceptionConditionOID
      ? { conditionOid: n.attrs.CollectionExceptionConditionOID }
      : {}),
    ...(n.attrs.MethodOID ? { methodOid: n.attrs.MethodOID } : {}),
  };
}
function expressionDef(n: XNode): OdmExpressionDef {
  return {
    oid: n.attrs.OID ?? '',
    name: n.attrs.Name ?? '',
    line: n.line,
    description: texts(kid(n, 'Description')),
    expressions: kids(n, 'FormalExpression').map((e) => ({
      ...(e.attrs.Context !== undefined ? { context: e.attrs.Context } : {}),
      text: e.text.trim(),
      line: e.line,
    })),
    aliases: aliases(n),
  };
}

function metaDataVersion(n: XNode): OdmMetaDataVersionDef {
  const inc = kid(n, 'Include');
  const protocol = kid(n, 'Protocol');
  return {
    oid: n.attrs.OID ?? '',
    name: n.attrs.Name ?? '',
    ...(n.attrs.Description ? { description: n.attrs.Description } : {}),
    line: n.line,
    ...(inc
      ? {
          include: {
            studyOid: inc.attrs.StudyOID ?? '',
            metaDataVersionOid: inc.attrs.MetaDataVersionOID ?? '',
            line: inc.line,
          },
        }
      : {}),
    protocol: protocol
      ? {
          line: protocol.line,
          description: texts(kid(protocol, 'Description')),
          eventRefs: kids(protocol, 'StudyEventRef').map((r) => ref(r, 'StudyEventOID')),
          aliases: aliases(protocol),
        }
      : null,
    events: kids(n, 'StudyEventDef').map((e) => ({
      oid: e.attrs.OID ?? '',
      name: e.attrs.Name ?? '',
      line: e.line,
      repeating: e.attrs.Repeating === 'Yes',
      type: e.attrs.Type ?? '',
      ...(e.attrs.Category ? { category: e.attrs.Category } : {}),
      description: texts(kid(e, 'Description')),
      formRefs: kids(e, 'FormRef').map((r) => ref(r, 'FormOID')),
      aliases: aliases(e),
    })),
    forms: kids(n, 'FormDef').map((f) => ({
      oid: f.attrs.OID ?? '',
      name: f.attrs.Name ?? '',
      line: f.line,
      repeating: f.attrs.Repeating === 'Yes',
      description: texts(kid(f, 'Description')),
      itemGroupRefs: kids(f, 'ItemGroupRef').map((r) => ref(r, 'ItemGroupOID')),
      aliases: aliases(f),
    })),
    itemGroups: kids(n, 'ItemGroupDef').map((g) => ({
      oid: g.attrs.OID ?? '',
      name: g.attrs.Name ?? '',
      line: g.line,
      repeating: g.attrs.Repeating === 'Yes',
      ...(g.attrs.Domain ? { domain: g.attrs.Domain } : {}),
      description: texts(kid(g, 'Description')),
      itemRefs: kids(g, 'ItemRef').map((r) => ref(r, 'ItemOID')),
      aliases: aliases(g),
    })),
    items: kids(n, 'ItemDef').map((i) => {
      const cl = kid(i, 'CodeListRef');
      const length = int(i.attrs.Length);
      const sig = int(i.attrs.SignificantDigits);
      return {
        oid: i.attrs.OID ?? '',
        name: i.attrs.Name ?? '',
        line: i.line,
        dataType: i.attrs.DataType ?? '',
        ...(length !== undefined ? { length } : {}),
        ...(sig !== undefined ? { significantDigits: sig } : {}),
        ...(i.attrs.SASFieldName ? { sasFieldName: i.attrs.SASFieldName } : {}),
        ...(i.attrs.SDSVarName ? { sdsVarName: i.attrs.SDSVarName } : {}),
        description: texts(kid(i, 'Description')),
        question: texts(kid(i, 'Question')),
        unitRefs: kids(i, 'MeasurementUnitRef').map((u) => ({
          oid: u.attrs.MeasurementUnitOID ?? '',
          line: u.line,
        })),
        rangeChecks: kids(i, 'RangeCheck').map((rc) => {
          const unit = kid(rc, 'MeasurementUnitRef');
          return {
            line: rc.line,
            ...(unit ? { unitRef: { oid: unit.attrs.MeasurementUnitOID ?? '', line: unit.line } } : {}),
            ...(rc.attrs.Comparator ? { comparator: rc.attrs.Comparator } : {}),
            softHard: rc.attrs.SoftHard ?? '',
            checkValues: kids(rc, 'CheckValue').map((c) => c.text.trim()),
            formalExpressions: kids(rc, 'FormalExpression').map((e) => ({
              ...(e.attrs.Context !== undefined ? { context: e.attrs.Context } : {}),
              text: e.text.trim(),
            })),
            errorMessage: texts(kid(rc, 'ErrorMessage')),
          };
        }),
        ...(cl ? { codeListRef: { oid: cl.attrs.CodeListOID ?? '', line: cl.line } } : {}),
        aliases: aliases(i),
      };
    }),
    codeLists: kids(n, 'CodeList').map((c) => {
      const ext = kid(c, 'ExternalCodeList');
      const enumerated = kids(c, 'EnumeratedItem');
      const item = (x: XNode, enumeratedItem: boolean): OdmCodeListItemDef => ({
        codedValue: x.attrs.CodedValue ?? '',
        line: x.line,
        ...(int(x.attrs.OrderNumber) !== undefined ? { orderNumber: int(x.attrs.OrderNumber) } : {}),
        decode: enumeratedItem ? [] : texts(kid(x, 'Decode')),
        aliases: aliases(x),
      });
      return {
        oid: c.attrs.OID ?? '',
        name: c.attrs.Name ?? '',
        line: c.line,
        dataType: c.attrs.DataType ?? '',
        items: [
          ...kids(c, 'CodeListItem').map((x) => item(x, false)),
          ...enumerated.map((x) => item(x, true)),
        ],
        enumerated: enumerated.length > 0,
        ...(ext
          ? {
              external: {
                ...(ext.attrs.Dictionary ? { dictionary: ext.attrs.Dictionary } : {}),
                ...(ext.attrs.Version ? { version: ext.attrs.Version } : {}),
                line: ext.line,
              },
            }
          : {}),
        description: texts(kid(c, 'Description')),
        aliases: aliases(c),
      };
    }),
    conditions: kids(n, 'ConditionDef').map(expressionDef),
    methods: kids(n, 'MethodDef').map(expressionDef),
  };
}

function study(n: XNode): OdmStudyDef {
  const gv = kid(n, 'GlobalVariables');
  const bd = kid(n, 'BasicDefinitions');
  return {
    oid: n.attrs.OID ?? '',
    line: n.line,
    studyName: (gv && kid(gv, 'StudyName')?.text.trim()) ?? '',
    studyDescription: (gv && kid(gv, 'StudyDescription')?.text.trim()) ?? '',
    protocolName: (gv && kid(gv, 'ProtocolName')?.text.trim()) ?? '',
    units: bd
      ? kids(bd, 'MeasurementUnit').map((u) => ({
          oid: u.attrs.OID ?? '',
          name: u.attrs.Name ?? '',
          line: u.line,
          symbol: texts(kid(u, 'Symbol')),
          aliases: aliases(u),
        }))
      : [],
    metaDataVersions: kids(n, 'MetaDataVersion').map(metaDataVersion),
  };
}

/** Elements below a used element that the conversion did not use (recursively below unused ones: not listed). */
function collectIgnored(n: XNode, oid: string, out: OdmIgnored[]): void {
  for (const c of n.children) {
    const own = c.attrs.OID ?? oid;
    if (!c.used) out.push({ line: c.line, element: c.name, oid: own });
    else collectIgnored(c, own, out);
  }
}

// ── reference checks ──

interface ClinicalRefs {
  line: number;
  studyOid: string;
  metaDataVersionOid: string;
  subjects: number;
  /** `what\0oid` → first position */
  refs: Map<string, { line: number; column: number }>;
}

function checkReferences(
  studies: OdmStudyDef[],
  admin: XNode[],
  clinical: ClinicalRefs[],
  problems: OdmProblem[],
): void {
  const mdvKey = (s: string, m: string) => `${s}\u0000${m}`;
  const mdvs = new Map<string, { study: OdmStudyDef; mdv: OdmMetaDataVersionDef }>();
  for (const s of studies)
    for (const m of s.metaDataVersions) mdvs.set(mdvKey(s.oid, m.oid), { study: s, mdv: m });

  const dup = (seen: Map<string, unknown>, oid: string, line: number, what: string) => {
    if (seen.has(oid)) problems.push({ line, column: 1, oid, what, reason: 'duplicateOid' });
  };

  for (const s of studies) {
    const units = new Map<string, OdmUnitDef>();
    for (const u of s.units) {
      dup(units, u.oid, u.line, 'MeasurementUnit');
      units.set(u.oid, u);
    }
    for (const m of s.metaDataVersions) {
      // OIDs of this MetaDataVersion and of the one it includes (resolved when that one is in the file)
      const chain: OdmMetaDataVersionDef[] = [m];
      for (let cur = m, guard = 0; cur.include && guard < 20; guard++) {
        const inc = mdvs.get(mdvKey(cur.include.studyOid, cur.include.metaDataVersionOid));
        if (!inc) break;
        chain.push(inc.mdv);
        cur = inc.mdv;
      }
      const all = new Map<string, string>();
      for (const [list, what] of [
        [m.events, 'StudyEventDef'],
        [m.forms, 'FormDef'],
        [m.itemGroups, 'ItemGroupDef'],
        [m.items, 'ItemDef'],
        [m.codeLists, 'CodeList'],
        [m.conditions, 'ConditionDef'],
        [m.methods, 'MethodDef'],
      ] as const) {
        for (const d of list) {
          dup(all, d.oid, d.line, what);
          all.set(d.oid, what);
        }
      }
      const has = (what: string, oid: string) => chain.some((c) => defs(c, what).some((d) => d.oid === oid));
      const check = (oid: string | undefined, line: number, what: string, kind: string) => {
        if (oid !== undefined && !has(kind, oid))
          problems.push({ line, column: 1, oid, what, reason: 'undefinedOid' });
      };
      if (m.include && !mdvs.has(mdvKey(m.include.studyOid, m.include.metaDataVersionOid)))
        problems.push({
          line: m.include.line,
          column: 1,
          oid: m.include.metaDataVersionOid,
          what: 'Include/@MetaDataVersionOID',
          reason: 'undefinedOid',
        });
      const refCommon = (r: OdmRef, el: string) => {
        check(r.conditionOid, r.line, `${el}/@CollectionExceptionConditionOID`, 'ConditionDef');
        check(r.methodOid, r.line, `${el}/@MethodOID`, 'MethodDef');
      };
      for (const r of m.protocol?.eventRefs ?? []) {
        check(r.oid, r.line, 'StudyEventRef/@StudyEventOID', 'StudyEventDef');
        refCommon(r, 'StudyEventRef');
      }
      for (const e of m.events)
        for (const r of e.formRefs) {
          check(r.oid, r.line, 'FormRef/@FormOID', 'FormDef');
          refCommon(r, 'FormRef');
        }
      for (const f of m.forms)
        for (const r of f.itemGroupRefs) {
          check(r.oid, r.line, 'ItemGroupRef/@ItemGroupOID', 'ItemGroupDef');
          refCommon(r, 'ItemGroupRef');
        }
      for (const g of m.itemGroups)
        for (const r of g.itemRefs) {
          check(r.oid, r.line, 'ItemRef/@ItemOID', 'ItemDef');
          refCommon(r, 'ItemRef');
        }
      for (const i of m.items) {
        for (const u of [...i.unitRefs, ...i.rangeChecks.flatMap((r) => (r.unitRef ? [r.unitRef] : []))])
          if (!units.has(u.oid))
            problems.push({
              line: u.line,
              column: 1,
              oid: u.oid,
              what: 'MeasurementUnitRef/@MeasurementUnitOID',
              reason: 'undefinedOid',
            });
        if (i.codeListRef)
          check(i.codeListRef.oid, i.codeListRef.line, 'CodeListRef/@CodeListOID', 'CodeList');
      }
    }
  }

  // AdminData: users' locations; ClinicalData: metadata OIDs and AdminData OIDs of the same file
  const users = new Set<string>();
  const locations = new Set<string>();
  const signatureDefs = new Set<string>();
  for (const a of admin) {
    for (const c of a.children) {
      if (c.name === 'User' && c.attrs.OID) users.add(c.attrs.OID);
      if (c.name === 'Location' && c.attrs.OID) locations.add(c.attrs.OID);
      if (c.name === 'SignatureDef' && c.attrs.OID) signatureDefs.add(c.attrs.OID);
    }
  }
  for (const a of admin)
    for (const u of a.children.filter((c) => c.name === 'User'))
      for (const l of u.children.filter((c) => c.name === 'LocationRef'))
        if (l.attrs.LocationOID && !locations.has(l.attrs.LocationOID))
          problems.push({
            line: l.line,
            column: l.column,
            oid: l.attrs.LocationOID,
            what: 'LocationRef/@LocationOID',
            reason: 'undefinedOid',
          });

  for (const cd of clinical) {
    const target = mdvs.get(mdvKey(cd.studyOid, cd.metaDataVersionOid));
    if (!target) {
      // a clinical-data-only file refers to metadata held elsewhere: checked only when its Study is in the file
      if (studies.some((s) => s.oid === cd.studyOid))
        problems.push({
          line: cd.line,
          column: 1,
          oid: cd.metaDataVersionOid,
          what: 'ClinicalData/@MetaDataVersionOID',
          reason: 'undefinedOid',
        });
      continue;
    }
    const kinds: Record<string, { kind: string; set?: Set<string> }> = {
      'StudyEventData/@StudyEventOID': { kind: 'StudyEventDef' },
      'FormData/@FormOID': { kind: 'FormDef' },
      'ItemGroupData/@ItemGroupOID': { kind: 'ItemGroupDef' },
      'ItemData/@ItemOID': { kind: 'ItemDef' },
      'UserRef/@UserOID': { kind: '', set: users },
      'LocationRef/@LocationOID': { kind: '', set: locations },
      'SiteRef/@LocationOID': { kind: '', set: locations },
      'SignatureRef/@SignatureOID': { kind: '', set: signatureDefs },
    };
    for (const [key, pos] of cd.refs) {
      const [what, oid] = key.split('\u0000') as [string, string];
      const k = kinds[what];
      if (!k) continue;
      if (k.set) {
        if (admin.length && !k.set.has(oid))
          problems.push({ line: pos.line, column: pos.column, oid, what, reason: 'undefinedOid' });
      } else if (!defs(target.mdv, k.kind).some((d) => d.oid === oid))
        problems.push({ line: pos.line, column: pos.column, oid, what, reason: 'undefinedOid' });
    }
  }
  problems.sort((a, b) => a.line - b.line || a.column - b.column);
}

function defs(m: OdmMetaDataVersionDef, kind: string): { oid: string }[] {
  switch (kind) {
    case 'StudyEventDef':
      return m.events;
    case 'FormDef':
      return m.forms;
    case 'ItemGroupDef':
      return m.itemGroups;
    case 'ItemDef':
      return m.items;
    case 'CodeList':
      return m.codeLists;
    case 'ConditionDef':
      return m.conditions;
    case 'MethodDef':
      return m.methods;
    default:
      return [];
  }
}

const CLINICAL_REF_ATTRS: Record<string, string> = {
  StudyEventData: 'StudyEventOID',
  FormData: 'FormOID',
  ItemGroupData: 'ItemGroupOID',
  ItemData: 'ItemOID',
  UserRef: 'UserOID',
  LocationRef: 'LocationOID',
  SiteRef: 'LocationOID',
  SignatureRef: 'SignatureOID',
};

/**
 * Parses an ODM document's study metadata into a typed model and checks its OID references. Throws OdmError
 * when the document is not well-formed or not ODM.
 */
export function parseOdmStudy(xml: string): OdmStudyModel {
  const { parser, position } = newParser();
  const model: OdmStudyModel = {
    fileOid: '',
    fileType: '',
    studies: [],
    problems: [],
    ignored: [],
    clinicalData: [],
  };
  const studyNodes: XNode[] = [];
  const adminNodes: XNode[] = [];
  const clinical: ClinicalRefs[] = [];
  // the element being built into a tree (Study, AdminData), and the path of all open elements
  const stack: (XNode | null)[] = [];
  let depth = 0;
  let rootSeen = false;
  let cd: ClinicalRefs | null = null;

  parser.on('opentag', (tag) => {
    depth++;
    const line = position.line;
    const column = position.column;
    const odm = isOdmNs(tag.uri);
    if (depth === 1) {
      checkRoot(tag, line, column);
      rootSeen = true;
      const a = plainAttrs(tag);
      model.fileOid = a.FileOID ?? '';
      model.fileType = a.FileType ?? '';
      if (a.ODMVersion) model.odmVersion = a.ODMVersion;
      if (a.Granularity) model.granularity = a.Granularity;
      if (a.SourceSystem) model.sourceSystem = a.SourceSystem;
      if (a.CreationDateTime) model.creationDateTime = a.CreationDateTime;
      stack.push(null);
      return;
    }
    const parent = stack[stack.length - 1] ?? null;
    if (parent) {
      const node: XNode = {
        name: odm ? tag.local : foreignName(tag),
        odm,
        attrs: plainAttrs(tag),
        line,
        column,
        children: [],
        text: '',
        used: false,
      };
      parent.children.push(node);
      stack.push(node);
      return;
    }
    if (depth === 2 && odm && (tag.local === 'Study' || tag.local === 'AdminData')) {
      const node: XNode = {
        name: odm ? tag.local : foreignName(tag),
        odm,
        attrs: plainAttrs(tag),
        line,
        column,
        children: [],
        text: '',
        used: true,
      };
      (tag.local === 'Study' ? studyNodes : adminNodes).push(node);
      stack.push(node);
      return;
    }
    if (depth === 2) {
      if (odm && tag.local === 'ClinicalData') {
        const a = plainAttrs(tag);
        cd = {
          line,
          studyOid: a.StudyOID ?? '',
          metaDataVersionOid: a.MetaDataVersionOID ?? '',
          subjects: 0,
          refs: new Map(),
        };
        clinical.push(cd);
      } else
        model.ignored.push({
          line,
          element: odm ? tag.local : foreignName(tag),
          oid: plainAttrs(tag).OID ?? '',
        });
    } else if (cd && odm) {
      if (tag.local === 'SubjectData') cd.subjects++;
      const attr = CLINICAL_REF_ATTRS[tag.local];
      const oid = attr ? tag.attributes[attr]?.value : undefined;
      if (attr && oid !== undefined) {
        const key = `${tag.local}/@${attr}\u0000${oid}`;
        if (!cd.refs.has(key)) cd.refs.set(key, { line, column });
      }
    }
    stack.push(null);
  });
  parser.on('text', (t) => {
    const top = stack[stack.length - 1];
    if (top) top.text += t;
  });
  parser.on('cdata', (t) => {
    const top = stack[stack.length - 1];
    if (top) top.text += t;
  });
  parser.on('closetag', () => {
    depth--;
    stack.pop();
    if (depth === 1) cd = null;
  });
  parser.write(xml).close();
  if (depth !== 0 || !rootSeen) throw new OdmError(parser.line, parser.column + 1, 'no ODM element');

  model.studies = studyNodes.map(study);
  for (const s of studyNodes) collectIgnored(s, s.attrs.OID ?? '', model.ignored);
  // users, sites and signature meanings are not study metadata (read only to check references)
  for (const a of adminNodes)
    model.ignored.push({ line: a.line, element: 'AdminData', oid: a.attrs.StudyOID ?? '' });
  model.clinicalData = clinical.map(({ line, studyOid, metaDataVersionOid, subjects }) => ({
    line,
    studyOid,
    metaDataVersionOid,
    subjects,
  }));
  checkReferences(model.studies, adminNodes, clinical, model.problems);
  model.ignored.sort((a, b) => a.line - b.line);
  return model;
}

// ── streaming clinical data ──

/** A subject as read from a document, with where it was and which ClinicalData it belongs to. */
export interface OdmParsedSubject extends OdmSubject {
  line: number;
  studyOid: string;
  metaDataVersionOid: string;
}

export interface OdmClinicalParseOptions {
  /** called with the ODM root element's attributes before the first subject */
  onHeader?: (attrs: Record<string, string>) => void;
}

const TRANSACTION_TYPES = new Set(['Insert', 'Update', 'Remove', 'Upsert', 'Context']);
function transactionType(v: string | undefined): { transactionType?: OdmTransactionType } {
  return v && TRANSACTION_TYPES.has(v) ? { transactionType: v as OdmTransactionType } : {};
}
function repeatKey(v: string | undefined): { repeatKey?: string } {
  return v !== undefined ? { repeatKey: v } : {};
}

/** Typed ItemData elements (ItemDataString, ItemDataInteger …) carry the value as text. */
const TYPED_ITEM_DATA = /^ItemData[A-Z]/;

async function* textChunks(
  input: string | AsyncIterable<string | Uint8Array> | Iterable<string | Uint8Array>,
): AsyncGenerator<string> {
  if (typeof input === 'string') {
    // a large string is handed over in slices so that subjects are yielded as they are read
    for (let i = 0; i < input.length; i += 1 << 20) yield input.slice(i, i + (1 << 20));
    return;
  }
  const decoder = new TextDecoder('utf-8');
  for await (const c of input) yield typeof c === 'string' ? c : decoder.decode(c, { stream: true });
  const rest = decoder.decode();
  if (rest) yield rest;
}

/**
 * Streams the SubjectData of an ODM document as OdmSubject objects (values as text; IsNull as null; AuditRecord
 * of items and forms, Signature of forms). Throws OdmError (from the iteration) at the first point where the
 * document is not well-formed; subjects before it have been yielded.
 */
export async function* parseOdmClinical(
  input: string | AsyncIterable<string | Uint8Array> | Iterable<string | Uint8Array>,
  opts: OdmClinicalParseOptions = {},
): AsyncGenerator<OdmParsedSubject> {
  const { parser, position } = newParser();
  const done: OdmParsedSubject[] = [];
  let depth = 0;
  let clinical: { studyOid: string; metaDataVersionOid: string } | null = null;
  let subject: OdmParsedSubject | null = null;
  let event: OdmEvent | null = null;
  let form: OdmForm | null = null;
  let group: OdmItemGroup | null = null;
  let item: OdmItem | null = null;
  let typedItem = false;
  // AuditRecord / Signature being read, and the text element inside it
  let audit: Partial<OdmAudit & OdmSignature> | null = null;
  let auditKind: 'AuditRecord' | 'Signature' | null = null;
  let textEl: string | null = null;
  let text = '';

  parser.on('opentag', (tag) => {
    depth++;
    if (depth === 1) {
      checkRoot(tag, position.line, position.column);
      opts.onHeader?.(plainAttrs(tag));
      return;
    }
    if (!isOdmNs(tag.uri)) return;
    const a = plainAttrs(tag);
    switch (tag.local) {
      case 'ClinicalData':
        if (depth === 2)
          clinical = { studyOid: a.StudyOID ?? '', metaDataVersionOid: a.MetaDataVersionOID ?? '' };
        return;
      case 'SubjectData':
        if (!clinical) return;
        subject = {
          subjectKey: a.SubjectKey ?? '',
          ...transactionType(a.TransactionType),
          events: [],
          line: position.line,
          ...clinical,
        };
        return;
      case 'SiteRef':
        if (subject && !event) subject.siteOid = a.LocationOID ?? '';
        return;
      case 'StudyEventData':
        if (!subject) return;
        event = {
          eventOid: a.StudyEventOID ?? '',
          ...repeatKey(a.StudyEventRepeatKey),
          ...transactionType(a.TransactionType),
          forms: [],
        };
        subject.events.push(event);
        return;
      case 'FormData':
        if (!event) return;
        form = {
          formOid: a.FormOID ?? '',
          ...repeatKey(a.FormRepeatKey),
          ...transactionType(a.TransactionType),
          groups: [],
        };
        event.forms.push(form);
        return;
      case 'ItemGroupData':
        if (!form) return;
        group = {
          groupOid: a.ItemGroupOID ?? '',
          ...repeatKey(a.ItemGroupRepeatKey),
          ...transactionType(a.TransactionType),
          items: [],
        };
        form.groups.push(group);
        return;
      case 'AuditRecord':
      case 'Signature':
        if (subject) {
          audit = {};
          auditKind = tag.local;
        }
        return;
      case 'UserRef':
        if (audit) audit.userOid = a.UserOID ?? '';
        return;
      case 'LocationRef':
        if (audit) audit.locationOid = a.LocationOID ?? '';
        return;
      case 'SignatureRef':
        if (audit) audit.signatureOid = a.SignatureOID ?? '';
        return;
      case 'DateTimeStamp':
      case 'ReasonForChange':
      case 'SourceID':
        if (audit) {
          textEl = tag.local;
          text = '';
        }
        return;
      case 'MeasurementUnitRef':
        if (item) item.unitOid = a.MeasurementUnitOID ?? '';
        return;
      default:
        if (group && (tag.local === 'ItemData' || TYPED_ITEM_DATA.test(tag.local))) {
          typedItem = tag.local !== 'ItemData';
          item = {
            itemOid: a.ItemOID ?? '',
            value: a.IsNull === 'Yes' ? null : (a.Value ?? null),
            ...transactionType(a.TransactionType),
          };
          if (typedItem) {
            textEl = 'value';
            text = '';
          }
          group.items.push(item);
        }
    }
  });
  parser.on('text', (t) => {
    if (textEl) text += t;
  });
  parser.on('cdata', (t) => {
    if (textEl) text += t;
  });
  parser.on('closetag', (tag) => {
    depth--;
    if (!isOdmNs(tag.uri)) return;
    switch (tag.local) {
      case 'ClinicalData':
        if (depth === 1) clinical = null;
        return;
      case 'SubjectData':
        if (subject) done.push(subject);
        subject = event = form = group = null;
        return;
      case 'StudyEventData':
        event = form = group = null;
        return;
      case 'FormData':
        form = group = null;
        return;
      case 'ItemGroupData':
        group = null;
        return;
      case 'DateTimeStamp':
        if (audit && textEl) audit.dateTime = text.trim();
        textEl = null;
        return;
      case 'ReasonForChange':
        if (audit && textEl) audit.reason = text;
        textEl = null;
        return;
      case 'SourceID':
        if (audit && textEl) audit.sourceId = text;
        textEl = null;
        return;
      case 'AuditRecord':
      case 'Signature': {
        if (!audit || auditKind !== tag.local) return;
        const rec = audit;
        audit = null;
        auditKind = null;
        if (tag.local === 'AuditRecord') {
          const value: OdmAudit = {
            userOid: rec.userOid ?? '',
            locationOid: rec.locationOid ?? '',
            dateTime: rec.dateTime ?? '',
            ...(rec.reason !== undefined ? { reason: rec.reason } : {}),
            ...(rec.sourceId !== undefined ? { sourceId: rec.sourceId } : {}),
          };
          if (item) item.audit = value;
          else if (form && !group) form.audit = value;
        } else if (form && !group && !item) {
          form.signature = {
            userOid: rec.userOid ?? '',
            locationOid: rec.locationOid ?? '',
            signatureOid: rec.signatureOid ?? '',
            dateTime: rec.dateTime ?? '',
          };
        }
        return;
      }
      default:
        if (item && (tag.local === 'ItemData' || TYPED_ITEM_DATA.test(tag.local))) {
          if (typedItem && textEl === 'value') item.value = text;
          textEl = null;
          item = null;
          typedItem = false;
        }
    }
  });

  // subjects completed before a syntax error in the same chunk are yielded before the error is thrown
  let failure: Error | null = null;
  const fail = (e: unknown) => (e instanceof Error ? e : new Error(String(e)));
  for await (const chunk of textChunks(input)) {
    try {
      parser.write(chunk);
    } catch (e) {
      failure = fail(e);
    }
    while (done.length) yield done.shift()!;
    if (failure) throw failure;
  }
  try {
    parser.close();
  } catch (e) {
    failure = fail(e);
  }
  while (done.length) yield done.shift()!;
  if (failure) throw failure;
  if (depth !== 0) throw new OdmError(parser.line, parser.column + 1, 'the document ends inside an element');
}

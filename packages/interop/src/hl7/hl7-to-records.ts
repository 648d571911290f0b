/**
 * HL7 v2 message → source patient and source records. Parsing is @medplum/core's Hl7Message (hl7-message.ts).
 *
 * Document types by segment (a record's raw is its segment group: the principal segment with the segments that
 * belong to it, joined by CR):
 *
 * | message (MSH-9.1) | segment → record | doc type | code | value | date |
 * |---|---|---|---|---|---|
 * | ORU, OUL, and any message below not listed otherwise | OBX (+ NTE) | 7 if OBX-3 is a LOINC vital sign, else 3 | OBX-3 | OBX-5 with OBX-6 units | OBX-14, else OBR-7, else OBX-19 |
 * | ORM, OML, OMG, OMI, OMB, OMD, OMS | ORC + OBR (+ NTE, TQ1) | 4 (order) | OBR-4 | | OBR-7, TQ1-7, ORC-9 |
 * | RDE, RDS, RGV, RAS, RRE, RRD, OMP | ORC + RXO / RXE (+ RXR, RXC, RXD, RXG, TQ1, NTE) | 4 | RXE-2, else RXO-1 | give amount (RXE-3) + units (RXE-5) | TQ1-7, RXE-1.4, RXD-3, ORC-9 |
 * | VXU, and RXA in any message | RXA (+ RXR, OBX, NTE) | 4 | RXA-5 | RXA-6 + RXA-7 | RXA-3 |
 * | ADT | PV1 (+ PV2) | 1 (course record) | PV1-2 patient class | PV2-3 admit reason | PV1-44, else EVN-6 / EVN-2 |
 * | any | DG1 | 8 | DG1-3 | DG1-4 description | DG1-5 |
 * | any | AL1, IAM | 8 | AL1-3 | AL1-5 reaction | AL1-6 |
 * | PPR, any | PRB | 8 | PRB-3 | PRB-14 life cycle status | PRB-7, PRB-2 |
 * | any | PR1 | 6 (surgery) | PR1-3 | | PR1-5 |
 * | MDM | TXA (+ OBX, NTE) | 1 | TXA-2 | the OBX text lines | TXA-4, TXA-6 |
 *
 * Skipped with a reason: FT1, BLG, IN1–IN3, GT1, NK1, ACC, UB1, UB2 → 'notClinical' (billing, insurance, next of
 * kin); every data segment of a message type not listed (SIU, MFN, QRY …) and unknown segments (Z-segments, INV …)
 * → 'unsupportedType'; clinical segments when the message has no usable patient identifier → 'noPatient'.
 * Header and context segments (MSH, SFT, UAC, EVN, PID, PD1, MRG, ORC/OBR/SPM/TQ1 outside an order, PRT, ROL …)
 * are read for context. counts: segments = inRecords + context + skipped.
 *
 * externalId: 'HL7/<MSH-4.1>/<MSH-10>/<segment>#<n>' (n counts that segment name in the message from 1), so a
 * re-sent message with the same control id is idempotent. Status: OBX-11, ORC-5, RXA-20, TXA-17, DG1-6, PRB-14 …
 */
import type { Hl7Context, Hl7Message, Hl7Segment } from '@medplum/core';
import { sha256Hex } from '../fhir/content-hash';
import { CODE_SYSTEMS, HL7_CODING_SYSTEMS, VITAL_SIGN_LOINC } from '../fhir/clinical-codes';
import { identifierTypeFor, type IdentifierTypeRules } from '../fhir/identifier-types';
import {
  DOC_TYPE,
  type ExtractedPatient,
  type ExtractedRecord,
  type SkippedItem,
  type SourceIdentifier,
} from '../source-record';
import { hl7DateParts, readHl7Message, unescapeHl7 } from './hl7-message';

/** Options of an HL7 v2 conversion (per connection). */
export interface Hl7ParseOptions {
  /** identifier type rules for PID-3 (CX-4 assigning authority as `systems`, CX-5 as `typeCodes`) */
  identifierRules?: IdentifierTypeRules;
  /**
   * the hospital's zone for times that carry no offset: an offset ('+0800') or an IANA time zone ('Asia/Shanghai',
   * daylight saving time included); default UTC
   */
  defaultTzOffset?: string;
}

/** A parsed HL7 v2 message with what it contributes. */
export interface Hl7ParseResult {
  /** MSH-9.1^MSH-9.2, e.g. 'ORU^R01' */
  messageType: string;
  /** MSH-9.3 when present, e.g. 'ORU_R01' */
  messageStructure?: string;
  controlId: string;
  sendingApp: string;
  sendingFacility: string;
  receivingApp: string;
  receivingFacility: string;
  version: string;
  /** MSH-7 as an ISO instant */
  messageTime?: string;
  patient?: ExtractedPatient;
  records: ExtractedRecord[];
  /** segments that produced nothing, with the reason */
  skipped: SkippedItem[];
  counts: { segments: number; inRecords: number; context: number; skipped: number };
  /** the @medplum/core message (for buildAck) */
  message: Hl7Message;
  /** the message text with CR segment ends, no BOM or framing */
  text: string;
}

const ORDER_FAMILIES = new Set(['ORM', 'OML', 'OMG', 'OMI', 'OMB', 'OMD', 'OMS', 'OMN']);
const PHARMACY_FAMILIES = new Set(['RDE', 'RDS', 'RGV', 'RAS', 'RRE', 'RRD', 'RRG', 'RRA', 'OMP', 'ORP']);
const SUPPORTED_FAMILIES = new Set([
  'ADT',
  'ORU',
  'OUL',
  'ORL',
  'VXU',
  'PPR',
  'PPP',
  'PPG',
  'MDM',
  'DFT',
  'BAR',
  ...ORDER_FAMILIES,
  ...PHARMACY_FAMILIES,
]);
const NOT_CLINICAL = new Set([
  'FT1',
  'BLG',
  'IN1',
  'IN2',
  'IN3',
  'GT1',
  'NK1',
  'ACC',
  'UB1',
  'UB2',
  'GP1',
  'GP2',
]);
const CONTEXT = new Set([
  'MSH',
  'SFT',
  'UAC',
  'EVN',
  'PID',
  'PD1',
  'PV1',
  'PV2',
  'MRG',
  'ORC',
  'OBR',
  'SPM',
  'SAC',
  'TQ1',
  'TQ2',
  'PRT',
  'ROL',
  'ARV',
  'CTD',
  'CTI',
  'PDA',
  'DB1',
  'CON',
  'NTE',
  'TXA',
  'RXR',
  'RXC',
  'RXD',
  'RXG',
  'CDO',
  'MSA',
  'ERR',
]);
const LIMITS = { code: 100, display: 500, unit: 60, status: 30, codeSystem: 200, part: 100 } as const;

function clip(v: string | undefined, max: number): string | undefined {
  if (v === undefined) return undefined;
  const t = v.trim();
  if (!t) return undefined;
  return t.length > max ? t.slice(0, max) : t;
}

interface Coded {
  codeSystem?: string;
  code?: string;
  display?: string;
}
const PREFERRED = new Set<string>([
  CODE_SYSTEMS.loinc,
  CODE_SYSTEMS.snomed,
  CODE_SYSTEMS.rxnorm,
  CODE_SYSTEMS.cvx,
  CODE_SYSTEMS.icd10,
]);
function systemUri(name: string): string | undefined {
  const n = name.trim();
  if (!n) return undefined;
  return HL7_CODING_SYSTEMS[n.toUpperCase()] ?? n;
}
/** A CE/CWE/CNE field → code; the alternate coding (components 4–6) wins when it is a standard system and the first is not. */
function coded(seg: Hl7Segment, field: number, ctx: Hl7Context): Coded {
  const f = seg.getField(field);
  if (!f) return {};
  const part = (i: number): string => unescapeHl7(f.getComponent(i), ctx);
  let [code, display, system] = [part(1), part(2), systemUri(part(3))];
  const alt = { code: part(4), display: part(5), system: systemUri(part(6)) };
  if (alt.code && alt.system && PREFERRED.has(alt.system) && !(system && PREFERRED.has(system))) {
    [code, display, system] = [alt.code, alt.display || display, alt.system];
  }
  if (!code && !display) {
    const whole = part(1);
    return whole ? { display: clip(whole, LIMITS.display) } : {};
  }
  const out: Coded = {};
  const c = clip(code, LIMITS.code);
  if (c) out.code = c;
  const d = clip(display || f.getComponent(9), LIMITS.display);
  if (d) out.display = d;
  if (c && system) out.codeSystem = clip(system, LIMITS.codeSystem);
  return out;
}

function text(seg: Hl7Segment | undefined, field: number, component = 1): string | undefined {
  const v = seg?.getField(field)?.getComponent(component);
  return v && v.trim() ? v.trim() : undefined;
}

interface Group {
  principal: Hl7Segment;
  /** ordinal of the principal's segment name in the message, from 1 */
  ordinal: number;
  segments: Hl7Segment[];
  kind: 'obx' | 'order' | 'pharmacy' | 'rxa' | 'visit' | 'dg1' | 'al1' | 'prb' | 'pr1' | 'document';
  orc?: Hl7Segment;
  obr?: Hl7Segment;
  tq1?: Hl7Segment;
}

/**
 * Parses one HL7 v2 message (text or bytes: CR, LF or CRLF; optional BOM) and converts it. Throws Hl7Error when
 * the message cannot be read (see hl7-message.ts for the codes).
 */
export function parseHl7(input: string | Uint8Array, options: Hl7ParseOptions = {}): Hl7ParseResult {
  const { message, text: normalised } = readHl7Message(input);
  const ctx = message.context;
  const msh = message.header;
  const family = (msh.getComponent(9, 1) || '').trim().toUpperCase();
  const trigger = (msh.getComponent(9, 2) || '').trim().toUpperCase();
  const controlId = msh.getField(10).toString().trim();
  const sendingFacilityField = msh.getField(4);
  const sendingFacility = (
    sendingFacilityField?.getComponent(1) ||
    sendingFacilityField?.getComponent(2) ||
    ''
  ).trim();
  const result: Hl7ParseResult = {
    messageType: trigger ? `${family}^${trigger}` : family,
    controlId,
    sendingApp: (msh.getComponent(3, 1) || msh.getComponent(3, 2) || '').trim(),
    sendingFacility,
    receivingApp: (msh.getComponent(5, 1) || msh.getComponent(5, 2) || '').trim(),
    receivingFacility: (msh.getComponent(6, 1) || msh.getComponent(6, 2) || '').trim(),
    version: (msh.getComponent(12, 1) || '').trim(),
    records: [],
    skipped: [],
    counts: { segments: message.segments.length, inRecords: 0, context: 0, skipped: 0 },
    message,
    text: normalised,
  };
  const structure = text(msh, 9, 3);
  if (structure) result.messageStructure = structure;
  const msgTime = hl7DateParts(text(msh, 7), options.defaultTzOffset).effectiveAt;
  if (msgTime) result.messageTime = msgTime;
  const pid = message.getSegment('PID');
  const patient = pid ? hl7Patient(pid, ctx, options.identifierRules) : undefined;
  if (patient) result.patient = patient;

  const ordinals = new Map<string, number>();
  const ordinalOf = (seg: Hl7Segment): number => {
    const n = (ordinals.get(seg.name) ?? 0) + 1;
    ordinals.set(seg.name, n);
    return n;
  };
  const groups: Group[] = [];
  const supported = SUPPORTED_FAMILIES.has(family);
  let current: Group | undefined; // the group that following detail segments attach to
  let orc: Hl7Segment | undefined;
  let obr: Hl7Segment | undefined;
  let tq1: Hl7Segment | undefined;
  let pendingOrc = false; // ORC not yet in a group
  const context = (): void => {
    result.counts.context++;
  };
  const skip = (seg: Hl7Segment, n: number, reason: SkippedItem['reason']): void => {
    result.counts.skipped++;
    result.skipped.push({ resourceType: seg.name, id: `${seg.name}#${n}`, reason });
  };
  const open = (seg: Hl7Segment, n: number, kind: Group['kind'], withOrc = false): Group => {
    const g: Group = { principal: seg, ordinal: n, segments: [], kind };
    if (withOrc && orc && pendingOrc) {
      g.segments.push(orc);
      pendingOrc = false;
      result.counts.context--; // the ORC now belongs to this group
    }
    if (orc) g.orc = orc;
    if (obr) g.obr = obr;
    if (tq1) g.tq1 = tq1;
    g.segments.push(seg);
    groups.push(g);
    current = g;
    return g;
  };
  const attach = (seg: Hl7Segment, kinds: Group['kind'][]): boolean => {
    if (current && kinds.includes(current.kind)) {
      current.segments.push(seg);
      return true;
    }
    return false;
  };

  for (const seg of message.segments) {
    const n = ordinalOf(seg);
    const name = seg.name;
    if (name === 'MSH') {
      context();
      continue;
    }
    if (!supported) {
      if (['SFT', 'UAC', 'EVN', 'PID', 'PD1', 'NTE'].includes(name)) context();
      else skip(seg, n, 'unsupportedType');
      continue;
    }
    switch (name) {
      case 'OBX':
        if (family === 'MDM') {
          if (!attach(seg, ['document'])) context();
        } else if (!attach(seg, ['rxa'])) open(seg, n, 'obx');
        break;
      case 'NTE':
        if (
          !attach(seg, ['obx', 'order', 'pharmacy', 'rxa', 'document', 'visit', 'dg1', 'al1', 'prb', 'pr1'])
        )
          context();
        break;
      case 'ORC':
        orc = seg;
        obr = undefined;
        tq1 = undefined;
        pendingOrc = true;
        current = undefined;
        context();
        break;
      case 'OBR':
        obr = seg;
        if (ORDER_FAMILIES.has(family)) open(seg, n, 'order', true);
        else {
          current = undefined;
          context();
        }
        break;
      case 'TQ1':
        tq1 ??= seg;
        if (current && (current.kind === 'order' || current.kind === 'pharmacy')) {
          current.tq1 ??= seg;
          current.segments.push(seg);
        } else context();
        break;
      case 'RXO':
      case 'RXE':
        if (current?.kind === 'pharmacy' && current.orc === orc && orc !== undefined) {
          current.segments.push(seg);
          if (name === 'RXE') {
            current.principal = seg;
            current.ordinal = n;
          }
        } else open(seg, n, 'pharmacy', true);
        break;
      case 'RXR':
      case 'RXC':
      case 'RXD':
      case 'RXG':
      case 'CDO':
        if (!attach(seg, ['pharmacy', 'rxa'])) context();
        break;
      case 'RXA':
        open(seg, n, 'rxa', true);
        break;
      case 'PV1':
        if (family === 'ADT') open(seg, n, 'visit');
        else context();
        break;
      case 'PV2':
        if (!attach(seg, ['visit'])) context();
        break;
      case 'DG1':
        open(seg, n, 'dg1');
        break;
      case 'AL1':
      case 'IAM':
        open(seg, n, 'al1');
        break;
      case 'PRB':
        open(seg, n, 'prb');
        break;
      case 'PR1':
        open(seg, n, 'pr1');
        break;
      case 'TXA':
        open(seg, n, 'document');
        break;
      default:
        if (NOT_CLINICAL.has(name)) {
          current = undefined;
          skip(seg, n, 'notClinical');
        } else if (CONTEXT.has(name)) context();
        else skip(seg, n, 'unsupportedType');
    }
  }

  const facility = (sendingFacility || 'unknown').slice(0, LIMITS.part);
  const prefix = `HL7/${facility}/${controlId.slice(0, LIMITS.part)}`;
  for (const g of groups) {
    if (!patient) {
      result.counts.skipped += g.segments.length;
      result.skipped.push({
        resourceType: g.principal.name,
        id: `${g.principal.name}#${g.ordinal}`,
        reason: 'noPatient',
      });
      continue;
    }
    result.counts.inRecords += g.segments.length;
    const raw = g.segments.map((s) => s.toString()).join('\r');
    const rec: ExtractedRecord = {
      patientKey: patient.patientKey,
      externalId: `${prefix}/${g.principal.name}#${g.ordinal}`,
      docType: DOC_TYPE.test,
      resourceType: g.principal.name,
      rawFormat: 'hl7v2',
      raw,
      contentHash: sha256Hex(raw),
    };
    fillRecord(rec, g, message, ctx, options.defaultTzOffset);
    result.records.push(rec);
  }
  return result;
}

function hl7Patient(
  pid: Hl7Segment,
  ctx: Hl7Context,
  rules: IdentifierTypeRules | undefined,
): ExtractedPatient | undefined {
  const identifiers: SourceIdentifier[] = [];
  for (const fieldNo of [3, 2, 4]) {
    const field = pid.getField(fieldNo);
    if (!field) continue;
    for (let rep = 0; rep < field.components.length; rep++) {
      const value = unescapeHl7(field.getComponent(1, undefined, rep), ctx).trim();
      if (!value) continue;
      const authority = field.getComponent(4, undefined, rep);
      const namespace = authority.split(ctx.subcomponentSeparator)[0]?.trim() || undefined;
      const universal = authority.split(ctx.subcomponentSeparator)[1]?.trim() || undefined;
      const typeCode = field.getComponent(5, undefined, rep).trim() || undefined;
      const type = identifierTypeFor([namespace, universal], [typeCode], rules);
      const system = namespace ?? universal;
      if (identifiers.some((i) => i.value === value && i.system === system)) continue;
      identifiers.push(system ? { type, system, value } : { type, value });
    }
    if (fieldNo === 3 && identifiers.length) break; // PID-2 / PID-4 are only a fallback for old senders
  }
  const first = identifiers[0];
  if (!first) return undefined;
  const patient: ExtractedPatient = { patientKey: first.value, identifiers };
  const family = unescapeHl7(pid.getComponent(5, 1), ctx).split(ctx.subcomponentSeparator)[0]?.trim();
  const given = [pid.getComponent(5, 2), pid.getComponent(5, 3)]
    .map((s) => unescapeHl7(s, ctx).trim())
    .filter(Boolean);
  const name = [...given, family].filter(Boolean).join(' ');
  if (name) patient.name = name;
  const birth = hl7DateParts(pid.getComponent(7, 1)).effectiveDate;
  if (birth) patient.birthDate = birth;
  const sex = pid.getComponent(8, 1).trim().toUpperCase();
  const gender = (
    { M: 'male', F: 'female', O: 'other', A: 'other', U: 'unknown', N: 'unknown' } as Record<string, string>
  )[sex];
  if (gender) patient.gender = gender;
  return patient;
}

/** OBX-5 (all repetitions) → valueNum / valueText by OBX-2 value type. */
function obxValue(obx: Hl7Segment, ctx: Hl7Context): { valueNum?: number; valueText?: string } {
  const type = obx.getComponent(2, 1).trim().toUpperCase();
  const field = obx.getField(5);
  if (!field) return {};
  const reps = field.components.map((_c, i) => i);
  if (type === 'NM') {
    const raw = field.getComponent(1).trim();
    const num = Number(raw);
    return raw && Number.isFinite(num) ? { valueNum: num } : raw ? { valueText: raw } : {};
  }
  if (type === 'SN') {
    const [cmp, n1, sep, n2] = [1, 2, 3, 4].map((i) => field.getComponent(i).trim());
    const num = Number(n1);
    if (!cmp && !sep && n1 && Number.isFinite(num)) return { valueNum: num };
    const t = `${cmp ?? ''}${n1 ?? ''}${sep ?? ''}${n2 ?? ''}`;
    return t ? (n1 && Number.isFinite(num) ? { valueNum: num, valueText: t } : { valueText: t }) : {};
  }
  if (type === 'CE' || type === 'CWE' || type === 'CNE' || type === 'CF') {
    const t = reps
      .map((r) =>
        unescapeHl7(field.getComponent(2, undefined, r) || field.getComponent(1, undefined, r), ctx).trim(),
      )
      .filter(Boolean)
      .join('; ');
    return t ? { valueText: t } : {};
  }
  if (type === 'ED' || type === 'RP') return { valueText: `[${type}]` };
  const t = reps
    .map((r) => unescapeHl7(field.components[r]!.join(ctx.componentSeparator), ctx))
    .join('\n')
    .trim();
  return t ? { valueText: t } : {};
}

/** CE units: the code when it is UCUM (or the only part), the text when the code is a bare local number ('43^mg/hr'). */
function units(seg: Hl7Segment, field: number): string | undefined {
  const f = seg.getField(field);
  if (!f) return undefined;
  const [code, label, system] = [
    f.getComponent(1).trim(),
    f.getComponent(2).trim(),
    f.getComponent(3).trim().toUpperCase(),
  ];
  if (system === 'UCUM' || system === 'ISO+' || system === 'ANS+') return clip(code || label, LIMITS.unit);
  if (/^\d+$/.test(code) && label) return clip(label, LIMITS.unit);
  return clip(code || label, LIMITS.unit);
}

function firstDate(
  defaultTz: string | undefined,
  ...values: (string | undefined)[]
): { effectiveAt?: string; effectiveDate?: string } {
  for (const v of values) {
    const p = hl7DateParts(v, defaultTz);
    if (p.effectiveDate) return p;
  }
  return {};
}

function fillRecord(
  rec: ExtractedRecord,
  g: Group,
  message: Hl7Message,
  ctx: Hl7Context,
  tz: string | undefined,
): void {
  const p = g.principal;
  const set = (c: Coded): void => {
    if (c.codeSystem) rec.codeSystem = c.codeSystem;
    if (c.code) rec.code = c.code;
    if (c.display) rec.display = c.display;
  };
  const setDate = (d: { effectiveAt?: string; effectiveDate?: string }): void => {
    if (d.effectiveAt) rec.effectiveAt = d.effectiveAt;
    if (d.effectiveDate) rec.effectiveDate = d.effectiveDate;
  };
  const setStatus = (...values: (string | undefined)[]): void => {
    const s = values.find((v) => v && v.trim());
    const c = clip(s, LIMITS.status);
    if (c) rec.status = c;
  };
  const setText = (t: string | undefined): void => {
    if (t && t.trim()) rec.valueText = t.trim();
  };
  switch (g.kind) {
    case 'obx': {
      const c = coded(p, 3, ctx);
      set(c);
      rec.docType =
        c.code && (c.codeSystem === CODE_SYSTEMS.loinc || !c.codeSystem) && VITAL_SIGN_LOINC.has(c.code)
          ? DOC_TYPE.vitalSigns
          : DOC_TYPE.test;
      const v = obxValue(p, ctx);
      if (v.valueNum !== undefined) rec.valueNum = v.valueNum;
      if (v.valueText !== undefined) rec.valueText = v.valueText;
      const u = units(p, 6);
      if (u) rec.unit = u;
      setDate(firstDate(tz, text(p, 14), text(g.obr, 7), text(p, 19)));
      setStatus(text(p, 11));
      break;
    }
    case 'order': {
      rec.docType = DOC_TYPE.doctorAdvice;
      set(coded(p, 4, ctx));
      setDate(firstDate(tz, text(p, 7), text(g.tq1, 7), text(p, 6), text(g.orc, 9)));
      setStatus(text(g.orc, 5), text(p, 25), text(g.orc, 1));
      break;
    }
    case 'pharmacy': {
      rec.docType = DOC_TYPE.doctorAdvice;
      const rxe = g.segments.find((s) => s.name === 'RXE');
      const rxo = g.segments.find((s) => s.name === 'RXO');
      const rxd = g.segments.find((s) => s.name === 'RXD');
      if (rxe) {
        set(coded(rxe, 2, ctx));
        const amount = Number(text(rxe, 3));
        if (text(rxe, 3) && Number.isFinite(amount)) rec.valueNum = amount;
        const u = units(rxe, 5);
        if (u) rec.unit = u;
        setText(unescapeHl7(rxe.getComponent(7, 2) || rxe.getComponent(7, 1), ctx));
      } else if (rxo) {
        set(coded(rxo, 1, ctx));
        const amount = Number(text(rxo, 2));
        if (text(rxo, 2) && Number.isFinite(amount)) rec.valueNum = amount;
        const u = units(rxo, 4);
        if (u) rec.unit = u;
        setText(unescapeHl7(rxo.getComponent(7, 2) || rxo.getComponent(6, 2), ctx));
      }
      setDate(
        firstDate(
          tz,
          text(g.tq1, 7),
          rxe ? text(rxe, 1, 4) : undefined,
          rxd ? text(rxd, 3) : undefined,
          text(g.orc, 9),
        ),
      );
      setStatus(text(g.orc, 5), text(g.orc, 1));
      break;
    }
    case 'rxa': {
      rec.docType = DOC_TYPE.doctorAdvice;
      set(coded(p, 5, ctx));
      const amount = Number(text(p, 6));
      if (text(p, 6) && Number.isFinite(amount) && amount !== 999) rec.valueNum = amount; // 999 = amount unknown
      const u = units(p, 7);
      if (u) rec.unit = u;
      setDate(firstDate(tz, text(p, 3)));
      setStatus(text(p, 20), text(p, 21));
      break;
    }
    case 'visit': {
      rec.docType = DOC_TYPE.courseRecord;
      const cls = text(p, 2);
      if (cls) {
        rec.code = clip(cls, LIMITS.code)!;
        rec.codeSystem = 'http://terminology.hl7.org/CodeSystem/v2-0004';
        rec.display =
          (
            {
              I: 'inpatient',
              O: 'outpatient',
              E: 'emergency',
              P: 'preadmit',
              R: 'recurring patient',
              B: 'obstetrics',
              C: 'commercial account',
              N: 'not applicable',
              U: 'unknown',
            } as Record<string, string>
          )[cls.toUpperCase()] ?? cls;
      }
      const pv2 = g.segments.find((s) => s.name === 'PV2');
      if (pv2) setText(unescapeHl7(pv2.getComponent(3, 2) || pv2.getComponent(3, 1), ctx));
      const evn = message.getSegment('EVN');
      setDate(firstDate(tz, text(p, 44), text(evn, 6), text(evn, 2)));
      setStatus(text(message.header, 9, 2));
      break;
    }
    case 'dg1': {
      rec.docType = DOC_TYPE.diagnosis;
      const c = coded(p, 3, ctx);
      set(c);
      const desc = text(p, 4);
      if (desc) {
        setText(unescapeHl7(desc, ctx));
        if (!rec.display) rec.display = clip(unescapeHl7(desc, ctx), LIMITS.display)!;
      }
      setDate(firstDate(tz, text(p, 5)));
      setStatus(text(p, 6));
      break;
    }
    case 'al1': {
      rec.docType = DOC_TYPE.diagnosis;
      set(coded(p, 3, ctx));
      const reactions = (p.getField(5)?.components ?? [])
        .map((c) => unescapeHl7(c[0] ?? '', ctx).trim())
        .filter(Boolean);
      setText(reactions.join('; '));
      setDate(firstDate(tz, text(p, 6)));
      setStatus(text(p, 4, 2) ?? text(p, 4));
      break;
    }
    case 'prb': {
      rec.docType = DOC_TYPE.diagnosis;
      set(coded(p, 3, ctx));
      setDate(firstDate(tz, text(p, 7), text(p, 2)));
      setStatus(text(p, 14), text(p, 1));
      break;
    }
    case 'pr1': {
      rec.docType = DOC_TYPE.surgery;
      const c = coded(p, 3, ctx);
      set(c);
      if (!rec.display && text(p, 4)) rec.display = clip(unescapeHl7(text(p, 4)!, ctx), LIMITS.display)!;
      setDate(firstDate(tz, text(p, 5)));
      break;
    }
    case 'document': {
      rec.docType = DOC_TYPE.courseRecord;
      set(coded(p, 2, ctx));
      if (!rec.code && text(p, 2)) rec.code = clip(text(p, 2), LIMITS.code)!;
      const lines = g.segments
        .filter((s) => s.name === 'OBX')
        .map((o) => obxValue(o, ctx).valueText)
        .filter((t): t is string => Boolean(t));
      setText(lines.join('\n'));
      setDate(firstDate(tz, text(p, 4), text(p, 6), text(p, 7)));
      setStatus(text(p, 17));
      break;
    }
  }
}

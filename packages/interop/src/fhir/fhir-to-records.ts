/**
 * FHIR R4 resource → source patient / source records / skipped item.
 *
 * Document types (DocType 1..8: 1 course record, 2 examination, 3 test, 4 doctor's advice, 5 pathology,
 * 6 surgical information, 7 vital signs, 8 diagnostic information):
 *
 * | resource | doc type | code | value | clinical date |
 * |---|---|---|---|---|
 * | Observation, category vital-signs | 7 | code | value[x] | effective[x], issued |
 * | Observation, category laboratory | 3 | | | |
 * | Observation, category imaging / procedure / exam | 2 | | | |
 * | Observation, category social-history / survey / activity / therapy | 1 | | | |
 * | Observation without a known category | 7 if its LOINC code is a vital sign (VITAL_SIGN_LOINC), else 3 | | | |
 * | Observation with component[] | one record per component ('Observation/<id>#<component code>'), same doc type; the panel itself is a record only when it has a value[x] of its own | component code | component value[x] | the panel's |
 * | DiagnosticReport, category SP/CP (v2-0074) or LOINC LP7839-6, or a pathology report code | 5 | code | conclusion | effective[x], issued |
 * | DiagnosticReport, category RAD/CT/RUS/… imaging, EC/EN/PF/CTH… (see DIAGNOSTIC_REPORT_CATEGORY_DOC_TYPE) | 2 | | | |
 * | DiagnosticReport, category LAB/CH/HM/MB/… or none | 3 | | | |
 * | DiagnosticReport, category PHY/NRS/OT/PT/RC/RT (notes, therapies) | 1 | | | |
 * | Condition | 8 | code | severity | onset[x], recordedDate |
 * | AllergyIntolerance | 8 | code | reaction manifestations | onset[x], recordedDate |
 * | MedicationRequest / MedicationStatement / MedicationAdministration / MedicationDispense | 4 | medication[x] (a medicationReference: the contained or referenced Medication's code, else the reference's display) | dose (quantity) or dosage text | authoredOn / effective[x] / whenHandedOver |
 * | Immunization | 4 | vaccineCode | dose quantity | occurrence[x] |
 * | ServiceRequest (an order) | 4 | code | | occurrence[x], authoredOn |
 * | Procedure | 6, or 2 when its category is SNOMED 103693007 "diagnostic procedure" | code | outcome | performed[x] |
 * | Encounter | 1 | type | reasons | period.start |
 * | DocumentReference (clinical notes) | 1 | type | the text/* attachment, decoded | context.period.start, date |
 * | ImagingStudy | 2 | procedureCode, else first modality | description | started |
 * | CarePlan | 1 | category | title / description | period.start, created |
 * | Goal | 1 | description | target due / detail | startDate, statusDate |
 *
 * Skipped with a reason: Patient is not a record (it becomes the ExtractedPatient); billing, administrative and
 * infrastructure resources (NON_CLINICAL_TYPES: Claim, ExplanationOfBenefit, Coverage, Organization, Practitioner,
 * Location, Provenance, Medication, Device …) → 'notClinical'; any other type → 'unsupportedType'; status (or
 * verificationStatus) entered-in-error → 'enteredInError'; a clinical resource whose subject/patient is not a
 * resolvable Patient → 'noPatient'; not an object / no resourceType / no id → 'malformed'.
 *
 * Values: valueQuantity → valueNum + unit (the UCUM code when the quantity's system is UCUM, else its unit text;
 * a comparator such as '<' also goes to valueText as '<5'); valueInteger → valueNum and valueText;
 * valueCodeableConcept / valueString / valueBoolean / valueDateTime / valueRange / valueRatio … → valueText.
 * Dates: effectiveDate is the YYYY-MM-DD exactly as written (no time-zone shift); effectiveAt is the instant when the
 * source gives a time (a time without an offset is read in `defaultTzOffset`, UTC by default). A partial date
 * ('2020-03') gives neither. raw is the resource's JSON; contentHash ignores meta.lastUpdated / meta.versionId.
 */
import type {
  CodeableConcept,
  Coding,
  Identifier,
  Period,
  Quantity,
  Range,
  Ratio,
  Reference,
} from '@medplum/fhirtypes';
import {
  DOC_TYPE,
  type DocType,
  type ExtractedPatient,
  type ExtractedRecord,
  type SkippedItem,
  type SourceIdentifier,
} from '../source-record';
import { CODE_SYSTEMS, PREFERRED_CODE_SYSTEMS, VITAL_SIGN_LOINC } from './clinical-codes';
import { fhirContentHash } from './content-hash';
import { identifierTypeFor, type IdentifierTypeRules } from './identifier-types';

/** Options of a FHIR conversion (per connection). */
export interface FhirConvertOptions {
  /** how patient identifiers map to the spec's identifier types (identifier-types.ts) */
  identifierRules?: IdentifierTypeRules;
  /** the offset used for a dateTime that has a time but no offset, e.g. '+08:00'; default 'Z' */
  defaultTzOffset?: string;
}

/** What is known about a resource besides its JSON. */
export interface FhirResourceContext {
  /** Bundle.entry.fullUrl (e.g. 'urn:uuid:…'), used as the id when the resource has none */
  fullUrl?: string;
  /** the resource's JSON as received (saves a JSON.stringify; readers pass it) */
  raw?: string;
  /** resolves the resource's subject/patient reference to a patientKey; default: defaultPatientKey */
  resolvePatient?: (ref: Reference) => string | undefined;
  /**
   * resolves a medicationReference that is not contained ('Medication/x', 'urn:uuid:…', a full URL) to the
   * Medication's code, from the Medication resources seen in the same bundle or stream
   */
  resolveMedication?: (ref: Reference) => CodeableConcept | undefined;
}

/** The outcome for one resource: a patient, one or more records, or a skip with its reason. */
export type FhirConversion =
  | { kind: 'patient'; patient: ExtractedPatient }
  | { kind: 'records'; records: ExtractedRecord[] }
  | { kind: 'skipped'; skipped: SkippedItem };

/** Resource types that are not clinical facts about a patient: skipped as 'notClinical'. */
export const NON_CLINICAL_TYPES: ReadonlySet<string> = new Set([
  'Account',
  'AuditEvent',
  'Basic',
  'Binary',
  'Bundle',
  'CareTeam',
  'ChargeItem',
  'Claim',
  'ClaimResponse',
  'Consent',
  'Coverage',
  'CoverageEligibilityRequest',
  'CoverageEligibilityResponse',
  'Device',
  'Endpoint',
  'EnrollmentRequest',
  'EnrollmentResponse',
  'ExplanationOfBenefit',
  'Group',
  'HealthcareService',
  'Invoice',
  'Location',
  'Medication',
  'OperationOutcome',
  'Organization',
  'Parameters',
  'PaymentNotice',
  'PaymentReconciliation',
  'Person',
  'Practitioner',
  'PractitionerRole',
  'Provenance',
  'RelatedPerson',
  'Schedule',
  'Slot',
  'Appointment',
  'AppointmentResponse',
  'Subscription',
  'SupplyDelivery',
  'SupplyRequest',
  'Task',
]);

/** Observation category code → doc type (observation-category code system); the lowest rank wins when several. */
export const OBSERVATION_CATEGORY_DOC_TYPE: Readonly<Record<string, DocType>> = {
  'vital-signs': DOC_TYPE.vitalSigns,
  laboratory: DOC_TYPE.test,
  imaging: DOC_TYPE.examination,
  procedure: DOC_TYPE.examination,
  exam: DOC_TYPE.examination,
  'social-history': DOC_TYPE.courseRecord,
  survey: DOC_TYPE.courseRecord,
  activity: DOC_TYPE.courseRecord,
  therapy: DOC_TYPE.courseRecord,
};
const OBSERVATION_CATEGORY_RANK = [
  'vital-signs',
  'laboratory',
  'imaging',
  'procedure',
  'exam',
  'social-history',
  'survey',
  'activity',
  'therapy',
];

/**
 * DiagnosticReport category code → doc type: HL7 v2 table 0074 diagnostic service sections (the code system of
 * DiagnosticReport.category in R4) and the LOINC parts US Core uses for notes. Unknown or missing → 3 (test).
 */
export const DIAGNOSTIC_REPORT_CATEGORY_DOC_TYPE: Readonly<Record<string, DocType>> = {
  // pathology
  SP: DOC_TYPE.pathology,
  CP: DOC_TYPE.pathology,
  'LP7839-6': DOC_TYPE.pathology,
  // imaging and other examinations
  RAD: DOC_TYPE.examination,
  RX: DOC_TYPE.examination,
  CT: DOC_TYPE.examination,
  NMR: DOC_TYPE.examination,
  NMS: DOC_TYPE.examination,
  RUS: DOC_TYPE.examination,
  VUS: DOC_TYPE.examination,
  OUS: DOC_TYPE.examination,
  CUS: DOC_TYPE.examination,
  XRC: DOC_TYPE.examination,
  CTH: DOC_TYPE.examination,
  EC: DOC_TYPE.examination,
  EN: DOC_TYPE.examination,
  PF: DOC_TYPE.examination,
  AU: DOC_TYPE.examination,
  ICU: DOC_TYPE.examination,
  'LP29684-5': DOC_TYPE.examination, // radiology
  'LP29708-2': DOC_TYPE.examination, // cardiology
  // laboratory
  LAB: DOC_TYPE.test,
  BG: DOC_TYPE.test,
  BLB: DOC_TYPE.test,
  CG: DOC_TYPE.test,
  CH: DOC_TYPE.test,
  GE: DOC_TYPE.test,
  HM: DOC_TYPE.test,
  IMM: DOC_TYPE.test,
  MB: DOC_TYPE.test,
  MCB: DOC_TYPE.test,
  MYC: DOC_TYPE.test,
  OSL: DOC_TYPE.test,
  SR: DOC_TYPE.test,
  TX: DOC_TYPE.test,
  URN: DOC_TYPE.test,
  VR: DOC_TYPE.test,
  // notes and therapies
  PHY: DOC_TYPE.courseRecord,
  NRS: DOC_TYPE.courseRecord,
  OT: DOC_TYPE.courseRecord,
  PT: DOC_TYPE.courseRecord,
  RC: DOC_TYPE.courseRecord,
  RT: DOC_TYPE.courseRecord,
};
/** LOINC report codes that are pathology whatever the category says (pathology study, surgical pathology study, synoptic report). */
const PATHOLOGY_REPORT_LOINC = new Set(['11526-1', '11529-5', '60568-3']);
const SNOMED_DIAGNOSTIC_PROCEDURE = '103693007';

const LIMITS = { code: 100, display: 500, unit: 60, status: 30, codeSystem: 200, externalId: 300 } as const;
const MAX_NOTE_CHARS = 100_000;

type Json = Record<string, unknown>;

function isObject(v: unknown): v is Json {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}
function arr<T>(v: unknown): T[] {
  return Array.isArray(v) ? (v as T[]) : [];
}
function str(v: unknown): string | undefined {
  return typeof v === 'string' && v.length > 0 ? v : undefined;
}
function clip(v: string | undefined, max: number): string | undefined {
  return v === undefined ? undefined : v.length > max ? v.slice(0, max) : v;
}

/** The preferred coding of a concept (LOINC, SNOMED CT, RxNorm, CVX, ICD … first; else the first coding with a code). */
export function preferredCoding(cc: CodeableConcept | undefined): Coding | undefined {
  const codings = arr<Coding>(cc?.coding).filter((c) => isObject(c) && str(c.code));
  for (const system of PREFERRED_CODE_SYSTEMS) {
    const hit = codings.find((c) => c.system === system);
    if (hit) return hit;
  }
  return codings[0];
}

interface CodeParts {
  codeSystem?: string;
  code?: string;
  display?: string;
}
function codeOf(cc: CodeableConcept | undefined): CodeParts {
  if (!isObject(cc)) return {};
  const c = preferredCoding(cc);
  return {
    codeSystem: clip(str(c?.system), LIMITS.codeSystem),
    code: clip(str(c?.code), LIMITS.code),
    display: clip(str(c?.display) ?? str(cc.text), LIMITS.display),
  };
}
function conceptText(cc: CodeableConcept | undefined): string | undefined {
  if (!isObject(cc)) return undefined;
  const c = preferredCoding(cc);
  return str(cc.text) ?? str(c?.display) ?? str(c?.code);
}

interface ValueParts {
  valueNum?: number;
  valueText?: string;
  unit?: string;
}
function quantityParts(q: Quantity | undefined): ValueParts {
  if (!isObject(q)) return {};
  const out: ValueParts = {};
  if (typeof q.value === 'number' && Number.isFinite(q.value)) out.valueNum = q.value;
  const unit = q.system === CODE_SYSTEMS.ucum ? (str(q.code) ?? str(q.unit)) : (str(q.unit) ?? str(q.code));
  if (unit) out.unit = clip(unit, LIMITS.unit);
  const comparator = str(q.comparator);
  if (comparator && out.valueNum !== undefined) out.valueText = `${comparator}${out.valueNum}`;
  return out;
}
function quantityText(q: Quantity | undefined): string | undefined {
  if (!isObject(q) || typeof q.value !== 'number') return undefined;
  const unit = str(q.unit) ?? str(q.code);
  return `${str(q.comparator) ?? ''}${q.value}${unit ? ` ${unit}` : ''}`;
}

/** value[x] of an Observation (or an Observation component) → valueNum / valueText / unit. */
function valueParts(holder: Json): ValueParts {
  if (isObject(holder.valueQuantity)) return quantityParts(holder.valueQuantity);
  if (typeof holder.valueInteger === 'number')
    return { valueNum: holder.valueInteger, valueText: String(holder.valueInteger) };
  if (isObject(holder.valueCodeableConcept)) return { valueText: conceptText(holder.valueCodeableConcept) };
  if (typeof holder.valueString === 'string') return { valueText: holder.valueString };
  if (typeof holder.valueBoolean === 'boolean') return { valueText: String(holder.valueBoolean) };
  if (typeof holder.valueDateTime === 'string') return { valueText: holder.valueDateTime };
  if (typeof holder.valueTime === 'string') return { valueText: holder.valueTime };
  if (isObject(holder.valuePeriod)) {
    const p = holder.valuePeriod as Period;
    return { valueText: `${p.start ?? ''}/${p.end ?? ''}` };
  }
  if (isObject(holder.valueRange)) {
    const r = holder.valueRange as Range;
    return { valueText: `${quantityText(r.low) ?? ''} - ${quantityText(r.high) ?? ''}`.trim() };
  }
  if (isObject(holder.valueRatio)) {
    const r = holder.valueRatio as Ratio;
    return { valueText: `${quantityText(r.numerator) ?? ''} / ${quantityText(r.denominator) ?? ''}` };
  }
  return {};
}

interface DateParts {
  effectiveAt?: string;
  effectiveDate?: string;
}
const DATE_RE = /^(\d{4}-\d{2}-\d{2})(T(\d{2}:\d{2}(:\d{2}(\.\d+)?)?)(Z|[+-]\d{2}:\d{2})?)?$/;

/**
 * A FHIR date / dateTime / instant → effectiveDate (YYYY-MM-DD as written) and effectiveAt (ISO instant in UTC, when
 * there is a time). Partial dates and malformed strings give nothing.
 */
export function fhirDateParts(value: unknown, defaultTzOffset = 'Z'): DateParts {
  if (typeof value !== 'string') return {};
  const m = DATE_RE.exec(value.trim());
  if (!m) return {};
  const out: DateParts = { effectiveDate: m[1] };
  if (m[2]) {
    const time = m[3]!.length === 5 ? `${m[3]}:00` : m[3]!;
    const d = new Date(`${m[1]}T${time}${m[6] ?? defaultTzOffset}`);
    if (!Number.isNaN(d.getTime())) out.effectiveAt = d.toISOString();
  }
  return out;
}
function firstDate(opts: FhirConvertOptions, ...candidates: unknown[]): DateParts {
  for (const c of candidates) {
    const p = isObject(c)
      ? fhirDateParts((c as Period).start ?? (c as Period).end, opts.defaultTzOffset)
      : fhirDateParts(c, opts.defaultTzOffset);
    if (p.effectiveDate) return p;
  }
  return {};
}

/**
 * The default patient resolution: 'Patient/<id>' (relative or absolute, with or without '/_history/<v>') → id;
 * 'urn:uuid:<uuid>' → the uuid (a transaction bundle's Patient fullUrl, whose id is normally the same uuid).
 * A conditional reference ('Patient?identifier=…') or an identifier-only reference needs the patient itself:
 * FhirBatchConverter resolves those.
 */
export function defaultPatientKey(ref: Reference): string | undefined {
  const r = str(ref.reference);
  if (!r) return undefined;
  if (r.startsWith('urn:uuid:')) return r.slice(9) || undefined;
  if (r.startsWith('#') || r.includes('?')) return undefined;
  const m = /(?:^|\/)Patient\/([A-Za-z0-9\-.]{1,64})(?:\/_history\/[^/]*)?$/.exec(r);
  return m?.[1];
}

/** The reference naming the patient a resource is about (subject, or patient for AllergyIntolerance / Immunization …). */
export function patientReferenceOf(resource: Json): Reference | undefined {
  for (const key of ['subject', 'patient'] as const) {
    const ref = resource[key];
    if (!isObject(ref)) continue;
    const r = ref as Reference;
    const reference = str(r.reference);
    if (reference) {
      if (reference.startsWith('urn:') || /(^|\/)Patient[/?]/.test(reference)) return r;
      continue; // a Group, Location, Device … subject
    }
    if (r.type === 'Patient' || (r.type === undefined && isObject(r.identifier))) return r;
  }
  return undefined;
}

function idOf(resource: Json, fullUrl: string | undefined): string | undefined {
  const id = str(resource.id);
  if (id) return id;
  if (fullUrl?.startsWith('urn:uuid:')) return fullUrl.slice(9) || undefined;
  return undefined;
}

/** Converts a FHIR Patient into the source patient shape. */
export function fhirPatient(
  resource: Json,
  options: FhirConvertOptions = {},
  fullUrl?: string,
): ExtractedPatient | undefined {
  const patientKey = idOf(resource, fullUrl);
  if (!patientKey) return undefined;
  const identifiers: SourceIdentifier[] = [];
  for (const ident of arr<Identifier>(resource.identifier)) {
    if (typeof ident !== 'object' || ident === null) continue;
    const value = str(ident.value);
    if (!value) continue;
    const codes = arr<Coding>(ident.type?.coding).map((c) =>
      typeof c === 'object' && c !== null ? c.code : undefined,
    );
    const type = identifierTypeFor([ident.system], codes, options.identifierRules);
    const system = str(ident.system);
    identifiers.push(system ? { type, system, value } : { type, value });
  }
  const patient: ExtractedPatient = { patientKey, identifiers };
  const names = arr<Json>(resource.name).filter(isObject);
  const name = names.find((n) => n.use === 'official') ?? names.find((n) => n.use !== 'old') ?? names[0];
  if (name) {
    const text =
      str(name.text) ??
      [...arr<string>(name.given).filter((g) => typeof g === 'string'), str(name.family)]
        .filter(Boolean)
        .join(' ');
    if (text) patient.name = text;
  }
  const birth = str(resource.birthDate);
  if (birth && /^\d{4}-\d{2}-\d{2}$/.test(birth)) patient.birthDate = birth;
  const gender = str(resource.gender);
  if (gender) patient.gender = gender;
  return patient;
}

function observationDocType(resource: Json, code: string | undefined, system: string | undefined): DocType {
  let best: string | undefined;
  for (const cat of arr<CodeableConcept>(resource.category)) {
    for (const c of arr<Coding>(cat?.coding)) {
      const k = c?.code;
      if (!k || OBSERVATION_CATEGORY_DOC_TYPE[k] === undefined) continue;
      if (
        best === undefined ||
        OBSERVATION_CATEGORY_RANK.indexOf(k) < OBSERVATION_CATEGORY_RANK.indexOf(best)
      )
        best = k;
    }
  }
  if (best) return OBSERVATION_CATEGORY_DOC_TYPE[best]!;
  if (code && (system === CODE_SYSTEMS.loinc || system === undefined) && VITAL_SIGN_LOINC.has(code))
    return DOC_TYPE.vitalSigns;
  return DOC_TYPE.test;
}

function diagnosticReportDocType(resource: Json, code: string | undefined): DocType {
  if (code && PATHOLOGY_REPORT_LOINC.has(code)) return DOC_TYPE.pathology;
  let found: DocType | undefined;
  for (const cat of arr<CodeableConcept>(resource.category)) {
    for (const c of arr<Coding>(cat?.coding)) {
      const t = c?.code
        ? (DIAGNOSTIC_REPORT_CATEGORY_DOC_TYPE[c.code.toUpperCase()] ??
          DIAGNOSTIC_REPORT_CATEGORY_DOC_TYPE[c.code])
        : undefined;
      if (t === DOC_TYPE.pathology) return t;
      if (t !== undefined && found === undefined) found = t;
    }
  }
  return found ?? DOC_TYPE.test;
}

function statusOf(resource: Json): string | undefined {
  const s = str(resource.status) ?? conceptCode(resource.clinicalStatus) ?? str(resource.lifecycleStatus);
  return clip(s, LIMITS.status);
}
function conceptCode(cc: unknown): string | undefined {
  if (!isObject(cc)) return undefined;
  return str(arr<Coding>(cc.coding)[0]?.code) ?? str(cc.text);
}
function isEnteredInError(resource: Json): boolean {
  return (
    resource.status === 'entered-in-error' || conceptCode(resource.verificationStatus) === 'entered-in-error'
  );
}

/**
 * medication[x]: the codeable concept, else the referenced Medication's code (a contained one for '#id', else
 * one from the same bundle through `resolve`), else the reference's display.
 */
function medicationCode(
  resource: Json,
  resolve?: (ref: Reference) => CodeableConcept | undefined,
): CodeParts {
  if (isObject(resource.medicationCodeableConcept)) return codeOf(resource.medicationCodeableConcept);
  const ref = resource.medicationReference;
  if (!isObject(ref)) return {};
  const target = typeof ref.reference === 'string' ? ref.reference : undefined;
  const code = target?.startsWith('#')
    ? arr<Json>(resource.contained).find(
        (c) => isObject(c) && c.resourceType === 'Medication' && `#${str(c.id)}` === target,
      )?.code
    : target !== undefined
      ? resolve?.(ref)
      : undefined;
  if (isObject(code)) {
    const parts = codeOf(code);
    if (parts.display === undefined && str(ref.display))
      parts.display = clip(str(ref.display), LIMITS.display);
    if (parts.code !== undefined || parts.display !== undefined) return parts;
  }
  return { display: clip(str(ref.display), LIMITS.display) };
}
function dosageParts(resource: Json): ValueParts {
  // MedicationAdministration.dosage (one), MedicationRequest.dosageInstruction / MedicationStatement.dosage (list)
  const dosage = isObject(resource.dosage) ? resource.dosage : undefined;
  if (dosage) {
    const q = quantityParts(dosage.dose as Quantity | undefined);
    return { ...q, valueText: str(dosage.text) ?? q.valueText };
  }
  const list = arr<Json>(resource.dosageInstruction).length
    ? arr<Json>(resource.dosageInstruction)
    : arr<Json>(resource.dosage);
  const first = list.find(isObject);
  if (!first) return {};
  const dr = arr<Json>(first.doseAndRate).find(isObject);
  const q = quantityParts(dr?.doseQuantity as Quantity | undefined);
  return { ...q, valueText: str(first.text) ?? q.valueText };
}

function decodeNote(resource: Json): string | undefined {
  for (const content of arr<Json>(resource.content)) {
    const att = isObject(content) && isObject(content.attachment) ? content.attachment : undefined;
    const data = str(att?.data);
    const type = str(att?.contentType) ?? '';
    if (!data || !type.startsWith('text/')) continue;
    try {
      const text = Buffer.from(data, 'base64').toString('utf8');
      return text.length > MAX_NOTE_CHARS ? text.slice(0, MAX_NOTE_CHARS) : text;
    } catch {
      return undefined;
    }
  }
  return str(resource.description);
}

interface RecordCore extends CodeParts, ValueParts, DateParts {
  docType: DocType;
  suffix?: string;
}

/**
 * Converts one FHIR R4 resource. Never throws: a resource that breaks the converter is skipped as 'malformed'.
 * @param resource - the parsed JSON of one resource
 */
export function convertFhirResource(
  resource: unknown,
  options: FhirConvertOptions = {},
  context: FhirResourceContext = {},
): FhirConversion {
  if (!isObject(resource) || typeof resource.resourceType !== 'string' || !resource.resourceType) {
    return {
      kind: 'skipped',
      skipped: {
        resourceType:
          isObject(resource) && typeof resource.resourceType === 'string' ? resource.resourceType : 'unknown',
        reason: 'malformed',
      },
    };
  }
  const resourceType = resource.resourceType;
  const id = idOf(resource, context.fullUrl);
  const skip = (reason: SkippedItem['reason']): FhirConversion => ({
    kind: 'skipped',
    skipped: id ? { resourceType, id, reason } : { resourceType, reason },
  });
  if (!id) return skip('malformed');
  try {
    if (resourceType === 'Patient') {
      const patient = fhirPatient(resource, options, context.fullUrl);
      return patient ? { kind: 'patient', patient } : skip('malformed');
    }
    if (NON_CLINICAL_TYPES.has(resourceType)) return skip('notClinical');
    const cores = recordCores(resourceType, resource, options, context.resolveMedication);
    if (cores === undefined) return skip('unsupportedType');
    if (isEnteredInError(resource)) return skip('enteredInError');
    const ref = patientReferenceOf(resource);
    const patientKey = ref ? (context.resolvePatient ?? defaultPatientKey)(ref) : undefined;
    if (!patientKey) return skip('noPatient');
    const raw = context.raw ?? JSON.stringify(resource);
    const contentHash = fhirContentHash(resource);
    const status = statusOf(resource);
    const base = `${resourceType}/${id}`;
    const records = cores.map((c): ExtractedRecord => {
      const rec: ExtractedRecord = {
        patientKey,
        externalId: clip(c.suffix ? `${base}#${c.suffix}` : base, LIMITS.externalId)!,
        docType: c.docType,
        resourceType,
        rawFormat: 'fhir',
        raw,
        contentHash,
      };
      if (c.codeSystem !== undefined) rec.codeSystem = c.codeSystem;
      if (c.code !== undefined) rec.code = c.code;
      if (c.display !== undefined) rec.display = c.display;
      if (c.valueNum !== undefined) rec.valueNum = c.valueNum;
      if (c.valueText !== undefined) rec.valueText = c.valueText;
      if (c.unit !== undefined) rec.unit = c.unit;
      if (c.effectiveAt !== undefined) rec.effectiveAt = c.effectiveAt;
      if (c.effectiveDate !== undefined) rec.effectiveDate = c.effectiveDate;
      if (status !== undefined) rec.status = status;
      return rec;
    });
    return { kind: 'records', records };
  } catch {
    return skip('malformed');
  }
}

/** The record contents of a clinical resource, or undefined when the type is not supported. */
function recordCores(
  resourceType: string,
  r: Json,
  opts: FhirConvertOptions,
  resolveMedication?: (ref: Reference) => CodeableConcept | undefined,
): RecordCore[] | undefined {
  switch (resourceType) {
    case 'Observation': {
      const code = codeOf(r.code as CodeableConcept);
      const docType = observationDocType(r, code.code, code.codeSystem);
      const date = firstDate(opts, r.effectiveDateTime, r.effectiveInstant, r.effectivePeriod, r.issued);
      const own = valueParts(r);
      const components = arr<Json>(r.component).filter(isObject);
      if (!components.length) return [{ docType, ...code, ...own, ...date }];
      const cores: RecordCore[] = [];
      if (own.valueNum !== undefined || own.valueText !== undefined)
        cores.push({ docType, ...code, ...own, ...date });
      const used = new Set<string>();
      components.forEach((comp, i) => {
        const cc = codeOf(comp.code as CodeableConcept);
        let suffix = cc.code ?? `component-${i + 1}`;
        if (used.has(suffix)) suffix = `${suffix}-${i + 1}`;
        used.add(suffix);
        cores.push({ docType, ...cc, ...valueParts(comp), ...date, suffix });
      });
      return cores;
    }
    case 'DiagnosticReport': {
      const code = codeOf(r.code as CodeableConcept);
      const text =
        str(r.conclusion) ??
        arr<CodeableConcept>(r.conclusionCode).map(conceptText).filter(Boolean).join('; ');
      return [
        {
          docType: diagnosticReportDocType(r, code.code),
          ...code,
          valueText: text || undefined,
          ...firstDate(opts, r.effectiveDateTime, r.effectivePeriod, r.issued),
        },
      ];
    }
    case 'Condition':
      return [
        {
          docType: DOC_TYPE.diagnosis,
          ...codeOf(r.code as CodeableConcept),
          valueText: conceptText(r.severity as CodeableConcept),
          ...firstDate(opts, r.onsetDateTime, r.onsetPeriod, r.recordedDate),
        },
      ];
    case 'AllergyIntolerance': {
      const manifest = arr<Json>(r.reaction)
        .flatMap((x) => arr<CodeableConcept>(x?.manifestation))
        .map(conceptText)
        .filter(Boolean)
        .join('; ');
      return [
        {
          docType: DOC_TYPE.diagnosis,
          ...codeOf(r.code as CodeableConcept),
          valueText: manifest || undefined,
          ...firstDate(opts, r.onsetDateTime, r.onsetPeriod, r.recordedDate),
        },
      ];
    }
    case 'MedicationRequest':
      return [
        {
          docType: DOC_TYPE.doctorAdvice,
          ...medicationCode(r, resolveMedication),
          ...dosageParts(r),
          ...firstDate(opts, r.authoredOn),
        },
      ];
    case 'MedicationStatement':
      return [
        {
          docType: DOC_TYPE.doctorAdvice,
          ...medicationCode(r, resolveMedication),
          ...dosageParts(r),
          ...firstDate(opts, r.effectiveDateTime, r.effectivePeriod, r.dateAsserted),
        },
      ];
    case 'MedicationAdministration':
      return [
        {
          docType: DOC_TYPE.doctorAdvice,
          ...medicationCode(r, resolveMedication),
          ...dosageParts(r),
          ...firstDate(opts, r.effectiveDateTime, r.effectivePeriod),
        },
      ];
    case 'MedicationDispense':
      return [
        {
          docType: DOC_TYPE.doctorAdvice,
          ...medicationCode(r, resolveMedication),
          ...dosageParts(r),
          ...firstDate(opts, r.whenHandedOver, r.whenPrepared),
        },
      ];
    case 'Immunization':
      return [
        {
          docType: DOC_TYPE.doctorAdvice,
          ...codeOf(r.vaccineCode as CodeableConcept),
          ...quantityParts(r.doseQuantity as Quantity),
          ...firstDate(opts, r.occurrenceDateTime, r.recorded),
        },
      ];
    case 'ServiceRequest':
      return [
        {
          docType: DOC_TYPE.doctorAdvice,
          ...codeOf(r.code as CodeableConcept),
          ...firstDate(opts, r.occurrenceDateTime, r.occurrencePeriod, r.authoredOn),
        },
      ];
    case 'Procedure': {
      const diagnostic = arr<Coding>((r.category as CodeableConcept | undefined)?.coding).some(
        (c) => c?.code === SNOMED_DIAGNOSTIC_PROCEDURE,
      );
      const outcome = conceptText(r.outcome as CodeableConcept);
      return [
        {
          docType: diagnostic ? DOC_TYPE.examination : DOC_TYPE.surgery,
          ...codeOf(r.code as CodeableConcept),
          valueText: outcome,
          ...firstDate(opts, r.performedDateTime, r.performedPeriod),
        },
      ];
    }
    case 'Encounter': {
      const type = arr<CodeableConcept>(r.type)[0];
      const reasons = arr<CodeableConcept>(r.reasonCode).map(conceptText).filter(Boolean).join('; ');
      const cls = isObject(r.class)
        ? (str((r.class as Coding).display) ?? str((r.class as Coding).code))
        : undefined;
      const code = type ? codeOf(type) : { display: cls };
      return [
        {
          docType: DOC_TYPE.courseRecord,
          ...code,
          valueText: reasons || undefined,
          ...firstDate(opts, r.period),
        },
      ];
    }
    case 'DocumentReference': {
      const ctx = isObject(r.context) ? r.context : {};
      return [
        {
          docType: DOC_TYPE.courseRecord,
          ...codeOf(r.type as CodeableConcept),
          valueText: decodeNote(r),
          ...firstDate(opts, ctx.period, r.date),
        },
      ];
    }
    case 'ImagingStudy': {
      const proc = arr<CodeableConcept>(r.procedureCode)[0];
      const modality =
        arr<Coding>(r.modality)[0] ??
        arr<Json>(r.series)
          .map((s) => s?.modality as Coding | undefined)
          .find(isObject);
      const code = proc
        ? codeOf(proc)
        : { codeSystem: str(modality?.system), code: str(modality?.code), display: str(modality?.display) };
      return [
        {
          docType: DOC_TYPE.examination,
          ...code,
          valueText: str(r.description),
          ...firstDate(opts, r.started),
        },
      ];
    }
    case 'CarePlan': {
      const cat =
        arr<CodeableConcept>(r.category).find((c) => preferredCoding(c)?.system === CODE_SYSTEMS.snomed) ??
        arr<CodeableConcept>(r.category)[0];
      return [
        {
          docType: DOC_TYPE.courseRecord,
          ...codeOf(cat),
          valueText: str(r.title) ?? str(r.description),
          ...firstDate(opts, r.period, r.created),
        },
      ];
    }
    case 'Goal': {
      const target = arr<Json>(r.target).find(isObject);
      const detail = target
        ? (str(target.detailString) ??
          quantityText(target.detailQuantity as Quantity) ??
          conceptText(target.detailCodeableConcept as CodeableConcept))
        : undefined;
      return [
        {
          docType: DOC_TYPE.courseRecord,
          ...codeOf(r.description as CodeableConcept),
          valueText: detail,
          ...firstDate(opts, r.startDate, r.statusDate, target?.dueDate),
        },
      ];
    }
    default:
      return undefined;
  }
}

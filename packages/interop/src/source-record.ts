/**
 * The one shape every hospital source lands in before it is stored: a source patient (matched to a subject by
 * identifier) and its source records, of the spec's 8 document types (SOURCE_DOC_TYPES, numbered from 1).
 * FHIR, HL7 v2 and SQL converters all produce these; the server stores them (idempotently, by externalId within a
 * connection) without knowing where they came from.
 */
import type { IDENTIFIER_TYPES } from '@esource/shared';

/** 1 course record, 2 examination, 3 test, 4 doctor's advice, 5 pathology, 6 surgical information, 7 vital signs, 8 diagnostic information */
export type DocType = 1 | 2 | 3 | 4 | 5 | 6 | 7 | 8;
export const DOC_TYPE = {
  courseRecord: 1,
  examination: 2,
  test: 3,
  doctorAdvice: 4,
  pathology: 5,
  surgery: 6,
  vitalSigns: 7,
  diagnosis: 8,
} as const satisfies Record<string, DocType>;

export type IdentifierType = (typeof IDENTIFIER_TYPES)[number] | 'other';

export interface SourceIdentifier {
  /** which of the spec's identifier types this is (medical record, inpatient, outpatient, ID card), or 'other' */
  type: IdentifierType;
  /** the assigning system (FHIR identifier.system, HL7 CX-4), when known */
  system?: string;
  value: string;
}

/** A patient as a hospital system knows it. */
export interface ExtractedPatient {
  /** the source's own stable key for the patient (FHIR Patient.id, HL7 PID-3's first identifier, the view's key) */
  patientKey: string;
  identifiers: SourceIdentifier[];
  /** display name (identifiable: shown only to site users resolving the matching queue) */
  name?: string;
  /** YYYY-MM-DD */
  birthDate?: string;
  gender?: string;
}

/** One clinical fact from a hospital system. */
export interface ExtractedRecord {
  /** the patient it belongs to (ExtractedPatient.patientKey) */
  patientKey: string;
  /** stable within a connection, so that extraction is idempotent: 'Observation/<id>', 'HL7/<MSH-10>/OBX/<n>', 'SQL/<query>/<key>' */
  externalId: string;
  docType: DocType;
  /** FHIR resource type, HL7 segment ('OBX', 'RXE' …), or the SQL query's name */
  resourceType: string;
  codeSystem?: string;
  code?: string;
  display?: string;
  valueNum?: number;
  valueText?: string;
  /** UCUM where the source says so */
  unit?: string;
  /** ISO 8601 instant, when the source has a time */
  effectiveAt?: string;
  /** YYYY-MM-DD: the clinical date used for visit windows */
  effectiveDate?: string;
  status?: string;
  rawFormat: 'fhir' | 'hl7v2' | 'sql';
  /** the payload as it came: the resource's JSON, the segment group's text, the row's JSON */
  raw: string;
  /** SHA-256 (hex) of what defines the record's content, to tell a changed record from an unchanged one */
  contentHash: string;
}

/** Why an input resource/segment produced no record. Every input is either stored or skipped with a reason. */
export type SkipReason =
  | 'notClinical' // billing, administrative or infrastructure resources (Claim, ExplanationOfBenefit, Organization …)
  | 'noPatient' // a clinical resource that names no patient
  | 'unsupportedType' // a resource type we do not turn into source records (listed, not silently dropped)
  | 'enteredInError' // status entered-in-error
  | 'malformed'; // fails the minimal structure (no resourceType, no id)

export interface SkippedItem {
  resourceType: string;
  id?: string;
  reason: SkipReason;
}

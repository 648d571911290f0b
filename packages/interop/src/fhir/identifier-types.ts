/**
 * Which of the spec's identifier types (medical record, inpatient, outpatient ID, ID card) a hospital identifier is.
 * Used for FHIR `Patient.identifier` and HL7 v2 PID-3 (CX) alike, so that one connection setting works for both.
 *
 * Decision order: the identifier's system / assigning authority (`systems`, exact match, configured per connection),
 * then its type code (FHIR `identifier.type.coding[].code`, HL7 CX-5, both from HL7 table 0203), else 'other'.
 *
 * Default type-code table (DEFAULT_IDENTIFIER_TYPE_CODES):
 *
 * | code | meaning (table 0203) | identifier type |
 * |---|---|---|
 * | MR, MRN, MRT | medical record number | medicalRecordId |
 * | VN, AN | visit number, account number (the stay's number) | inpatientId |
 * | PI | patient internal identifier (the outpatient card number in most HIS) | outpatientId |
 * | SS, NI, CZ, NNxxx (any NN + country) | social security, national unique, citizenship card, national person id | idCard |
 * | anything else (DL, PPN, PT, PN …) | | other |
 */
import type { IdentifierType } from '../source-record';

/** Per-connection rules mapping hospital identifiers to the spec's identifier types. */
export interface IdentifierTypeRules {
  /** by FHIR `identifier.system` or HL7 CX-4 assigning authority (namespace or universal id), exact match; wins over type codes */
  systems?: Record<string, IdentifierType>;
  /** by type code (FHIR `identifier.type.coding[].code`, HL7 CX-5); merged over DEFAULT_IDENTIFIER_TYPE_CODES */
  typeCodes?: Record<string, IdentifierType>;
}

/** The default type-code table (see the module comment). */
export const DEFAULT_IDENTIFIER_TYPE_CODES: Readonly<Record<string, IdentifierType>> = {
  MR: 'medicalRecordId',
  MRN: 'medicalRecordId',
  MRT: 'medicalRecordId',
  VN: 'inpatientId',
  AN: 'inpatientId',
  PI: 'outpatientId',
  SS: 'idCard',
  NI: 'idCard',
  CZ: 'idCard',
};

/**
 * Example system table for Synthea output (smart-on-fhir sample data): its hospital MRN system is the medical
 * record number and the US SSN is the national identifier. Pass as `{ systems: SYNTHEA_IDENTIFIER_SYSTEMS }`.
 */
export const SYNTHEA_IDENTIFIER_SYSTEMS: Readonly<Record<string, IdentifierType>> = {
  'http://hospital.smarthealthit.org': 'medicalRecordId',
  'http://hl7.org/fhir/sid/us-ssn': 'idCard',
};

/**
 * The identifier type for a system and type codes under the given rules.
 * @param systems - the identifier's system(s) / assigning authority names, any of which may match `rules.systems`
 * @param typeCodes - the identifier's type codes (FHIR type codings, HL7 CX-5)
 */
export function identifierTypeFor(
  systems: readonly (string | undefined)[],
  typeCodes: readonly (string | undefined)[],
  rules?: IdentifierTypeRules,
): IdentifierType {
  if (rules?.systems) {
    for (const s of systems) {
      const t = s ? rules.systems[s] : undefined;
      if (t) return t;
    }
  }
  for (const raw of typeCodes) {
    if (!raw) continue;
    const code = raw.trim().toUpperCase();
    const t = rules?.typeCodes?.[code] ?? rules?.typeCodes?.[raw] ?? DEFAULT_IDENTIFIER_TYPE_CODES[code];
    if (t) return t;
    if (/^NN[A-Z]{3}$/.test(code)) return 'idCard';
  }
  return 'other';
}

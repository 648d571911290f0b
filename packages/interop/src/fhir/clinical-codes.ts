/** Code systems and code sets shared by the FHIR and HL7 v2 converters. */

/** Canonical code system URIs (FHIR `Coding.system`). */
export const CODE_SYSTEMS = {
  loinc: 'http://loinc.org',
  snomed: 'http://snomed.info/sct',
  rxnorm: 'http://www.nlm.nih.gov/research/umls/rxnorm',
  cvx: 'http://hl7.org/fhir/sid/cvx',
  ndc: 'http://hl7.org/fhir/sid/ndc',
  icd10: 'http://hl7.org/fhir/sid/icd-10',
  icd10cm: 'http://hl7.org/fhir/sid/icd-10-cm',
  icd9cm: 'http://hl7.org/fhir/sid/icd-9-cm',
  ucum: 'http://unitsofmeasure.org',
} as const;

/** When a concept carries several codings, the first of these systems wins (then the first coding). */
export const PREFERRED_CODE_SYSTEMS: readonly string[] = [
  CODE_SYSTEMS.loinc,
  CODE_SYSTEMS.snomed,
  CODE_SYSTEMS.rxnorm,
  CODE_SYSTEMS.cvx,
  CODE_SYSTEMS.icd10,
  CODE_SYSTEMS.icd10cm,
  CODE_SYSTEMS.icd9cm,
  CODE_SYSTEMS.ndc,
];

/**
 * HL7 v2 coding system names (table 0396, CE-3 / CWE-3) → FHIR system URIs. Names not listed are kept as written
 * (a local code system such as 'L' or '99zzz' stays recognisable in mapping rules).
 */
export const HL7_CODING_SYSTEMS: Readonly<Record<string, string>> = {
  LN: CODE_SYSTEMS.loinc,
  LOINC: CODE_SYSTEMS.loinc,
  SCT: CODE_SYSTEMS.snomed,
  SNM: CODE_SYSTEMS.snomed,
  SNOMED: CODE_SYSTEMS.snomed,
  RXNORM: CODE_SYSTEMS.rxnorm,
  RXN: CODE_SYSTEMS.rxnorm,
  CVX: CODE_SYSTEMS.cvx,
  NDC: CODE_SYSTEMS.ndc,
  I10: CODE_SYSTEMS.icd10,
  I10C: CODE_SYSTEMS.icd10cm,
  I9C: CODE_SYSTEMS.icd9cm,
  I9CDX: CODE_SYSTEMS.icd9cm,
  UCUM: CODE_SYSTEMS.ucum,
};

/**
 * LOINC codes of vital signs: the FHIR R4 vital-signs profile set plus the codes Synthea files under the
 * vital-signs category (blood pressure panel 55284-4, pain severity 72514-3, pediatric percentiles). Used to tell a
 * vital sign (doc type 7) from a test result (3) when the source gives no category (HL7 OBX, uncategorised FHIR).
 */
export const VITAL_SIGN_LOINC: ReadonlySet<string> = new Set([
  '85353-1', // vital signs panel
  '9279-1', // respiratory rate
  '8867-4', // heart rate
  '2708-6', // oxygen saturation in arterial blood
  '59408-5', // oxygen saturation by pulse oximetry
  '3150-0', // inhaled oxygen concentration
  '3151-8', // inhaled oxygen flow rate
  '8310-5', // body temperature
  '8331-1', // oral temperature
  '8302-2', // body height
  '8306-3', // body height lying
  '9843-4', // head circumference
  '8287-5', // head circumference by tape
  '29463-7', // body weight
  '3141-9', // body weight measured
  '39156-5', // body mass index
  '85354-9', // blood pressure panel
  '55284-4', // blood pressure systolic and diastolic
  '8480-6', // systolic blood pressure
  '8462-4', // diastolic blood pressure
  '8478-0', // mean blood pressure
  '72514-3', // pain severity 0-10
  '77606-2', // weight-for-length percentile
  '59576-9', // body mass index percentile
  '8289-1', // head circumference percentile
]);

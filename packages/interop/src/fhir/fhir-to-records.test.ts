import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import { describe, expect, it } from 'vitest';
import type { ExtractedRecord } from '../source-record';
import { convertFhirBundle, convertFhirResources, FhirBatchConverter } from './fhir-batch';
import { convertFhirResource, fhirDateParts, type FhirConversion } from './fhir-to-records';
import { SYNTHEA_IDENTIFIER_SYSTEMS } from './identifier-types';

const FIXTURES = path.resolve(import.meta.dirname, '../../test-fixtures/fhir-synthea');
const bundleFiles = fs.readdirSync(FIXTURES).filter((f) => f.endsWith('.json.gz'));

interface Entry {
  fullUrl?: string;
  resource: Record<string, unknown> & { resourceType: string; id: string };
}
function loadBundle(file: string): { entry: Entry[] } {
  return JSON.parse(zlib.gunzipSync(fs.readFileSync(path.join(FIXTURES, file))).toString('utf8')) as {
    entry: Entry[];
  };
}

const subject = { reference: 'Patient/p1' };
function records(c: FhirConversion): ExtractedRecord[] {
  if (c.kind !== 'records') throw new Error(`expected records, got ${JSON.stringify(c)}`);
  return c.records;
}
function obs(extra: Record<string, unknown>): Record<string, unknown> {
  return {
    resourceType: 'Observation',
    id: 'o1',
    status: 'final',
    subject,
    code: { coding: [{ system: 'http://loinc.org', code: '2345-7', display: 'Glucose' }] },
    ...extra,
  };
}

describe('Synthea bundles: every resource accounted for', () => {
  it('has the 15 bundles', () => {
    expect(bundleFiles).toHaveLength(15);
  });

  it.each(bundleFiles)('%s', (file) => {
    const bundle = loadBundle(file);
    const out = convertFhirBundle(bundle, { identifierRules: { systems: SYNTHEA_IDENTIFIER_SYSTEMS } });
    const s = out.summary;
    // stored (patients + resources that became records) + skipped by reason == entries
    expect(s.resources).toBe(bundle.entry.length);
    expect(s.patients + s.converted + Object.values(s.skipped).reduce((a, b) => a + b, 0)).toBe(
      bundle.entry.length,
    );
    expect(s.pending).toBe(0);
    // in these files only billing / administrative resources are skipped
    expect(Object.keys(s.skipped)).toEqual(['notClinical']);
    expect(
      out.skipped.every((x) =>
        ['Claim', 'ExplanationOfBenefit', 'Organization', 'Practitioner'].includes(x.resourceType),
      ),
    ).toBe(true);

    expect(out.patients).toHaveLength(1);
    const patient = out.patients[0]!;
    expect(patient.identifiers.find((i) => i.type === 'medicalRecordId')?.system).toBe(
      'http://hospital.smarthealthit.org',
    );
    expect(patient.identifiers.some((i) => i.type === 'idCard')).toBe(true);
    expect(patient.birthDate).toMatch(/^\d{4}-\d{2}-\d{2}$/);

    const ids = new Set<string>();
    for (const r of out.records) {
      expect([1, 2, 3, 4, 5, 6, 7, 8]).toContain(r.docType);
      expect(r.patientKey).toBe(patient.patientKey);
      expect(r.contentHash).toMatch(/^[0-9a-f]{64}$/);
      // Synthea's Goals carry no date; everything else has its clinical date
      if (r.resourceType !== 'Goal') expect(r.effectiveDate, r.externalId).toMatch(/^\d{4}-\d{2}-\d{2}$/);
      expect(ids.has(r.externalId), r.externalId).toBe(false);
      ids.add(r.externalId);
    }
    // each Observation with a valueQuantity gives a number and a unit
    const byId = new Map(out.records.map((r) => [r.externalId, r]));
    for (const e of bundle.entry) {
      const r = e.resource;
      if (r.resourceType !== 'Observation') continue;
      if (r.valueQuantity) {
        const rec = byId.get(`Observation/${r.id}`);
        expect(typeof rec?.valueNum, r.id).toBe('number');
        expect(rec?.unit, r.id).toBeTruthy();
      }
      for (const c of (r.component ?? []) as {
        code: { coding: { code: string }[] };
        valueQuantity?: unknown;
      }[]) {
        const rec = byId.get(`Observation/${r.id}#${c.code.coding[0]!.code}`);
        expect(rec, r.id).toBeDefined();
        if (c.valueQuantity) expect(typeof rec?.valueNum).toBe('number');
      }
    }
    // raw is the resource as received
    const first = out.records[0]!;
    const source = bundle.entry.find(
      (e) => `${e.resource.resourceType}/${e.resource.id}` === first.externalId.split('#')[0],
    );
    expect(JSON.parse(first.raw)).toEqual(source?.resource);
  });

  it('splits a blood pressure panel into its two components (vital signs, UCUM mm[Hg]) without a value-less panel record', () => {
    const bundle = loadBundle(bundleFiles[0]!);
    const bp = bundle.entry.find(
      (e) => e.resource.resourceType === 'Observation' && JSON.stringify(e.resource.code).includes('55284-4'),
    )!.resource;
    const recs = records(convertFhirResource(bp));
    expect(recs.map((r) => r.externalId).sort()).toEqual([
      `Observation/${bp.id}#8462-4`,
      `Observation/${bp.id}#8480-6`,
    ]);
    expect(recs.map((r) => r.code).sort()).toEqual(['8462-4', '8480-6']);
    for (const r of recs) {
      expect(r.docType).toBe(7);
      expect(r.unit).toBe('mm[Hg]');
      expect(r.valueNum).toBeGreaterThan(20);
      expect(r.raw).toBe(JSON.stringify(bp));
    }
  });
});

describe('document types', () => {
  const cat = (code: string) => [
    { coding: [{ system: 'http://terminology.hl7.org/CodeSystem/observation-category', code }] },
  ];
  it.each([
    ['vital-signs', 7],
    ['laboratory', 3],
    ['imaging', 2],
    ['procedure', 2],
    ['exam', 2],
    ['social-history', 1],
    ['survey', 1],
  ])('Observation category %s → %i', (code, docType) => {
    expect(records(convertFhirResource(obs({ category: cat(code) })))[0]!.docType).toBe(docType);
  });

  it('an uncategorised Observation is a vital sign by its LOINC code, else a test', () => {
    const weight = obs({ code: { coding: [{ system: 'http://loinc.org', code: '29463-7' }] } });
    expect(records(convertFhirResource(weight))[0]!.docType).toBe(7);
    expect(records(convertFhirResource(obs({})))[0]!.docType).toBe(3);
  });

  const dr = (category: unknown, code = '58410-2') => ({
    resourceType: 'DiagnosticReport',
    id: 'd1',
    status: 'final',
    subject,
    code: { coding: [{ system: 'http://loinc.org', code }] },
    category,
    conclusion: 'no abnormality',
  });
  it('DiagnosticReport: pathology 5, imaging 2, lab 3', () => {
    const v2 = (c: string) => [
      { coding: [{ system: 'http://terminology.hl7.org/CodeSystem/v2-0074', code: c }] },
    ];
    expect(records(convertFhirResource(dr(v2('SP'))))[0]!.docType).toBe(5);
    expect(
      records(convertFhirResource(dr([{ coding: [{ system: 'http://loinc.org', code: 'LP7839-6' }] }])))[0]!
        .docType,
    ).toBe(5);
    expect(records(convertFhirResource(dr(undefined, '11529-5')))[0]!.docType).toBe(5);
    expect(records(convertFhirResource(dr(v2('RAD'))))[0]!.docType).toBe(2);
    expect(records(convertFhirResource(dr(v2('LAB'))))[0]!.docType).toBe(3);
    expect(records(convertFhirResource(dr(undefined)))[0]!).toMatchObject({
      docType: 3,
      valueText: 'no abnormality',
    });
  });

  it('Procedure is surgery unless it is a diagnostic procedure', () => {
    const proc = {
      resourceType: 'Procedure',
      id: 'x',
      status: 'completed',
      subject,
      code: { coding: [{ system: 'http://snomed.info/sct', code: '80146002', display: 'Appendectomy' }] },
      performedPeriod: { start: '2020-01-02T10:00:00+08:00' },
    };
    expect(records(convertFhirResource(proc))[0]).toMatchObject({
      docType: 6,
      code: '80146002',
      codeSystem: 'http://snomed.info/sct',
      effectiveDate: '2020-01-02',
      effectiveAt: '2020-01-02T02:00:00.000Z',
    });
    const diag = { ...proc, category: { coding: [{ system: 'http://snomed.info/sct', code: '103693007' }] } };
    expect(records(convertFhirResource(diag))[0]!.docType).toBe(2);
  });

  it.each([
    [
      'Condition',
      {
        code: { coding: [{ system: 'http://snomed.info/sct', code: '44054006' }] },
        onsetDateTime: '2019-05-01',
      },
      8,
    ],
    [
      'AllergyIntolerance',
      {
        patient: subject,
        subject: undefined,
        code: { text: 'Peanut' },
        reaction: [{ manifestation: [{ text: 'Hives' }] }],
      },
      8,
    ],
    [
      'MedicationRequest',
      {
        medicationCodeableConcept: {
          coding: [{ system: 'http://www.nlm.nih.gov/research/umls/rxnorm', code: '313782' }],
        },
        authoredOn: '2020-01-01',
      },
      4,
    ],
    [
      'MedicationStatement',
      { medicationReference: { display: 'Aspirin' }, effectiveDateTime: '2020-01-01' },
      4,
    ],
    [
      'MedicationAdministration',
      {
        medicationCodeableConcept: { text: 'Saline' },
        dosage: { dose: { value: 500, unit: 'mL', system: 'http://unitsofmeasure.org', code: 'mL' } },
      },
      4,
    ],
    [
      'Immunization',
      {
        patient: subject,
        subject: undefined,
        vaccineCode: { coding: [{ system: 'http://hl7.org/fhir/sid/cvx', code: '140' }] },
        occurrenceDateTime: '2020-01-01',
      },
      4,
    ],
    ['Encounter', { period: { start: '2020-01-01T08:00:00Z' } }, 1],
    [
      'DocumentReference',
      {
        content: [
          {
            attachment: {
              contentType: 'text/plain',
              data: Buffer.from('Progress note: stable.').toString('base64'),
            },
          },
        ],
      },
      1,
    ],
    [
      'ImagingStudy',
      {
        modality: [{ system: 'http://dicom.nema.org/resources/ontology/DCM', code: 'CT' }],
        started: '2020-01-01',
      },
      2,
    ],
    ['CarePlan', { category: [{ text: 'Diabetes care' }] }, 1],
    ['Goal', { description: { text: 'HbA1c < 7' } }, 1],
    ['ServiceRequest', { code: { text: 'CBC' } }, 4],
  ])('%s → %i', (resourceType, extra, docType) => {
    const r = records(convertFhirResource({ resourceType, id: 'r1', status: 'active', subject, ...extra }));
    expect(r).toHaveLength(1);
    expect(r[0]!.docType).toBe(docType);
    expect(r[0]!.externalId).toBe(`${resourceType}/r1`);
  });

  it('decodes a DocumentReference text note, keeps MedicationAdministration dose and allergy reactions', () => {
    const note = records(
      convertFhirResource({
        resourceType: 'DocumentReference',
        id: 'n',
        status: 'current',
        subject,
        content: [
          {
            attachment: { contentType: 'text/plain', data: Buffer.from('病程记录：稳定').toString('base64') },
          },
        ],
      }),
    );
    expect(note[0]!.valueText).toBe('病程记录：稳定');
    const adm = records(
      convertFhirResource({
        resourceType: 'MedicationAdministration',
        id: 'a',
        status: 'completed',
        subject,
        medicationCodeableConcept: { text: 'Saline' },
        dosage: { dose: { value: 500, unit: 'mL', system: 'http://unitsofmeasure.org', code: 'mL' } },
        effectiveDateTime: '2020-01-01T10:00:00Z',
      }),
    );
    expect(adm[0]).toMatchObject({
      display: 'Saline',
      valueNum: 500,
      unit: 'mL',
      effectiveDate: '2020-01-01',
    });
  });

  it('skips non-clinical, unsupported, entered-in-error, patient-less and malformed resources with their reason', () => {
    const reason = (r: unknown) => {
      const c = convertFhirResource(r);
      return c.kind === 'skipped' ? c.skipped.reason : c.kind;
    };
    expect(reason({ resourceType: 'Claim', id: 'c' })).toBe('notClinical');
    expect(reason({ resourceType: 'Provenance', id: 'c' })).toBe('notClinical');
    expect(reason({ resourceType: 'Coverage', id: 'c' })).toBe('notClinical');
    expect(reason({ resourceType: 'FamilyMemberHistory', id: 'c', patient: subject })).toBe(
      'unsupportedType',
    );
    expect(reason(obs({ status: 'entered-in-error' }))).toBe('enteredInError');
    expect(
      reason({
        resourceType: 'Condition',
        id: 'c',
        subject,
        verificationStatus: { coding: [{ code: 'entered-in-error' }] },
      }),
    ).toBe('enteredInError');
    expect(reason(obs({ subject: undefined }))).toBe('noPatient');
    expect(reason(obs({ subject: { reference: 'Group/g1' } }))).toBe('noPatient');
    expect(reason(obs({ id: undefined }))).toBe('malformed');
    expect(reason({ id: 'x' })).toBe('malformed');
    expect(reason('not json')).toBe('malformed');
    expect(reason(obs({ code: { coding: 'not an array' }, category: 5 }))).toBe('records');
  });
});

describe('values and dates', () => {
  it('valueQuantity: UCUM code when the system is UCUM, else the unit text; comparator kept as text', () => {
    expect(
      records(
        convertFhirResource(
          obs({
            valueQuantity: {
              value: 5.4,
              unit: 'mmol/L',
              system: 'http://unitsofmeasure.org',
              code: 'mmol/L',
            },
          }),
        ),
      )[0],
    ).toMatchObject({ valueNum: 5.4, unit: 'mmol/L' });
    expect(
      records(
        convertFhirResource(
          obs({
            valueQuantity: {
              value: 98,
              unit: 'mg per dL',
              system: 'http://unitsofmeasure.org',
              code: 'mg/dL',
            },
          }),
        ),
      )[0]!.unit,
    ).toBe('mg/dL');
    expect(
      records(
        convertFhirResource(
          obs({ valueQuantity: { value: 7, unit: '毫摩尔/升', system: 'urn:local', code: 'MMOL' } }),
        ),
      )[0]!.unit,
    ).toBe('毫摩尔/升');
    expect(
      records(convertFhirResource(obs({ valueQuantity: { value: 5, comparator: '<', unit: 'U/L' } })))[0],
    ).toMatchObject({ valueNum: 5, valueText: '<5', unit: 'U/L' });
  });

  it('valueCodeableConcept / valueString / valueBoolean / valueInteger → valueText', () => {
    const v = (extra: Record<string, unknown>) => records(convertFhirResource(obs(extra)))[0]!;
    expect(
      v({
        valueCodeableConcept: {
          coding: [{ system: 'http://snomed.info/sct', code: '260385009', display: 'Negative' }],
        },
      }).valueText,
    ).toBe('Negative');
    expect(v({ valueString: 'trace' }).valueText).toBe('trace');
    expect(v({ valueBoolean: false }).valueText).toBe('false');
    expect(v({ valueInteger: 3 })).toMatchObject({ valueText: '3', valueNum: 3 });
  });

  it('prefers LOINC/SNOMED/RxNorm codings and keeps the system', () => {
    const r = records(
      convertFhirResource(
        obs({
          code: {
            text: 'Glu',
            coding: [
              { system: 'urn:local', code: 'GLU' },
              { system: 'http://loinc.org', code: '2345-7', display: 'Glucose' },
            ],
          },
        }),
      ),
    )[0]!;
    expect(r).toMatchObject({ codeSystem: 'http://loinc.org', code: '2345-7', display: 'Glucose' });
  });

  it('effectiveDate is the date as written (no time-zone shift); effectiveAt is the instant', () => {
    expect(fhirDateParts('2020-03-04T23:30:00-05:00')).toEqual({
      effectiveDate: '2020-03-04',
      effectiveAt: '2020-03-05T04:30:00.000Z',
    });
    expect(fhirDateParts('2020-03-04T00:30:00+08:00')).toEqual({
      effectiveDate: '2020-03-04',
      effectiveAt: '2020-03-03T16:30:00.000Z',
    });
    expect(fhirDateParts('2020-03-04')).toEqual({ effectiveDate: '2020-03-04' });
    expect(fhirDateParts('2020-03')).toEqual({});
    expect(fhirDateParts('yesterday')).toEqual({});
    expect(fhirDateParts('2020-03-04T08:00:00', '+08:00')).toEqual({
      effectiveDate: '2020-03-04',
      effectiveAt: '2020-03-04T00:00:00.000Z',
    });
    const r = records(
      convertFhirResource(obs({ effectivePeriod: { start: '2021-06-30T23:59:00-10:00' } })),
    )[0]!;
    expect(r.effectiveDate).toBe('2021-06-30');
    const issuedOnly = records(convertFhirResource(obs({ issued: '2021-07-01T10:00:00.000+08:00' })))[0]!;
    expect(issuedOnly.effectiveDate).toBe('2021-07-01');
  });
});

describe('content hash', () => {
  const base = obs({
    meta: { versionId: '1', lastUpdated: '2024-01-01T00:00:00Z', profile: ['p'] },
    valueQuantity: { value: 5, unit: 'mmol/L' },
  });
  const hash = (r: unknown) => records(convertFhirResource(r))[0]!.contentHash;
  it('ignores meta.lastUpdated / versionId and key order, so a re-sent identical resource is unchanged', () => {
    const resent = { ...base, meta: { lastUpdated: '2025-05-05T00:00:00Z', versionId: '7', profile: ['p'] } };
    const reordered = Object.fromEntries(Object.entries(base).reverse());
    expect(hash(resent)).toBe(hash(base));
    expect(hash(reordered)).toBe(hash(base));
  });
  it('changes when the clinical content changes', () => {
    expect(hash({ ...base, valueQuantity: { value: 6, unit: 'mmol/L' } })).not.toBe(hash(base));
    expect(hash({ ...base, meta: { ...(base.meta as object), profile: ['q'] } })).not.toBe(hash(base));
  });
});

describe('patients and references', () => {
  const patient = {
    resourceType: 'Patient',
    id: 'pat-1',
    identifier: [
      {
        system: 'urn:oid:1.2.3',
        type: { coding: [{ system: 'http://terminology.hl7.org/CodeSystem/v2-0203', code: 'MR' }] },
        value: 'MRN-9',
      },
      { system: 'urn:hospital:ip', type: { coding: [{ code: 'VN' }] }, value: 'ZY001' },
      { type: { coding: [{ code: 'NNCHN' }] }, value: '110101199001011234' },
      { system: 'urn:hospital:op', value: 'MZ77' },
    ],
    name: [{ use: 'official', family: 'Wang', given: ['Li'] }],
    birthDate: '1990-01-01',
    gender: 'female',
  };
  it('maps identifiers by type code, and by system through the configurable map', () => {
    const c = convertFhirResource(patient, {
      identifierRules: { systems: { 'urn:hospital:op': 'outpatientId' } },
    });
    expect(c.kind).toBe('patient');
    if (c.kind !== 'patient') return;
    expect(c.patient).toEqual({
      patientKey: 'pat-1',
      identifiers: [
        { type: 'medicalRecordId', system: 'urn:oid:1.2.3', value: 'MRN-9' },
        { type: 'inpatientId', system: 'urn:hospital:ip', value: 'ZY001' },
        { type: 'idCard', value: '110101199001011234' },
        { type: 'outpatientId', system: 'urn:hospital:op', value: 'MZ77' },
      ],
      name: 'Li Wang',
      birthDate: '1990-01-01',
      gender: 'female',
    });
  });

  it('resolves urn:uuid fullUrls and conditional references, even when the Patient comes last', () => {
    const items = [
      { fullUrl: 'urn:uuid:aaa', resource: obs({ id: 'o1', subject: { reference: 'urn:uuid:ppp' } }) },
      { resource: obs({ id: 'o2', subject: { reference: 'Patient?identifier=urn:oid:1.2.3|MRN-9' } }) },
      { resource: obs({ id: 'o3', subject: { identifier: { system: 'urn:hospital:ip', value: 'ZY001' } } }) },
      { resource: obs({ id: 'o4', subject: { reference: 'Patient?identifier=urn:oid:1.2.3|NOBODY' } }) },
      {
        resource: obs({
          id: 'o5',
          subject: { reference: 'http://fhir.example/r4/Patient/pat-1/_history/3' },
        }),
      },
      { fullUrl: 'urn:uuid:ppp', resource: patient },
    ];
    const out = convertFhirResources(items);
    expect(out.records.map((r) => [r.externalId, r.patientKey])).toEqual([
      ['Observation/o5', 'pat-1'],
      ['Observation/o1', 'pat-1'],
      ['Observation/o2', 'pat-1'],
      ['Observation/o3', 'pat-1'],
    ]);
    expect(out.skipped).toEqual([{ resourceType: 'Observation', id: 'o4', reason: 'noPatient' }]);
    expect(out.summary).toMatchObject({
      resources: 6,
      patients: 1,
      converted: 4,
      skippedTotal: 1,
      pending: 0,
    });
  });

  it('streams out records whose patient is named directly, before finish()', () => {
    const batch = new FhirBatchConverter();
    expect(batch.add(obs({ id: 'x' })).records).toHaveLength(1);
    expect(batch.add(obs({ id: 'y', subject: { reference: 'urn:uuid:later' } })).records).toHaveLength(0);
    expect(batch.summary.pending).toBe(1);
    const end = batch.finish();
    expect(end.skipped[0]?.reason).toBe('noPatient');
  });
});

describe('medicationReference', () => {
  const rxnorm = 'http://www.nlm.nih.gov/research/umls/rxnorm';
  const medication = (id: string, code: string, display: string) => ({
    resourceType: 'Medication',
    id,
    code: { coding: [{ system: rxnorm, code, display }] },
  });
  const request = (id: string, reference: string, extra: Record<string, unknown> = {}) => ({
    resourceType: 'MedicationRequest',
    id,
    status: 'active',
    intent: 'order',
    subject,
    medicationReference: { reference, display: 'as the order names it' },
    authoredOn: '2024-05-03',
    ...extra,
  });

  it("takes a contained Medication's code", () => {
    const [r] = records(
      convertFhirResource(
        request('mr1', '#m', {
          contained: [medication('m', '1191', 'aspirin'), { resourceType: 'Medication', id: 'x' }],
        }),
      ),
    );
    expect(r).toMatchObject({ docType: 4, codeSystem: rxnorm, code: '1191', display: 'aspirin' });
  });

  it('takes the code of a Medication elsewhere in the bundle, before or after, by id, full URL or urn:uuid', () => {
    const out = convertFhirResources([
      { fullUrl: 'urn:uuid:m-early', resource: medication('early', '111', 'early drug') },
      { resource: request('a', 'urn:uuid:m-early') },
      { resource: request('b', 'Medication/late') },
      { resource: request('c', 'http://fhir.example/r4/Medication/late/_history/2') },
      { resource: { ...request('d', 'Medication/none') } },
      { resource: { ...request('e', '#missing') } },
      { fullUrl: 'http://fhir.example/r4/Medication/late', resource: medication('late', '222', 'late drug') },
    ]);
    const byId = Object.fromEntries(out.records.map((r) => [r.externalId, [r.code, r.display]]));
    expect(byId).toEqual({
      'MedicationRequest/a': ['111', 'early drug'],
      'MedicationRequest/b': ['222', 'late drug'],
      'MedicationRequest/c': ['222', 'late drug'],
      'MedicationRequest/d': [undefined, 'as the order names it'],
      'MedicationRequest/e': [undefined, 'as the order names it'],
    });
    expect(out.skipped).toEqual([
      { resourceType: 'Medication', id: 'early', reason: 'notClinical' },
      { resourceType: 'Medication', id: 'late', reason: 'notClinical' },
    ]);
    expect(out.summary).toMatchObject({ resources: 7, converted: 5, skippedTotal: 2, pending: 0 });
  });

  it('waits for a Medication not seen yet, and converts right away once it has been seen', () => {
    const batch = new FhirBatchConverter();
    expect(batch.add(request('w', 'Medication/m1')).records).toHaveLength(0);
    expect(batch.summary.pending).toBe(1);
    batch.add(medication('m1', '333', 'third drug'));
    expect(batch.add(request('now', 'Medication/m1')).records[0]).toMatchObject({ code: '333' });
    expect(batch.finish().records[0]).toMatchObject({ externalId: 'MedicationRequest/w', code: '333' });
  });
});

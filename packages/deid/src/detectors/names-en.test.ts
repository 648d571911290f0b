import { describe, expect, it } from 'vitest';
import { detectEnglishNames } from './names-en.js';
import { ctx, texts } from './test-context.js';

describe('English person names', () => {
  it('finds names after labels and titles', () => {
    const spans = detectEnglishNames(ctx('Patient Name: John A. Smith\nSigned by: Mary-Jane O\'Brien\nPhysician: Robert Lee'));
    expect(spans.map((s) => [s.kind, s.text])).toEqual(
      expect.arrayContaining([
        ['personName', 'John A. Smith'],
        ['personName', "Mary-Jane O'Brien"],
        ['doctor', 'Robert Lee'],
      ]),
    );
  });

  it('finds doctors by Dr. and by degree, and people by NLP', () => {
    const spans = detectEnglishNames(ctx('Seen by Dr. Emily Chen. Jennifer Lopez, MD reviewed. Hello, my name is David Johnson and I live in Maine.'));
    expect(spans.map((s) => [s.kind, s.text])).toEqual(
      expect.arrayContaining([['doctor', 'Emily Chen'], ['doctor', 'Jennifer Lopez'], ['personName', 'David Johnson']]),
    );
    // a report's signatures: specialist labels, Signed:, a degree after a comma without a space, O'Brien
    const sig = detectEnglishNames(ctx("Pathologist: Anna Berg\nSigned: Thomas Reed\nMichael Hall,MD\nKaren O'Brien, MD"));
    expect(texts(sig)).toEqual(expect.arrayContaining(['Anna Berg', 'Thomas Reed', 'Michael Hall', "Karen O'Brien"]));
  });

  it('reads an honorific after a label as a label, and ends a name at a bracket', () => {
    const spans = detectEnglishNames(ctx('Attending Physician: Dr. Mark Wong\nOrdering Physician: Dr Ann Lee'));
    expect(texts(spans)).toEqual(expect.arrayContaining(['Mark Wong', 'Ann Lee']));
    expect(texts(spans)).not.toContain('Dr');
    const contact = detectEnglishNames(ctx("Emergency Contact: Michael R. O'Brien(daughter) +1 617 690 8843"));
    expect(texts(contact).every((t) => !t.includes('('))).toBe(true);
    // a tab is the wide gap before the next field on the same line
    const fields = detectEnglishNames(ctx('Prescriber: Dr. Robert Miller\tDEA: PW7912242\nPharmacist: James McCarthy\tPharmacy phone: 503-992-8505'));
    expect(texts(fields)).toEqual(expect.arrayContaining(['Robert Miller', 'James McCarthy']));
    expect(texts(fields).some((t) => /DEA|Pharmacy/.test(t))).toBe(false);
  });

  it('leaves drugs, tests and diagnoses alone', () => {
    for (const t of [
      'Metformin 500 mg PO bid; Lisinopril 10 mg daily; Aspirin 81 mg.',
      'Hemoglobin 13.1 g/dL, WBC 14.2 x10^9/L, PT 12.5 s, INR 1.1.',
      'Diagnosis: Parkinson disease, Hodgkin lymphoma, Graves disease (ICD-10 E05.0).',
      'Patient Information: see below. Patient was admitted with chest pain.',
      'Drug Name: Warfarin',
      'Signed Consent Form on file.',
    ])
      expect(detectEnglishNames(ctx(t)), t).toEqual([]);
  });
});

/**
 * Converting many FHIR resources at once, in any order: a transaction Bundle (urn:uuid references to the Patient
 * entry), Bulk Data NDJSON files (Patient.ndjson may come after Observation.ndjson) or a REST search.
 *
 * References that name the patient directly ('Patient/<id>') are converted as they come; references that need the
 * Patient itself (a urn:uuid fullUrl not seen yet, a conditional 'Patient?identifier=system|value', an
 * identifier-only reference) wait until the patient is seen or the batch is finished, and are then converted or
 * skipped as 'noPatient'. A medication resource whose medicationReference names a Medication not seen yet (not a
 * contained one) waits the same way, so that its record carries the Medication's code wherever in the batch the
 * Medication comes. Every resource added is accounted for in the summary:
 * resources = patients + converted + skipped (by reason).
 */
import type { CodeableConcept, Reference } from '@medplum/fhirtypes';
import type { ExtractedPatient, ExtractedRecord, SkippedItem, SkipReason } from '../source-record';
import {
  convertFhirResource,
  defaultPatientKey,
  patientReferenceOf,
  type FhirConvertOptions,
} from './fhir-to-records';

/** What a step of the batch produced. */
export interface FhirBatchOutput {
  patients: ExtractedPatient[];
  records: ExtractedRecord[];
  skipped: SkippedItem[];
}

/** Counts over everything added so far. */
export interface FhirBatchSummary {
  /** resources added */
  resources: number;
  /** Patient resources turned into source patients */
  patients: number;
  /** clinical resources turned into one or more records */
  converted: number;
  /** records produced (a blood-pressure panel gives two) */
  records: number;
  /** resources skipped, by reason */
  skipped: Partial<Record<SkipReason, number>>;
  skippedTotal: number;
  /** resources still waiting for their patient or their Medication (0 after finish()) */
  pending: number;
  /** resources added, by resourceType */
  byType: Record<string, number>;
}

/** Where a resource came from, as the stream readers report it. */
export interface FhirBatchItemContext {
  fullUrl?: string;
  raw?: string;
}

interface Pending {
  resource: Record<string, unknown>;
  context: FhirBatchItemContext;
}

const MEDICATION_USERS: ReadonlySet<string> = new Set([
  'MedicationRequest',
  'MedicationStatement',
  'MedicationAdministration',
  'MedicationDispense',
]);
/** At most this many resources wait for their Medication (memory bound); later ones keep the reference's display. */
export const MAX_WAITING_FOR_MEDICATION = 20_000;
/** 'Medication/<id>' of a literal reference (relative, absolute or versioned), else undefined. */
export function medicationKey(reference: string): string | undefined {
  const m = /(?:^|\/)Medication\/([A-Za-z0-9\-.]{1,64})(?:\/_history\/[^/]*)?$/.exec(reference);
  return m ? `Medication/${m[1]}` : undefined;
}

/** Converts resources in any order into patients, records and skips, with every resource accounted for. */
export class FhirBatchConverter {
  private readonly patientKeys = new Set<string>();
  private readonly byFullUrl = new Map<string, string>();
  private readonly byIdentifier = new Map<string, string>();
  /** Medication codes by 'Medication/<id>' and by fullUrl */
  private readonly medications = new Map<string, CodeableConcept>();
  private waitingForMedication = 0;
  private readonly pending: Pending[] = [];
  private readonly counts: FhirBatchSummary = {
    resources: 0,
    patients: 0,
    converted: 0,
    records: 0,
    skipped: {},
    skippedTotal: 0,
    pending: 0,
    byType: {},
  };

  /** @param options - identifier rules and default time-zone offset (see FhirConvertOptions) */
  constructor(private readonly options: FhirConvertOptions = {}) {}

  /**
   * Adds one resource; returns what could be converted right away (the resource itself, unless it waits for its
   * patient, plus any waiting resources this Patient resolves).
   */
  add(resource: unknown, context: FhirBatchItemContext = {}): FhirBatchOutput {
    const out: FhirBatchOutput = { patients: [], records: [], skipped: [] };
    this.counts.resources++;
    const type =
      typeof resource === 'object' &&
      resource !== null &&
      typeof (resource as { resourceType?: unknown }).resourceType === 'string'
        ? (resource as { resourceType: string }).resourceType
        : 'unknown';
    this.counts.byType[type] = (this.counts.byType[type] ?? 0) + 1;
    const ref =
      type !== 'Patient' && typeof resource === 'object' && resource !== null
        ? patientReferenceOf(resource as Record<string, unknown>)
        : undefined;
    if (type === 'Medication') this.indexMedication(resource as Record<string, unknown>, context.fullUrl);
    const forPatient = ref !== undefined && this.resolve(ref) === undefined && this.waitsForPatient(ref);
    const forMedication =
      !forPatient &&
      MEDICATION_USERS.has(type) &&
      this.waitingForMedication < MAX_WAITING_FOR_MEDICATION &&
      this.waitsForMedication(resource as Record<string, unknown>);
    if (forMedication) this.waitingForMedication++;
    if (forPatient || forMedication) {
      this.pending.push({ resource: resource as Record<string, unknown>, context });
      this.counts.pending++;
      return out;
    }
    this.convert(resource, context, out);
    return out;
  }

  /** Converts or skips ('noPatient') whatever still waits for its patient. Call once, after the last add(). */
  finish(): FhirBatchOutput {
    const out: FhirBatchOutput = { patients: [], records: [], skipped: [] };
    const waiting = this.pending.splice(0);
    this.counts.pending = 0;
    for (const p of waiting) this.convert(p.resource, p.context, out);
    return out;
  }

  /**
   * The Medications ('Medication/<id>') that these resources' medicationReference names and that have not been seen
   * (neither contained nor added), so a caller reading a FHIR server can fetch them before adding the resources.
   */
  unknownMedications(resources: readonly unknown[]): string[] {
    const out = new Set<string>();
    for (const r of resources) {
      if (typeof r !== 'object' || r === null) continue;
      const res = r as Record<string, unknown>;
      if (!MEDICATION_USERS.has(res.resourceType as string) || !this.waitsForMedication(res)) continue;
      const key = medicationKey((res.medicationReference as Reference).reference!);
      if (key) out.add(key);
    }
    return [...out];
  }

  /** Counts so far (a copy). */
  get summary(): FhirBatchSummary {
    return { ...this.counts, skipped: { ...this.counts.skipped }, byType: { ...this.counts.byType } };
  }

  private convert(resource: unknown, context: FhirBatchItemContext, out: FhirBatchOutput): void {
    const result = convertFhirResource(resource, this.options, {
      ...context,
      resolvePatient: (ref) => this.resolve(ref),
      resolveMedication: (ref) => this.medication(ref),
    });
    switch (result.kind) {
      case 'patient':
        this.counts.patients++;
        this.indexPatient(result.patient, context.fullUrl);
        out.patients.push(result.patient);
        break;
      case 'records':
        this.counts.converted++;
        this.counts.records += result.records.length;
        for (const r of result.records) out.records.push(r);
        break;
      case 'skipped':
        this.counts.skippedTotal++;
        this.counts.skipped[result.skipped.reason] = (this.counts.skipped[result.skipped.reason] ?? 0) + 1;
        out.skipped.push(result.skipped);
        break;
    }
  }

  private indexPatient(p: ExtractedPatient, fullUrl: string | undefined): void {
    this.patientKeys.add(p.patientKey);
    if (fullUrl) this.byFullUrl.set(fullUrl, p.patientKey);
    for (const i of p.identifiers) {
      if (i.system) this.byIdentifier.set(`${i.system}|${i.value}`, p.patientKey);
      if (!this.byIdentifier.has(`|${i.value}`)) this.byIdentifier.set(`|${i.value}`, p.patientKey);
    }
  }

  /** The patientKey of a reference, from what has been seen; undefined when unknown yet. */
  private resolve(ref: Reference): string | undefined {
    const r = ref.reference;
    if (typeof r === 'string') {
      if (r.startsWith('urn:')) {
        const key = this.byFullUrl.get(r);
        if (key) return key;
        const uuid = r.startsWith('urn:uuid:') ? r.slice(9) : undefined;
        return uuid && this.patientKeys.has(uuid) ? uuid : undefined;
      }
      const q = r.indexOf('?');
      if (q >= 0) {
        const params = new URLSearchParams(r.slice(q + 1));
        const ident = params.get('identifier');
        if (!ident) return undefined;
        const bar = ident.indexOf('|');
        return bar >= 0 ? this.byIdentifier.get(ident) : this.byIdentifier.get(`|${ident}`);
      }
      return defaultPatientKey(ref);
    }
    const ident = ref.identifier;
    if (ident?.value)
      return (
        this.byIdentifier.get(`${ident.system ?? ''}|${ident.value}`) ??
        this.byIdentifier.get(`|${ident.value}`)
      );
    return undefined;
  }

  private indexMedication(med: Record<string, unknown>, fullUrl: string | undefined): void {
    const code = med.code;
    if (typeof code !== 'object' || code === null || Array.isArray(code)) return;
    if (typeof med.id === 'string' && med.id) this.medications.set(`Medication/${med.id}`, code);
    if (fullUrl) this.medications.set(fullUrl, code);
  }

  /** The code of a referenced Medication seen so far. */
  private medication(ref: Reference): CodeableConcept | undefined {
    const r = ref.reference;
    if (typeof r !== 'string') return undefined;
    const byUrl = this.medications.get(r);
    if (byUrl) return byUrl;
    const key = medicationKey(r);
    return key ? this.medications.get(key) : undefined;
  }

  /** Whether a resource's medicationReference names a Medication outside it that has not been seen yet. */
  private waitsForMedication(resource: Record<string, unknown>): boolean {
    if (resource.medicationCodeableConcept !== undefined) return false;
    const ref = resource.medicationReference as Reference | undefined;
    const r = ref?.reference;
    if (typeof r !== 'string' || r.startsWith('#')) return false;
    return this.medication(ref!) === undefined;
  }

  /** Whether a reference can only be resolved once the Patient itself is seen. */
  private waitsForPatient(ref: Reference): boolean {
    const r = ref.reference;
    if (typeof r !== 'string') return Boolean(ref.identifier?.value);
    return r.startsWith('urn:') || r.includes('?');
  }
}

/**
 * Converts a whole set of resources (or bundle entries) in one call.
 * @param items - resources, or `{ resource, fullUrl }` bundle entries
 */
export function convertFhirResources(
  items: Iterable<unknown>,
  options: FhirConvertOptions = {},
): FhirBatchOutput & { summary: FhirBatchSummary } {
  const batch = new FhirBatchConverter(options);
  const all: FhirBatchOutput = { patients: [], records: [], skipped: [] };
  const take = (o: FhirBatchOutput): void => {
    for (const p of o.patients) all.patients.push(p);
    for (const r of o.records) all.records.push(r);
    for (const s of o.skipped) all.skipped.push(s);
  };
  for (const item of items) {
    const entry = item as { resource?: unknown; fullUrl?: unknown; resourceType?: unknown };
    if (entry && typeof entry === 'object' && entry.resourceType === undefined && 'resource' in entry) {
      take(batch.add(entry.resource, typeof entry.fullUrl === 'string' ? { fullUrl: entry.fullUrl } : {}));
    } else take(batch.add(item));
  }
  take(batch.finish());
  return { ...all, summary: batch.summary };
}

/** Converts a parsed Bundle (its entry[].resource, with fullUrl). */
export function convertFhirBundle(
  bundle: unknown,
  options: FhirConvertOptions = {},
): FhirBatchOutput & { summary: FhirBatchSummary } {
  const entries =
    typeof bundle === 'object' && bundle !== null && Array.isArray((bundle as { entry?: unknown }).entry)
      ? (bundle as { entry: unknown[] }).entry
      : [];
  return convertFhirResources(entries, options);
}

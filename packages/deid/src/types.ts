/** What a detected span is. */
export type DeidKind =
  | 'idCard'
  | 'phone'
  | 'landline'
  | 'medicalRecordNo'
  | 'inpatientNo'
  | 'outpatientNo'
  | 'subjectIdentifier'
  | 'personName'
  | 'address'
  | 'email'
  | 'birthDate'
  | 'date'
  | 'hospital'
  | 'doctor'
  | 'keyword';

/** A stretch of the input to hide: [start, end) in UTF-16 code units of the input string. */
export interface DeidSpan {
  start: number;
  end: number;
  /** the input's characters in [start, end) (not normalised) */
  text: string;
  kind: DeidKind;
  /** short machine key saying why, e.g. 'idCard.checksum', 'name.label', 'keyword.project' */
  reason: string;
}

/** The subject's own identifiers, known from the subject record; each is found wherever it appears. */
export interface SubjectIdentifiers {
  name?: string;
  medicalRecordNo?: string;
  inpatientNo?: string;
  outpatientNo?: string;
  idCard?: string;
  phone?: string;
}

/** What else to hide, per project. */
export interface DeidPolicy {
  maskBirthDates: boolean;
  /** clinical dates (visit, sampling, admission); off by default because they carry the study's timeline */
  maskOtherDates: boolean;
  maskHospitalNames: boolean;
  maskDoctorNames: boolean;
}

export interface DeidOptions {
  subject?: SubjectIdentifiers;
  /** the project's desensitization keywords: exact, case-insensitive for Latin letters */
  keywords?: readonly string[];
  policy?: Partial<DeidPolicy>;
}

export const DEFAULT_POLICY: Readonly<DeidPolicy> = {
  maskBirthDates: true,
  maskOtherDates: false,
  maskHospitalNames: true,
  maskDoctorNames: true,
};

/** A word from the segmenter with its offset in the text. */
export interface Token {
  word: string;
  tag: string;
  start: number;
  end: number;
}

/** What every detector reads: the normalised text (same length as the input) and lazily segmented words. */
export interface DetectorContext {
  /** input with full-width ASCII folded to half-width and a zero inside a Latin word to O; offsets are the input's */
  text: string;
  /** jieba words with part-of-speech tags, computed once on first use */
  tokens: () => readonly Token[];
}

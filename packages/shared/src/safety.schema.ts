/**
 * Safety review (issue 13 items 3, 4; spec §1 AE/CM/PR/MH/HISS judgement, §2 /project/clinical (/2 to judge, /3
 * judged), /project/ae/6, /cm/9, /pr/13, /mh/14, /hiss/15, /project/medication(+Detail); §7 selection/list,
 * selection/source/list and link).
 *
 * Candidates are generated from a subject's source records (and flagged eCRF values): lab results outside their
 * reference range (graded with CTCAE v5.0) and diagnoses after consent → AE; medications → CM; procedures after
 * consent → PR, before → HISS; diagnoses before consent → MH. A reviewer judges each yes or no with the fields a
 * safety reviewer expects; a "yes" is written into the study's log form of its category through the eCRF's normal
 * save path.
 */
import { z } from 'zod';
import { idSchema, intSchema, pageRequest, pageResult } from './common.schema';

export const SAFETY_CATEGORIES = ['ae', 'cm', 'pr', 'mh', 'hiss'] as const;
export type SafetyCategory = (typeof SAFETY_CATEGORIES)[number];
/** the page number of each category's route (/project/ae/6, /cm/9, /pr/13, /mh/14, /hiss/15) */
export const SAFETY_CATEGORY_TYPE: Record<SafetyCategory, number> = { ae: 6, cm: 9, pr: 13, mh: 14, hiss: 15 };
/** the dictionary a category's term is coded to */
export const SAFETY_DICTIONARY: Record<SafetyCategory, 'diagnosis' | 'drug' | 'surgery'> = {
  ae: 'diagnosis',
  cm: 'drug',
  pr: 'surgery',
  mh: 'diagnosis',
  hiss: 'surgery',
};

/** where a candidate came from */
export const CANDIDATE_ORIGINS = ['lab', 'diagnosis', 'medication', 'procedure', 'ecrf'] as const;
export type CandidateOrigin = (typeof CANDIDATE_ORIGINS)[number];

/** 1 to judge, 2 judged yes, 3 judged no */
export const CANDIDATE_STATUS = { toJudge: 1, yes: 2, no: 3 } as const;

/** days before consent whose medications are still concomitant (taken at or after consent, or within this window) */
export const CM_LOOKBACK_DAYS = 30;

// CDISC controlled terminology (submission values): the option of a select/radio item is chosen by its mapping
export const AE_SERIOUS_CRITERIA = ['AESDTH', 'AESLIFE', 'AESHOSP', 'AESDISAB', 'AESCONG', 'AESMIE'] as const;
export const AE_RELATEDNESS = ['NOT RELATED', 'UNLIKELY RELATED', 'POSSIBLY RELATED', 'PROBABLY RELATED', 'RELATED'] as const;
export const AE_ACTIONS = ['DOSE NOT CHANGED', 'DOSE REDUCED', 'DRUG INTERRUPTED', 'DRUG WITHDRAWN', 'DOSE INCREASED', 'NOT APPLICABLE', 'UNKNOWN'] as const;
export const AE_OUTCOMES = [
  'RECOVERED/RESOLVED',
  'RECOVERING/RESOLVING',
  'NOT RECOVERED/NOT RESOLVED',
  'RECOVERED/RESOLVED WITH SEQUELAE',
  'FATAL',
  'UNKNOWN',
] as const;
export const CM_ROUTES = ['ORAL', 'INTRAVENOUS', 'INTRAMUSCULAR', 'SUBCUTANEOUS', 'TOPICAL', 'INHALATION', 'RECTAL', 'TRANSDERMAL', 'NASAL', 'OPHTHALMIC', 'OTHER'] as const;
export const CM_FREQUENCIES = ['QD', 'BID', 'TID', 'QID', 'Q4H', 'Q6H', 'Q8H', 'Q12H', 'QW', 'QOD', 'PRN', 'ONCE', 'CONTINUOUS', 'OTHER'] as const;

const blank = (v: unknown) => (v === '' || v === null ? undefined : v);
/** YYYY, YYYY-MM or YYYY-MM-DD (a start known to the month or year only) */
const partialDate = z
  .string()
  .trim()
  .regex(/^\d{4}(-(0[1-9]|1[0-2])(-(0[1-9]|[12]\d|3[01]))?)?$/, { message: 'validation.partialDate' });
const optDate = z.preprocess(blank, partialDate.optional());
const optText = (max: number) => z.preprocess(blank, z.string().trim().max(max).optional());
export const codedTerm = z.object({ code: z.string().trim().min(1).max(40), term: z.string().trim().min(1).max(300) });
export type CodedTerm = z.infer<typeof codedTerm>;

export const aeFields = z.object({
  /** the reported (verbatim) term */
  term: z.string().trim().min(1).max(300),
  coded: codedTerm.optional(),
  onset: partialDate,
  end: optDate,
  ongoing: z.boolean().default(false),
  /** CTCAE grade 1–5 */
  grade: intSchema(1, 5),
  serious: z.boolean(),
  criteria: z.array(z.enum(AE_SERIOUS_CRITERIA)).max(6).default([]),
  relatedness: z.enum(AE_RELATEDNESS),
  action: z.enum(AE_ACTIONS),
  outcome: z.enum(AE_OUTCOMES),
});
export const cmFields = z.object({
  term: z.string().trim().min(1).max(300),
  coded: codedTerm.optional(),
  dose: z.preprocess((v) => (v === '' || v === null ? undefined : typeof v === 'string' ? Number(v) : v), z.number().positive().max(1e7).optional()),
  unit: optText(40),
  route: z.preprocess(blank, z.enum(CM_ROUTES).optional()),
  frequency: z.preprocess(blank, z.enum(CM_FREQUENCIES).optional()),
  indication: optText(300),
  start: optDate,
  end: optDate,
  ongoing: z.boolean().default(false),
});
export const prFields = z.object({
  term: z.string().trim().min(1).max(300),
  coded: codedTerm.optional(),
  date: optDate,
});
export const mhFields = z.object({
  term: z.string().trim().min(1).max(300),
  coded: codedTerm.optional(),
  onset: optDate,
  ongoing: z.boolean().default(false),
});
export const SAFETY_FIELDS = { ae: aeFields, cm: cmFields, pr: prFields, mh: mhFields, hiss: prFields } as const;
export type AeFields = z.infer<typeof aeFields>;
export type CmFields = z.infer<typeof cmFields>;
export type PrFields = z.infer<typeof prFields>;
export type MhFields = z.infer<typeof mhFields>;
export type SafetyFields = AeFields | CmFields | PrFields | MhFields;

/** What the generator found (shown to the reviewer, and the defaults of the judgement's fields). */
export const candidateDetail = z.object({
  /** lab: the worst value of the episode, its unit, the range used and where that came from */
  value: z.number().nullable().optional(),
  unit: z.string().nullable().optional(),
  low: z.number().nullable().optional(),
  high: z.number().nullable().optional(),
  rangeSource: z.enum(['record', 'fallback', 'none']).nullable().optional(),
  direction: z.enum(['high', 'low']).nullable().optional(),
  /** CTCAE v5.0 grade of the worst value (null: out of range, not gradable) */
  grade: z.number().int().nullable().optional(),
  ctcaeTerm: z.object({ en: z.string(), zh: z.string() }).nullable().optional(),
  /** how many results the episode holds */
  results: z.number().int().optional(),
  /** medication: dose, unit, route, frequency, indication read from the order */
  dose: z.number().nullable().optional(),
  doseUnit: z.string().nullable().optional(),
  route: z.string().nullable().optional(),
  frequency: z.string().nullable().optional(),
  indication: z.string().nullable().optional(),
  /** eCRF origin: the form and item whose value was flagged */
  formName: z.string().nullable().optional(),
  itemLabel: z.string().nullable().optional(),
});
export type CandidateDetail = z.infer<typeof candidateDetail>;

export const candidateView = z.object({
  id: z.number().int(),
  ptsId: z.number().int(),
  ptsNo: z.string(),
  siteId: z.number().int(),
  siteName: z.string(),
  designVersionId: z.number().int().nullable(),
  category: z.enum(SAFETY_CATEGORIES),
  origin: z.enum(CANDIDATE_ORIGINS),
  term: z.string(),
  code: z.string().nullable(),
  codeSystem: z.string().nullable(),
  /** the dictionary term the generator matched, if any */
  suggested: codedTerm.nullable(),
  startDate: z.string().nullable(),
  endDate: z.string().nullable(),
  detail: candidateDetail,
  /** the source records it links to */
  sourceCount: z.number().int(),
  status: z.number().int(),
  version: z.number().int(),
  /** the source changed after the judgement (a new result, a corrected value): judge again */
  sourceChanged: z.boolean(),
  fields: z.record(z.string(), z.unknown()).nullable(),
  judgedBy: z.string().nullable(),
  judgedAt: z.string().nullable(),
  reason: z.string().nullable(),
  /** where a "yes" was written: the log form instance */
  written: z
    .object({ instanceId: z.number().int(), visitId: z.number().int(), unscheduledId: z.number().int(), formId: z.number().int(), repeatNo: z.number().int(), visitName: z.string(), formName: z.string() })
    .nullable(),
  /** why a "yes" was not written (the study has no log form of the category) */
  notWritten: z.string().nullable(),
  createTime: z.string(),
});
export type CandidateView = z.infer<typeof candidateView>;

/** POST /selection/list: candidates in the caller's scope. */
export const candidateListRequest = pageRequest.extend({
  /** 'toJudge' (/project/clinical/2), 'judged' (/3), or a status */
  state: z.enum(['toJudge', 'judged', 'yes', 'no', 'all']).default('toJudge'),
  category: z.preprocess(blank, z.enum(SAFETY_CATEGORIES).optional()),
  origin: z.preprocess(blank, z.enum(CANDIDATE_ORIGINS).optional()),
  siteId: z.preprocess(blank, idSchema.optional()),
  ptsId: z.preprocess(blank, idSchema.optional()),
  ptsNo: z.preprocess(blank, z.string().trim().max(50).optional()),
  keyword: z.preprocess(blank, z.string().trim().max(100).optional()),
  /** only AE of this grade or worse */
  minGrade: z.preprocess(blank, intSchema(1, 5).optional()),
  sourceChanged: z.preprocess((v) => (v === 'true' ? true : v === 'false' || v === '' || v === null ? undefined : v), z.boolean().optional()),
  sortField: z.enum(['startDate', 'ptsNo', 'term', 'grade', 'judgedAt', 'createTime']).default('startDate'),
  sortOrder: z.enum(['asc', 'desc']).default('desc'),
});
export const candidatePage = pageResult(candidateView);
export type CandidatePage = z.infer<typeof candidatePage>;

/** POST /selection/count: to judge per category and judged (the tabs). */
export const candidateCounts = z.object({
  toJudge: z.record(z.enum(SAFETY_CATEGORIES), z.number().int()),
  judged: z.number().int(),
  sourceChanged: z.number().int(),
});

/** POST /selection/source/list: the source records a candidate links to. */
export const candidateSourceRequest = z.object({ id: idSchema });
export const candidateSource = z.object({
  recordId: z.number().int(),
  version: z.number().int(),
  docType: z.number().int(),
  resourceType: z.string(),
  code: z.string().nullable(),
  codeSystem: z.string().nullable(),
  display: z.string().nullable(),
  valueNum: z.number().nullable(),
  valueText: z.string().nullable(),
  unit: z.string().nullable(),
  effectiveDate: z.string().nullable(),
  /** lab: the range and the CTCAE grade of this result */
  low: z.number().nullable(),
  high: z.number().nullable(),
  /** the unit of low and high (the analyte's canonical unit, which may not be the record's) */
  rangeUnit: z.string().nullable(),
  grade: z.number().int().nullable(),
  outOfRange: z.boolean().nullable(),
  /** a result read from a source document: the file and region (opens side by side) */
  sourceFileId: z.number().int().nullable(),
  region: z.object({ page: z.number(), x: z.number(), y: z.number(), width: z.number(), height: z.number() }).nullable(),
  /** 'generated' by the generator, 'linked' by a reviewer */
  link: z.enum(['generated', 'linked']),
});
export type CandidateSource = z.infer<typeof candidateSource>;

/** POST /selection/link: a reviewer links another source record of the same subject to a candidate (or unlinks one). */
export const candidateLinkRequest = z.object({
  id: idSchema,
  recordId: idSchema,
  unlink: z.boolean().default(false),
});

/** POST /selection/judge: yes with the category's fields, or no; at the version the reviewer saw. */
export const judgeRequest = z.object({
  id: idSchema,
  version: intSchema(1),
  decision: z.enum(['yes', 'no']),
  fields: z.record(z.string(), z.unknown()).optional(),
  /** required when a judgement is changed */
  reason: z.preprocess(blank, z.string().trim().max(500).optional()),
});

/** POST /selection/generate: (re)generate the candidates of one subject, or of every subject in the caller's scope. */
export const generateRequest = z.object({ ptsId: z.preprocess(blank, idSchema.optional()) });
export const generateResult = z.object({
  subjects: z.number().int(),
  created: z.number().int(),
  updated: z.number().int(),
  removed: z.number().int(),
  sourceChanged: z.number().int(),
  /** more subjects than one request generates: a job does it; poll GET /selection/generate/status?id=progressId */
  queued: z.boolean().optional(),
  progressId: z.number().int().nullable().optional(),
});
export type GenerateResult = z.infer<typeof generateResult>;

/** GET /selection/generate/status: a queued generation's progress. */
export const generateStatus = z.object({
  status: z.enum(['processing', 'success', 'error']),
  done: z.number().int(),
  total: z.number().int(),
});
export type GenerateStatus = z.infer<typeof generateStatus>;

/** GET /selection/history: every judgement of a candidate. */
export const judgementHistoryRow = z.object({
  decision: z.enum(['yes', 'no']),
  fields: z.record(z.string(), z.unknown()).nullable(),
  reason: z.string().nullable(),
  userName: z.string().nullable(),
  createTime: z.string(),
});

/** POST /selection/medication/subjects (/project/medication): each subject's medications, to judge and judged. */
export const medicationSubjectsRequest = pageRequest.extend({
  siteId: z.preprocess(blank, idSchema.optional()),
  ptsNo: z.preprocess(blank, z.string().trim().max(50).optional()),
  /** a drug name or code the subject takes */
  keyword: z.preprocess(blank, z.string().trim().max(100).optional()),
  sortField: z.enum(['ptsNo', 'medications', 'lastStart']).default('ptsNo'),
  sortOrder: z.enum(['asc', 'desc']).default('asc'),
});
export const medicationSubjectRow = z.object({
  ptsId: z.number().int(),
  ptsNo: z.string(),
  siteName: z.string(),
  designVersionId: z.number().int().nullable(),
  /** medications judged yes, to judge, judged no */
  yes: z.number().int(),
  toJudge: z.number().int(),
  no: z.number().int(),
  /** the adverse events judged yes (the detail shows them beside the medications) */
  events: z.number().int(),
  /** the latest start among its medications */
  lastStart: z.string().nullable(),
  /** up to five drug names (judged yes first) */
  drugs: z.array(z.string()),
});
export type MedicationSubjectRow = z.infer<typeof medicationSubjectRow>;
export const medicationSubjectsPage = pageResult(medicationSubjectRow);

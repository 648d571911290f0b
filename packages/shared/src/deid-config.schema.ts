/**
 * Desensitization configuration (issue 12, spec §2 /project/ocrProConfig, §3 "desensitization keywords"): per project
 * and environment, the project's own words that automatic de-identification hides in source documents, the policy of
 * which optional identifiers it hides (packages/deid DeidPolicy), and a try-out call that shows what would be hidden
 * in a pasted text with this configuration.
 */
import { z } from 'zod';
import { idSchema, intSchema, pageRequest, pageResult } from './common.schema';

/** A keyword's longest length (characters, after trimming). */
export const DEID_KEYWORD_MAX = 100;
/** A note's longest length. */
export const DEID_NOTE_MAX = 200;
/** Keywords one project may hold per environment: every OCR'd page is matched against all of them. */
export const DEID_KEYWORDS_MAX = 2000;
/** The longest text the try-out call reads. */
export const DEID_TEST_TEXT_MAX = 5000;
/** The longest import text: a full list of keywords, one per line (CRLF), with room for blank lines. */
export const DEID_IMPORT_TEXT_MAX = DEID_KEYWORDS_MAX * (DEID_KEYWORD_MAX + 2) + 10_000;

/** The policy switches, in display order (packages/deid DeidPolicy: the server checks both lists agree). */
export const DEID_POLICY_KEYS = [
  'maskBirthDates',
  'maskOtherDates',
  'maskHospitalNames',
  'maskDoctorNames',
] as const;
export type DeidPolicyKey = (typeof DEID_POLICY_KEYS)[number];
export type DeidPolicyFlags = Record<DeidPolicyKey, boolean>;

/** What a project without a saved policy gets (packages/deid DEFAULT_POLICY). */
export const DEFAULT_DEID_POLICY: Readonly<DeidPolicyFlags> = {
  maskBirthDates: true,
  // clinical dates carry the study's timeline: shown unless the project decides otherwise
  maskOtherDates: false,
  maskHospitalNames: true,
  maskDoctorNames: true,
};

/** What a hidden span is (packages/deid DeidKind). */
export const DEID_SPAN_KINDS = [
  'idCard',
  'phone',
  'landline',
  'medicalRecordNo',
  'inpatientNo',
  'outpatientNo',
  'subjectIdentifier',
  'personName',
  'address',
  'email',
  'birthDate',
  'date',
  'hospital',
  'doctor',
  'keyword',
] as const;
export type DeidSpanKind = (typeof DEID_SPAN_KINDS)[number];

/** Characters a keyword must not hold: line breaks, tabs and other control characters (it is matched as written). */
// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u001f\u007f]/;

export type KeywordProblem = 'tooLong' | 'control';

/** What is wrong with a trimmed, non-empty keyword, or null when it can be saved. */
export function keywordProblem(keyword: string): KeywordProblem | null {
  if (CONTROL.test(keyword)) return 'control';
  if (keyword.length > DEID_KEYWORD_MAX) return 'tooLong';
  return null;
}

/** A keyword as add takes it: trimmed, 1..100 characters, no control characters (NUL included). */
export const deidKeyword = z
  .string()
  .trim()
  .min(1)
  .max(DEID_KEYWORD_MAX)
  .refine((s) => !CONTROL.test(s), { error: 'validation.deidKeywordControl' });

const optionalText = (max: number) =>
  z.preprocess((v) => (v === '' || v === null ? undefined : v), z.string().trim().max(max).optional());

/** POST /project/desensitization/keyword/list: a page of the project's keywords, filtered by text (contains, any case). */
export const deidKeywordListRequest = pageRequest.extend({ keyword: optionalText(DEID_KEYWORD_MAX) });

export const deidKeywordRow = z.object({
  id: z.number().int(),
  keyword: z.string(),
  note: z.string().nullable(),
  createdBy: z.string().nullable(),
  createTime: z.string(),
});
export type DeidKeywordRow = z.infer<typeof deidKeywordRow>;

/** A page of keywords; `total` counts all of the project's keywords (filter or not), `max` is DEID_KEYWORDS_MAX. */
export const deidKeywordPage = pageResult(deidKeywordRow).extend({
  total: z.number().int(),
  max: z.number().int(),
});
export type DeidKeywordPage = z.infer<typeof deidKeywordPage>;

/** POST /project/desensitization/keyword/add: one keyword; the same text in any letter case is a DUPLICATE. */
export const deidKeywordAddRequest = z.object({ keyword: deidKeyword, note: optionalText(DEID_NOTE_MAX) });

/** POST /project/desensitization/keyword/delete */
export const deidKeywordDeleteRequest = z.object({ id: idSchema });

/**
 * POST /project/desensitization/keyword/import: many keywords, one per line. All or nothing: a line that is not a
 * keyword (parseKeywordLines) refuses the whole import naming its line; a keyword the project already has, or that an
 * earlier line repeats, is skipped and counted.
 */
export const deidKeywordImportRequest = z.object({ text: z.string().min(1).max(DEID_IMPORT_TEXT_MAX) });

export const deidKeywordImportResult = z.object({
  /** keywords added */
  added: z.number().int(),
  /** lines skipped: the project already had the keyword, or an earlier line named it */
  skipped: z.number().int(),
  /** the project's keywords after the import */
  total: z.number().int(),
});
export type DeidKeywordImportResult = z.infer<typeof deidKeywordImportResult>;

/** A line of an import text that is not a keyword (1-based line number). */
export interface KeywordLineProblem {
  line: number;
  problem: KeywordProblem;
}

/**
 * Reads an import text: one keyword per line (LF or CRLF), each trimmed; blank lines are ignored. Keywords are kept in
 * order, the first of several lines that name the same keyword (in any letter case) wins and the others count as
 * repeated. The web checks a pasted text with it before sending; the server reads the text with it again.
 */
export function parseKeywordLines(text: string): {
  keywords: string[];
  repeated: number;
  problems: KeywordLineProblem[];
} {
  const keywords: string[] = [];
  const seen = new Set<string>();
  const problems: KeywordLineProblem[] = [];
  let repeated = 0;
  text.split(/\r?\n|\r/).forEach((raw, i) => {
    const k = raw.trim();
    if (!k) return;
    const problem = keywordProblem(k);
    if (problem) {
      problems.push({ line: i + 1, problem });
      return;
    }
    const key = k.toLowerCase();
    if (seen.has(key)) repeated++;
    else {
      seen.add(key);
      keywords.push(k);
    }
  });
  return { keywords, repeated, problems };
}

const flag = z.preprocess(
  (v) => (v === 'true' || v === '1' || v === 1 ? true : v === 'false' || v === '0' || v === 0 ? false : v),
  z.boolean(),
);

/** GET /project/desensitization/policy: the project's policy; version 0 = never saved (the defaults apply). */
export const deidPolicyView = z.object({
  maskBirthDates: z.boolean(),
  maskOtherDates: z.boolean(),
  maskHospitalNames: z.boolean(),
  maskDoctorNames: z.boolean(),
  version: z.number().int(),
  updatedBy: z.string().nullable(),
  updateTime: z.string().nullable(),
});
export type DeidPolicyView = z.infer<typeof deidPolicyView>;

/** POST /project/desensitization/policy/save: all four switches and the version read (0 when never saved); STALE_WRITE otherwise. */
export const deidPolicySaveRequest = z.object({
  maskBirthDates: flag,
  maskOtherDates: flag,
  maskHospitalNames: flag,
  maskDoctorNames: flag,
  version: intSchema(0),
});
export type DeidPolicySaveRequest = z.infer<typeof deidPolicySaveRequest>;

/** POST /project/desensitization/test: a text to try the project's keywords and policy on. */
export const deidTestRequest = z.object({ text: z.string().min(1).max(DEID_TEST_TEXT_MAX) });

/** A stretch automatic de-identification would hide: [start, end) in UTF-16 code units of the text answered. */
export const deidTestSpan = z.object({
  start: z.number().int(),
  end: z.number().int(),
  text: z.string(),
  kind: z.enum(DEID_SPAN_KINDS),
  /** machine key of the rule that found it, e.g. 'keyword.project', 'idCard.checksum' */
  reason: z.string(),
});
export type DeidTestSpan = z.infer<typeof deidTestSpan>;

export const deidTestResult = z.object({
  /** the text as read (trimmed like every input): the spans' offsets are into it */
  text: z.string(),
  spans: z.array(deidTestSpan),
  /** the project's keywords and policy the text was tried with */
  keywords: z.number().int(),
  policy: z.object({
    maskBirthDates: z.boolean(),
    maskOtherDates: z.boolean(),
    maskHospitalNames: z.boolean(),
    maskDoctorNames: z.boolean(),
  }),
});
export type DeidTestResult = z.infer<typeof deidTestResult>;

/**
 * Data mapping (issue 11 item 3, spec §2 data-mapping screen, §7 /crf/config/listField and listCommValues) and the
 * synonym configuration (/ocrConfig/same, /textConfig/same and their /project/ variants): the rule that fills one
 * eCRF item from source records — by code (LOINC or a local code, with synonyms) or by a FHIRPath expression —
 * with UCUM unit conversion, a visit-window selection rule and option mapping for coded items.
 * The pure evaluation lives in @esource/interop (mapping/); the server stores rules in mapping_rules.
 */
import { z } from 'zod';
import { idSchema, intSchema, pageRequest, pageResult } from './common.schema';
import { FIELD_TYPES, optionSchema } from './design.schema';
import { sourceRecordBrief } from './sources.schema';

export const MAPPING_METHODS = ['code', 'fhirpath'] as const;
export type MappingMethod = (typeof MAPPING_METHODS)[number];
/** nearest to the planned visit date, first / last by clinical date, worst (highest or lowest value) */
export const SELECTION_RULES = ['nearest', 'first', 'last', 'worst'] as const;
export type SelectionRule = (typeof SELECTION_RULES)[number];
export const WORST_DIRECTIONS = ['high', 'low'] as const;

/**
 * Why a candidate cannot go into its field (spec §8): TEXT_NOT_ALLOWED 'Text type not allowed for the field',
 * DATA_ABNORMAL 'Data abnormal, cannot be filled' (unit not convertible, out of bounds, garbage),
 * NO_OPTION_MAPPING (a coded value with no option mapping). Messages: i18n `prefill.problem.<code>`.
 */
export const PREFILL_PROBLEMS = ['TEXT_NOT_ALLOWED', 'DATA_ABNORMAL', 'NO_OPTION_MAPPING'] as const;
export type PrefillProblem = (typeof PREFILL_PROBLEMS)[number];

const boolish = z.preprocess((v) => (v === 'true' || v === '1' || v === 1 ? true : v === 'false' || v === '0' || v === 0 ? false : v), z.boolean());

export const mappingCode = z.object({
  /** code system URI (http://loinc.org) or a local name; absent = any system */
  system: z.string().trim().max(200).optional(),
  code: z.string().trim().min(1).max(100),
});
export type MappingCode = z.infer<typeof mappingCode>;

/** source value (a source code, or the record's text/display, case-insensitive) → option value of the item */
export const optionMapEntry = z.object({
  source: z.string().trim().min(1).max(100),
  value: z.string().min(1).max(50),
});
export type OptionMapEntry = z.infer<typeof optionMapEntry>;

/** A rule as the screen edits it (and as /crf/config/mapping/test takes an unsaved one). JSON body. */
export const mappingRuleInput = z.object({
  formId: idSchema,
  variable: z.string().regex(/^[A-Za-z][A-Za-z0-9_]{0,39}$/, { message: 'validation.variable' }),
  method: z.enum(MAPPING_METHODS),
  /** source document types 1..8 (SOURCE_DOC_TYPES order); empty = any */
  docTypes: z.array(intSchema(1, 8)).max(8).default([]),
  codes: z.array(mappingCode).max(50).default([]),
  useSynonyms: boolish.default(true),
  /** FHIRPath (method 'fhirpath'), evaluated on the raw FHIR resource; must compile */
  expression: z.string().trim().max(2000).optional(),
  /** UCUM unit the item wants (defaults to the item's unit when it is valid UCUM); absent = no conversion */
  unit: z.string().trim().max(60).optional(),
  selection: z.enum(SELECTION_RULES).default('nearest'),
  worst: z.enum(WORST_DIRECTIONS).optional(),
  windowOnly: boolish.default(true),
  optionMap: z.array(optionMapEntry).max(500).default([]),
});
export type MappingRuleInput = z.infer<typeof mappingRuleInput>;

/** POST /crf/config/mapping/save (JSON): create (no id) or update (id + the version the editor loaded). */
export const mappingRuleSave = mappingRuleInput.extend({
  id: idSchema.optional(),
  version: idSchema.optional(),
});
/** A saved rule (response: plain types, no input coercion) */
export const mappingRuleRow = z.object({
  formId: z.number().int(),
  variable: z.string(),
  method: z.enum(MAPPING_METHODS),
  docTypes: z.array(z.number().int()),
  codes: z.array(z.object({ system: z.string().optional(), code: z.string() })),
  useSynonyms: z.boolean(),
  expression: z.string().optional(),
  unit: z.string().optional(),
  selection: z.enum(SELECTION_RULES),
  worst: z.enum(WORST_DIRECTIONS).optional(),
  windowOnly: z.boolean(),
  optionMap: z.array(z.object({ source: z.string(), value: z.string() })),
  id: z.number().int(),
  designVersionId: z.number().int(),
  version: z.number().int(),
  updatedBy: z.string().nullable(),
  updateTime: z.string(),
});
export type MappingRuleRow = z.infer<typeof mappingRuleRow>;

/** POST /crf/config/mapping/delete (form) */
export const mappingRuleDelete = z.object({ id: idSchema, version: idSchema.optional() });

/** POST /crf/config/listField (form): the items of a form (of its design version) with their current rule. */
export const listFieldRequest = z.object({ formId: idSchema });
export const mappingFieldRow = z.object({
  variable: z.string(),
  label: z.string(),
  labelEn: z.string().nullable(),
  type: z.enum(FIELD_TYPES),
  unit: z.string().nullable(),
  options: z.array(optionSchema),
  rule: mappingRuleRow.nullable(),
});
export type MappingFieldRow = z.infer<typeof mappingFieldRow>;
export const listFieldResult = z.object({
  formId: z.number().int(),
  formCode: z.string(),
  formName: z.string(),
  designVersionId: z.number().int(),
  items: z.array(mappingFieldRow),
});
export type ListFieldResult = z.infer<typeof listFieldResult>;

/**
 * POST /crf/config/listCommValues (form): a coded item's options, and the distinct source values seen for the
 * item's rule (its codes; or the codes given here) so a user can map them. Scoped to the user's sites.
 */
export const listCommValuesRequest = z.object({
  formId: idSchema,
  variable: z.string().min(1).max(40),
  /** codes to look up instead of the saved rule's: 'LOINC-code' or 'system|code', comma separated */
  codes: z.string().max(2000).optional(),
});
export const sourceValueRow = z.object({
  codeSystem: z.string().nullable(),
  code: z.string().nullable(),
  display: z.string().nullable(),
  /** the record's text value (what optionMap.source matches), null for numeric records */
  valueText: z.string().nullable(),
  count: z.number().int(),
});
export const listCommValuesResult = z.object({
  options: z.array(optionSchema),
  sourceValues: z.array(sourceValueRow),
});
export type ListCommValuesResult = z.infer<typeof listCommValuesResult>;

/** A unit conversion that was applied to a record's value. */
export const unitConversion = z.object({ fromValue: z.number(), fromUnit: z.string(), toUnit: z.string() });
/** A visit's window (planned date, first and last day) a rule selects records in. */
export const visitWindowRange = z.object({ planned: z.string(), start: z.string(), end: z.string() });

/** The value a rule produces for one item, and why (shared by mapping test and pre-fill execute). */
export const candidateExplain = z.object({
  /** the converted and coerced value, or null when there is none / a problem */
  value: z.unknown(),
  problem: z.enum(PREFILL_PROBLEMS).nullable(),
  /** the problem's message in the request's language */
  problemMessage: z.string().nullable(),
  /** the technical detail of the problem (the unit that did not convert, the text that is not a number) */
  problemDetail: z.string().nullable(),
  record: sourceRecordBrief.nullable(),
  /** records that matched the rule's codes/synonyms/expression (before the window) */
  matched: z.number().int(),
  /** of those, inside the visit window */
  inWindow: z.number().int(),
  /** a unit conversion that was applied */
  conversion: unitConversion.nullable(),
});
export type CandidateExplain = z.infer<typeof candidateExplain>;

/** POST /crf/config/mapping/test (JSON): run a rule (saved: ruleId; unsaved: rule) against a subject's visit. */
export const mappingTestRequest = z.object({
  ptsId: idSchema,
  visitId: idSchema,
  unscheduledId: intSchema(0).default(0),
  ruleId: idSchema.optional(),
  rule: mappingRuleInput.optional(),
});
export const mappingTestResult = candidateExplain.extend({
  window: visitWindowRange.nullable(),
  /** the records considered, at most 50, nearest first: what matched and whether it was in the window */
  records: z.array(sourceRecordBrief.extend({ inWindow: z.boolean() })),
});
export type MappingTestResult = z.infer<typeof mappingTestResult>;

// ── synonyms ──
export const SYNONYM_KINDS = ['ocr', 'text'] as const;
/** list: pages of 50/100/200, filtered by term (contains, case-insensitive) */
export const synonymListRequest = pageRequest.extend({ term: z.string().trim().max(100).optional() });
const synonymList = z.preprocess(
  (v: unknown): unknown => (typeof v === 'string' ? v.split(/[,，\n]/).map((s) => s.trim()).filter((s) => s !== '') : v),
  z.array(z.string().trim().min(1).max(100)).max(100),
);
/** add (no id) or update (id + version); synonyms as a list or comma/newline separated text */
export const synonymSave = z.object({
  id: idSchema.optional(),
  version: idSchema.optional(),
  term: z.string().trim().min(1).max(100),
  synonyms: synonymList.default([]),
});
export const synonymDelete = z.object({ id: idSchema });
export const synonymRow = z.object({
  id: z.number().int(),
  /** null: global (system level) */
  projectId: z.number().int().nullable(),
  term: z.string(),
  synonyms: z.array(z.string()),
  version: z.number().int(),
  updatedBy: z.string().nullable(),
  updateTime: z.string(),
});
export type SynonymRow = z.infer<typeof synonymRow>;
export const synonymPage = pageResult(synonymRow);

/**
 * The drug, diagnosis, surgery and examination dictionaries (issue 13 item 5): versioned code lists with zh/en terms
 * and synonyms, imported from Excel or CSV by an administrator (system:dictionary:import), listed and searched by
 * code, term, synonym or pinyin initials (system:dictionary:query; clinical:judge:query searches from a project).
 * The URLs are ours (the spec names the dictionaries but no calls): docs/decisions.md.
 */
import { z } from 'zod';
import { idSchema, intSchema, pageRequest, pageResult } from './common.schema';

export const DICTIONARY_KINDS = ['drug', 'diagnosis', 'surgery', 'examination'] as const;
export type DictionaryKind = (typeof DICTIONARY_KINDS)[number];

/** Columns of an import file, in template order; headers may also be the translated names (either language). */
export const DICTIONARY_COLUMNS = ['code', 'term_zh', 'term_en', 'synonyms'] as const;
export type DictionaryColumn = (typeof DICTIONARY_COLUMNS)[number];
/** Columns an import file must have (synonyms may be left out). */
export const DICTIONARY_REQUIRED_COLUMNS: readonly DictionaryColumn[] = ['code', 'term_zh', 'term_en'];

export const DICTIONARY_LIMITS = {
  /** largest import file (bytes), .xlsx or .csv */
  maxBytes: 40 * 1024 * 1024,
  /** data rows (terms) of one import */
  maxRows: 200_000,
  codeMax: 50,
  termZhMax: 200,
  termEnMax: 300,
  synonymMax: 200,
  /** synonyms of one term */
  synonymsMax: 20,
  versionMax: 50,
  nameMax: 100,
  sourceMax: 500,
  /** search text */
  textMax: 100,
  /** results of one search */
  searchMax: 50,
} as const;

/** Synonyms in one cell are separated by ';' or the full-width '；'. */
export const SYNONYM_SEPARATOR = /[;；]/;

const blank = (v: unknown) => (v === '' || v === null ? undefined : v);
const kindSchema = z.enum(DICTIONARY_KINDS);

/** A version of a kind's dictionary. */
export const dictionaryView = z.object({
  id: z.number().int(),
  kind: kindSchema,
  version: z.string(),
  name: z.string(),
  source: z.string().nullable(),
  termCount: z.number().int(),
  /** the version the coding fields search */
  active: z.boolean(),
  createdBy: z.string().nullable(),
  createTime: z.string(),
  activatedBy: z.string().nullable(),
  activateTime: z.string().nullable(),
});
export type DictionaryView = z.infer<typeof dictionaryView>;

/** POST /system/dictionary/list: the versions of one kind (or of all), newest first. */
export const dictionaryListRequest = z.object({ kind: z.preprocess(blank, kindSchema.optional()) });
export const dictionaryList = z.array(dictionaryView);

export const DICTIONARY_SORT_FIELDS = ['rowNo', 'code', 'termZh', 'termEn'] as const;
export type DictionarySortField = (typeof DICTIONARY_SORT_FIELDS)[number];

/** POST /system/dictionary/terms: a page of one version's terms, filtered by code, term, synonym or pinyin. */
export const dictionaryTermsRequest = pageRequest.extend({
  dictionaryId: idSchema,
  keyword: z.preprocess(blank, z.string().trim().max(DICTIONARY_LIMITS.textMax).optional()),
  sortField: z.preprocess(blank, z.enum(DICTIONARY_SORT_FIELDS).default('rowNo')),
  sortOrder: z.preprocess(blank, z.enum(['asc', 'desc']).default('asc')),
});

export const dictionaryTermView = z.object({
  id: z.number().int(),
  rowNo: z.number().int(),
  code: z.string(),
  termZh: z.string().nullable(),
  termEn: z.string().nullable(),
  synonyms: z.array(z.string()),
});
export type DictionaryTermView = z.infer<typeof dictionaryTermView>;
export const dictionaryTermPage = pageResult(dictionaryTermView);
export type DictionaryTermPage = z.infer<typeof dictionaryTermPage>;

/**
 * GET /system/dictionary/search and GET /project/dictionary/search: the active version of a kind (or the version
 * named), best first: exact code, exact term or synonym, code prefix, term prefix, synonym prefix, pinyin, contains.
 */
export const dictionarySearchRequest = z.object({
  kind: kindSchema,
  text: z.string().trim().min(1).max(DICTIONARY_LIMITS.textMax),
  limit: intSchema(1, DICTIONARY_LIMITS.searchMax).default(20),
  dictionaryId: z.preprocess(blank, idSchema.optional()),
});

export const DICTIONARY_MATCHES = ['code', 'term', 'synonym', 'pinyin', 'contains'] as const;
export type DictionaryMatch = (typeof DICTIONARY_MATCHES)[number];

export const dictionarySearchHit = z.object({
  id: z.number().int(),
  code: z.string(),
  termZh: z.string().nullable(),
  termEn: z.string().nullable(),
  /** how the text matched */
  match: z.enum(DICTIONARY_MATCHES),
  /** the synonym that matched (by itself or by its pinyin), else null */
  synonym: z.string().nullable(),
  dictionaryId: z.number().int(),
  version: z.string(),
});
export type DictionarySearchHit = z.infer<typeof dictionarySearchHit>;
export const dictionarySearchResult = z.array(dictionarySearchHit);

/** The fields of POST /system/dictionary/import (multipart, with one .xlsx or .csv file). */
export const dictionaryImportFields = z.object({
  kind: kindSchema,
  version: z
    .string()
    .trim()
    .min(1)
    .max(DICTIONARY_LIMITS.versionMax)
    // one line: a label shown in lists and the audit trail
    // eslint-disable-next-line no-control-regex -- control characters are what it refuses
    .refine((s) => !/[\u0000-\u001f\u007f]/.test(s), { error: 'dictionaries.oneLine' }),
  name: z.preprocess(blank, z.string().trim().max(DICTIONARY_LIMITS.nameMax).optional()),
  source: z.preprocess(blank, z.string().trim().max(DICTIONARY_LIMITS.sourceMax).optional()),
});
export type DictionaryImportFields = z.infer<typeof dictionaryImportFields>;

/** POST /system/dictionary/activate: this version becomes the one its kind's coding fields search. */
export const dictionaryActivateRequest = z.object({ id: idSchema });

/** GET /system/dictionary/template: headers in the request language, example rows of the kind, and notes. */
export const dictionaryTemplateQuery = z.object({
  kind: z.preprocess(blank, kindSchema.default('diagnosis')),
  format: z.preprocess(blank, z.enum(['xlsx', 'csv']).default('xlsx')),
});

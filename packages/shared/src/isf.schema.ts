/**
 * The investigator site file (ISF, issue 12 item 8, spec §2 /project/researchFile): the document kinds each site must
 * keep, configured by the data manager per project and environment, and their uploads in versions. An uploaded
 * version is a source file with no subject, so it is checked, stored, de-identified, reviewed and audited like a
 * subject's source document (documents.schema.ts).
 */
import { z } from 'zod';
import { idSchema, intSchema, pageRequest, pageResult } from './common.schema';
import { sourceFileView } from './documents.schema';

const blankToUndefined = (v: unknown) => (v === '' || v === null ? undefined : v);

/** A document kind of the ISF. `siteIds` null: every site of the project. */
export const isfKindView = z.object({
  id: z.number().int(),
  name: z.string(),
  nameEn: z.string().nullable(),
  /** name in the caller's language (the Chinese name when no English one is set) */
  label: z.string(),
  required: z.boolean(),
  siteIds: z.array(z.number().int()).nullable(),
  sort: z.number().int(),
  version: z.number().int(),
  updateTime: z.string(),
});
export type IsfKindView = z.infer<typeof isfKindView>;

/** POST /rf/kind/save: a new kind (no id) or a change of one (id and the version read). */
export const isfKindSaveRequest = z.object({
  id: z.preprocess(blankToUndefined, idSchema.optional()),
  version: z.preprocess(blankToUndefined, intSchema(1).optional()),
  name: z.string().trim().min(1).max(100),
  nameEn: z.preprocess((v) => (typeof v === 'string' && v.trim() === '' ? null : v), z.string().trim().max(100).nullable().default(null)),
  required: z.boolean().default(true),
  /** null or absent: every site; else at least one of the project's sites */
  siteIds: z.array(idSchema).min(1).max(1000).nullable().default(null),
  sort: intSchema(0, 9999).default(0),
});

/** POST /rf/kind/delete */
export const isfKindDeleteRequest = z.object({ id: idSchema, version: intSchema(1) });

/** The ISF list's rows: one per kind and site the kind applies to. */
export const isfDocRow = z.object({
  kind: isfKindView,
  siteId: z.number().int(),
  siteName: z.string(),
  /** versions uploaded (failed de-identifications included) */
  versions: z.number().int(),
  /** the newest version, or null: not uploaded */
  latest: sourceFileView.nullable(),
  /** required here and nothing usable uploaded (the ISF dot counts these) */
  missing: z.boolean(),
});
export type IsfDocRow = z.infer<typeof isfDocRow>;

/** POST /rf/file/page: the ISF of the caller's sites. */
export const isfDocPageRequest = pageRequest.extend({
  siteId: z.preprocess(blankToUndefined, idSchema.optional()),
  /** part of the kind's name (either language) */
  keyword: z.preprocess(blankToUndefined, z.string().trim().max(100).optional()),
  /** missing: required and not uploaded; uploaded: a usable version exists */
  state: z.preprocess(blankToUndefined, z.enum(['missing', 'uploaded']).optional()),
  required: z.preprocess((v) => (v === '' || v === null ? undefined : v === 'true' ? true : v === 'false' ? false : v), z.boolean().optional()),
});
export const isfDocPage = pageResult(isfDocRow);
export type IsfDocPage = z.infer<typeof isfDocPage>;

/** POST /rf/file/versions: every version of one kind at one site, newest first. */
export const isfVersionsRequest = z.object({ kindId: idSchema, siteId: idSchema });

/** Multipart fields of POST /rf/file/upload (besides the one file): a new version of a kind at a site. */
export const isfUploadFields = z.object({ kindId: idSchema, siteId: idSchema });

/** POST /rf/file/delete: a version removed by the data manager, with the reason (audited). */
export const isfFileDeleteRequest = z.object({
  id: idSchema,
  version: intSchema(1),
  reason: z.string().trim().min(1).max(500),
});

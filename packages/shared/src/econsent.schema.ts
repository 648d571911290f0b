/**
 * E-consent participants (issue 15 item 7; spec §7 Subjects: /cloud/project/managePts/ec/participant/query and
 * /cloud/project/managePts/add/pts). People registered and consented in an external e-consent / ethics system are
 * listed for the caller's sites and added as subjects with their consent date. The system is reached through a
 * provider configured per project and environment (docs/decisions.md "E-consent participants").
 */
import { z } from 'zod';
import { dateSchema, idSchema, intSchema, pageRequest, pageResult } from './common.schema';

/** Providers: 'dev' a deterministic development list, 'http' the documented HTTP adapter. */
export const EC_PROVIDER_KINDS = ['dev', 'http'] as const;
export type EcProviderKind = (typeof EC_PROVIDER_KINDS)[number];

/** A participant's state in the e-consent system: invited (not signed), consented, withdrawn, declined. */
export const EC_PARTICIPANT_STATUSES = ['pending', 'consented', 'withdrawn', 'declined'] as const;
export type EcParticipantStatus = (typeof EC_PARTICIPANT_STATUSES)[number];

export const EC_SEXES = ['M', 'F', 'U'] as const;

/** Most participants one add action takes. */
export const EC_ADD_MAX = 50;

const blank = (v: unknown) => (v === '' || v === null ? undefined : v);
const boolish = z.preprocess(
  (v) => (v === 'true' || v === '1' ? true : v === 'false' || v === '0' ? false : v),
  z.boolean(),
);

/** A participant as the provider gives it (the HTTP adapter validates the target's answer with this). */
export const ecParticipant = z.object({
  /** the e-consent system's own id of the participant (unique in the study) */
  id: z.string().trim().min(1).max(64),
  screeningNo: z.string().trim().min(1).max(40),
  /** the full name, when the system gives one (identifying: shown only to roles that see identifiers) */
  name: z.string().trim().max(100).nullable().optional(),
  initials: z.string().trim().max(10).nullable().optional(),
  sex: z.enum(EC_SEXES).nullable().optional(),
  birthDate: dateSchema.nullable().optional(),
  consentDate: dateSchema.nullable().optional(),
  consentVersion: z.string().trim().max(50).nullable().optional(),
  /** the site's number in this project (sites.siteNo) */
  siteCode: z.string().trim().min(1).max(20),
  status: z.enum(EC_PARTICIPANT_STATUSES),
});
export type EcParticipant = z.infer<typeof ecParticipant>;

// ── configuration (per project × environment; the secret is encrypted and never returned) ──

export const ecConfigView = z.object({
  id: z.number().int(),
  kind: z.enum(EC_PROVIDER_KINDS),
  name: z.string(),
  baseUrl: z.string().nullable(),
  studyCode: z.string().nullable(),
  timeoutMs: z.number().int(),
  enabled: z.boolean(),
  hasSecret: z.boolean(),
  version: z.number().int(),
  updateTime: z.string(),
});
export type EcConfigView = z.infer<typeof ecConfigView>;

export const ecConfigSave = z
  .object({
    kind: z.enum(EC_PROVIDER_KINDS),
    name: z.string().trim().min(1).max(100),
    baseUrl: z.preprocess(
      blank,
      z
        .string()
        .trim()
        .max(500)
        .refine((u) => /^https?:\/\/[^\s/?#]+[^\s]*$/i.test(u), { message: 'validation.ecUrl' })
        .optional(),
    ),
    studyCode: z.preprocess(
      blank,
      z
        .string()
        .trim()
        .max(100)
        .regex(/^[A-Za-z0-9_.\-:]+$/, { message: 'validation.ecStudyCode' })
        .optional(),
    ),
    /** the bearer token of the HTTP adapter; absent on update = unchanged */
    secret: z.preprocess(blank, z.string().min(1).max(500).optional()),
    timeoutMs: intSchema(1_000, 60_000).default(15_000),
    enabled: boolish.default(true),
    /** the version the editor loaded (absent: a new configuration) */
    version: z.preprocess(blank, idSchema.optional()),
  })
  .superRefine((c, ctx) => {
    if (c.kind === 'http' && !c.baseUrl)
      ctx.addIssue({ code: 'custom', path: ['baseUrl'], message: 'validation.ecUrlRequired' });
    if (c.kind === 'http' && !c.studyCode)
      ctx.addIssue({ code: 'custom', path: ['studyCode'], message: 'validation.ecStudyCodeRequired' });
  });
export type EcConfigSave = z.output<typeof ecConfigSave>;

export const ecConfigTestResult = z.object({
  ok: z.boolean(),
  message: z.string(),
  participants: z.number().int().nullable(),
  ms: z.number(),
});

// ── the participant list (POST /cloud/project/managePts/ec/participant/query) ──

export const ecParticipantQuery = pageRequest.extend({
  siteId: z.preprocess(blank, idSchema.optional()),
  status: z.preprocess(blank, z.enum(EC_PARTICIPANT_STATUSES).optional()),
  /** true: with a consent date; false: without */
  consented: z.preprocess(blank, boolish.optional()),
  /** already added as subjects (true) or not yet (false) */
  added: z.preprocess(blank, boolish.optional()),
  /** part of the screening number or the initials */
  keyword: z.preprocess(blank, z.string().trim().max(40).optional()),
});
export type EcParticipantQuery = z.output<typeof ecParticipantQuery>;

export const ecParticipantRow = z.object({
  participantId: z.string(),
  screeningNo: z.string(),
  /** null unless the caller sees identifiers (patient:identifier:query) */
  name: z.string().nullable(),
  initials: z.string().nullable(),
  sex: z.enum(EC_SEXES).nullable(),
  /** the full date for callers who see identifiers, else the year only (YYYY) */
  birthDate: z.string().nullable(),
  consentDate: z.string().nullable(),
  consentVersion: z.string().nullable(),
  siteCode: z.string(),
  /** the project's site with that number in this environment; null when the project has none */
  siteId: z.number().int().nullable(),
  siteName: z.string().nullable(),
  status: z.enum(EC_PARTICIPANT_STATUSES),
  /** the subject it was added as */
  subject: z.object({ ptsId: z.number().int(), ptsNo: z.string() }).nullable(),
  /** why it cannot be added (translated); null when it can (or was added) */
  refusal: z.string().nullable(),
});
export type EcParticipantRow = z.infer<typeof ecParticipantRow>;

export const ecParticipantPage = pageResult(ecParticipantRow).extend({
  provider: z.object({ kind: z.enum(EC_PROVIDER_KINDS), name: z.string() }),
  identifiersMasked: z.boolean(),
});
export type EcParticipantPage = z.infer<typeof ecParticipantPage>;

// ── adding participants as subjects (POST /cloud/project/managePts/add/pts, JSON) ──

export const ecAddRequest = z.object({
  participantIds: z
    .array(z.string().trim().min(1).max(64))
    .min(1)
    .max(EC_ADD_MAX)
    .refine((a) => new Set(a).size === a.length, { message: 'validation.ecDuplicateIds' }),
});
export type EcAddRequest = z.output<typeof ecAddRequest>;

export const ecAddResult = z.object({
  added: z.array(
    z.object({
      participantId: z.string(),
      screeningNo: z.string(),
      ptsId: z.number().int(),
      ptsNo: z.string(),
      siteId: z.number().int(),
      consentDate: z.string(),
    }),
  ),
});
export type EcAddResult = z.infer<typeof ecAddResult>;

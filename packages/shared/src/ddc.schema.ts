import { z } from 'zod';
import { LANGUAGES } from './constants';
import { idSchema, intSchema, pageRequest, pageResult } from './common.schema';
import { crfKey } from './ecrf.schema';

/**
 * Shared forms (issue 15 item 6; spec §2 standalone routes /DDC/share, /s/{code}, /project/microCrfConfig,
 * /project/microDCConfig). A data manager or site user with crf:result:save creates a time-limited link to one form
 * of one subject's visit; the recipient (the participant) fills it without an account, once, on a phone; the answers
 * are saved through the eCRF's own save path with entry mode participant (7) and the link as their source, and the
 * form waits for the site's review. Calls: POST /ddc/share/add, /ddc/share/page, /ddc/share/revoke,
 * /ddc/share/link, /ddc/share/accept; public POST /ddc/public/form, /ddc/public/submit; GET/POST
 * /micro/crf/config/get|save, /micro/dc/config/get|save, GET /micro/dc/forms (docs/decisions.md "Shared forms").
 */

export const SHARE_LIMITS = {
  /** random bytes of a link's code: 192 bits, 32 base64url characters */
  codeBytes: 24,
  /** the shortest and longest validity a creator may choose, in hours (1 hour to 30 days) */
  minHours: 1,
  maxHours: 720,
  /** the validity offered when the project's data-collection settings name none */
  defaultHours: 72,
  /** characters of the creator's note (e.g. whom the link was given to) */
  noteMax: 200,
  /** characters of each welcome text */
  welcomeMax: 1000,
} as const;

/** A link's code as it travels: base64url, 32 characters for SHARE_LIMITS.codeBytes. */
export const SHARE_CODE_PATTERN = /^[A-Za-z0-9_-]{32}$/;

/**
 * A link's state. active: usable until its expiry; used: the participant submitted it (once); expired: not used
 * before its expiry; revoked: withdrawn by staff.
 */
export const SHARE_STATUSES = ['active', 'used', 'expired', 'revoked'] as const;
export type ShareStatus = (typeof SHARE_STATUSES)[number];

/**
 * The site's review of what a participant submitted. pending: not reviewed (the form shows it); accepted: a site user
 * accepted the answers as they are; corrected: a site user saved the form through the normal entry path.
 */
export const SHARE_REVIEWS = ['pending', 'accepted', 'corrected'] as const;
export type ShareReview = (typeof SHARE_REVIEWS)[number];

/** How the shared form shows the subject's number: not at all, masked (first and last characters), or in full. */
export const SUBJECT_NO_DISPLAY = ['hidden', 'masked', 'full'] as const;
export type SubjectNoDisplay = (typeof SUBJECT_NO_DISPLAY)[number];

/**
 * A subject number masked for the shared form: the first character and the last two stay, the rest are stars
 * (at least one); numbers of three characters or fewer keep only their last one.
 */
export function maskSubjectNo(no: string): string {
  // (subject numbers are ASCII: letters, digits and separators)
  if (no.length <= 3) return `${'*'.repeat(Math.max(1, no.length - 1))}${no.slice(-1)}`;
  return `${no.slice(0, 1)}${'*'.repeat(no.length - 3)}${no.slice(-2)}`;
}

const blank = (v: unknown): unknown => (v === '' || v === null ? undefined : v);
const boolish = z.preprocess(
  (v) => (v === 'true' || v === '1' || v === 1 ? true : v === 'false' || v === '0' || v === 0 ? false : v),
  z.boolean(),
);
const hours = intSchema(SHARE_LIMITS.minHours, SHARE_LIMITS.maxHours);

// ── micro configs (per project and environment) ──

/** /project/microCrfConfig: what the shared form page (the "micro CRF") shows the participant. */
export const microCrfSettings = z.object({
  subjectNo: z.enum(SUBJECT_NO_DISPLAY).default('masked'),
  showProjectName: boolish.default(true),
  showSiteName: boolish.default(false),
  showVisitName: boolish.default(true),
  welcomeZh: z.string().max(SHARE_LIMITS.welcomeMax).default(''),
  welcomeEn: z.string().max(SHARE_LIMITS.welcomeMax).default(''),
  /** the page's language when it opens */
  language: z.enum(LANGUAGES).default('zh_CN'),
  /** whether the participant may switch the page's language */
  languageSwitch: boolish.default(true),
});
export type MicroCrfSettings = z.infer<typeof microCrfSettings>;
export const MICRO_CRF_DEFAULTS: MicroCrfSettings = microCrfSettings.parse({});

/**
 * /project/microDCConfig: the data-collection policy of shared links ("DDC": direct data capture by the participant):
 * whether links may be created at all, which forms (all, or those listed by form code: codes stay the same across
 * design versions), and the validity offered and allowed.
 */
const dcShape = {
  enabled: boolish.default(true),
  forms: z.enum(['all', 'listed']).default('all'),
  formCodes: z.array(z.string().min(1).max(50)).max(200).default([]),
  defaultHours: hours.default(SHARE_LIMITS.defaultHours),
  maxHours: hours.default(SHARE_LIMITS.maxHours),
};
const defaultWithinMax = (s: { defaultHours: number; maxHours: number }) => s.defaultHours <= s.maxHours;
export const microDcSettings = z
  .object(dcShape)
  .refine(defaultWithinMax, { message: 'validation.shareDefaultOverMax', path: ['defaultHours'] });
export type MicroDcSettings = z.infer<typeof microDcSettings>;
export const MICRO_DC_DEFAULTS: MicroDcSettings = microDcSettings.parse({});

const configMeta = {
  /** 0: never saved (the defaults) */
  version: z.number().int(),
  updatedByName: z.string().nullable(),
  updateTime: z.string().nullable(),
};
// (answers are encoded with plain schemas: zod cannot encode the inputs' preprocessing back)
export const microCrfConfigView = z.object({
  settings: z.object({
    subjectNo: z.enum(SUBJECT_NO_DISPLAY),
    showProjectName: z.boolean(),
    showSiteName: z.boolean(),
    showVisitName: z.boolean(),
    welcomeZh: z.string(),
    welcomeEn: z.string(),
    language: z.enum(LANGUAGES),
    languageSwitch: z.boolean(),
  }),
  ...configMeta,
});
export type MicroCrfConfigView = z.infer<typeof microCrfConfigView>;
export const microDcConfigView = z.object({
  settings: z.object({
    enabled: z.boolean(),
    forms: z.enum(['all', 'listed']),
    formCodes: z.array(z.string()),
    defaultHours: z.number().int(),
    maxHours: z.number().int(),
  }),
  ...configMeta,
});
export type MicroDcConfigView = z.infer<typeof microDcConfigView>;

/** A save carries the version it was read at (0 when never saved); someone else's save meanwhile is refused. */
export const microCrfConfigSave = microCrfSettings.extend({ version: intSchema(0) });
export type MicroCrfConfigSave = z.input<typeof microCrfConfigSave>;
export const microDcConfigSave = z
  .object({ ...dcShape, version: intSchema(0) })
  .refine(defaultWithinMax, { message: 'validation.shareDefaultOverMax', path: ['defaultHours'] });
export type MicroDcConfigSave = z.input<typeof microDcConfigSave>;

/** A form code of the project (any design version) for the data-collection settings, with whether it can be shared. */
export const microDcFormRow = z.object({
  code: z.string(),
  name: z.string(),
  nameEn: z.string().nullable(),
  /** a form with a file item cannot be filled through a link (uploads need an account) */
  hasFile: z.boolean(),
});
export type MicroDcFormRow = z.infer<typeof microDcFormRow>;

// ── links (staff) ──

/** POST /ddc/share/add: one form of one subject's visit, valid for `hours` (within the project's longest). */
export const shareCreateRequest = crfKey.extend({
  hours: hours.optional(),
  note: z.preprocess(blank, z.string().max(SHARE_LIMITS.noteMax).optional()),
});
export type ShareCreateRequest = z.input<typeof shareCreateRequest>;

export const shareRow = z.object({
  id: z.number().int(),
  status: z.enum(SHARE_STATUSES),
  review: z.enum(SHARE_REVIEWS).nullable(),
  ptsId: z.number().int(),
  ptsNo: z.string(),
  siteId: z.number().int(),
  siteName: z.string(),
  visitId: z.number().int(),
  unscheduledId: z.number().int(),
  visitCode: z.string(),
  visitName: z.string(),
  visitNameEn: z.string().nullable(),
  formId: z.number().int(),
  formCode: z.string(),
  formName: z.string(),
  formNameEn: z.string().nullable(),
  repeatNo: z.number().int(),
  note: z.string().nullable(),
  expiresAt: z.string(),
  createTime: z.string(),
  createdByName: z.string().nullable(),
  usedAt: z.string().nullable(),
  revokedAt: z.string().nullable(),
  revokedByName: z.string().nullable(),
  revokeReason: z.string().nullable(),
  reviewedAt: z.string().nullable(),
  reviewedByName: z.string().nullable(),
  /** how often the link's form was opened, and when last */
  openCount: z.number().int(),
  lastOpenedAt: z.string().nullable(),
  /** the form instance the submit wrote (used links) */
  instanceId: z.number().int().nullable(),
});
export type ShareRow = z.infer<typeof shareRow>;

/** The answer to a creation: the row and its code, shown to the creator this once (it is stored hashed). */
export const shareCreated = shareRow.extend({ code: z.string() });
export type ShareCreated = z.infer<typeof shareCreated>;

export const SHARE_SORT_FIELDS = ['createTime', 'expiresAt'] as const;
export const sharePageRequest = pageRequest.extend({
  status: z.preprocess(blank, z.enum(SHARE_STATUSES).optional()),
  review: z.preprocess(blank, z.enum(SHARE_REVIEWS).optional()),
  siteId: z.preprocess(blank, idSchema.optional()),
  /** subject number, form name or code, or the note */
  keyword: z.preprocess(blank, z.string().max(50).optional()),
  /** only the links the caller created */
  mine: z.preprocess(blank, boolish.optional()),
  sortField: z.preprocess(blank, z.enum(SHARE_SORT_FIELDS).default('createTime')),
  sortOrder: z.preprocess(
    (v) => (v === 'ascend' ? 'asc' : v === 'descend' ? 'desc' : blank(v)),
    z.enum(['asc', 'desc']).default('desc'),
  ),
});
export type SharePageRequest = z.input<typeof sharePageRequest>;
export const sharePage = pageResult(shareRow);
export type SharePage = z.infer<typeof sharePage>;

export const shareRevokeRequest = z.object({
  id: idSchema,
  reason: z.preprocess(blank, z.string().max(500).optional()),
});
export const shareIdQuery = z.object({ id: idSchema });
/** The code of a live link, to copy it again (audited); used, expired and revoked links have nothing to copy. */
export const shareLinkCode = z.object({ code: z.string() });

/** Accept a participant's answers as they are (ends the pending review), at the form version the user saw. */
export const shareAcceptRequest = z.object({ instanceId: idSchema, version: idSchema });
export const shareAcceptResult = z.object({
  id: z.number().int(),
  status: z.number().int(),
  version: z.number().int(),
});

// ── the public shared form ──

export const sharePublicRequest = z.object({ code: z.string().max(100) });
export const sharePublicSubmit = z.object({
  code: z.string().max(100),
  items: z.array(z.object({ variable: z.string().min(1).max(40), value: z.unknown() })).max(500),
});
export type SharePublicSubmit = z.input<typeof sharePublicSubmit>;

/** What the participant's page shows: the form and only what the project's micro CRF settings allow. */
export const sharePublicView = z.object({
  formName: z.string(),
  formNameEn: z.string().nullable(),
  definition: z.unknown(),
  projectName: z.string().nullable(),
  siteName: z.string().nullable(),
  /** per the settings: null (hidden), masked or in full */
  subjectNo: z.string().nullable(),
  visitName: z.string().nullable(),
  visitNameEn: z.string().nullable(),
  welcomeZh: z.string(),
  welcomeEn: z.string(),
  language: z.enum(LANGUAGES),
  languageSwitch: z.boolean(),
  expiresAt: z.string(),
});
export type SharePublicView = z.infer<typeof sharePublicView>;
export const sharePublicDone = z.object({ submittedAt: z.string() });

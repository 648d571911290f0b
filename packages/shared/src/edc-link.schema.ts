/**
 * Associate EDC (issue 14 item 3; spec: the user menu's "Associate EDC", /edc-link, login type 1): a centre user
 * links their own account at the EDCs of the projects they are a member of, so the syncs they start name them in the
 * EDC's audit trail. The secret (kind 1 the password, kind 3 the API token) is tested against the EDC before it is
 * saved and is never returned: a row says only whether a link exists, its login and when the EDC accepted it.
 */
import { z } from 'zod';
import { envSchema, idSchema } from './common.schema';

/** One EDC of a project environment the caller is a member of, with the caller's link to it. */
export const edcLinkRow = z.object({
  configId: z.number().int(),
  projectId: z.number().int(),
  projectNo: z.string(),
  projectName: z.string(),
  env: envSchema,
  /** EDC_KINDS: 1 ODM over HTTP (Rave-style, HTTP Basic), 3 REDCap (API token) */
  kind: z.number().int(),
  name: z.string(),
  baseUrl: z.string(),
  enabled: z.boolean(),
  linked: z.boolean(),
  /** the caller's login at the EDC (null: not linked) */
  login: z.string().nullable(),
  /** when the EDC last accepted the caller's secret */
  verifiedAt: z.string().nullable(),
  updateTime: z.string().nullable(),
});
export type EdcLinkRow = z.infer<typeof edcLinkRow>;

/** Links (or re-links) the caller's own account; the secret is tried against the EDC first. */
export const edcLinkSave = z.object({
  configId: idSchema,
  /** kind 1: the HTTP Basic user name (no ':'); kind 3: the REDCap user name the token belongs to */
  login: z
    .string()
    .trim()
    .min(1)
    .max(100)
    .refine((s) => !s.includes(':'), { message: 'validation.edcLinkLogin' }),
  /** kind 1: the password; kind 3: the API token (checked by kind on the server) */
  secret: z.string().min(1).max(500),
});
export type EdcLinkSave = z.infer<typeof edcLinkSave>;

export const edcLinkRemove = z.object({ configId: idSchema });

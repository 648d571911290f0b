/**
 * System settings an administrator keeps in the product (issue 15 item 3): the host URLs served by
 * /sys/config/getConfig, the administrator's contact (/admin/info/detail, update), and the ranges the user and
 * team screens choose from (/sys/range/listOrg, listRange).
 */
import { z } from 'zod';

export const HOST_KEYS = ['storage', 'ilink', 'auth', 'isource', 'icrc', 'igcp', 'evisit'] as const;
export type HostKey = (typeof HOST_KEYS)[number];

const blankToUndefined = (v: unknown) => (typeof v === 'string' && v.trim() === '' ? undefined : v);
/** An absolute http(s) URL (a host an app of the suite is served from). */
const hostUrl = z.preprocess(
  blankToUndefined,
  z
    .string()
    .max(300)
    .refine((s) => {
      try {
        const u = new URL(s);
        return (u.protocol === 'http:' || u.protocol === 'https:') && !u.username && !u.password;
      } catch {
        return false;
      }
    }, { message: 'validation.hostUrl' })
    .optional(),
);

/** POST /sys/config/update (JSON): each host's URL; an empty one goes back to the server's configured default. */
export const hostsUpdate = z.object({
  hosts: z.object(Object.fromEntries(HOST_KEYS.map((k) => [k, hostUrl])) as Record<HostKey, typeof hostUrl>),
  lockVersion: z.number().int().min(0),
});
/** The settings page's view of the hosts: the value in force, whether an administrator set it, the default. */
export const hostsView = z.object({
  hosts: z.array(z.object({ key: z.enum(HOST_KEYS), value: z.string(), custom: z.boolean(), fallback: z.string() })),
  lockVersion: z.number().int(),
  updatedBy: z.string().nullable(),
  updateTime: z.string().nullable(),
});
export type HostsView = z.infer<typeof hostsView>;

/** The administrator's contact, shown on the login pages and the no-permission page ("contact your administrator"). */
export const adminInfo = z.object({
  name: z.string(),
  phone: z.string(),
  mail: z.string(),
  note: z.string(),
  lockVersion: z.number().int(),
  updateTime: z.string().nullable(),
});
export type AdminInfo = z.infer<typeof adminInfo>;
const trimmed = (max: number) => z.preprocess((v) => (v === undefined || v === null ? '' : v), z.string().trim().max(max));
export const adminInfoUpdate = z.object({
  name: trimmed(30),
  phone: trimmed(20).refine((s) => s === '' || /^[0-9+\-() ]{5,20}$/.test(s), { message: 'validation.contactPhone' }),
  mail: trimmed(100).refine((s) => s === '' || z.email().safeParse(s).success, { message: 'validation.mail' }),
  note: trimmed(200),
  lockVersion: z.number().int().min(0),
});

/** GET /sys/range/listOrg: organisations a user or site may belong to (enabled ones), for pickers. */
export const rangeOrg = z.object({ id: z.number().int(), code: z.string().nullable(), name: z.string() });
/** GET /sys/range/listRange: the data ranges a project membership may have, translated. */
export const rangeOption = z.object({ value: z.enum(['all', 'sites']), label: z.string(), description: z.string() });
export type RangeOrg = z.infer<typeof rangeOrg>;
export type RangeOption = z.infer<typeof rangeOption>;

import { z } from 'zod';
import { LIMITS } from './constants';
import { idSchema, intSchema, pageRequest, pageResult } from './common.schema';
import { isPermission } from './permissions';

const boolish = z.preprocess((v) => (v === 'true' || v === '1' || v === 1 ? true : v === 'false' || v === '0' || v === 0 ? false : v), z.boolean());
const list = (v: unknown): unknown => (v === undefined || v === '' ? [] : Array.isArray(v) ? v : typeof v === 'string' ? v.split(',') : [v]);

/** A role (spec §5: name ≤ 10, id ≤ 20) with permissions from the catalogue and environment flags. */
export const roleInput = z.object({
  code: z.string().min(1).max(LIMITS.roleIdMax).regex(/^[A-Za-z0-9_-]+$/, { message: 'validation.roleCode' }),
  name: z.string().min(1).max(LIMITS.roleNameMax),
  nameEn: z.string().max(50).optional(),
  description: z.string().max(200).optional(),
  kind: z.enum(['system', 'project']).default('project'),
  isDm: boolish.default(false),
  envDev: boolish.default(false),
  envUat: boolish.default(true),
  envPro: boolish.default(true),
  permissions: z.preprocess(list, z.array(z.string().refine(isPermission, { message: 'validation.permission' })).max(1000)),
});
export const roleUpdate = roleInput.extend({ id: idSchema });
export const roleRow = z.object({
  id: z.number().int(),
  code: z.string(),
  name: z.string(),
  nameEn: z.string().nullable(),
  description: z.string().nullable(),
  kind: z.string(),
  isDm: z.boolean(),
  envDev: z.boolean(),
  envUat: z.boolean(),
  envPro: z.boolean(),
  status: z.number().int(),
  permissions: z.array(z.string()),
  userCount: z.number().int(),
});
export type RoleRow = z.infer<typeof roleRow>;
export const rolePageRequest = pageRequest.extend({ keyword: z.string().max(20).optional(), kind: z.enum(['system', 'project']).optional() });
export const rolePage = pageResult(roleRow);

const hhmm = z.string().regex(/^([01]\d|2[0-3]):[0-5]\d$|^24:00$/, { message: 'validation.time' });
/** JSON text as the value it holds; text that is not JSON stays text (and fails the schema, naming the field). */
const jsonOr = (s: string): unknown => {
  try {
    return JSON.parse(s) as unknown;
  } catch {
    return s;
  }
};

export const loginWindow = z
  .object({ days: z.array(intSchema(1, 7)).min(1).max(7), start: hhmm, end: hhmm })
  .refine((w) => w.start < w.end, { message: 'validation.windowOrder', path: ['end'] });

function validTimeZone(tz: string): boolean {
  try {
    new Intl.DateTimeFormat('en', { timeZone: tz });
    return true;
  } catch {
    return false;
  }
}

export const permissionGroupInput = z.object({
  name: z.string().min(1).max(50),
  description: z.string().max(200).optional(),
  loginWindows: z.preprocess((v) => (typeof v === 'string' ? jsonOr(v) : v), z.array(loginWindow).max(20)).default([]),
  timezone: z.string().max(64).refine(validTimeZone, { message: 'validation.timezone' }).default('Asia/Shanghai'),
  reviewerUserId: idSchema.optional(),
});
export const permissionGroupUpdate = permissionGroupInput.extend({ id: idSchema });
export const permissionGroupRow = z.object({
  id: z.number().int(),
  name: z.string(),
  description: z.string().nullable(),
  loginWindows: z.array(z.object({ days: z.array(z.number().int()), start: z.string(), end: z.string() })),
  timezone: z.string(),
  reviewerUserId: z.number().int().nullable(),
  reviewerName: z.string().nullable(),
  status: z.number().int(),
  userCount: z.number().int(),
});
export type PermissionGroupRow = z.infer<typeof permissionGroupRow>;

// ── project team members ──
const memberAssignment = z.object({
  roleId: idSchema,
  allSites: boolish.default(false),
  siteIds: z.preprocess(list, z.array(idSchema).max(500)).default([]),
});
const sitesChosen = (m: { allSites: boolean; siteIds: number[] }) => m.allSites || m.siteIds.length > 0;
const sitesMessage = { message: 'validation.memberSites', path: ['siteIds'] };
export const memberInput = memberAssignment.extend({ userId: idSchema }).refine(sitesChosen, sitesMessage);
export const memberInvite = memberAssignment.extend({ account: z.string().min(1).max(50) }).refine(sitesChosen, sitesMessage);
export const memberUpdate = memberAssignment.extend({ id: idSchema }).refine(sitesChosen, sitesMessage);
export const memberRow = z.object({
  id: z.number().int(),
  userId: z.number().int(),
  account: z.string(),
  name: z.string(),
  orgName: z.string().nullable(),
  roleId: z.number().int(),
  roleCode: z.string(),
  roleName: z.string(),
  allSites: z.boolean(),
  sites: z.array(z.object({ id: z.number().int(), siteNo: z.string(), name: z.string() })),
  status: z.number().int(),
  createTime: z.string(),
});
export type MemberRow = z.infer<typeof memberRow>;
export const memberPageRequest = pageRequest.extend({
  keyword: z.string().max(50).optional(),
  roleId: idSchema.optional(),
  siteId: idSchema.optional(),
  status: intSchema(0, 1).optional(),
});
export const memberPage = pageResult(memberRow);
export const memberStatusRequest = z.object({ id: idSchema, status: intSchema(0, 1) });
export const memberMessageRequest = z.object({
  memberIds: z.preprocess(list, z.array(idSchema).min(1).max(500)),
  title: z.string().min(1).max(200),
  content: z.string().max(5000).default(''),
});

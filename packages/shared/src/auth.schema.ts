import { z } from 'zod';
import { ENVS, LOGIN_TYPES } from './enums';
import { LIMITS } from './constants';
import { idSchema, intSchema } from './common.schema';

/** SHA-256 hex digest: the client never sends a password in clear (spec §7). */
export const passwordDigest = z
  .string()
  .regex(/^[0-9a-fA-F]{64}$/, { message: 'validation.passwordDigest' })
  .transform((s) => s.toLowerCase());

export const loginTypeSchema = intSchema()
  .refine((n) => (LOGIN_TYPES as readonly number[]).includes(n), { message: 'validation.loginType' });

export const loginRequest = z.object({
  account: z.string().min(1).max(LIMITS.accountMax),
  password: passwordDigest,
  loginType: loginTypeSchema,
  /** which login site the request comes from; defaults from the login type */
  variant: z.enum(['main', 'site', 'ae']).optional(),
});
export type LoginRequest = z.infer<typeof loginRequest>;

export const currentUser = z.object({
  id: z.number().int(),
  name: z.string(),
  account: z.string(),
  roleCode: z.string().nullable(),
  imgUrl: z.string().nullable(),
  token: z.string(),
  projectType: z.enum(ENVS),
  loginType: z.number().int(),
});
export type CurrentUser = z.infer<typeof currentUser>;

export const loginResponse = z.object({
  token: z.string(),
  expiresAt: z.string(),
  user: currentUser,
  passwordChangeDue: z.boolean(),
  /** an initial password (issued by an administrator): nothing else works until it is changed */
  passwordChangeRequired: z.boolean(),
});
export type LoginResponse = z.infer<typeof loginResponse>;

export const moduleEntry = z.object({ no: z.number().int(), key: z.string(), path: z.string() });

export const userInfo = z.object({
  id: z.number().int(),
  name: z.string(),
  account: z.string(),
  phone: z.string().nullable(),
  mail: z.string().nullable(),
  orgId: z.number().int().nullable(),
  orgName: z.string().nullable(),
  loginType: z.number().int(),
  roleCode: z.string().nullable(),
  imgUrl: z.string().nullable(),
  projectType: z.enum(ENVS),
  passwordChangedAt: z.string().nullable(),
  passwordChangeDue: z.boolean(),
  /** an initial password (issued by an administrator): nothing else works until it is changed */
  passwordChangeRequired: z.boolean(),
});
export type UserInfo = z.infer<typeof userInfo>;

export const pmsInfoResponse = z.object({
  pms: z.array(z.string()),
  menus: z.array(moduleEntry),
  user: userInfo,
  currentSystemTime: z.string(),
  affiliatedHospital: z.string().nullable(),
  loginProduct: z.number().int(),
  project: z
    .object({
      id: z.number().int(),
      no: z.string(),
      name: z.string(),
      status: z.number().int(),
      role: z.string().nullable(),
      siteIds: z.array(z.number().int()).nullable(),
    })
    .nullable(),
});
export type PmsInfoResponse = z.infer<typeof pmsInfoResponse>;

export const envTypeSwitchRequest = z.object({ proType: z.enum(ENVS) });
export const envListResponse = z.array(
  z.object({ value: z.enum(ENVS), enabled: z.boolean(), current: z.boolean() }),
);

export const updatePwdRequest = z.object({
  /** SHA-256 of the current password: a password change re-authenticates (counted against the lockout) */
  oldPwd: passwordDigest,
  newPwd: passwordDigest,
  userId: idSchema,
});

export const versionResponse = z.object({ version: z.string(), commit: z.string().nullable(), buildTime: z.string() });

export const sysConfigResponse = z.object({
  storage: z.string(),
  ilink: z.string(),
  auth: z.string(),
  isource: z.string(),
  icrc: z.string(),
  igcp: z.string(),
  evisit: z.string(),
});

export const refreshResponse = z.object({ expiresAt: z.string() });

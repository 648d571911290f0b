/**
 * The system user module (module 2, /system/userSys): requests and responses shared by the web app and the
 * server, and the field rules of spec §5 (account ≤ 50; phone, mail and ID-number formats).
 */
import { z } from 'zod';
import { LIMITS } from './constants';
import { LOGIN_TYPES } from './enums';
import { idSchema, intSchema, pageRequest, pageResult } from './common.schema';

// ── field rules ──

/** Mainland-China mobile number: 11 digits starting 13–19. */
export const PHONE_PATTERN = /^1[3-9]\d{9}$/;

/** Account names: letters, digits and . _ @ - (no spaces, so that login input is unambiguous). */
export const ACCOUNT_PATTERN = /^[A-Za-z0-9._@-]+$/;

const ID_WEIGHTS = [7, 9, 10, 5, 8, 4, 2, 1, 6, 3, 7, 9, 10, 5, 8, 4, 2] as const;
const ID_CHECK_CHARS = '10X98765432';

export type IdNumberProblem = 'format' | 'birthDate' | 'checksum';

/**
 * Checks an 18-character mainland resident ID number (GB 11643-1999): 17 digits (6 area, 8 birth date
 * YYYYMMDD, 3 sequence) and a check character 0–9 or X, the ISO 7064 MOD 11-2 checksum of the first 17.
 * Returns the problem, or null when the number is valid. A lower-case x is accepted as X.
 */
export function checkIdNumber(value: string, today = new Date()): IdNumberProblem | null {
  const v = value.trim().toUpperCase();
  if (!/^\d{17}[\dX]$/.test(v)) return 'format';
  const y = Number(v.slice(6, 10));
  const m = Number(v.slice(10, 12));
  const d = Number(v.slice(12, 14));
  const birth = new Date(Date.UTC(y, m - 1, d));
  if (
    y < 1900 ||
    birth.getUTCFullYear() !== y ||
    birth.getUTCMonth() !== m - 1 ||
    birth.getUTCDate() !== d ||
    birth.getTime() > today.getTime()
  ) {
    return 'birthDate';
  }
  let sum = 0;
  for (let i = 0; i < 17; i++) sum += Number(v[i]) * ID_WEIGHTS[i]!;
  return ID_CHECK_CHARS[sum % 11] === v[17] ? null : 'checksum';
}

/** True when `value` is a valid 18-character resident ID number (format, birth date and checksum). */
export function isValidIdNumber(value: string): boolean {
  return checkIdNumber(value) === null;
}

/** Form bodies send '' for an empty optional field: treat it as absent. */
const blank = (v: unknown): unknown => (v === '' || v === null ? undefined : v);
/** A list as sent by a form (`a=1&a=2`, `a=1,2`) or JSON (`[1,2]`). */
const list = (v: unknown): unknown =>
  v === undefined || v === null || v === '' ? [] : Array.isArray(v) ? v : typeof v === 'string' ? v.split(',').map((s) => s.trim()) : [v];
const id = idSchema;
const optionalId = z.preprocess(blank, id.optional());

export const loginTypeList = z.preprocess(
  list,
  z
    .array(
      intSchema()
        .refine((n) => (LOGIN_TYPES as readonly number[]).includes(n), { message: 'validation.loginType' }),
    )
    .min(1, { message: 'validation.loginTypesRequired' })
    .max(4)
    .transform((a) => [...new Set(a)].sort()),
);

export const userAccount = z
  .string()
  .min(1)
  .max(LIMITS.accountMax)
  .regex(ACCOUNT_PATTERN, { message: 'validation.account' });

export const userPhone = z.string().regex(PHONE_PATTERN, { message: 'validation.phone' });

export const userMail = z.preprocess(blank, z.email({ message: 'validation.mail' }).max(100).optional());

export const userIdNumber = z.preprocess(
  (v) => (typeof v === 'string' ? blank(v.toUpperCase()) : blank(v)),
  z
    .string()
    .superRefine((v, ctx) => {
      const p = checkIdNumber(v);
      if (p) ctx.addIssue({ code: 'custom', message: `validation.idNumber_${p}` });
    })
    .optional(),
);

/** The fields an administrator sets on a user (add and update). */
const userFields = {
  name: z.string().min(1).max(50),
  phone: userPhone,
  mail: userMail,
  idNumber: userIdNumber,
  orgId: id,
  deptId: optionalId,
  loginTypes: loginTypeList,
  systemRoleId: optionalId,
  permissionGroupId: optionalId,
};

export const userAddRequest = z.object({ account: userAccount, ...userFields });
export type UserAddRequest = z.infer<typeof userAddRequest>;

export const userUpdateRequest = z.object({
  id,
  ...userFields,
  /** the updateTime the editor loaded; when sent, a stale write is refused */
  updateTime: z.preprocess(blank, z.string().max(40).optional()),
});
export type UserUpdateRequest = z.infer<typeof userUpdateRequest>;

export const userAddResponse = z.object({
  id: z.number().int(),
  account: z.string(),
  /** shown once so that the administrator can hand it over; the user is asked to change it at first login */
  initialPassword: z.string(),
});
export type UserAddResponse = z.infer<typeof userAddResponse>;

export const userStatusRequest = z.object({
  id,
  status: intSchema().refine((n) => n === 0 || n === 1, { message: 'validation.userStatus' }),
  reason: z.string().min(1).max(500),
});

export const userMessageRequest = z.object({
  userIds: z.preprocess(list, z.array(id).min(1).max(1000)),
  title: z.string().min(1).max(200),
  content: z.string().max(5000).default(''),
});
export const userMessageResponse = z.object({ sent: z.number().int() });

export const userDetailQuery = z.object({ id });

// ── lists ──

export const USER_SORT_FIELDS = ['account', 'name', 'orgName', 'status', 'lastLoginTime', 'createTime'] as const;

/** Filters of the user list and of its Excel export. */
export const userFilters = z.object({
  keyword: z.preprocess(blank, z.string().max(100).optional()),
  status: z.preprocess(
    blank,
    intSchema()
      .refine((n) => n === 0 || n === 1, { message: 'validation.userStatus' })
      .optional(),
  ),
  orgId: optionalId,
  loginType: z.preprocess(
    blank,
    intSchema()
      .refine((n) => (LOGIN_TYPES as readonly number[]).includes(n), { message: 'validation.loginType' })
      .optional(),
  ),
  sortField: z.preprocess(blank, z.enum(USER_SORT_FIELDS).default('createTime')),
  /** asc/desc, or antd's ascend/descend */
  sortOrder: z.preprocess(
    (v) => (v === 'ascend' ? 'asc' : v === 'descend' ? 'desc' : blank(v)),
    z.enum(['asc', 'desc']).default('desc'),
  ),
});
export type UserFilters = z.infer<typeof userFilters>;

export const userListQuery = pageRequest.extend(userFilters.shape);
export type UserListQuery = z.infer<typeof userListQuery>;
function validTimeZone(tz: string): boolean {
  try {
    new Intl.DateTimeFormat('en', { timeZone: tz });
    return true;
  } catch {
    return false;
  }
}

/** The export takes the list's filters, and the time zone its times are written in (the viewer's). */
export const userExportQuery = userFilters.extend({
  timeZone: z.preprocess(blank, z.string().max(64).refine(validTimeZone, { message: 'validation.timezone' }).default('Asia/Shanghai')),
});

export const userListRow = z.object({
  id: z.number().int(),
  account: z.string(),
  name: z.string(),
  phone: z.string().nullable(),
  mail: z.string().nullable(),
  orgId: z.number().int().nullable(),
  orgName: z.string().nullable(),
  deptId: z.number().int().nullable(),
  deptName: z.string().nullable(),
  loginTypes: z.array(z.number().int()),
  systemRoleId: z.number().int().nullable(),
  systemRoleCode: z.string().nullable(),
  systemRoleName: z.string().nullable(),
  permissionGroupId: z.number().int().nullable(),
  permissionGroupName: z.string().nullable(),
  /** 1 enabled, 0 disabled */
  status: z.number().int(),
  /** true while failed logins keep the account locked */
  locked: z.boolean(),
  lastLoginTime: z.string().nullable(),
  createTime: z.string(),
  updateTime: z.string(),
});
export type UserListRow = z.infer<typeof userListRow>;
export const userPage = pageResult(userListRow);

export const userDetail = userListRow.extend({
  idNumber: z.string().nullable(),
  imgUrl: z.string().nullable(),
  passwordChangedAt: z.string().nullable(),
});
export type UserDetail = z.infer<typeof userDetail>;

/** The small user picker (listByKeyWords). */
export const userPickerQuery = z.object({
  keyword: z.preprocess(blank, z.string().max(50).optional()),
  limit: z.preprocess(blank, intSchema(1, 50).default(20)),
});
export const userPickerRow = z.object({
  id: z.number().int(),
  account: z.string(),
  name: z.string(),
  orgName: z.string().nullable(),
});
export type UserPickerRow = z.infer<typeof userPickerRow>;

// ── Excel ──

export const templateQuery = z.object({ type: z.enum(['user']) });

/** Columns of the user import template and export, in order; headers are translated (users.columns.<key>). */
export const USER_IMPORT_COLUMNS = [
  'account',
  'name',
  'phone',
  'mail',
  'idNumber',
  'orgName',
  'deptName',
  'loginTypes',
  'systemRoleCode',
  'permissionGroupName',
] as const;
export type UserImportColumn = (typeof USER_IMPORT_COLUMNS)[number];

/** Largest import file (bytes) and number of data rows. */
export const USER_IMPORT_LIMITS = { maxBytes: 5 * 1024 * 1024, maxRows: 1000 } as const;

export const userImportResponse = z.object({
  imported: z.number().int(),
  users: z.array(z.object({ account: z.string(), initialPassword: z.string() })),
});
export type UserImportResponse = z.infer<typeof userImportResponse>;

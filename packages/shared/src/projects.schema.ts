import { z } from 'zod';
import { idSchema, intSchema, pageRequest, pageResult } from './common.schema';
import { LIMITS } from './constants';
import { CONFIG_FIVE_FUNCTION_PATTERN } from './project-features';

export const projectPageRequest = pageRequest.extend({ keyword: z.string().max(100).optional() });


export const siteRow = z.object({
  id: z.number().int(),
  siteNo: z.string(),
  name: z.string(),
  orgId: z.number().int(),
  orgName: z.string(),
  status: z.number().int(),
});
export type SiteRow = z.infer<typeof siteRow>;

export const searchRequest = z.object({
  q: z.string().min(1).max(100),
  limit: intSchema(1, 50).default(20),
});
export const searchHit = z.object({
  kind: z.enum(['project']),
  id: z.number().int(),
  no: z.string(),
  name: z.string(),
  status: z.number().int(),
});
export type SearchHit = z.infer<typeof searchHit>;

const boolish = z.preprocess((v) => (v === 'true' || v === '1' || v === 1 ? true : v === 'false' || v === '0' || v === 0 ? false : v), z.boolean());

export const projectListRequest = projectPageRequest.extend({
  status: intSchema(0, 3).optional(),
  scene: intSchema(1, 2).optional(),
  sortField: z.enum(['no', 'name', 'status', 'createTime']).default('no'),
  sortOrder: z.enum(['asc', 'desc']).default('asc'),
});

const fiveFunction = z.string().regex(CONFIG_FIVE_FUNCTION_PATTERN, { message: 'validation.configFiveFunction' });

/** Fields a data manager sets on a project (spec §3, §5: number ≤ 20, full name ≤ 100). */
export const projectInput = z.object({
  no: z.string().min(1).max(LIMITS.projectNoMax),
  name: z.string().min(1).max(LIMITS.projectNameMax),
  scene: intSchema().refine((n) => n === 1 || n === 2, { message: 'validation.scene' }),
  fileConfirmConfig: intSchema(0, 1).default(0),
  autoPrefillDisabled: boolish.default(false),
  /** five characters 0/1, one per optional function (project-features.ts FIVE_FUNCTIONS); '' = all on */
  configFiveFunction: fiveFunction.default(''),
});
export type ProjectInput = z.infer<typeof projectInput>;

/** An update changes only the fields it carries; `version` guards against lost updates. */
export const projectUpdate = z.object({
  id: idSchema,
  version: idSchema,
  no: projectInput.shape.no.optional(),
  name: projectInput.shape.name.optional(),
  scene: projectInput.shape.scene.optional(),
  fileConfirmConfig: intSchema(0, 1).optional(),
  autoPrefillDisabled: boolish.optional(),
  configFiveFunction: fiveFunction.optional(),
});
export type ProjectUpdate = z.infer<typeof projectUpdate>;

export const projectDetail = z.object({
  id: z.number().int(),
  no: z.string(),
  name: z.string(),
  status: z.number().int(),
  scene: z.number().int(),
  fileConfirmConfig: z.number().int(),
  autoPrefillDisabled: z.boolean(),
  uuidNo: z.string(),
  configFiveFunction: z.string(),
  version: z.number().int(),
  createTime: z.string(),
  updateTime: z.string(),
  roleCode: z.string().nullable(),
});
export type ProjectDetail = z.infer<typeof projectDetail>;

/** A project as the caller sees it in the project list, with their role in it. */
export const projectListRow = projectDetail.extend({ roleName: z.string().nullable() });
export type ProjectListRow = z.infer<typeof projectListRow>;
export const projectPage = pageResult(projectListRow);

export const projectStatusRequest = z.object({
  id: idSchema,
  status: intSchema(0, 3),
  reason: z.string().min(1).max(500),
});

export const projectCopyRequest = z.object({
  id: idSchema,
  no: z.string().min(1).max(LIMITS.projectNoMax),
  name: z.string().min(1).max(LIMITS.projectNameMax),
});

export const idRequest = z.object({ id: idSchema });

/**
 * POST /pro/info/resetUuid: gives the open project a new uuidNo (the id of its entry link, spec §2 guard: a /project
 * path with ?uuid= enters the project); links with the old one stop working. `version` as for an update.
 */
export const projectResetUuidRequest = z.object({ id: idSchema, version: idSchema });

// ── organisations and departments ──
export const orgInput = z.object({
  name: z.string().min(1).max(LIMITS.orgNameMax),
  code: z.string().max(50).optional(),
  address: z.string().max(200).optional(),
});
export const orgRow = z.object({
  id: z.number().int(),
  name: z.string(),
  code: z.string().nullable(),
  address: z.string().nullable(),
  status: z.number().int(),
  deptCount: z.number().int(),
  createTime: z.string(),
});
export type OrgRow = z.infer<typeof orgRow>;
export const orgPageRequest = pageRequest.extend({ keyword: z.string().max(50).optional() });
export const orgPage = pageResult(orgRow);

export const deptInput = z.object({ orgId: idSchema, name: z.string().min(1).max(50), code: z.string().max(50).optional() });
export const deptRow = z.object({ id: z.number().int(), orgId: z.number().int(), name: z.string(), code: z.string().nullable(), status: z.number().int() });
export type DeptRow = z.infer<typeof deptRow>;

// ── sites ──
export const siteInput = z.object({
  orgId: idSchema,
  siteNo: z.string().min(1).max(20),
  name: z.string().max(100).optional(),
  piUserId: idSchema.optional(),
});
export const siteUpdate = siteInput.omit({ orgId: true }).extend({ id: idSchema, status: intSchema(0, 1).optional() });
export const siteDetailRow = siteRow.extend({
  piUserId: z.number().int().nullable(),
  piName: z.string().nullable(),
  /** risk level (spec §3): 1 high, 2 middle, 3 low — the share of its forms that need SDV */
  riskLevel: z.number().int(),
});
export type SiteDetailRow = z.infer<typeof siteDetailRow>;

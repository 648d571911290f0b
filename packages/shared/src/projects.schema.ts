import { z } from 'zod';
import { pageRequest, pageResult } from './common.schema';

export const projectPageRequest = pageRequest.extend({ keyword: z.string().max(100).optional() });

/** A project as the caller sees it in the project list, with their role in it. */
export const projectListRow = z.object({
  id: z.number().int(),
  no: z.string(),
  name: z.string(),
  status: z.number().int(),
  scene: z.number().int(),
  uuidNo: z.string(),
  roleCode: z.string(),
  roleName: z.string(),
});
export type ProjectListRow = z.infer<typeof projectListRow>;
export const projectPage = pageResult(projectListRow);

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
  limit: z.coerce.number().int().min(1).max(50).default(20),
});
export const searchHit = z.object({
  kind: z.enum(['project']),
  id: z.number().int(),
  no: z.string(),
  name: z.string(),
  status: z.number().int(),
});
export type SearchHit = z.infer<typeof searchHit>;

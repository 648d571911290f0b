import { z } from 'zod';
import { idSchema, intSchema, pageRequest, pageResult } from './common.schema';

/** Centre applications (module 9, PRO only): 0 in progress, 1 passed, 2 not passed. */
export const CENTER_APPLY_STATUS = { ing: 0, pass: 1, unpass: 2 } as const;

export const centerApplyPageRequest = pageRequest.extend({
  status: intSchema(0, 2),
  keyword: z.string().max(50).optional(),
});
export const centerApplyRow = z.object({
  id: z.number().int(),
  projectId: z.number().int(),
  projectNo: z.string(),
  projectName: z.string(),
  orgId: z.number().int(),
  orgName: z.string(),
  applicantName: z.string(),
  /** who applied: they may not decide their own application (separation of duties) */
  applicantUserId: z.number().int(),
  status: z.number().int(),
  note: z.string().nullable(),
  reviewerName: z.string().nullable(),
  reviewReason: z.string().nullable(),
  reviewTime: z.string().nullable(),
  siteId: z.number().int().nullable(),
  createTime: z.string(),
});
export type CenterApplyRow = z.infer<typeof centerApplyRow>;
export const centerApplyPage = pageResult(centerApplyRow);
/** A hospital user applies for their organisation to join a project, named by its number or uuid. */
export const centerApplyRequest = z.object({ projectNo: z.string().min(1).max(40), note: z.string().max(500).optional() });
export const centerApplyReview = z.object({
  id: idSchema,
  pass: z.preprocess((v) => v === true || v === 'true' || v === '1', z.boolean()),
  reason: z.string().min(1).max(500),
  siteNo: z.string().min(1).max(20).optional(),
});

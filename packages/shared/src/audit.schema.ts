import { z } from 'zod';
import { LIMITS } from './constants';
import { pageRequest, pageResult } from './common.schema';

/** A date range of at most 90 days whose start is not after its end (spec §5). */
export const dateRange = z
  .object({
    startTime: z.coerce.date().optional(),
    endTime: z.coerce.date().optional(),
  })
  .superRefine((v, ctx) => {
    if (v.startTime && v.endTime) {
      if (v.startTime > v.endTime) ctx.addIssue({ code: 'custom', path: ['startTime'], message: 'validation.startAfterEnd' });
      else if (v.endTime.getTime() - v.startTime.getTime() > LIMITS.dateSpanDays * 86_400_000)
        ctx.addIssue({ code: 'custom', path: ['endTime'], message: 'validation.dateSpan' });
    }
  });

export const auditLogQuery = pageRequest
  .extend({
    action: z.string().max(50).optional(),
    entity: z.string().max(50).optional(),
    userId: z.coerce.number().int().positive().optional(),
    startTime: z.coerce.date().optional(),
    endTime: z.coerce.date().optional(),
  })
  .superRefine((v, ctx) => {
    const r = dateRange.safeParse({ startTime: v.startTime, endTime: v.endTime });
    if (!r.success) for (const i of r.error.issues) ctx.addIssue({ code: 'custom', path: i.path, message: i.message });
  });

export const auditLogRow = z.object({
  id: z.number().int(),
  seq: z.number().int(),
  env: z.string().nullable(),
  projectId: z.number().int().nullable(),
  siteId: z.number().int().nullable(),
  subjectId: z.number().int().nullable(),
  userId: z.number().int().nullable(),
  userName: z.string().nullable(),
  action: z.string(),
  entity: z.string(),
  entityId: z.string().nullable(),
  field: z.string().nullable(),
  oldValue: z.string().nullable(),
  newValue: z.string().nullable(),
  reason: z.string().nullable(),
  requestId: z.string().nullable(),
  ip: z.string().nullable(),
  createTime: z.string(),
});
export const auditLogPage = pageResult(auditLogRow);
export type AuditLogRow = z.infer<typeof auditLogRow>;

import { z } from 'zod';
import { LIMITS } from './constants';
import { dateTimeSchema, idSchema, pageRequest, pageResult } from './common.schema';

/** A date range of at most 90 days whose start is not after its end (spec §5). */
export const dateRange = z
  .object({
    startTime: dateTimeSchema.optional(),
    endTime: dateTimeSchema.optional(),
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
    userId: idSchema.optional(),
    startTime: dateTimeSchema.optional(),
    endTime: dateTimeSchema.optional(),
  })
  .superRefine((v, ctx) => {
    const r = dateRange.safeParse({ startTime: v.startTime, endTime: v.endTime });
    if (!r.success) for (const i of r.error.issues) ctx.addIssue({ code: 'custom', path: i.path, message: i.message });
  });

/**
 * What a row means, in the viewer's language (issue 11): the subject, visit, form and object it concerns, the field or
 * item label, old and new values as a reader knows them (option labels, names instead of ids, identifiers masked
 * as the subject list masks them), and the reason (machine reasons translated). Computed when listing; the
 * stored row is unchanged.
 */
/** One item's change inside an action's event (a form's batch save: one event, its items listed), as read. */
export const auditChangeDisplay = z.object({
  /** the item's label in the viewer's language (its code when the design has no such item) */
  field: z.string(),
  oldValue: z.string().nullable(),
  newValue: z.string().nullable(),
  reason: z.string().nullable(),
});

/** One item's change as stored (identifiers masked as on screen). */
export const auditChange = z.object({
  field: z.string(),
  oldValue: z.string().nullable(),
  newValue: z.string().nullable(),
  reason: z.string().nullable(),
  entryMode: z.number().int().optional(),
  cause: z.string().optional(),
});

export type AuditChangeRow = z.infer<typeof auditChange>;

export const auditDisplay = z.object({
  event: z.string(),
  subject: z.string().nullable(),
  site: z.string().nullable(),
  visit: z.string().nullable(),
  form: z.string().nullable(),
  /** the kind of object and its name, e.g. "Organisation" + "City Hospital" */
  entity: z.string(),
  target: z.string().nullable(),
  field: z.string().nullable(),
  oldValue: z.string().nullable(),
  newValue: z.string().nullable(),
  reason: z.string().nullable(),
  /** the item changes of an event that carries several (null on single-field events) */
  changes: z.array(auditChangeDisplay).nullable(),
});
export type AuditDisplay = z.infer<typeof auditDisplay>;

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
  changes: z.array(auditChange).nullable(),
  display: auditDisplay,
});
export const auditLogPage = pageResult(auditLogRow);
export type AuditLogRow = z.infer<typeof auditLogRow>;

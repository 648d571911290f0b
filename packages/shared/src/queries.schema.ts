/**
 * Queries (issue 13, spec §2 /project/doubtList, §4 query open / replied / closed, §7 eCRF Queries add, update,
 * detail, list, field/list, export): a question on an eCRF item, a form, a visit or a subject, answered by the site
 * and closed by the raiser. Automatic ones come from the form's own rules on save.
 */
import { z } from 'zod';
import { idSchema, intSchema, pageRequest, pageResult } from './common.schema';

/** Query statuses (spec §4): querying = open. */
export const QUERY_STATUS = { querying: 1, replied: 2, closed: 3 } as const;

/** The status tabs a permission shows (doubt:<tab>:query). */
export const QUERY_STATUS_PERMISSION = {
  1: 'doubt:querying:query',
  2: 'doubt:replied:query',
  3: 'doubt:closed:query',
} as const;

const blank = (v: unknown) => (v === '' || v === null ? undefined : v);
const text = (max: number) => z.string().trim().min(1).max(max);

/** An update action (POST /crf/query/update): from → to and the permission it needs. */
export const QUERY_ACTIONS = {
  /** the site answers (may change the item's value in the same step, with a reason) */
  reply: { from: [1], to: 2, permission: 'doubt:querying:reply' },
  /** the raiser (or a data manager) closes it, answered or not */
  close: { from: [1, 2], to: 3, permission: 'doubt:querying:close' },
  /** a closed query opened again, with the reason */
  reopen: { from: [3], to: 1, permission: 'doubt:querying:add' },
} as const;
export type QueryAction = keyof typeof QUERY_ACTIONS;

/** POST /crf/query/add: on an item (instance + variable), a form (visit + form), a visit, or a subject. */
export const queryAddRequest = z.object({
  ptsId: idSchema,
  visitId: z.preprocess(blank, idSchema.optional()),
  unscheduledId: intSchema(0).default(0),
  formId: z.preprocess(blank, idSchema.optional()),
  repeatNo: intSchema(1).default(1),
  variable: z.preprocess(blank, z.string().trim().min(1).max(40).optional()),
  text: text(1000),
});

/** POST /crf/query/update: reply, close or reopen, at the version the user saw. */
export const queryUpdateRequest = z.object({
  id: idSchema,
  version: intSchema(1),
  action: z.enum(['reply', 'close', 'reopen']),
  /** the answer, the closing note, or the reason to reopen (required for reply and reopen) */
  text: z.preprocess(blank, z.string().trim().max(1000).optional()),
  /** reply only: the item's new value (saved through the eCRF's normal path) and the reason for the change */
  value: z.unknown().optional(),
  reason: z.preprocess(blank, z.string().trim().max(500).optional()),
});

export const queryMessageView = z.object({
  id: z.number().int(),
  action: z.enum(['raise', 'reply', 'close', 'reopen', 'autoClose']),
  text: z.string().nullable(),
  oldValue: z.unknown(),
  newValue: z.unknown(),
  /** a value changed with the reply */
  changed: z.boolean(),
  userName: z.string().nullable(),
  createTime: z.string(),
});

export const queryView = z.object({
  id: z.number().int(),
  ptsId: z.number().int(),
  ptsNo: z.string(),
  siteId: z.number().int(),
  siteName: z.string(),
  visitId: z.number().int().nullable(),
  visitName: z.string().nullable(),
  unscheduledId: z.number().int(),
  formId: z.number().int().nullable(),
  formName: z.string().nullable(),
  repeatNo: z.number().int(),
  instanceId: z.number().int().nullable(),
  variable: z.string().nullable(),
  /** the item's label in the form, when the query is on an item */
  itemLabel: z.string().nullable(),
  level: z.enum(['item', 'form', 'visit', 'subject']),
  origin: z.enum(['manual', 'auto']),
  /** the question: the raiser's text, or an automatic query's rule in the reader's language */
  text: z.string(),
  status: z.number().int(),
  version: z.number().int(),
  createdBy: z.string().nullable(),
  createTime: z.string(),
  updateTime: z.string(),
  /** the newest message (answer, closing note) */
  lastMessage: z.string().nullable(),
});
export type QueryView = z.infer<typeof queryView>;

export const queryDetail = queryView.extend({
  messages: z.array(queryMessageView),
  /** the item's current value (item queries) */
  value: z.unknown(),
  /** the item's definition (item queries): how a corrected value is entered with the reply */
  field: z.unknown().nullable(),
  /** what the caller may do now */
  actions: z.array(z.enum(['reply', 'close', 'reopen'])),
});
export type QueryDetail = z.infer<typeof queryDetail>;

/** POST /crf/query/list (and /crf/query/export with the same filters). */
export const queryListRequest = pageRequest.extend({
  status: z.preprocess(blank, intSchema(1, 3).optional()),
  siteId: z.preprocess(blank, idSchema.optional()),
  ptsId: z.preprocess(blank, idSchema.optional()),
  ptsNo: z.preprocess(blank, z.string().trim().max(50).optional()),
  visitId: z.preprocess(blank, idSchema.optional()),
  /** with visitId: one occurrence of an unscheduled visit (0: the planned visit itself) */
  unscheduledId: z.preprocess(blank, intSchema(0).optional()),
  formId: z.preprocess(blank, idSchema.optional()),
  origin: z.preprocess(blank, z.enum(['manual', 'auto']).optional()),
  keyword: z.preprocess(blank, z.string().trim().max(100).optional()),
  sortOrder: z.enum(['asc', 'desc']).default('desc'),
});
export const queryPage = pageResult(queryView);
export type QueryPage = z.infer<typeof queryPage>;

/** POST /crf/query/count: per status, in the caller's scope (the tabs and the badge). */
export const queryCounts = z.object({ querying: z.number().int(), replied: z.number().int(), closed: z.number().int() });

/** POST /crf/query/field/list: the open and answered queries of one form instance, per item (the form's markers). */
export const queryFieldListRequest = z.object({ instanceId: idSchema });
export const queryFieldMarks = z.array(z.object({ variable: z.string().nullable(), open: z.number().int(), replied: z.number().int(), ids: z.array(z.number().int()) }));

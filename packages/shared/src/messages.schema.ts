import { z } from 'zod';
import { dateSchema, idListSchema, idSchema, pageRequest, pageResult } from './common.schema';

/**
 * The message centre: messages left for a user (system messages, team messages, invitations) in one
 * environment. Only the recipient reads them; the badge (POST /message/manager/badgeInfo) counts the same rows.
 */
/** query: a query raised, reopened or answered (issue 13; content `query:{json}`, worded by the web) */
/** feedback: an answer to, or the close of, the reader's feedback (issue 15 item 5; content `feedback:{json}`, worded by the web) */
export const MESSAGE_KINDS = ['system', 'team', 'invite', 'query', 'feedback'] as const;
export type MessageKind = (typeof MESSAGE_KINDS)[number];

const readFlag = z.preprocess(
  (v) => (v === true || v === 'true' || v === '1' || v === 1 ? true : v === false || v === 'false' || v === '0' || v === 0 ? false : v),
  z.boolean(),
);

export const messageListRequest = pageRequest
  .extend({
    /** true: read only, false: unread only, absent: both */
    isRead: readFlag.optional(),
    kind: z.enum(MESSAGE_KINDS).optional(),
    /** first and last day (yyyy-mm-dd, inclusive) of the sending date, in the time zone `timeZone` */
    from: dateSchema.optional(),
    to: dateSchema.optional(),
    timeZone: z.string().max(64).optional(),
    keyword: z.string().max(50).optional(),
  })
  .refine((v) => !v.from || !v.to || v.from <= v.to, { message: 'validation.startAfterEnd', path: ['from'] });
export type MessageListRequest = z.input<typeof messageListRequest>;

export const messageRow = z.object({
  id: z.number().int(),
  kind: z.string(),
  title: z.string(),
  content: z.string(),
  isRead: z.boolean(),
  createTime: z.string(),
  readTime: z.string().nullable(),
  projectId: z.number().int().nullable(),
  projectNo: z.string().nullable(),
  projectName: z.string().nullable(),
  /** who sent it (null: the system) */
  senderName: z.string().nullable(),
  senderAccount: z.string().nullable(),
});
export type MessageRow = z.infer<typeof messageRow>;
export const messagePage = pageResult(messageRow).extend({ unread: z.number().int() });
export type MessagePage = z.infer<typeof messagePage>;

export const messageIdRequest = z.object({ id: idSchema });
export const messageReadRequest = z.object({ idList: idListSchema });
export const messageReadResponse = z.object({ updated: z.number().int(), unread: z.number().int() });

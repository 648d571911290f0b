import { z } from 'zod';
import { dateSchema, idSchema, intSchema, pageRequest, pageResult } from './common.schema';

/**
 * Feedback (issue 15 item 5; spec §1 "Feedback", §2 Other screens): any logged-in user sends feedback from the user
 * menu (a category, a text, optionally a screenshot, and the page they were on); administrators list it at
 * /system/feedback (system:feedback:query), answer, close and reopen it (system:feedback:reply). An answer reaches the
 * sender as a message in the message centre; the sender also sees their own feedback and its answers ("My feedback").
 * Calls: POST /feedback/add (multipart), /feedback/mine, /feedback/page, /feedback/reply, /feedback/close,
 * /feedback/reopen; GET /feedback/detail, /feedback/screenshot, /feedback/export (docs/decisions.md "Feedback").
 */
export const FEEDBACK_CATEGORIES = ['bug', 'suggestion', 'question', 'other'] as const;
export type FeedbackCategory = (typeof FEEDBACK_CATEGORIES)[number];

/** open: nobody answered yet; answered: an administrator answered; closed: settled (with a note) */
export const FEEDBACK_STATUSES = ['open', 'answered', 'closed'] as const;
export type FeedbackStatus = (typeof FEEDBACK_STATUSES)[number];

/** What happened to a feedback after it was sent: an answer (sent to the sender), a close with its note, a reopen. */
export const FEEDBACK_REPLY_KINDS = ['answer', 'close', 'reopen'] as const;
export type FeedbackReplyKind = (typeof FEEDBACK_REPLY_KINDS)[number];

export const FEEDBACK_LIMITS = {
  /** characters of the feedback text, and of an answer or a note */
  textMax: 2000,
  /** the page path recorded with it */
  pathMax: 500,
  /** feedback one user may send in an hour */
  perHour: 10,
  /** rows of one export */
  exportMax: 100_000,
} as const;

const blank = (v: unknown): unknown => (v === '' || v === null ? undefined : v);

function validTimeZone(tz: string): boolean {
  try {
    new Intl.DateTimeFormat('en', { timeZone: tz });
    return true;
  } catch {
    return false;
  }
}

/**
 * The page the sender was on: a path only. A query string or fragment is cut off (it may hold search words or
 * identifiers); anything that is not a path of this app (no leading '/', a scheme) is not kept.
 */
export function feedbackPagePath(raw: unknown): string | undefined {
  if (typeof raw !== 'string') return undefined;
  const path = raw.split(/[?#]/, 1)[0]!.trim();
  if (!path.startsWith('/') || path.startsWith('//')) return undefined;
  return path.slice(0, FEEDBACK_LIMITS.pathMax);
}

/** The fields of POST /feedback/add (multipart with an optional `screenshot` file, or a plain form without one). */
export const feedbackAddFields = z.object({
  category: z.enum(FEEDBACK_CATEGORIES),
  content: z.string().trim().min(1).max(FEEDBACK_LIMITS.textMax),
  pagePath: z.preprocess((v) => feedbackPagePath(v), z.string().optional()),
});
export type FeedbackAddFields = z.input<typeof feedbackAddFields>;

/** One answer, close or reopen of a feedback, oldest first in a feedback's thread. */
export const feedbackReply = z.object({
  id: z.number().int(),
  kind: z.enum(FEEDBACK_REPLY_KINDS),
  content: z.string().nullable(),
  userName: z.string().nullable(),
  createTime: z.string(),
});
export type FeedbackReply = z.infer<typeof feedbackReply>;

export const feedbackRow = z.object({
  id: z.number().int(),
  category: z.enum(FEEDBACK_CATEGORIES),
  status: z.enum(FEEDBACK_STATUSES),
  content: z.string(),
  pagePath: z.string().nullable(),
  env: z.string(),
  loginType: z.number().int().nullable(),
  hasScreenshot: z.boolean(),
  userId: z.number().int(),
  userName: z.string(),
  userAccount: z.string(),
  createTime: z.string(),
  /** the last answer, close or reopen */
  updateTime: z.string(),
  updatedByName: z.string().nullable(),
  /** the row's version: reply, close and reopen send it back, and are refused when someone acted meanwhile */
  version: z.number().int(),
  replyCount: z.number().int(),
});
export type FeedbackRow = z.infer<typeof feedbackRow>;

export const feedbackDetail = feedbackRow.extend({
  replies: z.array(feedbackReply),
  language: z.string(),
  userAgent: z.string().nullable(),
  screenshotType: z.string().nullable(),
  screenshotSize: z.number().int().nullable(),
});
export type FeedbackDetail = z.infer<typeof feedbackDetail>;

export const feedbackPage = pageResult(feedbackRow);
export type FeedbackPage = z.infer<typeof feedbackPage>;
export const feedbackMinePage = pageResult(feedbackDetail);
export type FeedbackMinePage = z.infer<typeof feedbackMinePage>;

/** The administrators' list filters (the export takes the same). Days are the viewer's, in `timeZone`. */
const filterShape = {
  status: z.preprocess(blank, z.enum(FEEDBACK_STATUSES).optional()),
  category: z.preprocess(blank, z.enum(FEEDBACK_CATEGORIES).optional()),
  /** the text, the sender's name or account, or the page */
  keyword: z.preprocess(blank, z.string().max(50).optional()),
  /** first and last sending day (yyyy-mm-dd, inclusive) */
  from: z.preprocess(blank, dateSchema.optional()),
  to: z.preprocess(blank, dateSchema.optional()),
  timeZone: z.preprocess(
    blank,
    z.string().max(64).refine(validTimeZone, { message: 'validation.timezone' }).default('Asia/Shanghai'),
  ),
  /** by sending time: newest first unless asc (antd's ascend/descend too) */
  sortOrder: z.preprocess(
    (v) => (v === 'ascend' ? 'asc' : v === 'descend' ? 'desc' : blank(v)),
    z.enum(['asc', 'desc']).default('desc'),
  ),
};
const ordered = (v: { from?: string | undefined; to?: string | undefined }) =>
  !v.from || !v.to || v.from <= v.to;

export const feedbackFilters = z
  .object(filterShape)
  .refine(ordered, { message: 'validation.startAfterEnd', path: ['from'] });
export type FeedbackFilters = z.input<typeof feedbackFilters>;

export const feedbackPageRequest = pageRequest
  .extend(filterShape)
  .refine(ordered, { message: 'validation.startAfterEnd', path: ['from'] });
export type FeedbackPageRequest = z.input<typeof feedbackPageRequest>;

export const feedbackMineRequest = pageRequest;

export const feedbackIdQuery = z.object({ id: idSchema });

/** An answer (sent to the sender as a message); `version` is the one the administrator saw. */
export const feedbackReplyRequest = z.object({
  id: idSchema,
  version: intSchema(1),
  content: z.string().trim().min(1).max(FEEDBACK_LIMITS.textMax),
});
export type FeedbackReplyRequest = z.input<typeof feedbackReplyRequest>;

/** Closing needs a note (it is sent to the sender too); reopening may have one. */
export const feedbackCloseRequest = feedbackReplyRequest;
export type FeedbackCloseRequest = z.input<typeof feedbackCloseRequest>;
export const feedbackReopenRequest = z.object({
  id: idSchema,
  version: intSchema(1),
  content: z.preprocess(blank, z.string().trim().max(FEEDBACK_LIMITS.textMax).optional()),
});
export type FeedbackReopenRequest = z.input<typeof feedbackReopenRequest>;

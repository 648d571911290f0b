/**
 * Feedback (issue 15 item 5; the spec names no calls: docs/decisions.md "Feedback"). Any logged-in user sends feedback
 * and reads their own; administrators with system:feedback:query list, read and export all of it and see the
 * screenshots, those with system:feedback:reply answer, close and reopen. A screenshot is served only to its sender and
 * to the administrators (anyone else: 404, as if it did not exist).
 */
import { z } from 'zod';
import {
  feedbackAddFields,
  feedbackCloseRequest,
  feedbackDetail,
  feedbackFilters,
  feedbackIdQuery,
  feedbackMinePage,
  feedbackMineRequest,
  feedbackPage,
  feedbackPageRequest,
  feedbackReopenRequest,
  feedbackReplyRequest,
} from '@esource/shared';
import type { AppDeps } from '../../app-deps';
import { contentDisposition, downloadStamp, XLSX_MIME } from '../../lib/excel';
import { translator } from '../../lib/i18n';
import { IMAGE_READ_MAX, readImageUpload } from '../../lib/image-upload';
import { offsetOf, pageOf } from '../../lib/page';
import { defineRoute, type RouteSpec } from '../../lib/route';
import { parseInput } from '../../lib/validate';
import { fileStoreOf } from '../documents/file-store';
import { FeedbackService } from './feedback.service';
import { prepareScreenshot, screenshotMime, screenshotTooLarge } from './screenshot';

const ANY = { permission: 'any', scope: 'system' } as const;
const QUERY = { permission: { anyOf: ['system:feedback:query'] }, scope: 'system' } as const;
const REPLY = { permission: { anyOf: ['system:feedback:reply'] }, scope: 'system' } as const;
const tags = ['feedback'];
export function feedbackRoutes({ database, config }: AppDeps): RouteSpec[] {
  const svc = new FeedbackService(database.db, fileStoreOf(config));
  return [
    defineRoute({
      method: 'POST',
      url: '/feedback/add',
      guard: ANY,
      summary:
        'Send feedback (multipart: category bug|suggestion|question|other, content ≤ 2,000 characters, pagePath, optional `screenshot` PNG/JPG ≤ 2 MB checked by content); at most 10 an hour per user',
      tags,
      bodyType: 'multipart',
      bodyLimit: IMAGE_READ_MAX + 64 * 1024,
      response: feedbackDetail,
      handler: async ({ ctx, req }) => {
        const { fields, bytes } = await readImageUpload(req, () => screenshotTooLarge(ctx.language));
        const input = parseInput(feedbackAddFields, fields, ctx.language, 'body');
        // before the screenshot is checked and stored: a flood stores nothing
        await svc.checkFlood(ctx);
        const screenshot = bytes ? await prepareScreenshot(ctx.language, bytes) : null;
        return svc.add(ctx, { fields: input, screenshot, userAgent: req.headers['user-agent'] });
      },
    }),
    defineRoute({
      method: 'POST',
      url: '/feedback/mine',
      guard: ANY,
      summary: "The caller's own feedback with its answers, newest first, paged",
      tags,
      body: feedbackMineRequest,
      response: feedbackMinePage,
      handler: async ({ ctx, body }) => {
        const { total, rows } = await svc.mine(ctx, body.pageSize, offsetOf(body));
        return pageOf(body, total, rows);
      },
    }),
    defineRoute({
      method: 'POST',
      url: '/feedback/page',
      guard: QUERY,
      summary:
        'All feedback: status, category, keyword and sending-day filters, by sending time, paged 50/100/200',
      tags,
      body: feedbackPageRequest,
      response: feedbackPage,
      handler: async ({ body }) => {
        const { pageNumber, pageSize, ...filters } = body;
        const { total, rows } = await svc.page(filters, pageSize, offsetOf(body));
        return pageOf({ pageNumber, pageSize }, total, rows);
      },
    }),
    defineRoute({
      method: 'GET',
      url: '/feedback/detail',
      guard: ANY,
      summary:
        'One feedback with its answers: for its sender or a feedback administrator (404 for anyone else)',
      tags,
      query: feedbackIdQuery,
      response: feedbackDetail,
      handler: ({ ctx, query }) => svc.detail(ctx, query.id),
    }),
    defineRoute({
      method: 'GET',
      url: '/feedback/screenshot',
      guard: ANY,
      summary:
        "A feedback's screenshot: for its sender or a feedback administrator (404 for anyone else); an administrator's look is audited",
      tags,
      query: feedbackIdQuery,
      response: z.unknown(),
      raw: true,
      handler: async ({ ctx, query, reply }) => {
        const bytes = await svc.screenshot(ctx, query.id);
        const mime = screenshotMime(bytes);
        await reply
          .header('content-type', mime)
          .header('cache-control', 'private, no-store')
          .header(
            'content-disposition',
            `inline; filename="feedback-${query.id}.${mime === 'image/png' ? 'png' : 'jpg'}"`,
          )
          .send(bytes);
        return undefined;
      },
    }),
    defineRoute({
      method: 'POST',
      url: '/feedback/reply',
      guard: REPLY,
      summary:
        'Answer a feedback (sent to the sender as a message); refused when someone acted on it since `version`, or when it is closed',
      tags,
      body: feedbackReplyRequest,
      response: feedbackDetail,
      handler: ({ ctx, body }) => svc.answer(ctx, body),
    }),
    defineRoute({
      method: 'POST',
      url: '/feedback/close',
      guard: REPLY,
      summary:
        'Close a feedback with a note (sent to the sender as a message); refused when stale or already closed',
      tags,
      body: feedbackCloseRequest,
      response: feedbackDetail,
      handler: ({ ctx, body }) => svc.close(ctx, body),
    }),
    defineRoute({
      method: 'POST',
      url: '/feedback/reopen',
      guard: REPLY,
      summary: 'Reopen a closed feedback (optional note); refused when stale or not closed',
      tags,
      body: feedbackReopenRequest,
      response: feedbackDetail,
      handler: ({ ctx, body }) => svc.reopen(ctx, body),
    }),
    defineRoute({
      method: 'GET',
      url: '/feedback/export',
      guard: QUERY,
      summary:
        'The filtered feedback list as .xlsx (streamed; the list filters and the time zone of its times)',
      tags,
      query: feedbackFilters,
      response: z.null(),
      raw: true,
      handler: async ({ ctx, query, reply }) => {
        const stream = await svc.export(ctx, query);
        const name = `${translator(ctx.language)('feedback.export.fileName')}-${downloadStamp()}.xlsx`;
        void reply
          .header('content-type', XLSX_MIME)
          .header('content-disposition', contentDisposition(name, `feedback-${downloadStamp()}.xlsx`))
          .header('cache-control', 'no-store')
          .send(stream);
        return null;
      },
    }),
  ];
}

/**
 * HL7 v2 messages (issue 11 item 1): the project's list with its dead letters, the raw message, replay and the
 * badge count (source:config:query to read, source:config:update to replay); the same for messages no project could
 * be found for under /system (system:config:query / system:config:update).
 */
import { hl7MessageCount, hl7MessageDetail, hl7MessageIdRequest, hl7MessageListRequest, hl7MessagePage, hl7MessageRow } from '@esource/shared';
import type { AppDeps } from '../../app-deps';
import { defineRoute, type RouteSpec } from '../../lib/route';
import { Hl7Intake } from './hl7-intake';
import { countMessages, listMessages, messageDetail, projectScope, replayMessage, type Hl7Scope } from './hl7.service';

export function hl7Routes({ database }: AppDeps): RouteSpec[] {
  const db = database.db;
  const intake = new Hl7Intake(db);
  const read = { anyOf: ['source:config:query', 'source:config:update'] } as const;
  const update = { anyOf: ['source:config:update'] } as const;
  const sysRead = { anyOf: ['system:config:query', 'system:config:update'] } as const;
  const sysUpdate = { anyOf: ['system:config:update'] } as const;
  const system: Hl7Scope = { system: true };
  return [
    defineRoute({
      method: 'POST',
      url: '/project/hl7/message/list',
      guard: { permission: read, scope: 'project' },
      summary: "HL7 v2 messages routed to the project in this environment, newest first: status, type, control id and date filters, paged",
      tags: ['hl7'],
      body: hl7MessageListRequest,
      response: hl7MessagePage,
      handler: async ({ ctx, body }) => listMessages(db, projectScope(ctx), body),
    }),
    defineRoute({
      method: 'POST',
      url: '/project/hl7/message/detail',
      guard: { permission: read, scope: 'project' },
      summary: 'One HL7 v2 message as received (text and segments); the read is audited',
      tags: ['hl7'],
      body: hl7MessageIdRequest,
      response: hl7MessageDetail,
      handler: async ({ ctx, body }) => messageDetail(db, projectScope(ctx), body.id, ctx),
    }),
    defineRoute({
      method: 'POST',
      url: '/project/hl7/message/replay',
      guard: { permission: update, scope: 'project' },
      summary: 'Processes a dead letter again (after its connection or mapping was fixed); audited, idempotent',
      tags: ['hl7'],
      body: hl7MessageIdRequest,
      response: hl7MessageRow,
      handler: async ({ ctx, body }) => replayMessage(db, intake, projectScope(ctx), body.id, ctx),
    }),
    defineRoute({
      method: 'POST',
      url: '/project/hl7/message/count',
      guard: { permission: read, scope: 'project' },
      summary: "Dead letters and unprocessed messages of the project in this environment (the menu's badge)",
      tags: ['hl7'],
      response: hl7MessageCount,
      handler: async ({ ctx }) => countMessages(db, projectScope(ctx)),
    }),
    defineRoute({
      method: 'POST',
      url: '/system/hl7/message/list',
      guard: { permission: sysRead, scope: 'system' },
      summary: 'HL7 v2 messages no project could be found for (unknown sender, unreadable header), newest first',
      tags: ['hl7'],
      body: hl7MessageListRequest,
      response: hl7MessagePage,
      handler: async ({ body }) => listMessages(db, system, body),
    }),
    defineRoute({
      method: 'POST',
      url: '/system/hl7/message/detail',
      guard: { permission: sysRead, scope: 'system' },
      summary: 'One HL7 v2 message with no project, as received; the read is audited',
      tags: ['hl7'],
      body: hl7MessageIdRequest,
      response: hl7MessageDetail,
      handler: async ({ ctx, body }) => messageDetail(db, system, body.id, ctx),
    }),
    defineRoute({
      method: 'POST',
      url: '/system/hl7/message/replay',
      guard: { permission: sysUpdate, scope: 'system' },
      summary: 'Processes a dead letter with no project again (e.g. after its connection was added); audited',
      tags: ['hl7'],
      body: hl7MessageIdRequest,
      response: hl7MessageRow,
      handler: async ({ ctx, body }) => replayMessage(db, intake, system, body.id, ctx),
    }),
    defineRoute({
      method: 'POST',
      url: '/system/hl7/message/count',
      guard: { permission: sysRead, scope: 'system' },
      summary: 'Dead letters and unprocessed messages with no project (badge)',
      tags: ['hl7'],
      response: hl7MessageCount,
      handler: async () => countMessages(db, system),
    }),
  ];
}

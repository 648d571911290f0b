/**
 * Routes of the desensitization configuration (issue 12, spec §2 /project/ocrProConfig): the open project's keywords
 * and policy for the request's environment, and a try-out. Read: source:config:query/update or source:file:query (who
 * uploads source documents may see what is hidden in them); write: source:config:update (the data manager's).
 */
import {
  deidKeywordAddRequest,
  deidKeywordDeleteRequest,
  deidKeywordImportRequest,
  deidKeywordImportResult,
  deidKeywordListRequest,
  deidKeywordPage,
  deidKeywordRow,
  deidPolicySaveRequest,
  deidPolicyView,
  deidTestRequest,
  deidTestResult,
} from '@esource/shared';
import { z } from 'zod';
import type { AppDeps } from '../../app-deps';
import { AppError } from '../../lib/errors';
import { defineRoute, type RouteSpec } from '../../lib/route';
import { DeidConfigService } from './deid-config.service';

const READ = {
  permission: { anyOf: ['source:config:query', 'source:config:update', 'source:file:query'] },
  scope: 'project',
} as const;
const WRITE = { permission: { anyOf: ['source:config:update'] }, scope: 'project' } as const;
const BASE = '/project/desensitization';

export function deidConfigRoutes({ database }: AppDeps): RouteSpec[] {
  const svc = new DeidConfigService(database.db);
  const tags = ['deid-config'];
  return [
    defineRoute({
      method: 'POST',
      url: `${BASE}/keyword/list`,
      guard: READ,
      summary:
        "A page of the project's desensitization keywords (this environment), newest first, filtered by text",
      tags,
      body: deidKeywordListRequest,
      response: deidKeywordPage,
      handler: ({ ctx, body }) => svc.listKeywords(ctx, body),
    }),
    defineRoute({
      method: 'POST',
      url: `${BASE}/keyword/add`,
      guard: WRITE,
      summary:
        'Add a keyword (1..100 characters, one line); the same text in any letter case is DUPLICATE; at most 2000 per project',
      tags,
      body: deidKeywordAddRequest,
      response: deidKeywordRow,
      handler: ({ ctx, body }) => svc.addKeyword(ctx, body),
    }),
    defineRoute({
      method: 'POST',
      url: `${BASE}/keyword/delete`,
      guard: WRITE,
      summary: 'Delete a keyword',
      tags,
      body: deidKeywordDeleteRequest,
      response: z.object({ id: z.number().int() }),
      handler: ({ ctx, body }) => svc.deleteKeyword(ctx, body.id),
    }),
    defineRoute({
      method: 'POST',
      url: `${BASE}/keyword/import`,
      guard: WRITE,
      summary:
        'Import keywords, one per line, all or nothing: bad lines refuse the import (IMPORT_FORMAT naming them); known or repeated ones are skipped',
      tags,
      body: deidKeywordImportRequest,
      response: deidKeywordImportResult,
      handler: ({ ctx, body }) => svc.importKeywords(ctx, body.text),
    }),
    defineRoute({
      method: 'GET',
      url: `${BASE}/policy`,
      guard: READ,
      summary: "The project's de-identification policy (version 0 = never saved: the defaults)",
      tags,
      response: deidPolicyView,
      handler: ({ ctx }) => svc.policy(ctx),
    }),
    defineRoute({
      method: 'POST',
      url: `${BASE}/policy/save`,
      guard: WRITE,
      summary: 'Save the policy over the version read (STALE_WRITE when someone saved since)',
      tags,
      body: deidPolicySaveRequest,
      response: deidPolicyView,
      handler: ({ ctx, body }) => svc.savePolicy(ctx, body),
    }),
    defineRoute({
      method: 'POST',
      url: `${BASE}/test`,
      guard: READ,
      summary:
        "What automatic de-identification would hide in a text (≤ 5000 characters) with the project's keywords and policy",
      tags,
      body: deidTestRequest,
      response: deidTestResult,
      handler: async ({ ctx, body }) => svc.test(ctx, body.text),
    }),
    // spec §7 names these two and nothing more (no inputs, results or the knowledge base behind them): they answer
    // that no KBMS is connected, naming where the same settings live here (docs/decisions.md "The KBMS calls")
    ...(['syncKBMSListDirectDescendant', 'getMapProductRelationship'] as const).map((name) =>
      defineRoute({
        method: 'POST',
        url: `/dwd/doc/desensitization/ai/${name}`,
        guard: READ,
        summary: `KBMS ${name}: refused (KBMS_NOT_CONNECTED), as no knowledge-base system is connected to this installation`,
        tags,
        response: z.null(),
        handler: () => Promise.reject(new AppError('KBMS_NOT_CONNECTED')),
      }),
    ),
  ];
}

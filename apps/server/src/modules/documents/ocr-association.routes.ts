/**
 * OCR association (issue 12 item 6; spec §7 /kbms/ai/kbmsCrfRules): propose eCRF values from the lab results read
 * on a source document. Needs the hospital path's pre-fill execute permission and the right to see source files;
 * the proposals are reviewed and accepted in the pre-fill review (/crf/prefill/*).
 */
import { ocrAssociationRequest, ocrAssociationResult } from '@esource/shared';
import { defineRoute, type RouteSpec } from '../../lib/route';
import type { AppDeps } from '../../app-deps';
import { OcrAssociationService } from './ocr-association.service';

const ASSOCIATE = {
  permission: { allOf: ['crf:prefill:execute', 'source:file:query'] },
  scope: 'project',
} as const;

export function ocrAssociationRoutes({ database }: AppDeps): RouteSpec[] {
  const svc = new OcrAssociationService(database.db);
  return [
    defineRoute({
      method: 'POST',
      url: '/kbms/ai/kbmsCrfRules',
      guard: ASSOCIATE,
      summary:
        "Propose eCRF values from a source file's OCR text (lab results matched through mapping rules and synonyms); idempotent",
      tags: ['documents'],
      body: ocrAssociationRequest,
      response: ocrAssociationResult,
      handler: ({ ctx, body }) => svc.associate(ctx, body),
    }),
  ];
}

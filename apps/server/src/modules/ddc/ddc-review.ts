/**
 * The end of the site's review of a participant's answers (shared forms): the link records who reviewed and how
 * (accepted as they are, or corrected through the normal entry path), in the caller's transaction, audited. The eCRF
 * save calls it when a site user saves a form that waits for review; the accept action of modules/ddc calls it too.
 * It imports nothing of the eCRF module, so that both may use it.
 */
import { and, eq } from 'drizzle-orm';
import type { Tx } from '../../db/client';
import { ddcShareLinks } from '../../db/schema';
import { recordAudit, type AuditActor } from '../audit/audit.service';

export type ReviewOutcome = 'accepted' | 'corrected';

export async function endReview(
  tx: Tx,
  actor: AuditActor,
  shareId: number,
  outcome: ReviewOutcome,
  inst: { id: number; projectId: number; siteId: number; subjectId: number },
): Promise<void> {
  await tx
    .update(ddcShareLinks)
    .set({ review: outcome, reviewedBy: actor.userId, reviewedAt: new Date() })
    .where(and(eq(ddcShareLinks.id, shareId), eq(ddcShareLinks.review, 'pending')));
  await recordAudit(tx, actor, [
    {
      action: 'ddc.review',
      entity: 'ddc_share_link',
      entityId: shareId,
      projectId: inst.projectId,
      siteId: inst.siteId,
      subjectId: inst.subjectId,
      field: 'review',
      oldValue: 'pending',
      newValue: outcome,
    },
  ]);
}

/**
 * "A value changed after verification loses its mark and is listed again" (issue 13 item 1): called by the eCRF save
 * inside its transaction for the items whose value changed. Their SDV marks and the form's SDR mark become lost
 * (status 2), audited; the verification list shows them again.
 */
import { and, eq, inArray, isNull, or, sql } from 'drizzle-orm';
import { MARK_STATUS } from '@esource/shared';
import type { Tx } from '../../db/client';
import { verificationMarks } from '../../db/schema';
import { recordAudit, type AuditActor } from '../audit/audit.service';

export async function loseMarks(tx: Tx, actor: AuditActor, inst: { id: number; projectId: number; siteId: number; subjectId: number }, changed: readonly string[]): Promise<void> {
  if (changed.length === 0) return;
  const lost = await tx
    .update(verificationMarks)
    .set({ status: MARK_STATUS.lost, endedBy: actor.userId, endedAt: sql`now()` })
    .where(
      and(
        eq(verificationMarks.instanceId, inst.id),
        eq(verificationMarks.status, MARK_STATUS.active),
        or(and(eq(verificationMarks.kind, 'sdv'), inArray(verificationMarks.variable, [...changed])), and(eq(verificationMarks.kind, 'sdr'), isNull(verificationMarks.variable))),
      ),
    )
    .returning({ id: verificationMarks.id, variable: verificationMarks.variable, kind: verificationMarks.kind });
  if (lost.length === 0) return;
  await recordAudit(
    tx,
    actor,
    lost.map((m) => ({ action: 'verification.lost', entity: 'verificationMark', entityId: m.id, projectId: inst.projectId, siteId: inst.siteId, subjectId: inst.subjectId, field: m.variable, oldValue: m.kind })),
  );
}

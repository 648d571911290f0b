/**
 * "A value changed after verification loses its mark and is listed again" (issue 13 item 1): the eCRF save, inside
 * its transaction, for the items whose value changed. Their SDV marks and the form's SDR mark become lost (status 2),
 * audited; the verification list shows them again. The update is a statement the save sends together with its values
 * (issue 16: one round trip, not two); the audit of what it returned follows it.
 */
import { and, eq, inArray, isNull, or, sql, type SQL } from 'drizzle-orm';
import { MARK_STATUS } from '@esource/shared';
import type { Tx } from '../../db/client';
import { verificationMarks } from '../../db/schema';
import { recordAudit, type AuditActor } from '../audit/audit.service';

export interface LostMark {
  id: number;
  variable: string | null;
  kind: string;
}

/** The update that ends the instance's marks the changed items lose, returning them (id, variable, kind); `guard` is ANDed to its condition. */
export function loseMarksStatement(actor: AuditActor, instanceId: number, changed: readonly string[], guard?: SQL): SQL {
  const m = verificationMarks;
  const where = and(
    eq(m.instanceId, instanceId),
    eq(m.status, MARK_STATUS.active),
    or(and(eq(m.kind, 'sdv'), inArray(m.variable, [...changed])), and(eq(m.kind, 'sdr'), isNull(m.variable))),
    guard,
  );
  return sql`update ${m} set status = ${MARK_STATUS.lost}, ended_by = ${actor.userId}, ended_at = now() where ${where}
    returning id::float8 as "id", variable, kind`;
}

/** Audits the marks a save's update ended. */
export async function auditLostMarks(tx: Tx, actor: AuditActor, inst: { projectId: number; siteId: number; subjectId: number }, lost: readonly LostMark[]): Promise<void> {
  if (lost.length === 0) return;
  await recordAudit(
    tx,
    actor,
    lost.map((m) => ({ action: 'verification.lost', entity: 'verificationMark', entityId: m.id, projectId: inst.projectId, siteId: inst.siteId, subjectId: inst.subjectId, field: m.variable, oldValue: m.kind })),
  );
}

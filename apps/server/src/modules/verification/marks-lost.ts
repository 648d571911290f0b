/**
 * "A value changed after verification loses its mark and is listed again" (issue 13 item 1): the eCRF save, inside
 * its transaction, for the items whose value changed. Their SDV marks and the form's SDR mark become lost (status 2),
 * audited; the verification list shows them again. The update is part of the save's write statement (the `lost` CTE
 * of WRITE_SAVE_UPDATE in modules/ecrf/ecrf.service.ts: one round trip with the values); the audit of the marks it
 * returned follows here.
 */
import type { Tx } from '../../db/client';
import { recordAudit, type AuditActor } from '../audit/audit.service';

export interface LostMark {
  id: number;
  variable: string | null;
  kind: string;
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

/**
 * Automatic queries (issue 13): raised by a save that keeps a value outside its soft range, closed automatically when
 * a later save corrects it. Called by the eCRF's save inside its transaction (modules/ecrf), so it imports nothing of
 * the queries' service.
 */
import { and, eq, ne } from 'drizzle-orm';
import { QUERY_STATUS, projectFunctionOn } from '@esource/shared';
import type { Tx } from '../../db/client';
import { projects, queries, queryMessages } from '../../db/schema';
import { recordAudit, type AuditActor, type AuditEntry } from '../audit/audit.service';

const Q = QUERY_STATUS;

/** An item a save kept, with the soft-rule warning it carries (null: none) and that warning's parameters. */
export interface SavedItemQuality {
  variable: string;
  quality: string | null;
  params?: Record<string, string | number>;
}

/**
 * Automatic queries of one form instance after a save (called inside the save's transaction): an item kept with a
 * soft-rule warning ('range') opens a query (one per item and rule while not closed); an item saved without one
 * closes the open automatic queries on it ("closed automatically when the value is corrected").
 */
export async function syncAutoQueries(
  tx: Tx,
  actor: AuditActor,
  inst: { id: number; env: string; projectId: number; siteId: number; subjectId: number; visitId: number; unscheduledId: number; formId: number; repeatNo: number },
  items: readonly SavedItemQuality[],
  opts: { raise: boolean } = { raise: true },
): Promise<void> {
  if (items.length === 0) return;
  // a project whose configFiveFunction switches queries off raises none (open ones are still closed when corrected)
  let raise = opts.raise;
  if (raise && items.some((it) => it.quality)) {
    const [p] = await tx.select({ scene: projects.scene, configFiveFunction: projects.configFiveFunction }).from(projects).where(eq(projects.id, inst.projectId));
    raise = !p || projectFunctionOn(p, 'queries');
  }
  const open = await tx
    .select({ id: queries.id, variable: queries.variable, rule: queries.rule, version: queries.version })
    .from(queries)
    .where(and(eq(queries.instanceId, inst.id), eq(queries.origin, 'auto'), ne(queries.status, Q.closed)));
  const openKey = new Set(open.map((o) => `${o.variable}\u0000${o.rule}`));
  const audits: AuditEntry[] = [];
  for (const it of items) {
    if (raise && it.quality && !openKey.has(`${it.variable}\u0000${it.quality}`)) {
      const [q] = await tx
        .insert(queries)
        .values({
          env: inst.env,
          projectId: inst.projectId,
          siteId: inst.siteId,
          subjectId: inst.subjectId,
          visitId: inst.visitId,
          unscheduledId: inst.unscheduledId,
          formId: inst.formId,
          repeatNo: inst.repeatNo,
          instanceId: inst.id,
          variable: it.variable,
          origin: 'auto',
          rule: it.quality,
          params: it.params ?? null,
          status: Q.querying,
          createdBy: actor.userId,
          updatedBy: actor.userId,
        })
        .onConflictDoNothing()
        .returning({ id: queries.id });
      if (!q) continue;
      await tx.insert(queryMessages).values({ queryId: q.id, action: 'raise', userId: null, userName: null });
      audits.push({ action: 'query.auto', entity: 'query', entityId: q.id, projectId: inst.projectId, siteId: inst.siteId, subjectId: inst.subjectId, field: it.variable, newValue: it.params ?? null });
    }
    const stale = open.filter((o) => o.variable === it.variable && o.rule !== it.quality);
    for (const o of stale) {
      const now = new Date();
      const [closed] = await tx
        .update(queries)
        .set({ status: Q.closed, version: o.version + 1, updatedBy: actor.userId, updatedAt: now, closedBy: actor.userId, closedAt: now })
        .where(and(eq(queries.id, o.id), ne(queries.status, Q.closed)))
        .returning({ id: queries.id });
      if (!closed) continue;
      await tx.insert(queryMessages).values({ queryId: o.id, action: 'autoClose', userId: null, userName: null });
      audits.push({ action: 'query.autoClose', entity: 'query', entityId: o.id, projectId: inst.projectId, siteId: inst.siteId, subjectId: inst.subjectId, field: it.variable, oldValue: o.rule });
    }
  }
  if (audits.length) await recordAudit(tx, actor, audits);
}

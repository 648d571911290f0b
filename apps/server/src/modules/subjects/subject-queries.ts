/**
 * Query counts on the subject list and on a subject's visits (issue 13 item 2: "query markers and counts on the form,
 * the visit and the subject list"). They count what the query list would show the caller: its project, environment
 * and sites (the query's site, as the list scopes it), open (1) and replied (2) queries in the statuses its
 * permissions show (doubt:querying:query, doubt:replied:query). A caller that sees neither gets no counts (null).
 * One grouped read each, over the given subjects only (index queries_subject, migration 0028).
 */
import { and, eq, inArray, isNotNull, sql } from 'drizzle-orm';
import {
  QUERY_STATUS,
  QUERY_STATUS_PERMISSION,
  type QueryTally,
  type VisitQueryTally,
} from '@esource/shared';
import type { Db, Tx } from '../../db/client';
import { queries } from '../../db/schema';
import type { ProjectScopedContext } from '../../lib/context';
import { siteScope } from '../../lib/site-scope';

/** The counted statuses the caller may see; empty: it gets no counts. */
export function countedQueryStatuses(ctx: ProjectScopedContext): number[] {
  return [QUERY_STATUS.querying, QUERY_STATUS.replied].filter((s) => ctx.pms.has(QUERY_STATUS_PERMISSION[s]));
}

const open = sql<number>`count(*) filter (where ${queries.status} = ${QUERY_STATUS.querying})`.mapWith(
  Number,
);
const replied = sql<number>`count(*) filter (where ${queries.status} = ${QUERY_STATUS.replied})`.mapWith(
  Number,
);

function where(ctx: ProjectScopedContext, statuses: number[]) {
  return and(
    eq(queries.projectId, ctx.project.id),
    eq(queries.env, ctx.env),
    siteScope(queries.siteId, ctx),
    inArray(queries.status, statuses),
  );
}

/**
 * The counts of these subjects (already in the caller's scope: a page of the list), zero for a subject without any;
 * null when the caller may see neither open nor replied queries.
 */
export async function subjectQueryTallies(
  db: Db | Tx,
  ctx: ProjectScopedContext,
  subjectIds: readonly number[],
): Promise<Map<number, QueryTally> | null> {
  const statuses = countedQueryStatuses(ctx);
  if (statuses.length === 0) return null;
  const out = new Map<number, QueryTally>(subjectIds.map((id) => [id, { open: 0, replied: 0 }]));
  if (subjectIds.length === 0) return out;
  const rows = await db
    .select({ subjectId: queries.subjectId, open, replied })
    .from(queries)
    .where(and(inArray(queries.subjectId, [...subjectIds]), where(ctx, statuses)))
    .groupBy(queries.subjectId);
  for (const r of rows) out.set(r.subjectId, { open: r.open, replied: r.replied });
  return out;
}

/** The counts of one subject's visit occurrences that have open or replied queries (on the visit or anything in it). */
export async function visitQueryTallies(
  db: Db | Tx,
  ctx: ProjectScopedContext,
  subjectId: number,
): Promise<VisitQueryTally[]> {
  const statuses = countedQueryStatuses(ctx);
  if (statuses.length === 0) return [];
  const rows = await db
    .select({ visitId: queries.visitId, unscheduledId: queries.unscheduledId, open, replied })
    .from(queries)
    .where(and(eq(queries.subjectId, subjectId), isNotNull(queries.visitId), where(ctx, statuses)))
    .groupBy(queries.visitId, queries.unscheduledId)
    .orderBy(queries.visitId, queries.unscheduledId);
  return rows.map((r) => ({
    visitId: r.visitId!,
    unscheduledId: r.unscheduledId,
    open: r.open,
    replied: r.replied,
  }));
}

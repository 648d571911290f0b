/**
 * The sites a caller reaches in its project: every site (siteIds null: central roles) or its own sites, narrowed to
 * the one site the request names (proSiteId header) when it names one. The subject list and the ISF use this rule.
 */
import { and, eq, inArray, type SQL } from 'drizzle-orm';
import type { PgColumn } from 'drizzle-orm/pg-core';
import type { ProjectScopedContext } from './context';

/** A condition on a site id column, or undefined when every site is reached. */
export function siteScope(col: PgColumn, ctx: ProjectScopedContext): SQL | undefined {
  const ids = ctx.project.siteIds;
  return and(ids === null ? undefined : inArray(col, ids.length ? ids : [-1]), ctx.siteId !== null ? eq(col, ctx.siteId) : undefined);
}

/** Whether the caller reaches one site (the same rule in code). */
export function reachesSite(siteId: number, ctx: ProjectScopedContext): boolean {
  return (ctx.project.siteIds === null || ctx.project.siteIds.includes(siteId)) && (ctx.siteId === null || ctx.siteId === siteId);
}

/**
 * Data access of the desensitization configuration (deid_keywords, deid_policies), per project and environment. The
 * de-identification job reads a project's keywords and policy through loadDeidSettings.
 */
import { and, count, desc, eq, ilike, sql, type SQL } from 'drizzle-orm';
import {
  DEFAULT_DEID_POLICY,
  DEID_KEYWORDS_MAX,
  type DeidPolicyFlags,
  type DeidPolicyKey,
  type DeidSpanKind,
} from '@esource/shared';
import type { DeidKind, DeidPolicy } from '@esource/deid';
import type { DbOrTx, Tx } from '../../db/client';
import { deidKeywords, deidPolicies, users } from '../../db/schema';
import { likeOf } from '../../lib/sql';

/** True only when A and B are the same union: the shared lists must name exactly what packages/deid knows. */
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
/** compile-time check: DEID_SPAN_KINDS (shared) = DeidKind (packages/deid) */
export const SPAN_KINDS_AGREE: Same<DeidKind, DeidSpanKind> = true;
/** compile-time check: DEID_POLICY_KEYS (shared) = the keys of DeidPolicy (packages/deid) */
export const POLICY_KEYS_AGREE: Same<keyof DeidPolicy, DeidPolicyKey> = true;

/** Where a project's rows of one environment are. */
export interface DeidScope {
  projectId: number;
  env: string;
}

export type KeywordRow = typeof deidKeywords.$inferSelect;
export type PolicyRow = typeof deidPolicies.$inferSelect;

const ofScope = (s: DeidScope): SQL =>
  and(eq(deidKeywords.projectId, s.projectId), eq(deidKeywords.env, s.env))!;

/**
 * Serialises the writers of one project's keywords (add, import): the count against DEID_KEYWORDS_MAX and the insert
 * happen under it, so two imports at once cannot pass the limit together.
 */
export async function lockKeywords(tx: Tx, s: DeidScope): Promise<void> {
  await tx.execute(sql`select pg_advisory_xact_lock(hashtext(${`deid_keywords:${s.projectId}:${s.env}`}))`);
}

export async function countKeywords(db: DbOrTx, s: DeidScope, keyword?: string): Promise<number> {
  const [r] = await db
    .select({ n: count() })
    .from(deidKeywords)
    .where(and(ofScope(s), keyword ? ilike(deidKeywords.keyword, likeOf(keyword)) : undefined));
  return r?.n ?? 0;
}

/** A page of keywords, newest first, with the name of who added each. */
export function pageKeywords(
  db: DbOrTx,
  s: DeidScope,
  keyword: string | undefined,
  limit: number,
  offset: number,
) {
  return db
    .select({ k: deidKeywords, by: users.name })
    .from(deidKeywords)
    .leftJoin(users, eq(users.id, deidKeywords.createdBy))
    .where(and(ofScope(s), keyword ? ilike(deidKeywords.keyword, likeOf(keyword)) : undefined))
    .orderBy(desc(deidKeywords.id))
    .limit(limit)
    .offset(offset);
}

/** Of the given keywords, those the project already has (lower-cased). */
export async function existingKeywords(
  db: DbOrTx,
  s: DeidScope,
  keywords: readonly string[],
): Promise<Set<string>> {
  if (keywords.length === 0) return new Set();
  const lowered = keywords.map((k) => k.toLowerCase());
  const rows = await db
    .select({ k: sql<string>`lower(${deidKeywords.keyword})` })
    .from(deidKeywords)
    .where(and(ofScope(s), sql`lower(${deidKeywords.keyword}) = any(${sql.param(lowered)}::text[])`));
  return new Set(rows.map((r) => r.k));
}

/** Inserts keywords; one that exists meanwhile (any letter case) is left out of the answer, not an error. */
export function insertKeywords(
  tx: DbOrTx,
  s: DeidScope,
  userId: number,
  rows: readonly { keyword: string; note?: string | undefined }[],
) {
  if (rows.length === 0) return Promise.resolve([] as KeywordRow[]);
  return tx
    .insert(deidKeywords)
    .values(
      rows.map((r) => ({
        env: s.env,
        projectId: s.projectId,
        keyword: r.keyword,
        note: r.note ?? null,
        createdBy: userId,
      })),
    )
    .onConflictDoNothing()
    .returning();
}

export async function deleteKeyword(tx: DbOrTx, s: DeidScope, id: number): Promise<KeywordRow | undefined> {
  const [row] = await tx
    .delete(deidKeywords)
    .where(and(ofScope(s), eq(deidKeywords.id, id)))
    .returning();
  return row;
}

export async function readPolicy(
  db: DbOrTx,
  s: DeidScope,
): Promise<{ row: PolicyRow; by: string | null } | undefined> {
  const [r] = await db
    .select({ row: deidPolicies, by: users.name })
    .from(deidPolicies)
    .leftJoin(users, eq(users.id, deidPolicies.updatedBy))
    .where(and(eq(deidPolicies.projectId, s.projectId), eq(deidPolicies.env, s.env)));
  return r;
}

/** The policy's first save (version 1); undefined when another save created the row meanwhile. */
export async function insertPolicy(
  tx: DbOrTx,
  s: DeidScope,
  flags: DeidPolicyFlags,
  userId: number,
): Promise<PolicyRow | undefined> {
  const [row] = await tx
    .insert(deidPolicies)
    .values({ projectId: s.projectId, env: s.env, ...flags, version: 1, updatedBy: userId })
    .onConflictDoNothing()
    .returning();
  return row;
}

/** A later save, only over the version read; undefined when the row changed since. */
export async function updatePolicy(
  tx: DbOrTx,
  s: DeidScope,
  flags: DeidPolicyFlags,
  version: number,
  userId: number,
): Promise<PolicyRow | undefined> {
  const [row] = await tx
    .update(deidPolicies)
    .set({ ...flags, version: version + 1, updatedBy: userId, updatedAt: new Date() })
    .where(
      and(
        eq(deidPolicies.projectId, s.projectId),
        eq(deidPolicies.env, s.env),
        eq(deidPolicies.version, version),
      ),
    )
    .returning();
  return row;
}

export function flagsOf(row: PolicyRow | undefined): DeidPolicyFlags {
  if (!row) return { ...DEFAULT_DEID_POLICY };
  return {
    maskBirthDates: row.maskBirthDates,
    maskOtherDates: row.maskOtherDates,
    maskHospitalNames: row.maskHospitalNames,
    maskDoctorNames: row.maskDoctorNames,
  };
}

/**
 * What automatic de-identification hides besides the subject's own identifiers, for a project's environment: its
 * keywords (oldest first) and its policy (the defaults when never saved).
 */
export async function loadDeidSettings(
  db: DbOrTx,
  s: DeidScope,
): Promise<{ keywords: string[]; policy: DeidPolicy }> {
  const rows = await db
    .select({ k: deidKeywords.keyword })
    .from(deidKeywords)
    .where(ofScope(s))
    .orderBy(deidKeywords.id)
    .limit(DEID_KEYWORDS_MAX);
  const policy = await readPolicy(db, s);
  return { keywords: rows.map((r) => r.k), policy: flagsOf(policy?.row) };
}

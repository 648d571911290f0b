/**
 * The signal report (issue 13 item 6): judged adverse events — safety candidates of category 'ae' judged yes — in the
 * caller's scope (the safety review's: project, environment, sites, live subjects), counted by period of onset, grade,
 * seriousness, term and site. Every count is one GROUP BY in SQL over the judged fields (jsonb `fields`, validated by
 * aeFields at judgement); JavaScript only shapes the few result rows (and fills empty periods of the series).
 */
import { and, asc, count, countDistinct, desc, eq, inArray, sql, type SQL } from 'drizzle-orm';
import type { z } from 'zod';
import {
  CANDIDATE_STATUS,
  SIGNAL_GRADES,
  SIGNAL_MAX_FILLED_PERIODS,
  SIGNAL_SEVERE_GRADE,
  SIGNAL_TOP_TERMS,
  type SignalPeriod,
  type SignalPeriodRow,
  type SignalReport,
  type SignalSiteRow,
  type SignalTermRow,
  type signalRequest,
  type signalTermsRequest,
} from '@esource/shared';
import type { Db } from '../../db/client';
import { dictionaries, dictionaryTerms, safetyCandidates, sites, subjects } from '../../db/schema';
import type { ProjectScopedContext } from '../../lib/context';
import { AppError } from '../../lib/errors';
import { offsetOf, pageOf } from '../../lib/page';
import { reachesSite } from '../../lib/site-scope';
import { SafetyService } from '../safety/safety.service';

type Filters = z.output<typeof signalRequest>;
type TermsQuery = z.output<typeof signalTermsRequest>;

// The judged fields. No expression below carries a bound parameter, so that a GROUP BY on one matches its select.
const F = safetyCandidates.fields;
/** the CTCAE grade as judged (null when the value is not a number: never, after aeFields) */
const GRADE = sql<number | null>`(case when jsonb_typeof(${F}->'grade') = 'number' then (${F}->>'grade')::int end)`;
const SERIOUS = sql<boolean>`((${F}->>'serious') = 'true')`;
/** YYYY, YYYY-MM or YYYY-MM-DD */
const ONSET = sql<string | null>`(${F}->>'onset')`;
const REPORTED = sql<string>`btrim(${F}->>'term')`;
const CODE = sql<string | null>`nullif(btrim(${F}->'coded'->>'code'), '')`;

const countIf = (cond: SQL) => sql<number>`count(*) filter (where ${cond})`.mapWith(Number);
const gradeCols = () => ({
  g1: countIf(sql`${GRADE} = 1`),
  g2: countIf(sql`${GRADE} = 2`),
  g3: countIf(sql`${GRADE} = 3`),
  g4: countIf(sql`${GRADE} = 4`),
  g5: countIf(sql`${GRADE} = 5`),
});
const gradesOf = (r: { g1: number; g2: number; g3: number; g4: number; g5: number }) => [r.g1, r.g2, r.g3, r.g4, r.g5];
const SEVERE = sql.raw(String(SIGNAL_SEVERE_GRADE));

/** The bucket of an onset: 'YYYY-MM', 'YYYY-Qn' or 'YYYY' (an onset known to the year only stays 'YYYY'). */
function periodExpr(period: SignalPeriod): SQL<string | null> {
  switch (period) {
    case 'month':
      return sql`(case when length(${ONSET}) >= 7 then left(${ONSET}, 7) else left(${ONSET}, 4) end)`;
    case 'quarter':
      return sql`(case when length(${ONSET}) >= 7 then left(${ONSET}, 4) || '-Q' || ((substr(${ONSET}, 6, 2)::int + 2) / 3)::text else left(${ONSET}, 4) end)`;
    case 'year':
      return sql`left(${ONSET}, 4)`;
  }
}

/** The term group: the coded term's code (uncoded AEs by their reported term), or the reported term, case folded. */
function termKey(by: Filters['termBy']): SQL<string> {
  return by === 'coded' ? sql`coalesce('c:' || upper(${CODE}), 'r:' || lower(${REPORTED}))` : sql`('r:' || lower(${REPORTED}))`;
}

function precisionOf(key: string): SignalPeriod {
  return key.length === 4 ? 'year' : key.includes('-Q') ? 'quarter' : 'month';
}

/** The period after `key` ('2024-12' → '2025-01', '2024-Q4' → '2025-Q1', '2024' → '2025'). */
function nextPeriod(key: string): string {
  const y = Number(key.slice(0, 4));
  if (key.length === 4) return String(y + 1);
  if (key.includes('-Q')) {
    const q = Number(key.slice(6));
    return q === 4 ? `${y + 1}-Q1` : `${y}-Q${q + 1}`;
  }
  const m = Number(key.slice(5, 7));
  return m === 12 ? `${y + 1}-01` : `${y}-${String(m + 1).padStart(2, '0')}`;
}

/**
 * The series with the empty periods between the first and the last precise one filled in with zeros (a gap in a
 * chart over time must show as zero, not be skipped). Year-only buckets of a month or quarter series stay as they are.
 */
export function fillPeriods(rows: SignalPeriodRow[], period: SignalPeriod): SignalPeriodRow[] {
  const precise = rows.filter((r) => r.precision === period).map((r) => r.period);
  if (precise.length < 2) return rows;
  const byKey = new Map(rows.map((r) => [r.period, r]));
  const first = precise.reduce((a, b) => (a < b ? a : b));
  const last = precise.reduce((a, b) => (a > b ? a : b));
  const keys: string[] = [];
  for (let k = first; k <= last && keys.length <= SIGNAL_MAX_FILLED_PERIODS; k = nextPeriod(k)) keys.push(k);
  if (keys.length > SIGNAL_MAX_FILLED_PERIODS) return rows;
  for (const k of keys) if (!byKey.has(k)) byKey.set(k, { period: k, precision: period, events: 0, subjects: 0, serious: 0, grades: SIGNAL_GRADES.map(() => 0) });
  return [...byKey.values()].sort((a, b) => (a.period < b.period ? -1 : a.period > b.period ? 1 : 0));
}

export class SignalService {
  private readonly safety: SafetyService;
  constructor(private readonly db: Db) {
    this.safety = new SafetyService(db);
  }

  /** Judged AEs in the caller's scope (the safety review's scope: the query joins subjects). */
  private judged(ctx: ProjectScopedContext): SQL {
    return and(this.safety.scope(ctx), eq(safetyCandidates.category, 'ae'), eq(safetyCandidates.status, CANDIDATE_STATUS.yes))!;
  }

  /** The route's guard already checked the permission; checked again here, with the site the filter names. */
  private where(ctx: ProjectScopedContext, f: Filters): SQL {
    if (!ctx.pms.has('clinical:signal:query')) throw new AppError('FORBIDDEN');
    if (f.siteId !== undefined && !reachesSite(f.siteId, ctx)) throw new AppError('SITE_FORBIDDEN');
    return and(
      this.judged(ctx),
      f.siteId !== undefined ? eq(safetyCandidates.siteId, f.siteId) : undefined,
      f.minGrade !== undefined ? sql`${GRADE} >= ${f.minGrade}` : undefined,
      f.seriousOnly ? SERIOUS : undefined,
      f.relatedOnly ? sql`(${F}->>'relatedness') is distinct from 'NOT RELATED'` : undefined,
      // an onset known to the month or year counts when it overlaps the range: '2024-03' is in [2024-03-15, …]
      f.onsetFrom ? sql`${ONSET} >= left(${f.onsetFrom}, length(${ONSET}))` : undefined,
      f.onsetTo ? sql`${ONSET} <= ${f.onsetTo}` : undefined,
    )!;
  }

  private from<T extends Parameters<Db['select']>[0]>(fields: T) {
    return this.db.select(fields).from(safetyCandidates).innerJoin(subjects, eq(subjects.id, safetyCandidates.subjectId));
  }

  /** POST /report/signal */
  async report(ctx: ProjectScopedContext, f: Filters): Promise<SignalReport> {
    const where = this.where(ctx, f);
    const [totals] = await this.from({
      events: count(),
      subjects: countDistinct(safetyCandidates.subjectId),
      serious: countIf(SERIOUS),
      severe: countIf(sql`${GRADE} >= ${SEVERE}`),
      sites: countDistinct(safetyCandidates.siteId),
      terms: sql<number>`count(distinct ${termKey(f.termBy)})`.mapWith(Number),
    }).where(where);
    const [judged] = await this.from({ n: count() }).where(this.judged(ctx));
    const period = periodExpr(f.period);
    const periods = await this.from({ period, events: count(), subjects: countDistinct(safetyCandidates.subjectId), serious: countIf(SERIOUS), ...gradeCols() })
      .where(and(where, sql`${ONSET} is not null`))
      .groupBy(sql`1`)
      .orderBy(sql`1`);
    const topTerms = await this.termRows(ctx, f, { sortField: 'events', sortOrder: 'desc' }, SIGNAL_TOP_TERMS, 0);
    const siteRows = await this.from({
      siteId: safetyCandidates.siteId,
      siteName: sites.name,
      events: count(),
      subjects: countDistinct(safetyCandidates.subjectId),
      serious: countIf(SERIOUS),
      severe: countIf(sql`${GRADE} >= ${SEVERE}`),
      ...gradeCols(),
    })
      .innerJoin(sites, eq(sites.id, safetyCandidates.siteId))
      .where(where)
      .groupBy(safetyCandidates.siteId, sites.name)
      .orderBy(desc(count()), asc(sites.name));
    return {
      totals: {
        events: totals?.events ?? 0,
        subjects: totals?.subjects ?? 0,
        serious: totals?.serious ?? 0,
        severe: totals?.severe ?? 0,
        sites: totals?.sites ?? 0,
        terms: totals?.terms ?? 0,
        judged: judged?.n ?? 0,
      },
      periods: fillPeriods(
        periods.flatMap((r) => (r.period ? [{ period: r.period, precision: precisionOf(r.period), events: r.events, subjects: r.subjects, serious: r.serious, grades: gradesOf(r) }] : [])),
        f.period,
      ),
      topTerms: topTerms.rows,
      sites: siteRows.map((r): SignalSiteRow => ({ siteId: r.siteId, siteName: r.siteName, events: r.events, subjects: r.subjects, serious: r.serious, severe: r.severe, grades: gradesOf(r) })),
    };
  }

  /** POST /report/signal/terms: a page of the terms table. */
  async terms(ctx: ProjectScopedContext, q: TermsQuery) {
    const { rows, total } = await this.termRows(ctx, q, q, q.pageSize, offsetOf(q));
    return pageOf(q, total, rows);
  }

  /** Every term of the filters, most events first, at most `limit` (the export). */
  async allTerms(ctx: ProjectScopedContext, f: Filters, limit: number): Promise<SignalTermRow[]> {
    return (await this.termRows(ctx, f, { sortField: 'events', sortOrder: 'desc' }, limit, 0)).rows;
  }

  private async termRows(
    ctx: ProjectScopedContext,
    f: Filters,
    sort: Pick<TermsQuery, 'sortField' | 'sortOrder'>,
    limit: number,
    offset: number,
  ): Promise<{ rows: SignalTermRow[]; total: number }> {
    const key = termKey(f.termBy);
    const label = f.termBy === 'coded' ? sql<string>`coalesce(max(${F}->'coded'->>'term'), min(${REPORTED}))` : sql<string>`min(${REPORTED})`;
    const code = f.termBy === 'coded' ? sql<string | null>`max(${CODE})` : sql<string | null>`null::text`;
    const by = {
      events: sql`count(*)`,
      subjects: sql`count(distinct ${safetyCandidates.subjectId})`,
      serious: sql`count(*) filter (where ${SERIOUS})`,
      severe: sql`count(*) filter (where ${GRADE} >= ${SEVERE})`,
      maxGrade: sql`max(${GRADE})`,
      term: sql`lower(${label})`,
      firstOnset: sql`min(${ONSET})`,
      lastOnset: sql`max(${ONSET})`,
    }[sort.sortField];
    const dir = sort.sortOrder === 'asc' ? sql.raw('asc') : sql.raw('desc');
    const rows = await this.from({
      key,
      term: label,
      code,
      events: count(),
      subjects: countDistinct(safetyCandidates.subjectId),
      serious: countIf(SERIOUS),
      severe: countIf(sql`${GRADE} >= ${SEVERE}`),
      maxGrade: sql<number | null>`max(${GRADE})`.mapWith(Number),
      ...gradeCols(),
      firstOnset: sql<string | null>`min(${ONSET})`,
      lastOnset: sql<string | null>`max(${ONSET})`,
      total: sql<number>`count(*) over ()`.mapWith(Number),
    })
      .where(this.where(ctx, f))
      .groupBy(sql`1`)
      .orderBy(sql`${by} ${dir} nulls last`, sql`1`)
      .limit(limit)
      .offset(offset);
    const names = await this.dictionaryTerms(ctx, rows.flatMap((r) => (r.code ? [r.code] : [])));
    return {
      total: rows[0]?.total ?? (offset > 0 ? (await this.termCount(ctx, f)) : 0),
      rows: rows.map((r) => ({
        key: r.key,
        term: (r.code && names.get(r.code.toLowerCase())) || r.term || '',
        code: r.code,
        events: r.events,
        subjects: r.subjects,
        serious: r.serious,
        severe: r.severe,
        maxGrade: r.maxGrade ?? 0,
        grades: gradesOf(r),
        firstOnset: r.firstOnset,
        lastOnset: r.lastOnset,
      })),
    };
  }

  /** Distinct terms of the filters (a page past the last one still reports the total). */
  private async termCount(ctx: ProjectScopedContext, f: Filters): Promise<number> {
    const [r] = await this.from({ n: sql<number>`count(distinct ${termKey(f.termBy)})`.mapWith(Number) }).where(this.where(ctx, f));
    return r?.n ?? 0;
  }

  /** The coded terms in the caller's language from the active diagnosis dictionary (by code, any letter case). */
  private async dictionaryTerms(ctx: ProjectScopedContext, codes: string[]): Promise<Map<string, string>> {
    if (!codes.length) return new Map();
    const term = ctx.language === 'en_US' ? dictionaryTerms.termEn : dictionaryTerms.termZh;
    const rows = await this.db
      .select({ code: dictionaryTerms.code, term })
      .from(dictionaryTerms)
      .innerJoin(dictionaries, eq(dictionaries.id, dictionaryTerms.dictionaryId))
      .where(and(eq(dictionaries.kind, 'diagnosis'), eq(dictionaries.active, true), inArray(sql`lower(${dictionaryTerms.code})`, [...new Set(codes.map((c) => c.toLowerCase()))])));
    return new Map(rows.flatMap((r) => (r.term ? [[r.code.toLowerCase(), r.term] as const] : [])));
  }
}

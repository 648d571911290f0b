/**
 * The counters behind the query list's and the SDV list's totals (migration 0029: query_counts, verification_progress
 * and verification_counts, kept by triggers) stay equal to a count from scratch through every kind of change — saves,
 * completion, SDV and SDR marks, lost and removed marks, risk levels, a subject moved to another site, deleted and
 * restored, queries raised, answered and closed — also when such changes run at once; and the lists' totals equal the
 * rows counted directly, for each state and filter.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { and, eq, sql } from 'drizzle-orm';
import type { QueryDetail, QueryPage, VerificationPage } from '@esource/shared';
import { sites } from '../src/db/schema';
import { rowsOf } from '../src/lib/sql';
import { startTestServer, type TestServer } from './harness';

let s: TestServer;
const H = { proId: 1, proType: 'PRO', language: 'en_US' };
const tok: Record<string, string> = {};
let siteA = 0;
let siteB = 0;
type View = { instance: { id: number; version: number } | null };
type Sched = { visitId: number; code: string; forms: { formId: number; code: string }[] };
interface Subject {
  ptsId: number;
  version: number;
  v1: number;
  vs: number;
  dm: number;
  /** form instances: VS of V1 (completed), DM of V1 (a draft, then completed) */
  vsId: number;
  dmId: number;
}
const subjectsById = new Map<number, Subject>();

const ok = <T>(r: { status: number; body: { data: T } }): T => {
  expect(r.status, JSON.stringify(r.body)).toBe(200);
  return r.body.data;
};
const save = (p: Subject, formId: number, entryMode: number, items: { variable: string; value: unknown; reason?: string }[], version?: number) =>
  s.api.post<View>('/crf/form/item/result/saveBatch', { token: tok.crc1, headers: H, json: { ptsId: p.ptsId, visitId: p.v1, formId, entryMode, ...(version ? { version } : {}), items } });
const version = async (p: Subject, formId: number) =>
  ok(await s.api.get<View>('/crf/form/item/result/list', { token: tok.crc1, headers: H, query: { ptsId: p.ptsId, visitId: p.v1, formId } })).instance!.version;
const mark = (body: Record<string, unknown>) => s.api.post<{ marked: number }>('/crf/report/saveItemMark', { token: tok.cra, headers: H, json: body });
const subjectVersion = async (ptsId: number) =>
  ok(await s.api.get<{ version: number }>('/project/manage/getPtsByProIdAndPtsId', { token: tok.dm, headers: H, query: { ptsId } })).version;

/** A subject at site A with V1's vital signs completed and its demographics a draft. */
async function enrol(): Promise<Subject> {
  const r = ok(
    await s.api.post<{ ptsId: number; version: number }>('/project/managePts/add', {
      token: tok.crc1,
      headers: H,
      form: { siteId: siteA, ptsNo: `RC-${subjectsById.size + 1}`, firstVisitDate: '2026-11-01' },
    }),
  );
  const sched = ok(await s.api.get<Sched[]>('/project/pts/visits', { token: tok.crc1, headers: H, query: { ptsId: r.ptsId } }));
  const v = sched.find((x) => x.code === 'V1')!;
  const p: Subject = { ptsId: r.ptsId, version: r.version, v1: v.visitId, vs: v.forms.find((f) => f.code === 'VS')!.formId, dm: v.forms.find((f) => f.code === 'DM')!.formId, vsId: 0, dmId: 0 };
  p.vsId = ok(await save(p, p.vs, 2, [{ variable: 'VSDTC', value: '2026-11-02 09:30' }, { variable: 'SYSBP', value: 128 }, { variable: 'DIABP', value: 82 }, { variable: 'HR', value: 72 }])).instance!.id;
  p.dmId = ok(await save(p, p.dm, 0, [{ variable: 'SEX', value: '1' }])).instance!.id;
  subjectsById.set(p.ptsId, p);
  return p;
}

/** The counters against a count from scratch: rows that differ (0 each when exact). */
async function mismatches() {
  const r = await s.database.executeSql(`
    with fresh as (
      select i.id as instance_id, i.subject_id, i.project_id, i.env, i.site_id, i.visit_id, (abs(hashtext('sdv:' || i.id::text)) % 100)::smallint as bucket,
        (select count(*) from crf_values v where v.instance_id = i.id and (v.value -> 'v') is not null and jsonb_typeof(v.value -> 'v') <> 'null'
            and (v.value ->> 'v') <> '' and (v.value -> 'v') <> '[]'::jsonb)::int as items,
        (select count(*) from verification_marks m where m.instance_id = i.id and m.kind = 'sdv' and m.status = 1)::int as verified,
        (select count(distinct m.variable) from verification_marks m where m.instance_id = i.id and m.kind = 'sdv' and m.status = 2
           and not exists (select 1 from verification_marks a where a.instance_id = m.instance_id and a.variable = m.variable and a.kind = 'sdv' and a.status = 1))::int as lost,
        exists (select 1 from verification_marks m where m.instance_id = i.id and m.kind = 'sdr' and m.status = 1) as reviewed,
        exists (select 1 from verification_marks m where m.instance_id = i.id and m.kind = 'sdv' and m.status in (1, 2)) as marked
      from crf_instances i where i.deleted_at is null and i.status >= 2)
    select
      (select count(*) from fresh f full join verification_progress p on p.instance_id = f.instance_id where row(f.*) is distinct from row(p.*))::int as progress,
      (select count(*) from (
         select f.project_id, f.env, su.site_id as scope_site_id, f.site_id, f.visit_id, coalesce(su.risk_level, 0)::smallint as subject_risk, f.bucket, f.marked,
                f.verified >= f.items as done, f.lost > 0 as lost, count(*)::int as forms, sum(f.items)::bigint as items, sum(f.verified)::bigint as verified
           from fresh f join subjects su on su.id = f.subject_id and su.status <> 0 and su.project_id = f.project_id and su.env = f.env
          group by 1, 2, 3, 4, 5, 6, 7, 8, 9, 10) a
        full join (select * from verification_counts where forms <> 0 or items <> 0 or verified <> 0) c
          using (project_id, env, scope_site_id, site_id, visit_id, subject_risk, bucket, marked, done, lost)
        where (a.forms, a.items, a.verified) is distinct from (c.forms, c.items, c.verified))::int as totals,
      (select count(*) from (select q.project_id, q.env, q.site_id, q.status, q.origin, count(*)::int n from queries q join subjects su on su.id = q.subject_id and su.status <> 0 group by 1, 2, 3, 4, 5) a
        full join (select * from query_counts where n <> 0) c using (project_id, env, site_id, status, origin) where a.n is distinct from c.n)::int as queries`);
  return Object.fromEntries(Object.entries(r.rows[0]!).map(([k, v]) => [k, Number(v)]));
}

/** The SDV list's totals as the list computed them before the counters: per-row sub-selects over every form. */
async function directSummary(f: { state: 'remaining' | 'done' | 'all'; requiredOnly: boolean; siteId?: number | undefined; ptsNo?: string | undefined }) {
  const r = await s.database.executeSql(
    `select count(*)::int as forms, (count(*) filter (where verified >= items))::int as done, coalesce(sum(items), 0)::int as items, coalesce(sum(verified), 0)::int as verified
       from (select i.id,
                    (select count(*) from crf_values v where v.instance_id = i.id and (v.value -> 'v') is not null and jsonb_typeof(v.value -> 'v') <> 'null'
                        and (v.value ->> 'v') <> '' and (v.value -> 'v') <> '[]'::jsonb) as items,
                    (select count(*) from verification_marks m where m.instance_id = i.id and m.kind = 'sdv' and m.status = 1) as verified,
                    (select count(distinct m.variable) from verification_marks m where m.instance_id = i.id and m.kind = 'sdv' and m.status = 2
                       and not exists (select 1 from verification_marks a where a.instance_id = m.instance_id and a.variable = m.variable and a.kind = 'sdv' and a.status = 1)) as lost,
                    ((abs(hashtext('sdv:' || i.id::text)) % 100) < (case coalesce(su.risk_level, st.risk_level) when 1 then 100 when 2 then 50 else 20 end)
                      or exists (select 1 from verification_marks m where m.instance_id = i.id and m.kind = 'sdv' and m.status in (1, 2))) as required
               from crf_instances i join subjects su on su.id = i.subject_id join sites st on st.id = i.site_id
              where su.project_id = 1 and su.env = 'PRO' and su.status <> 0 and i.deleted_at is null and i.project_id = 1 and i.env = 'PRO' and i.status >= 2
                and ($1::int is null or i.site_id = $1) and ($4::text is null or su.pts_no ilike '%' || $4 || '%')) f
      where (not $2::boolean or required)
        and ($3::text = 'all' or ($3 = 'remaining' and (verified < items or lost > 0)) or ($3 = 'done' and verified >= items))`,
    [f.siteId ?? null, f.requiredOnly, f.state, f.ptsNo ?? null],
  );
  return r.rows[0];
}

/** The lists' totals against the rows counted directly, for each state and filter. */
async function expectTotalsExact() {
  expect(await mismatches()).toEqual({ progress: 0, totals: 0, queries: 0 });
  for (const state of ['remaining', 'done', 'all'] as const) {
    for (const requiredOnly of [true, false]) {
      // by site (the counters) and by subject number (the rows)
      for (const [siteId, ptsNo] of [[undefined, undefined], [siteA, undefined], [siteB, undefined], [undefined, 'RC-1']] as const) {
        const page = ok(
          await s.api.post<VerificationPage>('/verification/page', { token: tok.cra, headers: H, json: { state, requiredOnly, ...(siteId ? { siteId } : {}), ...(ptsNo ? { ptsNo } : {}) } }),
        );
        expect({ ...page.summary, totalCount: page.totalCount }, `${state} ${requiredOnly} ${siteId} ${ptsNo}`).toEqual({
          ...(await directSummary({ state, requiredOnly, siteId, ptsNo })),
          totalCount: page.summary.forms,
        });
      }
    }
  }
  const direct = await s.database.executeSql(
    `select q.status, count(*)::int as n from queries q join subjects su on su.id = q.subject_id where su.status <> 0 and q.project_id = 1 and q.env = 'PRO' group by 1`,
  );
  const byStatus = new Map(direct.rows.map((r) => [Number(r.status), Number(r.n)]));
  const counts = ok(await s.api.post<{ querying: number; replied: number; closed: number }>('/crf/query/count', { token: tok.dm, headers: H }));
  expect(counts).toEqual({ querying: byStatus.get(1) ?? 0, replied: byStatus.get(2) ?? 0, closed: byStatus.get(3) ?? 0 });
  for (const status of [1, 2, 3]) {
    const p = ok(await s.api.post<QueryPage>('/crf/query/list', { token: tok.dm, headers: H, json: { status, pageSize: 50 } }));
    expect(p.totalCount).toBe(byStatus.get(status) ?? 0);
    for (const [siteId, origin] of [[siteA, undefined], [siteB, 'manual'], [undefined, 'auto']] as const) {
      const one = await s.database.executeSql(
        `select count(*)::int as n from queries q join subjects su on su.id = q.subject_id
          where su.status <> 0 and q.project_id = 1 and q.env = 'PRO' and q.status = $1 and ($2::int is null or q.site_id = $2) and ($3::text is null or q.origin = $3)`,
        [status, siteId ?? null, origin ?? null],
      );
      const filtered = ok(await s.api.post<QueryPage>('/crf/query/list', { token: tok.dm, headers: H, json: { status, pageSize: 50, ...(siteId ? { siteId } : {}), ...(origin ? { origin } : {}) } }));
      expect(filtered.totalCount, `${status} ${siteId} ${origin}`).toBe(Number(one.rows[0]!.n));
    }
  }
}

beforeAll(async () => {
  s = await startTestServer();
  for (const a of ['crc1', 'crc2', 'cra', 'dm']) tok[a] = await s.api.login(a);
  const site = async (no: string) => (await s.database.db.select().from(sites).where(and(eq(sites.projectId, 1), eq(sites.env, 'PRO'), eq(sites.siteNo, no))))[0]!.id;
  siteA = await site('01');
  siteB = await site('02');
});
afterAll(async () => {
  await s?.stop();
});

describe('the counters behind the lists’ totals', () => {
  let a: Subject;
  let b: Subject;
  let c: Subject;
  let q1: QueryDetail;

  it('the subject-number search has its trigram index on either database (PGlite loads pg_trgm)', async () => {
    const r = await s.database.db.execute(sql`select indexname from pg_indexes where indexname = 'subjects_no_trgm'`);
    expect(rowsOf(r)).toHaveLength(1);
  });

  it('follow saves, completion, marks, lost and removed marks', async () => {
    [a, b, c] = [await enrol(), await enrol(), await enrol()];
    await expectTotalsExact();
    ok(await mark({ kind: 'sdv', instanceIds: [a.vsId] }));
    ok(await mark({ kind: 'sdr', instanceIds: [a.vsId] }));
    ok(await mark({ kind: 'sdv', instanceIds: [b.vsId], variables: ['SYSBP', 'HR'] }));
    await expectTotalsExact();
    // the draft completed; then a verified value changes (its mark is lost), an empty value, a mark removed
    ok(await save(a, a.dm, 2, [{ variable: 'BRTHDTC', value: '1970-01-01' }, { variable: 'SEX', value: '2' }, { variable: 'PREG', value: 'N' }], await version(a, a.dm)));
    ok(await save(a, a.vs, 2, [{ variable: 'SYSBP', value: 131, reason: 'Transcription error' }, { variable: 'HR', value: null, reason: 'Not measured' }], await version(a, a.vs)));
    await expectTotalsExact();
    const hr = (await s.api.get<{ id: number; variable: string; status: number; kind: string }[]>('/crf/report/marks', { token: tok.cra, headers: H, query: { instanceId: b.vsId } })).body.data.find(
      (m) => m.variable === 'HR' && m.status === 1,
    )!;
    ok(await s.api.post('/crf/report/deleteItemMark', { token: tok.cra, headers: H, json: { ids: [hr.id], reason: 'Verified against the wrong report' } }));
    await expectTotalsExact();
  });

  it('follow risk levels, a subject moved to another site, deleted and restored', async () => {
    ok(await s.api.post('/verification/risk', { token: tok.dm, headers: H, json: { siteId: siteA, riskLevel: 3 } }));
    ok(await s.api.post('/verification/subjectRisk', { token: tok.dm, headers: H, json: { ptsId: b.ptsId, riskLevel: 1, reason: 'Protocol deviations' } }));
    await expectTotalsExact();
    ok(await s.api.post('/project/managePts/update', { token: tok.dm, headers: H, json: { ptsId: c.ptsId, version: await subjectVersion(c.ptsId), siteId: siteB, reason: 'Transferred' } }));
    await expectTotalsExact();
    q1 = ok(await s.api.post<QueryDetail>('/crf/query/add', { token: tok.cra, headers: H, json: { ptsId: c.ptsId, visitId: c.v1, formId: c.vs, variable: 'SYSBP', text: 'Please confirm' } }));
    ok(await s.api.post('/project/managePts/delete', { token: tok.dm, headers: H, json: { ptsId: c.ptsId, reason: 'Entered twice' } }));
    await expectTotalsExact();
    ok(await s.api.post('/project/failedPts/restore', { token: tok.dm, headers: H, json: { ptsId: c.ptsId, reason: 'Not a duplicate' } }));
    ok(await s.api.post('/verification/subjectRisk', { token: tok.dm, headers: H, json: { ptsId: b.ptsId, riskLevel: null } }));
    await expectTotalsExact();
  });

  it('follow one statement updating many subjects, only some of them in what the counters count (migration 0046)', async () => {
    // as a bulk change would: every subject of the project touched, one moved to the other site and one given its own
    // risk level, in a single UPDATE (the trigger's set difference must find just those two)
    await s.database.executeSql(
      `update subjects set updated_at = now(),
              site_id = case when id = $1 then $2 else site_id end,
              risk_level = case when id = $3 then 2 else risk_level end
        where project_id = 1 and env = 'PRO'`,
      [c.ptsId, siteA, b.ptsId],
    );
    await expectTotalsExact();
    await s.database.executeSql(`update subjects set updated_at = now() where project_id = 1 and env = 'PRO'`);
    await expectTotalsExact();
  });

  it('follow queries raised, answered, closed and raised automatically', async () => {
    const q2 = ok(await s.api.post<QueryDetail>('/crf/query/add', { token: tok.cra, headers: H, json: { ptsId: a.ptsId, visitId: a.v1, formId: a.vs, variable: 'DIABP', text: 'Please confirm' } }));
    const replied = ok(await s.api.post<QueryDetail>('/crf/query/update', { token: tok.crc2, headers: H, json: { id: q1.id, version: q1.version, action: 'reply', text: 'As recorded' } }));
    ok(await s.api.post('/crf/query/update', { token: tok.cra, headers: H, json: { id: replied.id, version: replied.version, action: 'close', text: 'Thanks' } }));
    ok(await s.api.post('/crf/query/update', { token: tok.cra, headers: H, json: { id: q2.id, version: q2.version, action: 'close', text: 'Withdrawn' } }));
    // a heart rate outside its expected range raises a query by itself
    ok(await save(b, b.vs, 2, [{ variable: 'HR', value: 200, reason: 'Re-measured' }], await version(b, b.vs)));
    await expectTotalsExact();
  });

  it('stay exact when such changes run at once', async () => {
    const d = await enrol();
    const e = await enrol();
    const rs = await Promise.all([
      mark({ kind: 'sdv', instanceIds: [d.vsId, e.vsId] }),
      mark({ kind: 'sdr', instanceIds: [d.vsId] }),
      s.api.post('/verification/subjectRisk', { token: tok.dm, headers: H, json: { ptsId: d.ptsId, riskLevel: 3 } }),
      s.api.post('/crf/query/add', { token: tok.cra, headers: H, json: { ptsId: e.ptsId, visitId: e.v1, formId: e.vs, variable: 'SYSBP', text: 'Please confirm' } }),
      s.api.post('/project/managePts/delete', { token: tok.dm, headers: H, json: { ptsId: e.ptsId, reason: 'Entered twice' } }),
      version(d, d.vs).then((v) => save(d, d.vs, 2, [{ variable: 'DIABP', value: 85, reason: 'Transcription error' }], v)),
      version(d, d.dm).then((v) => save(d, d.dm, 2, [{ variable: 'BRTHDTC', value: '1980-02-02' }, { variable: 'SEX', value: '1' }], v)),
      mark({ kind: 'sdv', instanceIds: [a.vsId] }),
      s.api.post('/verification/risk', { token: tok.dm, headers: H, json: { siteId: siteA, riskLevel: 2 } }),
    ]);
    // each either did its work or was refused as a whole (a query on a subject deleted meanwhile)
    for (const r of rs) expect([200, 404], JSON.stringify(r.body)).toContain(r.status);
    await expectTotalsExact();
  });
});

/**
 * The reports' maintained counters (migration 0040; issue 14 item 5, "Performance"): each form instance's missing
 * required items are written by the save that changes them — adding and clearing required values, a display
 * condition showing or hiding an item — and the subjects' report counts (subjects.report_counts summed into
 * crf_report_counts) follow saves, repeat deletions and a subject's move to the recycle bin. After every step the stored
 * lists are what the eCRF's own rule answers over the stored values, no subject's counts are stale, the counter table
 * is the sum of the subjects' counts, and the missing-data report reads the same from the counters as from evaluating
 * the forms itself. A failed save leaves them as they were (one transaction). A database migrated from before 0040
 * (lists unknown) gets exact reports meanwhile, and the workers' catch-up computes the lists; so does a form whose
 * definition changed (its display condition).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { and, eq, isNull, sql } from 'drizzle-orm';
import {
  missingRequired,
  type CrfMissingPage,
  type CrfReport,
  type FormDefinition,
} from '@esource/shared';
import { crfInstances, crfValues, forms, sites, subjects, visits } from '../src/db/schema';
import { computeMissingItems } from '../src/modules/ecrf/missing-items';
import { rowsOf } from '../src/lib/sql';
import { startTestServer, type TestServer } from './harness';

let s: TestServer;
const H = { proId: 1, proType: 'PRO', language: 'en_US' };
const tok: Record<string, string> = {};
const pts = { a: 0, b: 0 };
const visit: Record<string, number> = {};
const form: Record<string, number> = {};
let siteA = 0;

async function save(
  ptsId: number,
  v: string,
  f: string,
  entryMode: 0 | 2,
  items: Record<string, unknown>,
  o: { repeatNo?: number; reason?: string; version?: number } = {},
) {
  return s.api.post<{ instance: { id: number; version: number; status: number } }>(
    '/crf/form/item/result/saveBatch',
    {
      token: tok.crc1,
      headers: H,
      json: {
        ptsId,
        visitId: visit[v],
        formId: form[f],
        unscheduledId: 0,
        repeatNo: o.repeatNo ?? 1,
        ...(o.version ? { version: o.version } : {}),
        entryMode,
        items: Object.entries(items).map(([variable, value]) => ({
          variable,
          value,
          ...(o.reason ? { reason: o.reason } : {}),
        })),
      },
    },
  );
}
async function saved(...args: Parameters<typeof save>) {
  const r = await save(...args);
  expect(r.status, JSON.stringify(r.body)).toBe(200);
  return r.body.data.instance;
}

/** The stored list of an instance. */
async function stored(id: number) {
  const [i] = await s.database.db
    .select({ items: crfInstances.missingItems, n: crfInstances.missingCount, rev: crfInstances.missingRev })
    .from(crfInstances)
    .where(eq(crfInstances.id, id));
  return i!;
}

const missing = (body: Record<string, unknown> = {}) =>
  s.api.post<CrfMissingPage>('/visual/report/crfReportMissing', {
    token: tok.dm,
    headers: H,
    json: { pageSize: 100, ...body },
  });
const completion = (groupBy: string, body: Record<string, unknown> = {}) =>
  s.api.post<CrfReport>('/visual/report/crfReport', { token: tok.dm, headers: H, json: { groupBy, ...body } });

/** The report's answer, its rows reduced to what identifies them. */
async function report(body: Record<string, unknown> = {}) {
  const r = await missing(body);
  expect(r.status, JSON.stringify(r.body)).toBe(200);
  return {
    total: r.body.data.totalCount,
    summary: r.body.data.summary,
    rows: r.body.data.content.map((x) => [x.instanceId, x.variable, x.formStatus]),
  };
}

/** The report as it reads while an instance's list is unknown: it evaluates the forms itself. */
async function evaluated(body: Record<string, unknown> = {}) {
  const db = s.database.db;
  const [one] = await db
    .select({ id: crfInstances.id, rev: crfInstances.missingRev })
    .from(crfInstances)
    .where(and(isNull(crfInstances.deletedAt), eq(crfInstances.formId, form.DM!)))
    .limit(1);
  await db.update(crfInstances).set({ missingRev: null }).where(eq(crfInstances.id, one!.id));
  try {
    return await report(body);
  } finally {
    await db.update(crfInstances).set({ missingRev: one!.rev }).where(eq(crfInstances.id, one!.id));
  }
}

/**
 * What must always hold: every live instance's list is the eCRF's rule over its stored values and its form's
 * definition now; refreshing every subject changes nothing (no stale counts); crf_report_counts is the sum of the
 * subjects' counts; the report reads the same from the counters as by evaluating the forms.
 */
async function invariant() {
  const db = s.database.db;
  const inst = await db
    .select({ id: crfInstances.id, items: crfInstances.missingItems, rev: crfInstances.missingRev, def: forms.definition, lock: forms.lockVersion })
    .from(crfInstances)
    .innerJoin(forms, eq(forms.id, crfInstances.formId))
    .where(isNull(crfInstances.deletedAt));
  for (const i of inst) {
    const vals = await db.select().from(crfValues).where(eq(crfValues.instanceId, i.id));
    const rule = missingRequired(
      i.def as unknown as FormDefinition,
      Object.fromEntries(vals.map((v) => [v.variable, v.value?.v ?? null])),
    );
    expect({ id: i.id, items: i.items, rev: i.rev }).toEqual({ id: i.id, items: rule, rev: i.lock });
  }
  const [fresh] = rowsOf<{ n: number | string }>(
    await db.execute(sql`select refresh_subject_progress(array_agg(id)) as n from subjects`),
  );
  expect(Number(fresh!.n), 'subjects whose counts were stale').toBe(0);
  const diff = rowsOf(
    await db.execute(sql`
      with sums as (
        select s.project_id, s.env, s.site_id, s.status, coalesce(s.design_version_id, 0) as version_id, k.visit_id, k.form_id, k.variable,
               sum(k.subjects)::int as subjects, sum((k.n ->> 0)::int)::int as expected, sum((k.n ->> 1)::int)::int as pairs_draft,
               sum((k.n ->> 2)::int)::int as pairs_completed, sum((k.n ->> 3)::int)::int as pairs_certified, sum((k.n ->> 4)::int)::int as forms_draft,
               sum((k.n ->> 5)::int)::int as forms_completed, sum((k.n ->> 6)::int)::int as missing_draft, sum((k.n ->> 7)::int)::int as missing_completed
          from subjects s
          cross join lateral (
            select 0 as visit_id, 0 as form_id, ''::text as variable, 1 as subjects, '[0,0,0,0,0,0,0,0]'::jsonb as n
            union all
            select split_part(e.key, ':', 1)::int, split_part(e.key, ':', 2)::int, split_part(e.key, ':', 3), 0, e.value
              from jsonb_each(s.report_counts) e
          ) k
         group by 1, 2, 3, 4, 5, 6, 7, 8
      ), kept as (
        select project_id, env, site_id, status, version_id, visit_id, form_id, variable::text, subjects, expected, pairs_draft, pairs_completed,
               pairs_certified, forms_draft, forms_completed, missing_draft, missing_completed
          from crf_report_counts
         where (subjects, expected, pairs_draft, pairs_completed, pairs_certified, forms_draft, forms_completed, missing_draft, missing_completed)
               <> (0, 0, 0, 0, 0, 0, 0, 0, 0)
      )
      (select 'sums' as side, * from sums except select 'sums', * from kept)
      union all
      (select 'kept', * from kept except select 'kept', * from sums)`),
  );
  expect(diff).toEqual([]);
  expect(await report()).toEqual(await evaluated());
  expect(await report({ formCode: 'DM', variable: 'PREG' })).toEqual(await evaluated({ formCode: 'DM', variable: 'PREG' }));
}

beforeAll(async () => {
  s = await startTestServer();
  for (const a of ['dm', 'crc1']) tok[a] = await s.api.login(a);
  const db = s.database.db;
  const rows = await db
    .select()
    .from(sites)
    .where(and(eq(sites.projectId, 1), eq(sites.env, 'PRO')));
  siteA = rows.find((r) => r.siteNo === '01')!.id;
  const add = async () => {
    const r = await s.api.post<{ ptsId: number }>('/project/managePts/add', {
      token: tok.crc1,
      headers: H,
      form: { siteId: siteA, firstVisitDate: '2026-01-02' },
    });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    return r.body.data.ptsId;
  };
  pts.a = await add();
  pts.b = await add();
  const [subj] = await db.select().from(subjects).where(eq(subjects.id, pts.a));
  for (const v of await db.select().from(visits).where(eq(visits.versionId, subj!.designVersionId!)))
    visit[v.code] = v.id;
  for (const f of await db.select().from(forms).where(eq(forms.versionId, subj!.designVersionId!)))
    form[f.code] = f.id;
});
afterAll(async () => {
  await s?.stop();
});

describe('the missing items and counts kept by each save', () => {
  let dm = { id: 0, version: 0 };
  const dmRows = async () =>
    (await report({ formCode: 'DM' })).rows.filter((r) => r[0] === dm.id).map((r) => r[1]);

  it('adding and clearing required values, a display condition showing and hiding an item', async () => {
    dm = await saved(pts.a, 'V1', 'DM', 0, { SEX: '1' });
    expect((await stored(dm.id)).items).toEqual(['BRTHDTC']);
    expect(await dmRows()).toEqual(['BRTHDTC']);
    await invariant();
    // a woman: her pregnancy is shown, and missing
    dm = await saved(pts.a, 'V1', 'DM', 0, { SEX: '2' }, { version: dm.version });
    expect(await stored(dm.id)).toMatchObject({ items: ['BRTHDTC', 'PREG'], n: 2 });
    expect(await dmRows()).toEqual(['BRTHDTC', 'PREG']);
    await invariant();
    dm = await saved(pts.a, 'V1', 'DM', 0, { PREG: 'N' }, { version: dm.version });
    expect((await stored(dm.id)).items).toEqual(['BRTHDTC']);
    // a man again: the condition hides (and clears) the pregnancy, which is not missing
    dm = await saved(pts.a, 'V1', 'DM', 0, { SEX: '1' }, { version: dm.version });
    expect((await stored(dm.id)).items).toEqual(['BRTHDTC']);
    await invariant();
    // completed: nothing missing, and the form counts as completed, not draft
    dm = await saved(pts.a, 'V1', 'DM', 2, { BRTHDTC: '1980-05-01' }, { version: dm.version });
    expect(await stored(dm.id)).toMatchObject({ items: [], n: 0 });
    expect(await dmRows()).toEqual([]);
    expect((await report({ formCode: 'DM', formStatus: 2 })).summary.formsChecked).toBeGreaterThanOrEqual(1);
    await invariant();
    // the birth date cleared (with a reason: it was saved) in a draft: missing again
    dm = await saved(pts.a, 'V1', 'DM', 0, { BRTHDTC: null }, { version: dm.version, reason: 'wrong date' });
    expect((await stored(dm.id)).items).toEqual(['BRTHDTC']);
    expect(await dmRows()).toEqual(['BRTHDTC']);
    await invariant();
  });

  it('the completion counts follow the forms: draft, completed, a subject in the recycle bin', async () => {
    const v1 = async () => (await completion('visit', { visitCode: 'V1' })).body.data.rows[0]!;
    const before = await v1();
    await saved(pts.b, 'V1', 'VS', 2, { VSDTC: '2026-01-02 09:00', SYSBP: 120, DIABP: 80, HR: 70 });
    expect(await v1()).toMatchObject({ expected: before.expected, completed: before.completed + 1 });
    await invariant();
    const r = await s.api.post('/project/managePts/delete', { token: tok.dm, headers: H, json: { ptsId: pts.b, reason: 'Entered twice' } });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    expect(await v1()).toMatchObject({ expected: before.expected - 2, completed: before.completed });
    await invariant();
  });

  it("a deleted repeat of a cycle form no longer counts; the other repeat's items stay", async () => {
    const ae1 = await saved(pts.a, 'V2', 'AE', 0, { AETERM: 'Headache' });
    const ae2 = await saved(pts.a, 'V2', 'AE', 0, { AETERM: 'Nausea' }, { repeatNo: 2 });
    const aeItems = async () => (await report({ formCode: 'AE' })).summary.byItem.map((x) => [x.variable, x.missing]);
    expect(await aeItems()).toEqual([['AESTDTC', 2]]);
    await invariant();
    const del = await s.api.post('/crf/form/item/result/deleteRepeatForm', {
      token: tok.crc1,
      headers: H,
      json: { instanceId: ae2.id, reason: 'entered in error' },
    });
    expect(del.status, JSON.stringify(del.body)).toBe(200);
    expect(await aeItems()).toEqual([['AESTDTC', 1]]);
    expect((await report({ formCode: 'AE' })).rows).toEqual([[ae1.id, 'AESTDTC', 1]]);
    await invariant();
  });

  it('a save that fails after writing the instance leaves its items and every count as they were', async () => {
    const db = s.database.db;
    const counts = () => db.execute(sql`select * from crf_report_counts order by project_id, env, site_id, status, version_id, visit_id, form_id, variable`);
    const before = { inst: await stored(dm.id), counts: rowsOf(await counts()), report: await report() };
    // the history insert (after the instance and its values are written) fails
    await s.database.ownerExecuteSql(`
      create function test_fail_history() returns trigger language plpgsql as $$
      begin raise exception 'history refused'; end $$;
      create trigger test_fail_history before insert on crf_value_history for each statement execute function test_fail_history();`);
    try {
      const r = await save(pts.a, 'V1', 'DM', 0, { BRTHDTC: '1981-01-01' }, { version: dm.version });
      expect(r.status).toBeGreaterThanOrEqual(500);
    } finally {
      await s.database.ownerExecuteSql(
        'drop trigger test_fail_history on crf_value_history; drop function test_fail_history();',
      );
    }
    expect(await stored(dm.id)).toEqual(before.inst);
    expect(rowsOf(await counts())).toEqual(before.counts);
    expect(await report()).toEqual(before.report);
    // and the same save, now accepted, moves them
    dm = await saved(pts.a, 'V1', 'DM', 0, { BRTHDTC: '1981-01-01' }, { version: dm.version });
    expect((await stored(dm.id)).items).toEqual([]);
    await invariant();
  });
});

describe('a database migrated from before 0040', () => {
  it('reads exact figures while the lists are unknown, and the catch-up computes them', async () => {
    const db = s.database.db;
    // a few more forms of every kind
    await saved(pts.a, 'V1', 'VS', 0, { VSDTC: '2026-01-02 09:00' });
    await saved(pts.a, 'V2', 'VS', 0, { VSDTC: '2026-01-16 09:00', SYSBP: 118 });
    const want = {
      all: await report(),
      dm: await report({ formCode: 'DM', sortField: 'item', sortOrder: 'desc' }),
      drafts: await report({ formStatus: 1, visitCode: 'V2' }),
      visits: (await completion('visit')).body.data,
    };
    // as 0040 leaves a database: no list computed, the subjects' counts of missing items at 0
    await db.update(crfInstances).set({ missingItems: null, missingCount: null, missingRev: null });
    await db.execute(sql`select refresh_subject_progress(array_agg(id)) from subjects`);
    expect(await report()).toEqual(want.all);
    expect(await report({ formCode: 'DM', sortField: 'item', sortOrder: 'desc' })).toEqual(want.dm);
    expect(await report({ formStatus: 1, visitCode: 'V2' })).toEqual(want.drafts);
    expect((await completion('visit')).body.data).toEqual(want.visits);
    // the workers' catch-up
    const [live] = await db.select({ n: sql<number>`count(*)::int` }).from(crfInstances).where(isNull(crfInstances.deletedAt));
    expect(await computeMissingItems(db, { size: 2 })).toBe(live!.n);
    expect(await computeMissingItems(db)).toBe(0);
    expect(await report()).toEqual(want.all);
    expect(await report({ formCode: 'DM', sortField: 'item', sortOrder: 'desc' })).toEqual(want.dm);
    await invariant();
  });

  it("a form whose display condition changed: its forms are evaluated until recomputed against the new definition", async () => {
    const db = s.database.db;
    const [dmForm] = await db.select().from(forms).where(eq(forms.id, form.DM!));
    const def = dmForm!.definition as unknown as FormDefinition;
    // the pregnancy asked of everyone (no condition)
    const changed = {
      ...def,
      components: def.components.map((c) => (c.type !== 'table' && c.variable === 'PREG' ? { ...c, displayCondition: undefined } : c)),
    };
    const [a] = await db
      .select({ id: crfInstances.id })
      .from(crfInstances)
      .where(and(eq(crfInstances.subjectId, pts.a), eq(crfInstances.formId, form.DM!)));
    expect((await stored(a!.id)).items).toEqual([]);
    await db
      .update(forms)
      .set({ definition: changed, lockVersion: dmForm!.lockVersion + 1 })
      .where(eq(forms.id, form.DM!));
    try {
      // stale lists: the report evaluates the forms with the new definition
      const now = await report({ formCode: 'DM' });
      expect(now.rows.filter((r) => r[0] === a!.id).map((r) => r[1])).toEqual(['PREG']);
      expect(await computeMissingItems(db)).toBeGreaterThanOrEqual(1);
      expect((await stored(a!.id)).items).toEqual(['PREG']);
      expect(await report({ formCode: 'DM' })).toEqual(now);
      await invariant();
    } finally {
      await db
        .update(forms)
        .set({ definition: dmForm!.definition, lockVersion: dmForm!.lockVersion + 2 })
        .where(eq(forms.id, form.DM!));
      await computeMissingItems(db);
    }
    await invariant();
  });
});

describe.skipIf(!process.env.DATABASE_URL)('the catch-up beside saves (PostgreSQL: connections at once)', () => {
  it('never waits for a lock a save holds: the save commits, its instance is computed by the next round', async () => {
    const db = s.database.db;
    const live = () =>
      db
        .select({ id: crfInstances.id, subjectId: crfInstances.subjectId })
        .from(crfInstances)
        .where(and(eq(crfInstances.subjectId, pts.a), isNull(crfInstances.deletedAt)))
        .limit(1);
    // (run alone, the subject has no form yet)
    if ((await live()).length === 0) await saved(pts.a, 'V1', 'DM', 0, { SEX: '1' });
    const [i] = await live();
    await db.update(crfInstances).set({ missingRev: null }).where(eq(crfInstances.id, i!.id));
    let locked!: () => void;
    let release!: () => void;
    const isLocked = new Promise<void>((r) => (locked = r));
    const released = new Promise<void>((r) => (release = r));
    // a save's order: its instance written first, then its subject's counts refreshed (the subject locked)
    const save = db.transaction(async (tx) => {
      await tx.update(crfInstances).set({ version: sql`${crfInstances.version}` }).where(eq(crfInstances.id, i!.id));
      locked();
      await released;
      await tx.execute(sql`select refresh_subject_progress(array[${i!.subjectId}]::int[])`);
    });
    await isLocked;
    // the instance in use is left to the next round (waiting for it while holding its subject would deadlock)
    expect(await computeMissingItems(db)).toBe(0);
    release();
    await save;
    expect((await stored(i!.id)).rev).toBeNull();
    expect(await computeMissingItems(db)).toBe(1);
    await invariant();
  });
});

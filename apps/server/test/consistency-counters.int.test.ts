/**
 * The data consistency report's maintained counts (migration 0047; issue 14 item 5, "Performance"): each value's
 * reasons (crf_values.differs), each subject's listed values (subjects.consistency_counts) and their sums
 * (crf_report_counts) follow every change — a value edited by hand and edited back, a record changed at the hospital
 * (in its value, or in its content only), a record deleted there, a value pre-filled again, a form deleted and
 * restored, a subject moved to the recycle bin. After every step all three are what the report's rule computes from
 * scratch over the values and records, and the list (its pages walked by subject, and the other sorts) agrees with
 * them: the same rows, the same totals, per reason and filter, for a site's coordinator too.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { and, eq, sql } from 'drizzle-orm';
import type { ExtractedPatient, ExtractedRecord } from '@esource/interop';
import type { ConsistencyPage } from '@esource/shared';
import { forms, rolePermissions, roles, sites, sourceConnections, subjects, visits } from '../src/db/schema';
import { rowsOf } from '../src/lib/sql';
import { ingest, type StoreConnection } from '../src/modules/sources/source-store';
import { startTestServer, type TestServer } from './harness';

let s: TestServer;
const H = { proId: 1, proType: 'PRO', language: 'en_US' };
const tok: Record<string, string> = {};
const site = { a: 0, b: 0 };
let pt = 0;
const bulk: number[] = [];
const visit: Record<string, number> = {};
const form: Record<string, number> = {};
let conn: StoreConnection;
let instanceVersion = 0;
const day = (offset: number) => new Date(Date.now() + offset * 86_400_000).toISOString().slice(0, 10);

const consistency = (who: string, body: Record<string, unknown> = {}) =>
  s.api.post<ConsistencyPage>('/dataConsistencyReport/list', { token: tok[who], headers: H, json: body });

const patient: ExtractedPatient = { patientKey: 'cc-1', identifiers: [{ type: 'medicalRecordId', value: 'MRN-CC-1' }] };
const lab = (id: string, code: string, display: string, value: number, unit: string, hash = `${id}-${value}-${unit}`): ExtractedRecord => ({
  patientKey: 'cc-1',
  externalId: `Observation/${id}`,
  docType: 3,
  resourceType: 'Observation',
  codeSystem: 'http://loinc.org',
  code,
  display,
  valueNum: value,
  unit,
  effectiveAt: `${day(-1)}T01:30:00Z`,
  effectiveDate: day(-1),
  rawFormat: 'fhir',
  raw: JSON.stringify({ resourceType: 'Observation', id, status: 'final', valueQuantity: { value, unit } }),
  contentHash: hash,
});
const HGB = ['718-7', 'Hemoglobin [Mass/volume] in Blood'] as const;
const NA = ['2951-2', 'Sodium [Moles/volume] in Serum or Plasma'] as const;
const K = ['2823-3', 'Potassium [Moles/volume] in Serum or Plasma'] as const;
const records = (hgb = 13.2, kHash?: string) => [
  lab('hgb', ...HGB, hgb, 'g/dL'),
  lab('na', ...NA, 140, 'mmol/L'),
  lab('k', ...K, 4.5, 'mmol/L', kHash),
];
const hospital = (list: ExtractedRecord[]) =>
  s.database.db.transaction((tx) => ingest(tx, { connection: conn, patients: [patient], records: list }));

/** Pre-fills the items of the subject's week-4 laboratory form from the hospital's records (a reason for a change). */
async function prefill(variables: string[]) {
  const key = { ptsId: pt, visitId: visit.V3!, formId: form.LB! };
  const ex = await s.api.post<{
    instance: { version: number } | null;
    candidates: { variable: string; state: string; source: { id: number; version: number } }[];
  }>('/crf/prefill/execute', { token: tok.crc1, headers: H, form: key });
  expect(ex.status, JSON.stringify(ex.body)).toBe(200);
  const decisions = ex.body.data.candidates
    .filter((x) => variables.includes(x.variable))
    .map((x) => ({
      variable: x.variable,
      sourceRecordId: x.source.id,
      sourceVersion: x.source.version,
      decision: x.state === 'conflict' ? 'merge' : 'new',
      ...(x.state === 'conflict' ? { reason: 'the hospital corrected it' } : {}),
    }));
  expect(decisions).toHaveLength(variables.length);
  const ok = await s.api.post<{ instance: { version: number } }>('/crf/prefill/visit/confirm', {
    token: tok.crc1,
    headers: H,
    json: { ...key, ...(ex.body.data.instance ? { version: ex.body.data.instance.version } : {}), decisions },
  });
  expect(ok.status, JSON.stringify(ok.body)).toBe(200);
  instanceVersion = ok.body.data.instance.version;
}

/** Saves items of the subject's laboratory form by hand (a draft, with a reason). */
async function edit(items: Record<string, unknown>) {
  const r = await s.api.post<{ instance: { version: number } }>('/crf/form/item/result/saveBatch', {
    token: tok.crc1,
    headers: H,
    json: {
      ptsId: pt,
      visitId: visit.V3,
      formId: form.LB,
      unscheduledId: 0,
      version: instanceVersion,
      entryMode: 0,
      items: Object.entries(items).map(([variable, value]) => ({ variable, value, reason: 'transcription check' })),
    },
  });
  expect(r.status, JSON.stringify(r.body)).toBe(200);
  instanceVersion = r.body.data.instance.version;
}

interface Truth {
  id: number;
  instance_id: number;
  variable: string;
  subject_id: number;
  site_id: number;
  pts_no: string;
  visit_code: string;
  form_code: string;
  d: number;
  live: boolean;
}

/** The report's rule from scratch over every value and record (as the report computed it before 0047). */
async function truth(): Promise<Truth[]> {
  return rowsOf<Truth>(
    await s.database.db.execute(sql`
      select v.id, v.instance_id, v.variable, su.id as subject_id, su.site_id, su.pts_no, vi.code as visit_code, f.code as form_code,
             ((case when (v.value -> 'v') is distinct from (p.filled -> 'v') then 1 else 0 end)
            | (case when r.version > x.fv and (r.value_num, r.value_text, r.unit) is distinct from (rv.value_num, rv.value_text, rv.unit) then 2 else 0 end)
            | (case when r.deleted_at is not null then 4 else 0 end)) as d,
             (i.deleted_at is null and su.status <> 0 and i.project_id = 1 and i.env = 'PRO') as live
        from crf_values v
        join crf_instances i on i.id = v.instance_id
        join subjects su on su.id = i.subject_id
        join visits vi on vi.id = i.visit_id
        join forms f on f.id = i.form_id
        cross join lateral (select case when v.source_ref like 'source:%' then v.source_ref else v.filled_ref end as ref,
                                   case when v.source_ref like 'source:%' then v.value else v.filled_value end as filled) p
        cross join lateral (select split_part(p.ref, ':', 2)::bigint as rec, substr(split_part(p.ref, ':', 3), 2)::int as fv) x
        join source_records r on r.id = x.rec
        left join source_record_versions rv on rv.record_id = x.rec and rv.version = x.fv
       where p.ref like 'source:%'`),
  );
}

const REASONS = [
  ['edited', 1],
  ['sourceChanged', 2],
  ['sourceDeleted', 4],
] as const;

/** Every kept count against the rule, and the list against both. Returns the listed values (live, any reason). */
async function check(): Promise<Truth[]> {
  const db = s.database.db;
  const all = await truth();
  // 1. each value's kept reasons
  const kept = rowsOf<{ id: number; differs: number }>(
    await db.execute(sql`select id, differs from crf_values where differs <> 0 order by id`),
  );
  expect(kept.map((r) => [r.id, r.differs])).toEqual(
    all.filter((t) => t.d !== 0).sort((a, b) => a.id - b.id).map((t) => [t.id, t.d]),
  );
  // 2. each subject's counts: its live forms' listed values per visit × form and reason
  const listed = all.filter((t) => t.d !== 0);
  const expected = new Map<number, Record<string, number[]>>();
  for (const t of listed) {
    const [i] = rowsOf<{ visit_id: number; form_id: number; deleted: boolean }>(
      await db.execute(sql`select visit_id, form_id, deleted_at is not null as deleted from crf_instances where id = ${t.instance_id}`),
    );
    if (i!.deleted) continue;
    const c = expected.get(t.subject_id) ?? {};
    const n = (c[`${i!.visit_id}:${i!.form_id}`] ??= [0, 0, 0, 0]);
    n[0]! += 1;
    REASONS.forEach(([, bit], k) => (n[k + 1]! += t.d & bit ? 1 : 0));
    expected.set(t.subject_id, c);
  }
  const counts = rowsOf<{ id: number; c: Record<string, number[]> }>(
    await db.execute(sql`select id, consistency_counts as c from subjects where consistency_counts <> '{}'::jsonb order by id`),
  );
  expect(Object.fromEntries(counts.map((r) => [r.id, r.c]))).toEqual(Object.fromEntries(expected));
  // 3. the counters: the sums of the subjects' counts per site, status, version, visit and form
  const sums = rowsOf<{ k: string; n: number[] }>(
    await db.execute(sql`
      select concat_ws(':', project_id, env, site_id, status, version_id, visit_id, form_id) as k,
             array[sum(differing), sum(differing_edited), sum(differing_changed), sum(differing_deleted)]::int[] as n
        from crf_report_counts where variable = '' group by 1
      having sum(differing) <> 0 or sum(differing_edited) <> 0 or sum(differing_changed) <> 0 or sum(differing_deleted) <> 0
       order by 1`),
  );
  const fromSubjects = rowsOf<{ k: string; n: number[] }>(
    await db.execute(sql`
      select concat_ws(':', su.project_id, su.env, su.site_id, su.status, coalesce(su.design_version_id, 0), split_part(e.key, ':', 1), split_part(e.key, ':', 2)) as k,
             array[sum((e.value ->> 0)::int), sum((e.value ->> 1)::int), sum((e.value ->> 2)::int), sum((e.value ->> 3)::int)]::int[] as n
        from subjects su cross join lateral jsonb_each(su.consistency_counts) e group by 1 order by 1`),
  );
  expect(sums).toEqual(fromSubjects);
  // 4. the list: every page sorted by subject (walked) and by item (read whole), the totals per filter
  const live = listed.filter((t) => t.live);
  const key = (x: { instanceId: number; variable: string }) => `${x.instanceId}:${x.variable}`;
  const want = live.map((t) => `${t.instance_id}:${t.variable}`).sort();
  for (const sort of [
    { sortField: 'ptsNo', sortOrder: 'asc' },
    { sortField: 'ptsNo', sortOrder: 'desc' },
    { sortField: 'item', sortOrder: 'asc' },
  ]) {
    const got: string[] = [];
    const nos: string[] = [];
    for (let pageNumber = 1; ; pageNumber++) {
      const r = await consistency('dm', { ...sort, pageNumber, pageSize: 50 });
      expect(r.status, JSON.stringify(r.body)).toBe(200);
      expect(r.body.data.totalCount).toBe(live.length);
      got.push(...r.body.data.content.map(key));
      nos.push(...r.body.data.content.map((x) => x.ptsNo));
      if (r.body.data.content.length < 50) break;
    }
    expect([...got].sort(), JSON.stringify(sort)).toEqual(want);
    if (sort.sortField === 'ptsNo') {
      const ordered = [...nos].sort();
      expect(nos).toEqual(sort.sortOrder === 'asc' ? ordered : ordered.reverse());
    }
  }
  const total = async (who: string, body: Record<string, unknown>) => {
    const r = await consistency(who, body);
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    return r.body.data.totalCount;
  };
  for (const [reason, bit] of REASONS) expect(await total('dm', { reason }), reason).toBe(live.filter((t) => t.d & bit).length);
  expect(await total('dm', { formCode: 'LB' })).toBe(live.filter((t) => t.form_code === 'LB').length);
  expect(await total('dm', { visitCode: 'V3', reason: 'edited' })).toBe(
    live.filter((t) => t.visit_code === 'V3' && t.d & 1).length,
  );
  expect(await total('dm', { formCode: 'DM' })).toBe(live.filter((t) => t.form_code === 'DM').length);
  expect(await total('dm', { siteId: site.b })).toBe(live.filter((t) => t.site_id === site.b).length);
  // a site's coordinator: its site only, walked and read whole alike
  const b = live.filter((t) => t.site_id === site.b);
  expect(await total('crc2', {})).toBe(b.length);
  expect(await total('crc2', { sortField: 'updateTime' })).toBe(b.length);
  const page = await consistency('crc2', { pageSize: 50 });
  expect(page.body.data.content.map(key).sort()).toEqual(b.map((t) => `${t.instance_id}:${t.variable}`).sort().slice(0, 50));
  return live;
}

const listedOf = (live: Truth[], ptsId: number) =>
  Object.fromEntries(live.filter((t) => t.subject_id === ptsId).map((t) => [t.variable, t.d]));

beforeAll(async () => {
  s = await startTestServer();
  const db = s.database.db;
  // a site's coordinator reads the report (the demo CRC role has no report permission)
  const [crc] = await db.select().from(roles).where(eq(roles.code, 'CRC'));
  await db.insert(rolePermissions).values({ roleId: crc!.id, permission: 'report:data-consistency:query' }).onConflictDoNothing();
  for (const a of ['dm', 'crc1', 'crc2']) tok[a] = await s.api.login(a);
  const rows = await db.select().from(sites).where(and(eq(sites.projectId, 1), eq(sites.env, 'PRO')));
  site.a = rows.find((r) => r.siteNo === '01')!.id;
  site.b = rows.find((r) => r.siteNo === '02')!.id;
  const add = async (who: string, siteId: number, firstVisitDate = '2026-01-02') => {
    const r = await s.api.post<{ ptsId: number }>('/project/managePts/add', { token: tok[who], headers: H, form: { siteId, firstVisitDate } });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    return r.body.data.ptsId;
  };
  // week 4 (day 28) is today: the hospital's results of yesterday fall in it
  pt = await add('crc1', site.a, day(-28));
  for (let i = 0; i < 40; i++) bulk.push(await add(i % 2 ? 'crc2' : 'crc1', i % 2 ? site.b : site.a));
  const [subj] = await db.select().from(subjects).where(eq(subjects.id, pt));
  for (const v of await db.select().from(visits).where(eq(visits.versionId, subj!.designVersionId!))) visit[v.code] = v.id;
  for (const f of await db.select().from(forms).where(eq(forms.versionId, subj!.designVersionId!))) form[f.code] = f.id;
  await db.update(subjects).set({ medicalRecordId: 'MRN-CC-1' }).where(eq(subjects.id, pt));
  const [c] = await db
    .insert(sourceConnections)
    .values({ env: 'PRO', projectId: 1, siteId: site.a, kind: 'fhir_file', name: 'consistency counters' })
    .returning();
  conn = { id: c!.id, env: 'PRO', projectId: 1, siteId: site.a };
  await hospital(records());
  for (const [variable, code] of [['HGB', HGB[0]], ['NA', NA[0]], ['K', K[0]]] as const) {
    const r = await s.api.post('/crf/config/mapping/save', {
      token: tok.dm,
      headers: H,
      json: { formId: form.LB, variable, method: 'code', codes: [{ system: 'http://loinc.org', code }], useSynonyms: false, selection: 'nearest', windowOnly: true },
    });
    expect([200, 409], JSON.stringify(r.body)).toContain(r.status);
  }
  await prefill(['HGB', 'NA', 'K']);
  // 40 more subjects, each with two values pre-filled from the haemoglobin record and changed since (written in SQL,
  // as an import would: the triggers keep the counts whoever writes)
  await db.execute(sql`
    insert into crf_instances (env, project_id, site_id, subject_id, visit_id, form_id, status, version)
    select 'PRO', 1, su.site_id, su.id, ${visit.V2!}::int, ${form.LB!}::int, 1, 1 from subjects su where su.id = any(${sql.param(bulk)}::int[])`);
  await db.execute(sql`
    insert into crf_values (instance_id, variable, value, entry_mode, filled_ref, filled_value)
    select i.id, x.variable, jsonb_build_object('v', 100 + i.id % 7), 2, 'source:' || r.id || ':v1', '{"v":132}'::jsonb
      from crf_instances i
      cross join (values ('HGB'), ('NA')) x(variable)
      join source_records r on r.connection_id = ${conn.id} and r.external_id = 'Observation/hgb'
     where i.subject_id = any(${sql.param(bulk)}::int[]) and i.form_id = ${form.LB!}`);
});
afterAll(async () => {
  await s?.stop();
});

describe('the data consistency counts kept by every change', () => {
  it('after the pre-fill: the untouched pre-filled values are not listed, the 80 changed ones are', async () => {
    const live = await check();
    expect(live).toHaveLength(80);
    expect(listedOf(live, pt)).toEqual({});
  });

  it('a value edited by hand, and edited back to what the pre-fill wrote', async () => {
    await edit({ NA: 138 });
    expect(listedOf(await check(), pt)).toEqual({ NA: 1 });
    await edit({ NA: 140 });
    expect(listedOf(await check(), pt)).toEqual({});
    await edit({ NA: 137 });
    expect(listedOf(await check(), pt)).toEqual({ NA: 1 });
  });

  it('a record changed at the hospital: its pre-filled values and those changed by hand since; not a change of content only', async () => {
    await hospital(records(12.1));
    const live = await check();
    expect(listedOf(live, pt)).toEqual({ NA: 1, HGB: 2 });
    // the 80 values filled from the haemoglobin record: edited and their source changed
    expect(live.filter((t) => t.d === 3)).toHaveLength(80);
    await hospital(records(12.1, 'k-4.5-v2'));
    expect(listedOf(await check(), pt)).toEqual({ NA: 1, HGB: 2 });
  });

  it('a record deleted at the hospital, and back', async () => {
    await s.database.db.execute(sql`update source_records set deleted_at = now() where connection_id = ${conn.id} and external_id = 'Observation/k'`);
    expect(listedOf(await check(), pt)).toEqual({ NA: 1, HGB: 2, K: 4 });
    await s.database.db.execute(sql`update source_records set deleted_at = null where connection_id = ${conn.id} and external_id = 'Observation/k'`);
    expect(listedOf(await check(), pt)).toEqual({ NA: 1, HGB: 2 });
  });

  it('values pre-filled again from the records as they are now', async () => {
    await prefill(['HGB', 'NA']);
    expect(listedOf(await check(), pt)).toEqual({});
  });

  it('a form deleted and restored; a subject in the recycle bin', async () => {
    const one = bulk[3]!;
    await s.database.db.execute(sql`update crf_instances set deleted_at = now() where subject_id = ${one} and form_id = ${form.LB!}`);
    expect(await check()).toHaveLength(78);
    await s.database.db.execute(sql`update crf_instances set deleted_at = null where subject_id = ${one} and form_id = ${form.LB!}`);
    expect(await check()).toHaveLength(80);
    const r = await s.api.post('/project/managePts/delete', { token: tok.dm, headers: H, json: { ptsId: bulk[4], reason: 'Entered twice' } });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    expect(await check()).toHaveLength(78);
  });

  it('a value deleted', async () => {
    await s.database.db.execute(sql`delete from crf_values where variable = 'NA' and instance_id in (select id from crf_instances where subject_id = ${bulk[5]!})`);
    expect(await check()).toHaveLength(77);
  });
});

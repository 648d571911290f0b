/**
 * Benchmark (issue 14 item 5): the study reports on 100,000 subjects — eCRF completion (`POST
 * /api/visual/report/crfReport`, by site and by visit), missing data (`POST /api/visual/report/crfReportMissing`, a page
 * and its summary) and data consistency (`POST /api/dataConsistencyReport/list`) — at 4 connections and at 1 for
 * reference. Goal: p99 < 200 ms per page at 4 connections.
 *
 * Data (generated in SQL, reused by later runs on the same database): SUBJECTS subjects (default 100,000) over the
 * demo project's PRO sites 01 (40 %), 02 (40 %) and a third site 03 (20 %), one in 500 deleted. Each has its V1
 * demographics (85 % completed; the drafts miss the birth date, and a woman's draft one in three her pregnancy) and
 * vital signs (one in ten certified); 60 % have week-2 vital signs (a fifth of them drafts without the diastolic
 * pressure); one in ten an adverse event at week 2 (≈ 270,000 forms, 1.1 M values). One in five subjects' V1 systolic
 * pressure was pre-filled from a hospital record (a connection, source patients, records and their versions, the
 * pre-fill's history row): of those, one in twenty changed at the hospital since and one in twenty was edited by hand.
 *
 *   DATABASE_URL=postgres://postgres@127.0.0.1:5432/bench_reports npm run bench -- reports
 *   npm run bench -- reports                      (embedded database; SUBJECTS=… for a smaller set)
 * The forms' missing required items (migration 0040) are computed before the runs, as the workers do at start: the
 * time it takes is printed (ecrf/missing-items.ts; the seed writes its forms in SQL, as a database from before 0040).
 *
 * DURATION (s per run, default 15), CONNECTIONS (default 4), CASES (comma-separated case names: crf-site, crf-visit,
 * crf-crc1, missing-dm, missing-dm-form, missing-crc1, consistency-dm, consistency-crc1; "none" only seeds),
 * BENCH_DATA_DIR (the embedded database's folder, kept and reused by later runs).
 */
import fs from 'node:fs';
import os from 'node:os';
import {
  loadAverage,
  load,
  login,
  quantile,
  seedSubjects,
  serverTimings,
  spawnApi,
  startSeedingServer,
} from './bench-kit';
import { computeMissingItems } from '../apps/server/src/modules/ecrf/missing-items';

const SUBJECTS = Number(process.env.SUBJECTS ?? 100_000);
const duration = Number(process.env.DURATION ?? 15);
const connections = Number(process.env.CONNECTIONS ?? 4);
const only = process.env.CASES ? process.env.CASES.split(',') : null;

const { server, dataDir, exec, step } = await startSeedingServer('reports');
const one = async <T = Record<string, unknown>>(q: string) => (await exec(q)).rows[0] as T;
/** a number of the subject for a choice of `what` that no other choice (nor the site) follows */
const H = (what: string) => `abs(hashtext('${what}:' || su.id))`;
/** the benchmark's subjects (the demo's own rows are left out) */
const BENCH = `su.pts_no like 'RR%'`;

const t0 = Date.now();
const existing = await one<{ n: number }>(`select count(*)::int as n from subjects su where ${BENCH}`);
if (existing.n < SUBJECTS) {
  console.log(`seeding ${SUBJECTS} subjects (${server.database.kind}) …`);
  await exec(
    `insert into organizations (name, code) select 'Demo County Hospital', 'DCO' where not exists (select 1 from organizations where code = 'DCO')`,
  );
  await exec(`insert into sites (env, project_id, org_id, site_no, name)
    select 'PRO', 1, id, '03', 'Demo County Hospital' from organizations where code = 'DCO' on conflict do nothing`);
  const ts = Date.now();
  await seedSubjects(exec, {
    count: SUBJECTS,
    prefix: 'RR',
    digits: 6,
    siteNo: `case g % 5 when 0 then '01' when 1 then '01' when 2 then '02' when 3 then '02' else '03' end`,
    status: `case when g % 500 = 0 then 0 else 1 + (g % 7) end`,
  });
  await server.database.ownerExecuteSql('analyze subjects, sites');
  console.log(`  subjects: ${((Date.now() - ts) / 1000).toFixed(1)} s`);
  // the forms: code, visit, who has it, its status (1 draft, 2 completed, 3 certified)
  const form = (code: string, visit: string, has: string, status: string) =>
    step(
      `${visit} ${code} forms`,
      `insert into crf_instances (env, project_id, site_id, subject_id, visit_id, form_id, status, version, updated_by, certified_by, certified_at, created_at, updated_at)
       select 'PRO', 1, su.site_id, su.id, v.id, f.id, x.st, 2, crc.id, case when x.st = 3 then crc.id end, case when x.st = 3 then x.t end, x.t, x.t
         from subjects su
         join visits v on v.version_id = su.design_version_id and v.code = '${visit}'
         join forms f on f.version_id = su.design_version_id and f.code = '${code}'
         cross join (select id from users where account = 'crc1') crc
         cross join lateral (select (${status})::int as st, timestamptz '2026-01-01 08:00+08' + (su.id % 300) * interval '1 day' as t) x
        where ${BENCH} and (${has})`,
      'crf_instances',
    );
  await form('DM', 'V1', 'true', `case when ${H('dm')} % 20 < 3 then 1 else 2 end`);
  await form('VS', 'V1', 'true', `case when ${H('vs')} % 10 = 0 then 3 else 2 end`);
  await form('VS', 'V2', `${H('v2')} % 5 < 3`, `case when ${H('v2')} % 5 = 0 then 1 else 2 end`);
  await form('AE', 'V2', `${H('ae')} % 10 = 7`, `2`);
  // the subjects' own progress counters, a thousand subjects a call (the function takes an id list)
  const tp = Date.now();
  const ids = (await exec(`select su.id from subjects su where ${BENCH} order by su.id`)).rows.map(
    (r) => (r as { id: number }).id,
  );
  for (let i = 0; i < ids.length; i += 1000)
    await exec(`select refresh_subject_progress(array[${ids.slice(i, i + 1000).join(',')}]::int[])`);
  console.log(`  progress counters: ${((Date.now() - tp) / 1000).toFixed(1)} s`);
  const values = (code: string, visit: string, items: string) =>
    step(
      `${visit} ${code} values`,
      `insert into crf_values (instance_id, variable, value, entry_mode, updated_by, updated_at)
       select i.id, x.variable, jsonb_build_object('v', x.v), 2, i.updated_by, i.updated_at
         from crf_instances i
         join forms f on f.id = i.form_id and f.code = '${code}'
         join visits v on v.id = i.visit_id and v.code = '${visit}'
         join subjects su on su.id = i.subject_id
         cross join lateral (values ${items}) x(variable, v)
        where ${BENCH} and x.v is not null`,
      'crf_values',
    );
  await values(
    'DM',
    'V1',
    `('BRTHDTC', case when i.status >= 2 then to_jsonb(to_char(date '1940-01-01' + ((i.id * 37) % 20000), 'YYYY-MM-DD')) end),
     ('SEX', to_jsonb(case when ${H('sex')} % 2 = 0 then '2' else '1' end)),
     ('PREG', case when ${H('sex')} % 2 = 0 and (i.status >= 2 or su.id % 3 <> 0) then to_jsonb('N'::text) end),
     ('ETHNIC', case when i.id % 5 <> 0 then to_jsonb('HAN'::text) end)`,
  );
  const vs = `('VSDTC', to_jsonb(to_char(i.updated_at, 'YYYY-MM-DD"T"HH24:MI'))),
     ('SYSBP', to_jsonb(100 + i.id % 60)),
     ('DIABP', case when i.status >= 2 then to_jsonb(60 + i.id % 40) end),
     ('HR', to_jsonb(50 + i.id % 100))`;
  await values('VS', 'V1', vs);
  await values('VS', 'V2', vs);
  await values(
    'AE',
    'V2',
    `('AETERM', to_jsonb('Headache'::text)), ('AESTDTC', to_jsonb('2026-02-01'::text))`,
  );
  // the hospital: one connection per site, a matched patient and a systolic-pressure record per pre-filled subject
  await exec(`insert into source_connections (env, project_id, site_id, kind, name)
    select 'PRO', 1, s.id, 'fhir_file', 'bench reports ' || s.site_no from sites s
     where s.project_id = 1 and s.env = 'PRO' and not exists (select 1 from source_connections c where c.name = 'bench reports ' || s.site_no)`);
  const PREFILLED = `${BENCH} and ${H('pf')} % 5 = 1 and su.status <> 0`;
  await step(
    'source patients',
    `insert into source_patients (env, project_id, site_id, connection_id, patient_key, identifiers, subject_id, status)
     select 'PRO', 1, su.site_id, c.id, 'RRP-' || su.id, jsonb_build_array(jsonb_build_object('type', 'medicalRecordId', 'value', su.medical_record_id)), su.id, 1
       from subjects su join sites s on s.id = su.site_id join source_connections c on c.name = 'bench reports ' || s.site_no
      where ${PREFILLED}`,
    'source_patients',
  );
  // version 2 at the hospital for one in twenty: the value changed since the pre-fill
  const CHANGED = `${H('pf')} % 100 = 6`;
  await step(
    'source records',
    `insert into source_records (env, project_id, site_id, subject_id, source_patient_id, connection_id, external_id, doc_type, resource_type,
                                 code_system, code, display, value_num, unit, effective_at, effective_date, content_hash, version, raw_format, raw)
     select 'PRO', 1, su.site_id, su.id, p.id, p.connection_id, 'Observation/sbp-' || su.id, 7, 'Observation', 'http://loinc.org', '8480-6',
            'Systolic blood pressure', case when ${CHANGED} then 150.0 else 100 + i.id % 60 end, 'mm[Hg]', i.updated_at, i.updated_at::date,
            md5('sbp' || su.id || case when ${CHANGED} then 'v2' else '' end), case when ${CHANGED} then 2 else 1 end, 'fhir', '{"resourceType":"Observation"}'
       from subjects su
       join source_patients p on p.subject_id = su.id and p.patient_key = 'RRP-' || su.id
       join crf_instances i on i.subject_id = su.id and i.form_id = (select id from forms where code = 'VS' and version_id = su.design_version_id)
                           and i.visit_id = (select id from visits where code = 'V1' and version_id = su.design_version_id)
      where ${PREFILLED}`,
    'source_records',
  );
  await step(
    'source record versions',
    `insert into source_record_versions (record_id, version, change_kind, content_hash, value_num, unit, effective_at, raw)
     select r.id, n, case when n = 1 then 'created' else 'updated' end, r.content_hash, case when n = 1 then 100 + (i.id % 60) else r.value_num end, r.unit, r.effective_at, r.raw
       from source_records r join subjects su on su.id = r.subject_id
       join crf_instances i on i.subject_id = su.id and i.form_id = (select id from forms where code = 'VS' and version_id = su.design_version_id)
                           and i.visit_id = (select id from visits where code = 'V1' and version_id = su.design_version_id)
       cross join generate_series(1, r.version) n
      where r.external_id like 'Observation/sbp-%'`,
    'source_record_versions',
  );
  // the pre-fill (its history row) and the value's source; one in twenty edited by hand since (its source dropped)
  const EDITED = `${H('pf')} % 100 = 11`;
  await step(
    'pre-fill history',
    `insert into crf_value_history (instance_id, variable, old_value, new_value, entry_mode, instance_version, user_id, user_name, source_ref, created_at)
     select v.instance_id, 'SYSBP', '{"v":null}', jsonb_build_object('v', 100 + i.id % 60), 5, 1, i.updated_by, 'Amy Coordinator', 'source:' || r.id || ':v1', i.updated_at
       from crf_values v join crf_instances i on i.id = v.instance_id join subjects su on su.id = i.subject_id
       join source_records r on r.external_id = 'Observation/sbp-' || su.id
      where v.variable = 'SYSBP' and ${PREFILLED}`,
    'crf_value_history',
  );
  await step(
    'edits by hand',
    `insert into crf_value_history (instance_id, variable, old_value, new_value, entry_mode, reason, instance_version, user_id, user_name, created_at)
     select v.instance_id, 'SYSBP', v.value, jsonb_build_object('v', (v.value ->> 'v')::int + 2), 2, 'transcription check', 2, i.updated_by, 'Amy Coordinator', i.updated_at + interval '1 day'
       from crf_values v join crf_instances i on i.id = v.instance_id join subjects su on su.id = i.subject_id
      where v.variable = 'SYSBP' and ${PREFILLED} and ${EDITED}`,
    'crf_value_history',
  );
  await step(
    'values pre-filled',
    `update crf_values v set source_ref = case when ${EDITED} then null else 'source:' || r.id || ':v1' end,
            filled_ref = 'source:' || r.id || ':v1', filled_value = v.value,
            value = case when ${EDITED} then jsonb_build_object('v', (v.value ->> 'v')::int + 2) else v.value end,
            entry_mode = case when ${EDITED} then 2 else 5 end
       from crf_instances i, subjects su, source_records r
      where i.id = v.instance_id and su.id = i.subject_id and r.external_id = 'Observation/sbp-' || su.id and v.variable = 'SYSBP' and ${PREFILLED}`,
    'crf_values',
  );
  const ta = Date.now();
  await server.database.ownerExecuteSql('analyze');
  console.log(`  analyze: ${((Date.now() - ta) / 1000).toFixed(1)} s`);
}
// what the workers do at start: the missing required items of the forms no save computed (the seed's, or a database
// migrated to 0040)
const tm = Date.now();
const computed = await computeMissingItems(server.database.db);
if (computed) {
  // as the workers do after computing many (server.ts)
  await server.database.ownerExecuteSql('analyze crf_instances, subjects, crf_report_counts');
  console.log(`missing required items computed for ${computed.toLocaleString('en-US')} forms: ${((Date.now() - tm) / 1000).toFixed(1)} s`);
}
// the counter rows and subjects the seed and the computation updated thousands of times, vacuumed as autovacuum would
// have in a running database (the bench's PostgreSQL runs without it; PGlite has none)
await server.database.ownerExecuteSql('vacuum analyze crf_report_counts, subjects');
// the data consistency counts (migration 0047) the seed's writes kept through the triggers: the counters' total is
// the number of values the report's rule lists, computed again here
const kept = await one<{ counted: number; listed: number }>(`select
  (select coalesce(sum(differing), 0) from crf_report_counts where project_id = 1 and env = 'PRO' and status <> 0)::int as counted,
  (select count(*) from crf_values v join crf_instances i on i.id = v.instance_id join subjects su on su.id = i.subject_id
    where (v.filled_ref is not null or v.source_ref like 'source:%') and i.deleted_at is null and su.status <> 0
      and i.project_id = 1 and i.env = 'PRO' and crf_value_differs(v.value, v.source_ref, v.filled_ref, v.filled_value) <> 0)::int as listed`);
if (kept.counted !== kept.listed) throw new Error(`consistency counters ${kept.counted} ≠ ${kept.listed} listed values`);
const counts = await one<
  Record<string, string | number>
>(`select (select count(*) from subjects su where ${BENCH})::int as subjects,
  (select count(*) from crf_instances)::int as instances, (select count(*) from crf_values)::int as "values",
  (select count(*) from crf_value_history)::int as history, (select count(*) from source_records)::int as "source records"`);
console.log(
  `data (${server.database.kind}): ${Object.entries(counts)
    .map(([k, v]) => `${Number(v).toLocaleString('en-US')} ${k}`)
    .join(', ')} — ${((Date.now() - t0) / 1000).toFixed(1)} s to seed or check`,
);
// a site coordinator reads the reports of their site (the demo CRC role has no report permission)
for (const p of ['report:crf:query', 'report:crf-missing:query', 'report:data-consistency:query']) {
  await exec(
    `insert into role_permissions (role_id, permission) select id, '${p}' from roles where code = 'CRC' on conflict do nothing`,
  );
}

await server.close();
const api = await spawnApi(dataDir);
const tokens = { dm: await login(api.url, 'dm'), crc1: await login(api.url, 'crc1') };

interface Case {
  name: string;
  label: string;
  user: keyof typeof tokens;
  url: string;
  body: Record<string, unknown>;
}
const page = { pageNumber: 1, pageSize: 50 };
const cases: Case[] = [
  {
    name: 'crf-site',
    label: 'completion by site, dm',
    user: 'dm',
    url: '/api/visual/report/crfReport',
    body: { groupBy: 'site' },
  },
  {
    name: 'crf-visit',
    label: 'completion by visit, dm',
    user: 'dm',
    url: '/api/visual/report/crfReport',
    body: { groupBy: 'visit' },
  },
  {
    name: 'crf-crc1',
    label: 'completion by form, crc1 (site 01)',
    user: 'crc1',
    url: '/api/visual/report/crfReport',
    body: { groupBy: 'form' },
  },
  {
    name: 'missing-dm',
    label: 'missing data, dm, page 1',
    user: 'dm',
    url: '/api/visual/report/crfReportMissing',
    body: page,
  },
  {
    name: 'missing-dm-form',
    label: 'missing data, dm, DM form, by item',
    user: 'dm',
    url: '/api/visual/report/crfReportMissing',
    body: { ...page, formCode: 'DM', sortField: 'item' },
  },
  {
    name: 'missing-dm-far',
    label: 'missing data, dm, page 100',
    user: 'dm',
    url: '/api/visual/report/crfReportMissing',
    body: { ...page, pageNumber: 100 },
  },
  {
    name: 'missing-crc1',
    label: 'missing data, crc1, page 1',
    user: 'crc1',
    url: '/api/visual/report/crfReportMissing',
    body: page,
  },
  {
    name: 'consistency-dm',
    label: 'data consistency, dm, page 1',
    user: 'dm',
    url: '/api/dataConsistencyReport/list',
    body: page,
  },
  {
    name: 'consistency-dm-far',
    label: 'data consistency, dm, page 50',
    user: 'dm',
    url: '/api/dataConsistencyReport/list',
    body: { ...page, pageNumber: 50 },
  },
  {
    name: 'consistency-crc1',
    label: 'data consistency, crc1, page 1',
    user: 'crc1',
    url: '/api/dataConsistencyReport/list',
    body: page,
  },
];

const f = (n: number) => (Number.isFinite(n) ? n.toFixed(1) : '–');
console.log(
  `\nreports benchmark — ${server.database.kind}, ${os.cpus().length} cores, ${duration} s per run; load average (1 min) before/after each run`,
);
console.log(
  'case'.padEnd(40) +
    'conn   req/s     p50   p97.5     p99     max   server p50/p99      rows/total    load   (ms)',
);
for (const c of cases) {
  if (only && !only.includes(c.name)) continue;
  const headers = {
    token: tokens[c.user],
    proId: '1',
    proType: 'PRO',
    language: 'en_US',
    'content-type': 'application/json',
  };
  const body = JSON.stringify(c.body);
  const probe = await fetch(api.url + c.url, { method: 'POST', headers, body });
  const pj = (await probe.json()) as {
    data?: { totalCount?: number; content?: unknown[]; rows?: unknown[]; totals?: { expected: number } };
    message?: string;
  };
  if (probe.status !== 200 || !pj.data) throw new Error(`${c.name}: ${probe.status} ${pj.message}`);
  const shape = pj.data.content
    ? `${pj.data.content.length}/${pj.data.totalCount}`
    : `${pj.data.rows?.length}/${pj.data.totals?.expected}`;
  await load({ url: api.url + c.url, method: 'POST', headers, body, duration: 2, connections }); // warm-up
  for (const conns of [connections, 1]) {
    const timing = serverTimings();
    const before = loadAverage();
    const r = await load({
      url: api.url + c.url,
      method: 'POST',
      headers,
      body,
      duration,
      connections: conns,
      setupClient: timing.setupClient,
    });
    console.log(
      c.label.padEnd(40) +
        `${String(conns).padStart(4)} ${r.requests.average.toFixed(0).padStart(7)} ${f(r.latency.p50).padStart(7)} ${f(r.latency.p97_5).padStart(7)} ${f(r.latency.p99).padStart(7)} ${f(r.latency.max).padStart(7)}` +
        `   ${`${f(quantile(timing.values, 0.5))}/${f(quantile(timing.values, 0.99))}`.padStart(14)}   ${shape.padStart(12)}   ${before}/${loadAverage()}` +
        (r.non2xx + r.errors ? `   non-2xx/errors ${r.non2xx}/${r.errors}` : ''),
    );
  }
}
console.log('(latencies in ms; goal: p99 < 200 ms per page)');
api.child.kill('SIGTERM');
if (!process.env.BENCH_DATA_DIR) fs.rmSync(dataDir, { recursive: true, force: true });

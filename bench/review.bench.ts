/**
 * Benchmark (issue 13): the query list (`POST /api/crf/query/list`) and the SDV list (`POST /api/verification/page`,
 * the /project/verification page's list) on 100,000 subjects, at 32 connections and at 1 for reference. Goal: p99 <
 * 50 ms at 32 concurrent.
 *
 * Data (generated in SQL, reused by later runs on the same database): SUBJECTS subjects (default 100,000) over the
 * demo project's PRO sites 01 (40 %, risk high), 02 (40 %, middle) and a third site 03 (20 %, low); one in 500
 * deleted, one in 1,000 with a risk level of its own. Each has its completed V1 Demographics and Vital signs forms
 * (one in ten certified) with values (200,000 instances, 830,000 values; a quarter of the heart rates outside
 * their soft range). ≈ 130,000 queries on items — automatic ones on those heart rates, manual ones raised by the data
 * manager and the monitor — 42 % open, 20 % answered, 38 % closed, each with its thread; SDV marks on every valued
 * item of 30 % of the Vital signs and 20 % of the Demographics forms (some lost since, some partial, some removed),
 * SDR marks on 10 % of the forms.
 *
 *   DATABASE_URL=postgres://postgres@127.0.0.1:5432/bench_review npm run bench -- review
 *   npm run bench -- review                      (embedded database; SUBJECTS=… for a smaller set)
 * DURATION (s per run, default 15), CONNECTIONS (default 32), CASES (comma-separated case names to run: queries-dm,
 * queries-dm-filtered, queries-crc1, queries-crc1-filtered, sdv-cra, pms-info; "none" only seeds), BENCH_DATA_DIR (the
 * embedded database's folder, kept and reused by later runs).
 */
import fs from 'node:fs';
import os from 'node:os';
import { loadAverage, load, login, processCpuMs, quantile, seedSubjects, serverTimings, spawnApi, startSeedingServer } from './bench-kit';

const SUBJECTS = Number(process.env.SUBJECTS ?? 100_000);
const duration = Number(process.env.DURATION ?? 15);
const connections = Number(process.env.CONNECTIONS ?? 32);
const only = process.env.CASES ? process.env.CASES.split(',') : null;

const { server, dataDir, exec, step } = await startSeedingServer('review');
const one = async <T = Record<string, unknown>>(q: string) => (await exec(q)).rows[0] as T;
/** the benchmark's subjects, instances, values … (the demo's own rows are left out) */
const BENCH = `su.pts_no like 'RV%'`;

const t0 = Date.now();
const existing = await one<{ n: number }>(`select count(*)::int as n from subjects su where ${BENCH}`);
if (existing.n < SUBJECTS) {
  // each bulk step is followed by ANALYZE of the tables it wrote (as the owner: the application's role may not), as a
  // loader would: the triggers that keep the SDV progress plan their statements on the statistics
  console.log(`seeding ${SUBJECTS} subjects (${server.database.kind}) …`);
  // a third site, and the sites' risk levels: 01 high, 02 middle, 03 low
  await exec(`insert into organizations (name, code) select 'Demo County Hospital', 'DCO' where not exists (select 1 from organizations where code = 'DCO')`);
  await exec(`insert into sites (env, project_id, org_id, site_no, name)
    select 'PRO', 1, id, '03', 'Demo County Hospital' from organizations where code = 'DCO' on conflict do nothing`);
  await exec(`update sites set risk_level = case site_no when '01' then 1 when '02' then 2 else 3 end, updated_at = now() where project_id = 1 and env = 'PRO'`);
  const ts = Date.now();
  await seedSubjects(exec, {
    count: SUBJECTS,
    prefix: 'RV',
    digits: 6,
    siteNo: `case g % 5 when 0 then '01' when 1 then '01' when 2 then '02' when 3 then '02' else '03' end`,
    status: `case when g % 500 = 0 then 0 else 1 + (g % 7) end`,
    riskLevel: `case when g % 1000 = 7 then 1 + (g / 1000) % 3 end`,
  });
  await server.database.ownerExecuteSql('analyze subjects, sites');
  console.log(`  subjects: ${((Date.now() - ts) / 1000).toFixed(1)} s`);
  // V1 Demographics and Vital signs of every subject, completed (one in ten certified), over 300 days
  await step(
    'form instances',
    `insert into crf_instances (env, project_id, site_id, subject_id, visit_id, form_id, status, version, updated_by, certified_by, certified_at, created_at, updated_at)
     select 'PRO', 1, su.site_id, su.id, v.id, f.id, case when su.id % 10 = 0 then 3 else 2 end, 2, crc.id,
            case when su.id % 10 = 0 then crc.id end, case when su.id % 10 = 0 then x.t + interval '2 days' end, x.t, x.t
       from subjects su
       join visits v on v.version_id = su.design_version_id and v.code = 'V1'
       join forms f on f.version_id = su.design_version_id and f.code in ('DM', 'VS')
       cross join (select id from users where account = 'crc1') crc
       cross join lateral (select timestamptz '2026-01-01 08:00+08' + (su.id % 300) * interval '1 day' + (su.id % 600) * interval '1 minute' as t) x
      where ${BENCH}`,
    'crf_instances, verification_progress, verification_counts, subjects',
  );
  const values = (form: string, items: string) =>
    step(
      `${form} values`,
      `insert into crf_values (instance_id, variable, value, entry_mode, quality, updated_by, updated_at)
       select i.id, x.variable, jsonb_build_object('v', x.v), 2, x.quality, i.updated_by, i.updated_at
         from crf_instances i
         join forms f on f.id = i.form_id and f.code = '${form}'
         join subjects su on su.id = i.subject_id
         cross join lateral (values ${items}) x(variable, v, quality)
        where ${BENCH} and x.v is not null`,
      'crf_values, verification_progress, verification_counts',
    );
  await values(
    'DM',
    `('BRTHDTC', to_jsonb(to_char(date '1940-01-01' + ((i.id * 37) % 20000), 'YYYY-MM-DD')), null::varchar),
     ('SEX', to_jsonb(case when i.subject_id % 2 = 0 then '2' else '1' end), null),
     ('PREG', case when i.subject_id % 2 = 0 then to_jsonb('N'::text) end, null),
     ('ETHNIC', case when i.id % 5 <> 0 then to_jsonb('HAN'::text) end, null)`,
  );
  await values(
    'VS',
    `('VSDTC', to_jsonb(to_char(i.updated_at, 'YYYY-MM-DD"T"HH24:MI')), null::varchar),
     ('SYSBP', to_jsonb(100 + i.id % 60), null),
     ('DIABP', to_jsonb(60 + i.id % 40), null),
     ('HR', to_jsonb(case when (i.id / 2) % 4 = 0 then 181 + i.id % 40 else 50 + i.id % 100 end), case when (i.id / 2) % 4 = 0 then 'range' end),
     ('WEIGHT', case when i.id % 7 = 0 then 'null'::jsonb else to_jsonb(round(45 + (i.id % 600) / 10.0, 1)) end, null)`,
  );
  // automatic queries on the heart rates outside their range: half open, a fifth answered, the rest closed
  const status = (k: string) => `case ${k} % 10 when 0 then 1 when 1 then 1 when 2 then 1 when 3 then 1 when 4 then 2 when 5 then 2 else 3 end`;
  await step(
    'automatic queries',
    `insert into queries (env, project_id, site_id, subject_id, visit_id, unscheduled_id, form_id, repeat_no, instance_id, variable, origin, rule, params,
                          status, version, created_by, updated_by, closed_by, closed_at, created_at, updated_at)
     select i.env, i.project_id, i.site_id, i.subject_id, i.visit_id, 0, i.form_id, 1, i.id, 'HR', 'auto', 'range',
            jsonb_build_object('value', v.value ->> 'v', 'range', '40–180'), x.st, case x.st when 1 then 1 else 2 end, i.updated_by,
            case x.st when 1 then i.updated_by when 2 then crc.id else cra.id end, case when x.st = 3 then cra.id end,
            case when x.st = 3 then x.u end, i.updated_at, case x.st when 1 then i.updated_at else x.u end
       from crf_values v
       join crf_instances i on i.id = v.instance_id
       join subjects su on su.id = i.subject_id
       cross join (select id from users where account = 'crc1') crc
       cross join (select id from users where account = 'cra') cra
       cross join lateral (select case abs(hashtext('q' || i.id)) % 10 when 0 then 1 when 1 then 1 when 2 then 1 when 3 then 1 when 4 then 1 when 5 then 2 when 6 then 2 else 3 end as st,
                                  i.updated_at + ((i.id * 7919) % 43200) * interval '1 minute' as u) x
      where ${BENCH} and v.quality = 'range'`,
    'queries, query_counts',
  );
  // manual queries on items, raised by the data manager or the monitor
  await step(
    'manual queries',
    `insert into queries (env, project_id, site_id, subject_id, visit_id, unscheduled_id, form_id, repeat_no, instance_id, variable, origin, text,
                          status, version, created_by, updated_by, closed_by, closed_at, created_at, updated_at)
     select i.env, i.project_id, i.site_id, i.subject_id, i.visit_id, 0, i.form_id, 1, i.id, x.variable, 'manual',
            'Please check ' || x.variable || ' against the source document (' || su.pts_no || ')', x.st, case x.st when 1 then 1 else 2 end,
            x.raiser, case x.st when 1 then x.raiser when 2 then crc.id else x.raiser end, case when x.st = 3 then x.raiser end,
            case when x.st = 3 then x.u end, x.c, case x.st when 1 then x.c else x.u end
       from crf_instances i
       join forms f on f.id = i.form_id
       join subjects su on su.id = i.subject_id
       cross join (select id from users where account = 'crc1') crc
       cross join (select id from users where account = 'dm') dm
       cross join (select id from users where account = 'cra') cra
       cross join lateral (select case when f.code = 'DM' then (array['BRTHDTC', 'SEX', 'ETHNIC'])[1 + i.id % 3] else (array['SYSBP', 'DIABP', 'WEIGHT'])[1 + i.id % 3] end as variable,
                                  ${status(`abs(hashtext('q' || i.id))`)} as st,
                                  case when i.id % 4 = 0 then dm.id else cra.id end as raiser,
                                  i.updated_at + ((i.id * 31) % 1440) * interval '1 minute' as c,
                                  i.updated_at + ((i.id * 7919) % 43200) * interval '1 minute' + interval '1 day' as u) x
      where ${BENCH} and (i.id % 2 = 0 or i.id % 40 = 1)`,
    'queries, query_counts',
  );
  // every query's thread: raised; answered by the site (answered and closed ones); closed (by its raiser, or automatically)
  await step(
    'query messages',
    `insert into query_messages (query_id, action, text, user_id, user_name, created_at)
     select q.id, m.action, m.text, m.user_id, u.name, m.at
       from queries q
       join subjects su on su.id = q.subject_id
       cross join (select id from users where account = 'crc1') crc
       cross join lateral (values
         (1, 'raise', q.text, case when q.origin = 'manual' then q.created_by end, q.created_at),
         (2, case when q.status >= 2 then 'reply' end, 'Checked against the source document: ' || coalesce(q.variable, '') || ' is as recorded.', crc.id, q.created_at + (q.updated_at - q.created_at) / 2),
         (3, case when q.status = 3 then case when q.origin = 'auto' then 'autoClose' else 'close' end end, null, case when q.origin = 'manual' then q.closed_by end, q.updated_at)
       ) m(n, action, text, user_id, at)
       left join users u on u.id = m.user_id
      where ${BENCH} and m.action is not null
      order by q.id, m.n`,
    'query_messages',
  );
  // SDV: every valued item of 30 % of the Vital signs and 20 % of the Demographics forms, and two items of a further
  // 10 % of the Vital signs; a monitor's removed marks on 10 % of the Vital signs' heart rates
  const hasValue = `(v.value -> 'v') is not null and jsonb_typeof(v.value -> 'v') <> 'null' and (v.value ->> 'v') <> '' and (v.value -> 'v') <> '[]'::jsonb`;
  await step(
    'SDV marks',
    `insert into verification_marks (env, project_id, site_id, subject_id, instance_id, variable, kind, value, status, reason, marked_by, marked_at, ended_by, ended_at)
     select i.env, i.project_id, i.site_id, i.subject_id, i.id, v.variable, 'sdv', v.value, x.st, case when x.st = 0 then 'Marked by mistake' end,
            cra.id, i.updated_at + interval '3 days', case when x.st = 0 then cra.id end, case when x.st = 0 then i.updated_at + interval '4 days' end
       from crf_instances i
       join forms f on f.id = i.form_id
       join subjects su on su.id = i.subject_id
       join crf_values v on v.instance_id = i.id
       cross join (select id from users where account = 'cra') cra
       cross join lateral (select case when f.code = 'VS' and su.id % 10 = 4 then 0 else 1 end as st) x
      where ${BENCH} and ${hasValue}
        and ((f.code = 'VS' and su.id % 10 < 3) or (f.code = 'DM' and su.id % 10 < 2)
             or (f.code = 'VS' and su.id % 10 = 3 and v.variable in ('SYSBP', 'DIABP')) or (f.code = 'VS' and su.id % 10 = 4 and v.variable = 'HR'))`,
    'verification_marks, verification_progress, verification_counts',
  );
  // values changed after they were verified: the mark is lost (one in 50 subjects' systolic pressure)
  await step(
    'lost SDV marks',
    `update verification_marks m set status = 2, ended_at = m.marked_at + interval '5 days'
       from subjects su where su.id = m.subject_id and ${BENCH} and m.kind = 'sdv' and m.variable = 'SYSBP' and m.status = 1 and su.id % 50 = 1`,
    'verification_marks, verification_progress, verification_counts',
  );
  await step(
    'SDR marks',
    `insert into verification_marks (env, project_id, site_id, subject_id, instance_id, variable, kind, status, marked_by, marked_at)
     select i.env, i.project_id, i.site_id, i.subject_id, i.id, null, 'sdr', 1, cra.id, i.updated_at + interval '3 days'
       from crf_instances i join subjects su on su.id = i.subject_id cross join (select id from users where account = 'cra') cra
      where ${BENCH} and su.id % 10 = 0`,
    'verification_marks, verification_progress, verification_counts',
  );
  // as the owner: the application's role (esource_app) may not analyze tables it does not own
  const ta = Date.now();
  await server.database.ownerExecuteSql('analyze');
  console.log(`  analyze: ${((Date.now() - ta) / 1000).toFixed(1)} s`);
}
const counts = await one<Record<string, string | number>>(`select (select count(*) from subjects su where ${BENCH})::int as subjects,
  (select count(*) from crf_instances)::int as instances, (select count(*) from crf_values)::int as "values",
  (select count(*) from queries)::int as queries, (select count(*) from queries where status = 1)::int as open,
  (select count(*) from query_messages)::int as messages, (select count(*) from verification_marks)::int as marks`);
console.log(
  `data (${server.database.kind}): ${Object.entries(counts)
    .map(([k, v]) => `${Number(v).toLocaleString('en-US')} ${k}`)
    .join(', ')} — ${((Date.now() - t0) / 1000).toFixed(1)} s to seed or check`,
);
const site = async (no: string) => (await one<{ id: number }>(`select id from sites where project_id = 1 and env = 'PRO' and site_no = '${no}'`)).id;
const [site01, site02] = [await site('01'), await site('02')];

// The product runs in a process of its own (as in production) and the load comes from this one.
await server.close();
const api = await spawnApi(dataDir);
const tokens = { dm: await login(api.url, 'dm'), crc1: await login(api.url, 'crc1'), cra: await login(api.url, 'cra') };

interface Case {
  name: string;
  label: string;
  user: keyof typeof tokens;
  url: string;
  body: Record<string, unknown>;
}
const first = { pageNumber: 1, pageSize: 50 };
const cases: Case[] = [
  { name: 'queries-dm', label: 'query list, dm, open tab', user: 'dm', url: '/api/crf/query/list', body: { status: 1, ...first } },
  { name: 'queries-dm-filtered', label: 'query list, dm, site 02 + subject no.', user: 'dm', url: '/api/crf/query/list', body: { status: 1, siteId: site02, ptsNo: 'RV0123', ...first } },
  { name: 'queries-crc1', label: 'query list, crc1, open tab', user: 'crc1', url: '/api/crf/query/list', body: { status: 1, ...first } },
  { name: 'queries-crc1-filtered', label: 'query list, crc1, site 01 + subject no.', user: 'crc1', url: '/api/crf/query/list', body: { status: 1, siteId: site01, ptsNo: 'RV0123', ...first } },
  { name: 'sdv-cra', label: 'SDV list, cra, default filters', user: 'cra', url: '/api/verification/page', body: { state: 'remaining', requiredOnly: true, ...first } },
  // for scale: the guard and a user's permissions, no list (bench/pms-info.bench.ts)
  { name: 'pms-info', label: 'reference: pmsInfo (guard + profile)', user: 'dm', url: '/api/auth/user/pmsInfo', body: {} },
];

const f = (n: number) => (Number.isFinite(n) ? n.toFixed(1) : '–');
// CPU per request of the API process and (on the PostgreSQL server) of its database sessions, read from /proc: the
// figure that other jobs on the machine do not inflate
const pg = process.env.DATABASE_URL ? new (await import('pg')).default.Client({ connectionString: process.env.DATABASE_URL }) : null;
await pg?.connect();
async function cpuNow(): Promise<{ api: number; db: Map<number, number> }> {
  const db = new Map<number, number>();
  if (pg) {
    const r = await pg.query<{ pid: number }>(`select pid from pg_stat_activity where datname = current_database() and pid <> pg_backend_pid()`);
    for (const { pid } of r.rows) db.set(pid, processCpuMs(pid));
  }
  return { api: processCpuMs(api.child.pid!), db };
}
function cpuSince(a: Awaited<ReturnType<typeof cpuNow>>, b: Awaited<ReturnType<typeof cpuNow>>, requests: number) {
  let db = 0;
  for (const [pid, ms] of b.db) if (Number.isFinite(ms)) db += ms - (a.db.get(pid) ?? 0);
  return { api: (b.api - a.api) / requests, db: pg ? db / requests : NaN };
}

console.log(`\nreview benchmark — ${server.database.kind}, ${os.cpus().length} cores, ${duration} s per run; load average (1 min) before/after each run`);
console.log(
  'case'.padEnd(42) +
    'conn   req/s     p50   p97.5     p99     max   server p50/p99   CPU/req api+db   rows/total    load   (ms)',
);
for (const c of cases) {
  if (only && !only.includes(c.name)) continue;
  const headers = { token: tokens[c.user], proId: '1', proType: 'PRO', language: 'en_US', 'content-type': 'application/json' };
  const body = JSON.stringify(c.body);
  const probe = await fetch(api.url + c.url, { method: 'POST', headers, body });
  const pj = (await probe.json()) as { data?: { totalCount?: number; content?: unknown[] }; message?: string };
  if (probe.status !== 200 || !pj.data) throw new Error(`${c.name}: ${probe.status} ${pj.message}`);
  const shape = pj.data.content ? `${pj.data.content.length}/${pj.data.totalCount}` : '–';
  await load({ url: api.url + c.url, method: 'POST', headers, body, duration: 2, connections }); // warm-up (and the pool's connections)
  for (const conns of [connections, 1]) {
    const timing = serverTimings();
    const before = loadAverage();
    const cpu0 = await cpuNow();
    const r = await load({ url: api.url + c.url, method: 'POST', headers, body, duration, connections: conns, setupClient: timing.setupClient });
    const cpu = cpuSince(cpu0, await cpuNow(), r.requests.total);
    const line =
      c.label.padEnd(42) +
      `${String(conns).padStart(4)} ${r.requests.average.toFixed(0).padStart(7)} ${f(r.latency.p50).padStart(7)} ${f(r.latency.p97_5).padStart(7)} ${f(r.latency.p99).padStart(7)} ${f(r.latency.max).padStart(7)}` +
      `   ${`${f(quantile(timing.values, 0.5))}/${f(quantile(timing.values, 0.99))}`.padStart(14)}   ${`${cpu.api.toFixed(2)}+${cpu.db.toFixed(2)}`.padStart(14)}` +
      `   ${shape.padStart(10)}   ${before}/${loadAverage()}` +
      (r.non2xx + r.errors ? `   non-2xx/errors ${r.non2xx}/${r.errors}` : '');
    console.log(line);
  }
}
console.log(`(latencies in ms; goal: p99 < 50 ms at ${connections} connections)`);
await pg?.end();
api.child.kill('SIGTERM');
if (!process.env.BENCH_DATA_DIR) fs.rmSync(dataDir, { recursive: true, force: true });

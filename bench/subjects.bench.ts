/**
 * Benchmark (issues 5 and 16): the subject list page (50 rows, filtered and sorted) at 32 connections beside a bare
 * Fastify route answering the same page of JSON from memory in the same run, and the eCRF batch save of 50 items at
 * 16 connections.
 *
 * Data: SUBJECTS subjects (default 100,000) across the demo project's two PRO sites, each with one completed
 * 50-item form instance (5,000,000 item values at the default), generated in SQL.
 *
 *   DATABASE_URL=postgres://postgres@127.0.0.1:5432/esource_bench npm run bench -- subjects
 *   (without DATABASE_URL it runs on the embedded database with SUBJECTS=5000 unless set)
 */
import fs from 'node:fs';
import path from 'node:path';
import os from 'node:os';
import type autocannon from 'autocannon';
import { sql } from 'drizzle-orm';
import { formDefinition } from '../packages/shared/src/design.schema';
import { MARK_STATUS } from '../packages/shared/src/verification.schema';
import { READ_FOR_SAVE, WRITE_SAVE_UPDATE } from '../apps/server/src/modules/ecrf/ecrf.service';
import { AUDIT_HEAD, AUDIT_INSERT, GENESIS_HASH, chainedRow, changesText, type Content } from '../apps/server/src/modules/audit/audit.service';
import { APP_ROLE } from '../apps/server/src/db/app-role';
import { cpuMs, load as run, login as loginAt, seedSubjects, spawnServer, spawnApi, startSeedingServer } from './bench-kit';

const onServer = Boolean(process.env.DATABASE_URL);
const SUBJECTS = Number(process.env.SUBJECTS ?? (onServer ? 100_000 : 5_000));
const ITEMS = 50;
const duration = Number(process.env.DURATION ?? 10);
// RUNS=save (or list,save,mixed,walk,db): only the named runs, e.g. to iterate on the save
const RUNS = new Set((process.env.RUNS ?? 'list,save,mixed,walk,db').split(',').map((r) => r.trim()));

const { server, dataDir, exec, step } = await startSeedingServer('subjects');
const db = server.database.db;

// A 50-number-item form in the demo design, assigned to visit V1, for the save benchmark and the data.
const def = formDefinition.parse({
  name: 'Bench 50',
  code: 'BENCH50',
  components: Array.from({ length: ITEMS }, (_, i) => ({ id: `i${i}`, type: 'number', label: `Item ${i}`, variable: `I${i}`, precision: 1 })),
});
const t0 = Date.now();
const existing = await exec(`select count(*)::int as n from subjects`);
if (Number(existing.rows[0]!.n) < SUBJECTS) {
  await db.execute(sql`insert into forms (version_id, code, name, definition, sort_order)
    select id, 'BENCH50', 'Bench 50', ${JSON.stringify(def)}::jsonb, 99 from design_versions where project_id = 1 and version_no = 1
    on conflict do nothing`);
  await exec(`insert into visit_forms (visit_id, form_id, sort_order)
    select v.id, f.id, 99 from visits v join forms f on f.version_id = v.version_id and f.code = 'BENCH50' where v.code = 'V1'
    on conflict do nothing`);
  // each bulk step is followed by ANALYZE of what it wrote (as the owner: the application's role may not), as a loader
  // would: the statement triggers that keep the review and report counters (migrations 0029, 0040) plan their joins
  // on the statistics, and without them the values' insert did not finish in 15 minutes. Values go in chunks of
  // 10,000 forms, so each statement's transition table stays small.
  console.log(`seeding ${SUBJECTS} subjects (${server.database.kind}) …`);
  const ts = Date.now();
  await seedSubjects(exec, { count: SUBJECTS, prefix: 'B', digits: 7, siteNo: `case when g % 2 = 0 then '01' else '02' end` });
  await server.database.ownerExecuteSql('analyze subjects, sites');
  console.log(`  subjects: ${((Date.now() - ts) / 1000).toFixed(1)} s`);
  await step(
    'form instances',
    `insert into crf_instances (env, project_id, site_id, subject_id, visit_id, form_id, status)
     select 'PRO', 1, su.site_id, su.id, v.id, f.id, 2
       from subjects su
       join visits v on v.version_id = su.design_version_id and v.code = 'V1'
       join forms f on f.version_id = su.design_version_id and f.code = 'BENCH50'
      where su.pts_no like 'B%'`,
    'crf_instances, verification_progress, verification_counts, subjects',
  );
  const range = await exec(`select min(i.id)::int as lo, max(i.id)::int as hi from crf_instances i join forms f on f.id = i.form_id and f.code = 'BENCH50'`);
  const lo = Number(range.rows[0]!.lo);
  const hi = Number(range.rows[0]!.hi);
  const tv = Date.now();
  for (let from = lo; from <= hi; from += 10_000) {
    await exec(`insert into crf_values (instance_id, variable, value, entry_mode)
      select i.id, 'I' || n, jsonb_build_object('v', (i.id % 200) + n / 10.0), 2
        from crf_instances i join forms f on f.id = i.form_id and f.code = 'BENCH50'
        cross join generate_series(0, ${ITEMS - 1}) n
       where i.id between ${from} and ${Math.min(hi, from + 9_999)}`);
    if (from === lo) await server.database.ownerExecuteSql('analyze crf_values, verification_progress, verification_counts');
  }
  console.log(`  values: ${((Date.now() - tv) / 1000).toFixed(1)} s`);
  const tp = Date.now();
  await exec(`select refresh_subject_progress(array_agg(id)) from subjects where pts_no like 'B%'`);
  console.log(`  subjects' progress: ${((Date.now() - tp) / 1000).toFixed(1)} s`);
  // as the owner: the application's role (esource_app) may not analyze tables it does not own
  await server.database.ownerExecuteSql(`analyze`);
}
const counts = await exec(`select (select count(*) from subjects)::int as s, (select count(*) from crf_values)::int as v`);
console.log(`data: ${Number(counts.rows[0]!.s)} subjects, ${Number(counts.rows[0]!.v)} item values (${((Date.now() - t0) / 1000).toFixed(1)} s to seed)`);

// batch save: each connection re-saves the 50 items of its own subject's instance (stash mode) with the
// instance version it got back last, so no save is stale
const subjectsForSave = await exec(
  `select su.id as pts, i.visit_id as visit, i.form_id as form, i.version as version from subjects su join crf_instances i on i.subject_id = su.id
     join sites s on s.id = su.site_id where s.site_no = '01' and su.pts_no like 'B%' order by su.id limit 32`,
);
// The product and the bare route each run in a process of their own, as they would in production, and the load
// comes from this one; so the figures are not a single event loop serving and generating load at once.
await server.close();
const api = await spawnApi(dataDir);
const login = (account: string) => loginAt(api.url, account);
const dm = await login('dm');
const crc1 = await login('crc1');

const listHeaders = { token: dm, proId: '1', proType: 'PRO', 'content-type': 'application/json' };
const listBody = JSON.stringify({ status: 3, sortField: 'firstVisitDate', sortOrder: 'desc', pageSize: 50, pageNumber: 3 });
await run({ url: `${api.url}/api/project/manage/ptsList`, method: 'POST', headers: listHeaders, body: listBody, duration: 2, connections: 32 });
// the honest ceiling (issue 16): a bare Fastify route answering the very same page of JSON from memory (an object,
// serialised by Fastify on every request), in a process of its own like the product
const pageJson = await (await fetch(`${api.url}/api/project/manage/ptsList`, { method: 'POST', headers: listHeaders, body: listBody })).text();
const pageFile = path.join(dataDir, 'page.json');
fs.writeFileSync(pageFile, pageJson);
const bareSrc = `const f = require('fastify')({ logger: false });
const page = JSON.parse(require('fs').readFileSync(${JSON.stringify(pageFile)}, 'utf8'));
f.post('/bare', async () => page);
f.listen({ port: 0, host: '127.0.0.1' }).then(() => console.log('bare on ' + f.server.address().port + '/'));`;
const bare = await spawnServer(['-e', bareSrc], {}, /bare on (\d+)\//);
const list = RUNS.has('list') ? await run({ url: `${api.url}/api/project/manage/ptsList`, method: 'POST', headers: listHeaders, body: listBody, duration, connections: 32 }) : null;
const base = RUNS.has('list') ? await run({ url: `${bare.url}/bare`, method: 'POST', body: '{}', headers: { 'content-type': 'application/json' }, duration, connections: 32 }) : null;

let n = 0;
// (each run's 16 connections take 16 subjects of their own: a save still in flight when a run ends would leave the
// next run's client a stale version)
const saveRun = (): Promise<autocannon.Result> => run({
  url: `${api.url}/api/crf/form/item/result/saveBatch`,
  method: 'POST',
  duration,
  connections: 16,
  headers: { token: crc1, proId: '1', proType: 'PRO', 'content-type': 'application/json' },
  setupClient: (client) => {
    const row = subjectsForSave.rows[n++ % subjectsForSave.rows.length]!;
    let version = Number(row.version);
    let round = 0;
    const body = () =>
      JSON.stringify({
        ptsId: row.pts,
        visitId: row.visit,
        formId: row.form,
        version,
        entryMode: 0,
        items: Array.from({ length: ITEMS }, (_, i) => ({ variable: `I${i}`, value: Number(((round % 90) + i / 10).toFixed(1)), reason: 'benchmark' })),
      });
    client.setBody(body());
    client.on('body', (b: Buffer) => {
      const r = JSON.parse(b.toString()) as { data?: { instance?: { version: number } } };
      version = r.data?.instance?.version ?? version;
      round++;
      client.setBody(body());
    });
  },
});
// the CPU a save costs each party (API process, PostgreSQL's processes, this load generator), read from /proc around
// the run: on two shared cores the save's latency at 16 connections is the queue their sum makes
const cpu = () => ({ api: cpuMs({ pids: [api.child.pid!] }), pg: cpuMs({ comm: 'postgres' }), load: (process.cpuUsage().user + process.cpuUsage().system) / 1000 });
const cpu0 = cpu();
const save = RUNS.has('save') ? await saveRun() : null;
const cpu1 = cpu();
// the list while saves run: each save's commit empties the API process's response cache (RESPONSE_CACHE), so this is
// the list mostly computed, next to the writes; and a list whose 32 connections each walk pages 1–20 of their own
// filter (no two requests alike within a run's first 640 requests; a user pages forward, rarely past page 20)
const [listWhileSaving, saveWhileListing] = RUNS.has('mixed')
  ? await Promise.all([
      run({ url: `${api.url}/api/project/manage/ptsList`, method: 'POST', headers: listHeaders, body: listBody, duration, connections: 32 }),
      saveRun(),
    ])
  : [null, null];
let walker = 0;
const listWalk = !RUNS.has('walk') ? null : await run({
  url: `${api.url}/api/project/manage/ptsList`,
  method: 'POST',
  headers: listHeaders,
  duration,
  connections: 32,
  setupClient: (client) => {
    const me = walker++;
    let page = 0;
    // 32 distinct filters: 4 statuses × 4 sort fields × 2 directions
    const sortField = ['ptsNo', 'firstVisitDate', 'createTime', 'status'][(me >> 2) % 4];
    const body = () => JSON.stringify({ status: (me % 4) + 1, sortField, sortOrder: (me >> 4) % 2 ? 'desc' : 'asc', pageSize: 50, pageNumber: (page++ % 20) + 1 });
    client.setBody(body());
    client.on('body', () => client.setBody(body()));
  },
});

// The save's own statements from a bare client, no API process (RUNS=db, PostgreSQL server only): for each save of
// 50 items the BEGIN, read, write, audit chain's head, audit row and COMMIT that the API sends, as the named prepared
// statements its pool sends, each client on a subject of its own. What the database alone costs a save, and the latency
// the database alone allows at 16 clients on this machine (the audit rows are chained and signed as the API's are).
type SaveRead = { inst: { id: number; version: number }; values: { variable: string; value: { v: unknown } | null }[] | null };
async function dbRun(connections: number) {
  const { default: pg } = await import('pg');
  const mine = subjectsForSave.rows.slice(subjectsForSave.rows.length - connections);
  const clients = await Promise.all(
    mine.map(async () => {
      const c = new pg.Client({ connectionString: process.env.DATABASE_URL, options: `-c role=${APP_ROLE}` });
      await c.connect();
      return c;
    }),
  );
  const crcId = (await clients[0]!.query<{ id: number }>(`select id from users where account = 'crc1'`)).rows[0]!.id;
  // the CPU of these connections' own server processes (an idle pooled connection of the API that ends meanwhile
  // would take its earlier CPU out of a sum over every postgres process)
  const backends = await Promise.all(clients.map(async (c) => (await c.query<{ pid: number }>('select pg_backend_pid() as pid')).rows[0]!.pid));
  const latencies: number[] = [];
  const end = Date.now() + duration * 1000;
  const before = { pg: cpuMs({ pids: backends }), client: process.cpuUsage() };
  await Promise.all(
    clients.map(async (c, k) => {
      const row = mine[k]!;
      const subjectId = Number(row.pts);
      const chainKey = `project:1:subject:${subjectId}`;
      for (let round = 0; Date.now() < end; round++) {
        const t0 = performance.now();
        await c.query('begin');
        const r = (await c.query<SaveRead>({ name: 'read', text: READ_FOR_SAVE, values: [subjectId, row.visit, row.form, 0, 1, 1, 'PRO'] })).rows[0]!;
        const old = new Map<string, unknown>((r.values ?? []).map((v) => [v.variable, v.value?.v ?? null]));
        const items = Array.from({ length: ITEMS }, (_, i) => ({
          variable: `I${i}`, value: { v: Number(((round % 90) + i / 10).toFixed(1)) }, entry_mode: 0, quality: null, source_ref: null,
          filled_ref: null, changed: true, old_value: { v: old.get(`I${i}`) ?? null }, reason: 'benchmark', cause: null,
        }));
        const now = new Date();
        await c.query({
          name: 'write',
          text: WRITE_SAVE_UPDATE,
          values: [r.inst.id, JSON.stringify(items), crcId, now.toISOString(), r.inst.version + 1, 'crc1', 1, [], 0, 1, false, null, crcId, MARK_STATUS.lost, MARK_STATUS.active],
        });
        const head = (await c.query<{ seq: number; hash: string }>({ name: 'head', text: AUDIT_HEAD, values: [chainKey] })).rows[0];
        const changes = changesText(items.map((it) => ({ field: it.variable, oldValue: it.old_value.v, newValue: it.value.v, reason: 'benchmark', entryMode: 0 })));
        const content: Content = {
          chainKey, seq: (head?.seq ?? 0) + 1, env: 'PRO', projectId: 1, siteId: null, subjectId, userId: crcId, userName: 'crc1', action: 'crf.value',
          entity: 'crf_instance', entityId: String(r.inst.id), field: null, oldValue: null, newValue: null, reason: null, requestId: null, ip: null, createdAt: now, changes,
        };
        const auditRow = chainedRow(head?.hash ?? GENESIS_HASH, content);
        await c.query({ name: 'audit', text: AUDIT_INSERT, values: [JSON.stringify([auditRow])] });
        await c.query('commit');
        latencies.push(performance.now() - t0);
      }
    }),
  );
  const used = process.cpuUsage(before.client);
  const pgMs = cpuMs({ pids: backends }) - before.pg;
  await Promise.all(clients.map((c) => c.end()));
  latencies.sort((a, b) => a - b);
  const at = (q: number) => latencies[Math.min(latencies.length - 1, Math.floor(latencies.length * q))]!.toFixed(0);
  const n = latencies.length;
  console.log(
    `save's statements alone (${connections} conn) ${(n / duration).toFixed(0).padStart(5)} saves/s   p50 ${at(0.5).padStart(4)} ms   p99 ${at(0.99).padStart(4)} ms   ` +
      `CPU a save: its PostgreSQL backends ${(pgMs / n).toFixed(2)} ms, client ${((used.user + used.system) / 1000 / n).toFixed(2)} ms (no API process)`,
  );
}

const line = (name: string, r: autocannon.Result | null) =>
  r ? console.log(`${name.padEnd(30)} ${r.requests.average.toFixed(0).padStart(7)} req/s   p50 ${String(r.latency.p50).padStart(4)} ms   p99 ${String(r.latency.p99).padStart(4)} ms   non-2xx ${r.non2xx + r.errors}`) : undefined;
console.log(`\nsubjects benchmark — ${server.database.kind}, ${os.cpus().length} cores, ${duration} s per run`);
line('subject list page (32 conn)', list);
line('bare, same page (32 conn)', base);
if (list && base) console.log(`ratio list / bare same page: ${(list.requests.average / base.requests.average).toFixed(3)}   (goal ≥ 0.3, p99 < 50 ms; ${pageJson.length} bytes a page)`);
line('batch save 50 items (16 conn)', save);
if (save) {
  const n = save.requests.total;
  const per = (k: 'api' | 'pg' | 'load') => ((cpu1[k] - cpu0[k]) / n).toFixed(2);
  console.log(`(goal: batch save p99 < 100 ms)   CPU a save: API ${per('api')} ms, PostgreSQL ${per('pg')} ms, load generator ${per('load')} ms`);
}
line('list while saving (32 conn)', listWhileSaving);
line('save while listing (16 conn)', saveWhileListing);
line('list, 32 walks of 20 pages', listWalk);
if (RUNS.has('db') && onServer) await dbRun(16);
console.log(`(response cache ${['0', 'false', 'off'].includes((process.env.RESPONSE_CACHE ?? '').toLowerCase()) ? 'off' : 'on'}: RESPONSE_CACHE)`);
api.child.kill('SIGTERM');
bare.child.kill('SIGTERM');
fs.rmSync(dataDir, { recursive: true, force: true });

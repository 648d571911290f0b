/**
 * Benchmark (issue 11): pre-fill execute of one visit form (the lab form, 8 mapped items) for a subject holding
 * RECORDS source records (default 10,000: 40 lab codes over 400 days, seeded in SQL), measured as the round trip of
 * `POST /api/crf/prefill/execute` from this process, one request at a time: server time (the Server-Timing header: guard,
 * handler, serialisation inside the server) and client time (the round trip, with HTTP and JSON).
 * Two rule sets: window-only rules (the default: the visit window is read, a few hundred records) and rules that
 * look beyond the window (every record of the subject is read and selected over). Goal: p99 < 50 ms.
 *
 *   npm run bench -- prefill            (embedded database)
 *   DATABASE_URL=postgres://… npm run bench -- prefill
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { sql } from 'drizzle-orm';
import { startServer } from '../apps/server/src/server';
import { DEMO_PASSWORD, sha256Hex } from '../apps/server/src/seed/seed';

const RECORDS = Number(process.env.RECORDS ?? 10_000);
const ITER = Number(process.env.ITER ?? 300);
const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'esource-bench-prefill-'));
const server = await startServer({ logger: false, config: { port: 0, host: '127.0.0.1', dataDir, logLevel: 'warn', databaseUrl: process.env.DATABASE_URL || undefined } });
const db = server.database.db;
const base = `${server.url}/api`;
const H = { proId: '1', proType: 'PRO', language: 'en_US' };

async function login(account: string, loginType: number): Promise<string> {
  const r = await fetch(`${base}/passport/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ account, password: sha256Hex(DEMO_PASSWORD), loginType: String(loginType) }).toString(),
  });
  return ((await r.json()) as { data: { token: string } }).data.token;
}
async function post<T>(token: string, url: string, body: unknown): Promise<T> {
  const r = await fetch(`${base}${url}`, { method: 'POST', headers: { ...H, token, 'content-type': 'application/json' }, body: JSON.stringify(body) });
  const j = (await r.json()) as { data: T; message?: string };
  if (r.status !== 200) throw new Error(`${url}: ${r.status} ${j.message}`);
  return j.data;
}

const [dm, crc1] = [await login('dm', 1), await login('crc1', 3)];
const day = (n: number) => new Date(Date.now() + n * 86_400_000).toISOString().slice(0, 10);
const siteA = (await server.database.executeSql(`select id from sites where project_id = 1 and env = 'PRO' and site_no = '01'`)).rows[0] as { id: number };
const added = await post<{ ptsId: number }>(crc1, '/project/managePts/add', { siteId: siteA.id, firstVisitDate: day(-28) });
const ptsId = added.ptsId;
type Visit = { visitId: number; code: string; forms: { formId: number; code: string }[] };
const sched = (await (await fetch(`${base}/project/pts/visits?ptsId=${ptsId}`, { headers: { ...H, token: crc1 } })).json()) as { data: Visit[] };
const v3 = sched.data.find((v) => v.code === 'V3')!;
const lb = v3.forms.find((f) => f.code === 'LB')!.formId;

const t0 = Date.now();
await db.execute(sql`insert into source_connections (env, project_id, site_id, kind, name) values ('PRO', 1, ${siteA.id}, 'fhir_file', 'bench')`);
await db.execute(sql`insert into source_patients (env, project_id, site_id, connection_id, patient_key, subject_id, status)
  select 'PRO', 1, ${siteA.id}, id, 'bench-p', ${ptsId}, 1 from source_connections where name = 'bench'`);
// 40 codes (the 8 mapped LOINC codes among them), one per record round-robin, dates over the last 400 days
const codes = ['718-7', '6690-2', '777-3', '2951-2', '2823-3', '2160-0', '2345-7', '8480-6', ...Array.from({ length: 32 }, (_, i) => `X-${i}`)];
await db.execute(sql`insert into source_records (env, project_id, site_id, subject_id, source_patient_id, connection_id, external_id, doc_type, resource_type,
    code_system, code, display, value_num, unit, effective_at, effective_date, content_hash, raw_format, raw)
  select 'PRO', 1, ${siteA.id}, ${ptsId}, p.id, p.connection_id, 'Observation/b' || g, 3, 'Observation', 'http://loinc.org',
         (${`{${codes.join(",")}}`}::text[])[1 + g % 40], 'Lab ' || (1 + g % 40), 4 + (g % 50) / 10.0,
         case (1 + g % 40) when 1 then 'g/dL' when 2 then '10*3/uL' when 3 then '10*3/uL' else 'mmol/L' end,
         now() - ((g % 400) || ' days')::interval, (now() - ((g % 400) || ' days')::interval)::date, md5(g::text), 'fhir',
         '{"resourceType":"Observation","id":"b' || g || '"}'
    from generate_series(1, ${RECORDS}) g, source_patients p where p.patient_key = 'bench-p'`);
await server.database.ownerExecuteSql('analyze');
console.log(`data: ${RECORDS} source records for one subject (${((Date.now() - t0) / 1000).toFixed(1)} s to seed)`);

const mapped: [string, string][] = [['HGB', '718-7'], ['WBC', '6690-2'], ['PLT', '777-3'], ['NA', '2951-2'], ['K', '2823-3'], ['CREAT', '2160-0'], ['GLUC', '2345-7'], ['LBDTC', '718-7']];
async function rules(windowOnly: boolean) {
  for (const [variable, code] of mapped)
    await post(dm, '/crf/config/mapping/save', { formId: lb, variable, method: 'code', codes: [{ system: 'http://loinc.org', code }], useSynonyms: true, selection: variable === 'K' ? 'worst' : 'nearest', worst: variable === 'K' ? 'high' : undefined, windowOnly });
}

async function measure(label: string) {
  const body = JSON.stringify({ ptsId, visitId: v3.visitId, formId: lb });
  let candidates = 0;
  const once = async () => {
    const t = performance.now();
    const r = await fetch(`${base}/crf/prefill/execute`, { method: 'POST', headers: { ...H, token: crc1, 'content-type': 'application/json' }, body });
    const j = (await r.json()) as { data: { candidates: unknown[] } };
    const client = performance.now() - t;
    if (r.status !== 200) throw new Error(`execute: ${r.status}`);
    candidates = j.data.candidates.length;
    // Server-Timing: app;dur=<ms> — the time inside the server process (guard, handler, serialisation)
    const server = Number(/app;dur=([\d.]+)/.exec(r.headers.get('server-timing') ?? '')?.[1] ?? NaN);
    return { client, server };
  };
  for (let i = 0; i < 20; i++) await once(); // warm-up
  const client: number[] = [];
  const srv: number[] = [];
  const cpu0 = process.cpuUsage();
  for (let i = 0; i < ITER; i++) {
    const m = await once();
    client.push(m.client);
    srv.push(m.server);
  }
  // CPU time of this process per request (server, the embedded database when there is one, and the client): unlike
  // the latencies it does not grow when other processes take the cores
  const cpu = process.cpuUsage(cpu0);
  const cpuMs = (cpu.user + cpu.system) / 1000 / ITER;
  const q = (xs: number[], p: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(p * xs.length))]!.toFixed(1);
  console.log(
    `${label}: ${candidates} candidates; server p50 ${q(srv, 0.5)} ms, p99 ${q(srv, 0.99)} ms; client p50 ${q(client, 0.5)} ms, p99 ${q(client, 0.99)} ms, max ${q(client, 1)} ms; CPU ${cpuMs.toFixed(1)} ms/request in this process (${ITER} sequential requests)`,
  );
}

await rules(true);
await measure('execute, window-only rules');
await rules(false);
await measure('execute, rules beyond the window (all records read)');
await server.close();
fs.rmSync(dataDir, { recursive: true, force: true });

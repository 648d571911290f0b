/**
 * Helpers of the HTTP benchmarks that load the product with autocannon (subjects, review): the seeding server, the
 * subjects of a large data set generated in SQL, the product run as an API process of its own, demo logins, and
 * latency figures (autocannon's and the server's own from the Server-Timing header).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { spawn, type ChildProcess } from 'node:child_process';
import autocannon from 'autocannon';
import { startServer } from '../apps/server/src/server';
import { DEMO_PASSWORD, sha256Hex } from '../apps/server/src/seed/seed';

const root = path.resolve(import.meta.dirname, '..');

/** autocannon as a promise. */
export function load(opts: autocannon.Options): Promise<autocannon.Result> {
  return new Promise((resolve, reject) => {
    void autocannon(opts, (err: Error | null, res: autocannon.Result) => (err ? reject(err) : resolve(res)));
  });
}

/**
 * The product in this process, to migrate and seed: embedded PGlite in a new folder (or in BENCH_DATA_DIR, kept for
 * later runs), or the PostgreSQL server of DATABASE_URL. Close it before the API process opens the same folder.
 */
export async function startSeedingServer(name: string) {
  const kept = process.env.BENCH_DATA_DIR;
  if (kept) fs.mkdirSync(kept, { recursive: true });
  const dataDir = kept ?? fs.mkdtempSync(path.join(os.tmpdir(), `esource-bench-${name}-`));
  const server = await startServer({
    logger: false,
    config: { port: 0, host: '127.0.0.1', dataDir, logLevel: 'warn', databaseUrl: process.env.DATABASE_URL || undefined },
  });
  const exec = (q: string) => server.database.executeSql(q);
  /**
   * One bulk seeding statement, then ANALYZE of the tables it wrote (as the owner: the application's role may not), as
   * a loader would: the statement triggers that keep the counters plan their joins on the statistics. Prints its time.
   */
  const step = async (name: string, q: string, analyze: string) => {
    const t = Date.now();
    await exec(q);
    await server.database.ownerExecuteSql(`analyze ${analyze}`);
    console.log(`  ${name}: ${((Date.now() - t) / 1000).toFixed(1)} s`);
  };
  return { server, dataDir, exec, step };
}

export interface SubjectSeed {
  /** how many subjects (g = from … count) */
  count: number;
  /** the first g (default 1): a set grown in chunks */
  from?: number;
  /** SQL expression: the design version's id (default the demo project's version 1) */
  versionId?: string;
  /** subject number: prefix || g left-padded to `digits` */
  prefix: string;
  digits: number;
  /** SQL expression of g: the PRO site number (site_no) of subject g */
  siteNo: string;
  /** SQL expression of g: the status (default 1 + g % 7) */
  status?: string;
  /** SQL expression of g: the subject's own risk level (default null) */
  riskLevel?: string;
}

/**
 * Subjects of the demo project (id 1, PRO, design version 1 unless `versionId`) generated in one statement: first
 * visit dates over 300 days from 2026-01-01, a medical record number each. Status 0 (deleted) gets the reason and the
 * time of deletion.
 */
export function seedSubjects(exec: (q: string) => Promise<unknown>, s: SubjectSeed) {
  const status = s.status ?? '1 + (g % 7)';
  return exec(`insert into subjects (env, project_id, site_id, pts_no, status, status_before_delete, delete_reason, deleted_at, risk_level,
                                     design_version_id, first_visit_date, medical_record_id, created_at, updated_at)
    select 'PRO', 1, s.id, '${s.prefix}' || lpad(g::text, ${s.digits}, '0'), st, case when st = 0 then 1 end, case when st = 0 then 'benchmark' end,
           case when st = 0 then now() end, ${s.riskLevel ?? 'null'},
           ${s.versionId ?? '(select id from design_versions where project_id = 1 and version_no = 1)'}, date '2026-01-01' + (g % 300), 'MR' || g, now(), now()
      from generate_series(${s.from ?? 1}, ${s.count}) g
      cross join lateral (select (${status})::int as st) x
      join sites s on s.project_id = 1 and s.env = 'PRO' and s.site_no = (${s.siteNo})`);
}

/** A Node process of its own, resolved once its stdout matches `ready` (the first group is the port). */
export function spawnServer(args: string[], env: Record<string, string>, ready: RegExp): Promise<{ url: string; child: ChildProcess }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, args, { cwd: root, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    child.stdout.on('data', (b: Buffer) => {
      out += b.toString();
      const m = ready.exec(out);
      if (m) resolve({ url: `http://127.0.0.1:${m[1]}`, child });
    });
    child.on('exit', (code) => reject(new Error(`server exited with ${code}: ${out}`)));
  });
}

/** CPU time (user + system, ms) used so far by the processes whose command name is `comm` or whose pid is listed. */
export function cpuMs(match: { pids?: number[]; comm?: string }): number {
  const tick = 10; // USER_HZ 100 on Linux
  let total = 0;
  for (const d of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(d)) continue;
    let stat: string;
    try {
      stat = fs.readFileSync(`/proc/${d}/stat`, 'utf8');
    } catch {
      continue;
    }
    const close = stat.lastIndexOf(')');
    const comm = stat.slice(stat.indexOf('(') + 1, close);
    if (!(match.pids?.includes(Number(d)) || (match.comm && comm === match.comm))) continue;
    const f = stat.slice(close + 2).split(' ');
    total += (Number(f[11]) + Number(f[12])) * tick;
  }
  return total;
}

/** The product as it runs in production (`main.ts --role=api`, LOG_LEVEL=warn) on the data of `dataDir` / DATABASE_URL. */
export function spawnApi(dataDir: string) {
  const port = 18000 + Math.floor(Math.random() * 1000);
  return spawnServer(
    [
      // API_CPU_PROF=<dir>: a CPU profile of the product's process, written there when the benchmark stops it
      ...(process.env.API_CPU_PROF ? ['--cpu-prof', `--cpu-prof-dir=${process.env.API_CPU_PROF}`] : []),
      '--import', 'tsx', 'apps/server/src/main.ts', '--role=api',
    ],
    // RESPONSE_CHECK off, as in production: the compiled serializer alone (lib/response-serializer.ts)
    {
      PORT: String(port), HOST: '127.0.0.1', DATA_DIR: dataDir, SEED_DEMO: 'false', LOG_LEVEL: 'warn', RESPONSE_CHECK: process.env.RESPONSE_CHECK ?? '0',
    },
    /localhost:(\d+)\//,
  );
}

/** The login types of the demo accounts (1 central, 2 monitor, 3 site). */
const LOGIN_TYPE: Record<string, number> = { dm: 1, admin: 1, cra: 2, crc1: 3, crc2: 3, pi: 3, ae: 4 };

/** A demo account's token. */
export async function login(url: string, account: string): Promise<string> {
  const r = await fetch(`${url}/api/passport/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ account, password: sha256Hex(DEMO_PASSWORD), loginType: String(LOGIN_TYPE[account] ?? 1) }).toString(),
  });
  const j = (await r.json()) as { data?: { token: string }; message?: string };
  if (!j.data?.token) throw new Error(`login ${account}: ${r.status} ${j.message}`);
  return j.data.token;
}

/**
 * Collects the server's own time of every answer (`Server-Timing: app;dur=<ms>`: routing, guard, handler and
 * serialisation inside the server process) through autocannon's setupClient.
 */
export function serverTimings() {
  const values: number[] = [];
  const setupClient = (client: autocannon.Client) => {
    // autocannon passes llhttp's header record ({ headers: [name, value, …] }), not what its typings say
    client.on('headers', (o: unknown) => {
      const h = (o as { headers?: string[] }).headers;
      if (!h) return;
      for (let i = 0; i < h.length; i += 2) {
        if (h[i]!.toLowerCase() !== 'server-timing') continue;
        const m = /app;dur=([\d.]+)/.exec(h[i + 1]!);
        if (m) values.push(Number(m[1]));
      }
    });
  };
  return { values, setupClient };
}

/** The p-quantile (0–1) of a list of numbers, or NaN when it is empty. */
export function quantile(xs: readonly number[], p: number): number {
  if (!xs.length) return NaN;
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor(p * s.length))]!;
}

/**
 * CPU time (user + system, ms) a process has used so far, from /proc (Linux; NaN elsewhere or when it has gone).
 * Unlike latencies, CPU per request does not grow when other jobs take the cores.
 */
export function processCpuMs(pid: number): number {
  try {
    // the fields after the command name (which may hold spaces): utime and stime are the 12th and 13th, in ticks of 10 ms
    const f = fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
    return (Number(f[11]) + Number(f[12])) * 10;
  } catch {
    return NaN;
  }
}

/** The machine's 1-minute load average, for the figures (other jobs share the cores). */
export function loadAverage(): string {
  return os.loadavg()[0]!.toFixed(1);
}

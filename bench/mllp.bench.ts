/**
 * Benchmark: HL7 v2 messages acknowledged per second by the MLLP listener (issue 11 goal ≥ 1,000/s), over
 * CONNECTIONS parallel MLLP connections (default 8), each sending ORU^R01 messages (3 OBX results, a new control id
 * each, so every message stores 3 new source records) and waiting for its ACK before the next, like an interface
 * engine. Every ACK is AA only after the message row and its records are committed. Prints messages/s and ACK
 * latency (p50/p99), then checks that every acknowledged message is in hl7_messages with status 1.
 *
 *   npm run bench -- mllp                                        (embedded PGlite, in memory)
 *   DATABASE_URL=postgres://root@127.0.0.1:5432/esource_bench npm run bench -- mllp   (a scratch database)
 *
 * The listener and the senders share this process (and the 2 cores), as the HTTP benchmarks' load generators do.
 */
import fs from 'node:fs';
import inspector from 'node:inspector';
import { sql } from 'drizzle-orm';
import { startServer } from '../apps/server/src/server';
import { sites, sourceConnections } from '../apps/server/src/db/schema';
import { ackCodeOf, MllpClient } from '../apps/server/src/modules/hl7/mllp-client';
import { rowsOf } from '../apps/server/src/lib/sql';
import { and, eq } from 'drizzle-orm';

const duration = Number(process.env.DURATION ?? 10) * 1000;
const connections = Number(process.env.CONNECTIONS ?? 8);
const onServer = Boolean(process.env.DATABASE_URL);

const server = await startServer({
  logger: false,
  config: { port: 0, host: '127.0.0.1', dataDir: 'memory://', logLevel: 'warn', databaseUrl: process.env.DATABASE_URL || undefined, mllpPort: 0, mllpHost: '127.0.0.1' },
});
const db = server.database.db;
const [site] = await db.select().from(sites).where(and(eq(sites.projectId, 1), eq(sites.env, 'PRO'), eq(sites.siteNo, '01')));
await db.insert(sourceConnections).values({ env: 'PRO', projectId: 1, siteId: site!.id, kind: 'hl7v2', name: 'bench lab', config: { sendingApp: 'BENCHLAB', sendingFacility: 'BENCHHOSP' } });

let seq = 0;
const message = (conn: number) => {
  const id = `B${conn}-${++seq}`;
  const ts = '20260102030405';
  return (
    `MSH|^~\\&|BENCHLAB|BENCHHOSP|ESOURCE|ES|${ts}||ORU^R01^ORU_R01|${id}|P|2.5.1\r` +
    `PID|1||MRN-${conn}-${seq % 50}^^^BENCHHOSP^MR||Doe^Jane||19800101|F\r` +
    `OBR|1||${id}|57021-8^CBC W Auto Differential panel - Blood^LN|||${ts}\r` +
    `OBX|1|NM|718-7^Hemoglobin [Mass/volume] in Blood^LN||13.${seq % 10}|g/dL^g/dL^UCUM|12-16|N|||F|||${ts}\r` +
    `OBX|2|NM|6690-2^Leukocytes [#/volume] in Blood^LN||6.${seq % 10}|10*3/uL^10*3/uL^UCUM|4-10|N|||F|||${ts}\r` +
    `OBX|3|NM|777-3^Platelets [#/volume] in Blood^LN||2${seq % 10}0|10*3/uL^10*3/uL^UCUM|150-400|N|||F|||${ts}\r`
  );
};

const port = server.mllp!.port;
const clients = await Promise.all(Array.from({ length: connections }, () => MllpClient.connect(port)));
// warm-up
await Promise.all(clients.map((c, i) => c.send(message(i))));

const latencies: number[] = [];
const acked: string[] = [];
let notAA = 0;
// PROFILE=file.cpuprofile: a CPU profile of the measured run only (not the start-up)
const profiler = process.env.PROFILE ? new inspector.Session() : null;
if (profiler) {
  profiler.connect();
  await new Promise((r) => profiler.post('Profiler.enable', () => profiler.post('Profiler.start', r)));
}
const t0 = performance.now();
const cpu0 = process.cpuUsage();
await Promise.all(
  clients.map(async (c, i) => {
    while (performance.now() - t0 < duration) {
      const m = message(i);
      const s = performance.now();
      const ack = ackCodeOf(await c.send(m));
      latencies.push(performance.now() - s);
      if (ack.code === 'AA') acked.push(ack.controlId);
      else notAA++;
    }
  }),
);
const secs = (performance.now() - t0) / 1000;
const cpu = process.cpuUsage(cpu0);
if (profiler) {
  await new Promise<void>((resolve) =>
    profiler.post('Profiler.stop', (err, r) => {
      if (!err) fs.writeFileSync(process.env.PROFILE!, JSON.stringify(r.profile));
      resolve();
    }),
  );
}
await Promise.all(clients.map((c) => c.close()));
latencies.sort((a, b) => a - b);
const pct = (p: number) => latencies[Math.min(latencies.length - 1, Math.floor((latencies.length * p) / 100))]!.toFixed(1);

const rows = await server.database.executeSql(`select count(*)::int as n, coalesce(sum(records), 0)::int as r from hl7_messages where status = 1 and sending_app = 'BENCHLAB'`);
const stored = Number(rows.rows[0]!.n);
const records = Number(rows.rows[0]!.r);
const missing = await db.execute(sql`select count(*)::int as n from unnest(${sql.param(acked)}::varchar[]) a(c) where not exists (select 1 from hl7_messages m where m.control_id = a.c and m.status = 1)`);
const lost = Number(rowsOf<{ n: number | string }>(missing)[0]?.n ?? 0);
console.log(
  `MLLP ${onServer ? 'PostgreSQL server' : 'PGlite (embedded)'}, ${connections} connections, ${secs.toFixed(1)} s: ` +
    `${Math.round(acked.length / secs).toLocaleString('en-US')} messages/s acknowledged AA (${acked.length}; ${notAA} not AA), ` +
    `ACK latency p50 ${pct(50)} ms p99 ${pct(99)} ms; this process's CPU ${((cpu.user + cpu.system) / 1000 / Math.max(1, acked.length)).toFixed(2)} ms per message; ${stored} stored rows, ${records} records; acknowledged but missing: ${lost}`,
);
await server.close();
process.exit(lost === 0 && notAA === 0 ? 0 : 1);

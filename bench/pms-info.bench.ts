/**
 * Benchmark: POST /api/auth/user/pmsInfo (session lookup, membership, permissions, user info — the real
 * request pipeline on the embedded database) beside a bare Fastify JSON route, in the same run and process
 * conditions. Prints both throughputs, latencies and the ratio.
 *
 *   npm run bench -- pms-info            (DURATION=10 CONNECTIONS=32; DATABASE_URL for the PostgreSQL server)
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import autocannon from 'autocannon';
import Fastify from 'fastify';
import { startServer } from '../apps/server/src/server';
import { DEMO_PASSWORD, sha256Hex } from '../apps/server/src/seed/seed';

const duration = Number(process.env.DURATION ?? 10);
const connections = Number(process.env.CONNECTIONS ?? 32);

function run(opts: autocannon.Options): Promise<autocannon.Result> {
  return new Promise((resolve, reject) => {
    void autocannon(opts, (err: Error | null, res: autocannon.Result) => (err ? reject(err) : resolve(res)));
  });
}

const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'esource-bench-'));
const server = await startServer({
  logger: false,
  config: { port: 0, host: '127.0.0.1', dataDir, logLevel: 'warn', databaseUrl: process.env.DATABASE_URL || undefined },
});
const login = await fetch(`${server.url}/api/passport/login`, {
  method: 'POST',
  headers: { 'content-type': 'application/x-www-form-urlencoded' },
  body: new URLSearchParams({ account: 'dm', password: sha256Hex(DEMO_PASSWORD), loginType: '1' }).toString(),
});
const { data } = (await login.json()) as { data: { token: string } };

const bare = Fastify({ logger: false });
bare.post('/bare', async () => ({ code: 200, status: '1', data: { pms: ['project:info:query'], user: { id: 1, name: 'x' } } }));
await bare.listen({ port: 0, host: '127.0.0.1' });
const bareAddr = bare.server.address();
const barePort = typeof bareAddr === 'object' && bareAddr ? bareAddr.port : 0;

const headers = { token: data.token, proId: '1', proType: 'PRO', 'content-type': 'application/json' };
// warm up both
await run({ url: `${server.url}/api/auth/user/pmsInfo`, method: 'POST', headers, body: '{}', duration: 2, connections });
await run({ url: `http://127.0.0.1:${barePort}/bare`, method: 'POST', body: '{}', headers: { 'content-type': 'application/json' }, duration: 2, connections });

const rssBefore = process.memoryUsage().rss;
const pms = await run({ url: `${server.url}/api/auth/user/pmsInfo`, method: 'POST', headers, body: '{}', duration, connections });
const rssAfter = process.memoryUsage().rss;
const base = await run({ url: `http://127.0.0.1:${barePort}/bare`, method: 'POST', body: '{}', headers: { 'content-type': 'application/json' }, duration, connections });

const line = (name: string, r: autocannon.Result) =>
  `${name.padEnd(22)} ${r.requests.average.toFixed(0).padStart(7)} req/s   p50 ${String(r.latency.p50).padStart(4)} ms   p99 ${String(r.latency.p99).padStart(4)} ms   errors ${r.errors + r.non2xx}`;
console.log(`\npmsInfo vs bare Fastify — ${connections} connections, ${duration} s each, ${server.database.kind}, ${os.cpus().length} cores`);
console.log(line('POST pmsInfo', pms));
console.log(line('bare Fastify JSON', base));
console.log(`ratio pmsInfo / bare:  ${(pms.requests.average / base.requests.average).toFixed(3)}`);
console.log(`process RSS: ${(rssBefore / 1048576).toFixed(0)} MB before, ${(rssAfter / 1048576).toFixed(0)} MB after the pmsInfo run (server, bench client and bare server share the process)`);

await bare.close();
await server.close();
fs.rmSync(dataDir, { recursive: true, force: true });

/** `npm start` / `tsx src/main.ts [--role=api|worker|all]`: runs eSource. */
import { startServer } from './server';
import { DEMO_PASSWORD, DEMO_USERS } from './seed/seed';

const started = Date.now();
const server = await startServer({ seed: process.env.SEED_DEMO !== 'false' });
const ms = Date.now() - started;
const lines = [
  '',
  `eSource is running (${server.config.role}, ${server.database.kind === 'pglite' ? `embedded PostgreSQL in ${server.config.dataDir}` : 'PostgreSQL server'}) — started in ${ms} ms`,
];
if (server.url) {
  const port = server.url.split(':').pop();
  lines.push(`  Web app:  http://localhost:${port}/`, `  API docs: http://localhost:${port}/api/docs`);
  lines.push(`  Demo logins (password ${DEMO_PASSWORD}):`);
  const types: Record<number, string> = { 1: 'centre', 2: 'monitor', 3: 'site', 4: 'adverse events' };
  for (const u of DEMO_USERS) lines.push(`    ${u.account.padEnd(6)} ${u.name.padEnd(22)} login type ${u.loginTypes.join(',')} (${u.loginTypes.map((t) => types[t]).join(', ')})`);
}
console.log(lines.join('\n') + '\n');

let stopping = false;
for (const sig of ['SIGINT', 'SIGTERM'] as const) {
  process.on(sig, () => {
    if (stopping) return;
    stopping = true;
    void server.close().then(() => process.exit(0));
  });
}

/** `npm start` / `tsx src/main.ts [--role=api|worker|all]`: runs eSource. */
import { startServer } from './server';
import { DEMO_PASSWORD, DEMO_USERS } from './seed/seed';
import { demoAlignment, seedDemoHospital, seedDemoMappingRules } from './seed/seed-sources';
import { DEMO_BUNDLES, startDemoFhirServer, type DemoFhirServer } from './modules/sources/demo-fhir-server';
import { DEMO_EDC, startDemoEdc } from './modules/edc/demo-edc';
import type { RaveReceiver } from './modules/edc/receivers/rave-receiver';

const started = Date.now();
const seed = process.env.SEED_DEMO !== 'false';
const server = await startServer({ seed });
// The demo hospital (issue 11 item 7): a FHIR R4 server with a few Synthea patients, matched to demo subjects H-001..
// On with the demo study unless DEMO_FHIR=0; off in production unless DEMO_FHIR=1.
let demoFhir: DemoFhirServer | null = null;
const demoWanted = process.env.DEMO_FHIR === '1' || (seed && !server.config.production && process.env.DEMO_FHIR !== '0');
if (demoWanted && server.config.role !== 'worker') {
  try {
    demoFhir = await startDemoFhirServer({ port: Number(process.env.DEMO_FHIR_PORT || 8090), bundles: [] });
    await seedDemoHospital(server.database.db, demoFhir.url);
    await seedDemoMappingRules(server.database);
    // demo only: each patient's dates moved so that its latest blood count falls on its subject's week-4 visit
    await demoFhir.load(DEMO_BUNDLES, await demoAlignment(server.database.db));
  } catch (err) {
    console.error(`[demo hospital] not started: ${(err as Error).message}`);
  }
}
// The demo EDC (issue 14): a Rave-style ODM receiver (kind 1) holding the demo study's definition, to sync to.
// With the demo study unless DEMO_EDC=0; port DEMO_EDC_PORT (default 8094).
let demoEdc: RaveReceiver | null = null;
if (demoWanted && process.env.DEMO_EDC !== '0' && server.config.role !== 'worker') {
  try {
    demoEdc = await startDemoEdc(server.database.db, Number(process.env.DEMO_EDC_PORT || 8094));
  } catch (err) {
    console.error(`[demo EDC] not started: ${(err as Error).message}`);
  }
}
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
if (demoFhir) lines.push(`  Demo hospital (FHIR R4, Synthea patients of subjects H-001..H-004 at site 01): ${demoFhir.url}`);
if (demoEdc)
  lines.push(`  Demo EDC (kind 1, CDISC ODM over HTTP): ${demoEdc.url} — study OID ${DEMO_EDC.studyOid}, environment ${DEMO_EDC.environment}, secret ${DEMO_EDC.user}:${DEMO_EDC.password}`);
console.log(lines.join('\n') + '\n');

let stopping = false;
for (const sig of ['SIGINT', 'SIGTERM'] as const) {
  process.on(sig, () => {
    if (stopping) return;
    stopping = true;
    void Promise.all([server.close(), demoFhir?.close(), demoEdc?.close()]).then(() => process.exit(0));
  });
}

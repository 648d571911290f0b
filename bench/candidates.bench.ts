/**
 * Benchmark (issue 13 item 3): safety candidate generation for ONE subject holding RECORDS source records (default
 * 10,000: 8,000 lab results of 16 analytes over 400 days — about one in twelve outside its range, half of them with
 * their own FHIR reference range — 1,000 medication orders, 500 diagnoses, 500 procedures), seeded in SQL.
 * Measured: the pure generator over the records already in memory (episodes, grouping; once over what generation
 * reads, with the assessments stored at ingest, and once over every record graded with CTCAE v5.0 as before), and
 * the whole SafetyService.generateForSubject (read the records, generate, compare with the stored candidates, write
 * the differences, in one transaction) — the first run (every candidate new), a run with nothing changed (its
 * fingerprint skips it) and a forced run (everything read, generated and compared, nothing to write).
 * Goal: < 100 ms for one subject with 10,000 records.
 *
 *   npm run bench -- candidates            (embedded database)
 *   DATABASE_URL=postgres://… npm run bench -- candidates
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { sql } from 'drizzle-orm';
import { startServer } from '../apps/server/src/server';
import { sourceRecords, subjects } from '../apps/server/src/db/schema';
import { generateCandidates, type GenRecord } from '../apps/server/src/modules/safety/generate';
import { GEN_RECORD_SELECT, generationRecords, SafetyService } from '../apps/server/src/modules/safety/safety.service';
import { rowsOf } from '../apps/server/src/lib/sql';
import { regradeLabs } from '../apps/server/src/modules/sources/lab-assessment';

const RECORDS = Number(process.env.RECORDS ?? 10_000);
const ITER = Number(process.env.ITER ?? 200);
const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'esource-bench-candidates-'));
const server = await startServer({ logger: false, config: { port: 0, host: '127.0.0.1', dataDir, logLevel: 'warn', databaseUrl: process.env.DATABASE_URL || undefined } });
const db = server.database.db;

const siteA = (await server.database.executeSql(`select id from sites where project_id = 1 and env = 'PRO' and site_no = '01'`)).rows[0] as { id: number };
const [s] = await db
  .insert(subjects)
  .values({ env: 'PRO', projectId: 1, siteId: siteA.id, ptsNo: `BENCH-${Date.now()}`, status: 1, firstVisitDate: new Date(Date.now() - 200 * 86_400_000).toISOString().slice(0, 10) })
  .returning();
const ptsId = s!.id;

const t0 = Date.now();
await db.execute(sql`insert into source_connections (env, project_id, site_id, kind, name) values ('PRO', 1, ${siteA.id}, 'fhir_file', 'bench-safety')`);
await db.execute(sql`insert into source_patients (env, project_id, site_id, connection_id, patient_key, subject_id, status)
  select 'PRO', 1, ${siteA.id}, id, 'bench-s', ${ptsId}, 1 from source_connections where name = 'bench-safety'`);
// 16 analytes: LOINC code, unit, low, high, normal value; every 12th result of an analyte is out of range
const labs: [string, string, number, number, number][] = [
  ['1742-6', 'U/L', 0, 40, 25], ['1920-8', 'U/L', 0, 40, 22], ['1975-2', 'mg/dL', 0.3, 1.2, 0.7], ['6768-6', 'U/L', 40, 130, 80],
  ['2160-0', 'mg/dL', 0.6, 1.3, 0.9], ['718-7', 'g/dL', 12, 16, 14], ['777-3', '10*3/uL', 150, 400, 250], ['6690-2', '10*3/uL', 4, 10, 6.5],
  ['751-8', '10*3/uL', 2, 7, 4], ['2823-3', 'mmol/L', 3.5, 5.1, 4.2], ['2951-2', 'mmol/L', 135, 145, 140], ['17861-6', 'mg/dL', 8.5, 10.5, 9.4],
  ['2345-7', 'mg/dL', 70, 99, 88], ['1751-7', 'g/dL', 3.5, 5, 4.2], ['2093-3', 'mg/dL', 0, 200, 170], ['2571-8', 'mg/dL', 0, 150, 110],
];
const labN = Math.round(RECORDS * 0.8);
const medN = Math.round(RECORDS * 0.1);
const dxN = Math.round(RECORDS * 0.05);
const prN = RECORDS - labN - medN - dxN;
const arr = (i: number) => `{${labs.map((l) => l[i]).join(',')}}`;
await db.execute(sql`insert into source_records (env, project_id, site_id, subject_id, source_patient_id, connection_id, external_id, doc_type, resource_type,
    code_system, code, display, value_num, unit, effective_at, effective_date, content_hash, raw_format, raw)
  select 'PRO', 1, ${siteA.id}, ${ptsId}, p.id, p.connection_id, 'Observation/b' || g, 3, 'Observation', 'http://loinc.org',
         (${arr(0)}::text[])[1 + g % 16], 'Lab ' || (1 + g % 16),
         case when (g / 16) % 12 = 0 then (${arr(3)}::float8[])[1 + g % 16] * (2 + (g % 7)) else (${arr(4)}::float8[])[1 + g % 16] end,
         (${arr(1)}::text[])[1 + g % 16],
         now() - ((g % 400) || ' days')::interval, (now() - ((g % 400) || ' days')::interval)::date, md5(g::text), 'fhir',
         case when g % 2 = 0
           then '{"resourceType":"Observation","id":"b' || g || '","status":"final","referenceRange":[{"low":{"value":' || (${arr(2)}::float8[])[1 + g % 16] || '},"high":{"value":' || (${arr(3)}::float8[])[1 + g % 16] || '}}]}'
           else '{"resourceType":"Observation","id":"b' || g || '","status":"final"}' end
    from generate_series(1, ${labN}) g, source_patients p where p.patient_key = 'bench-s'`);
await db.execute(sql`insert into source_records (env, project_id, site_id, subject_id, source_patient_id, connection_id, external_id, doc_type, resource_type,
    code_system, code, display, effective_at, effective_date, content_hash, raw_format, raw)
  select 'PRO', 1, ${siteA.id}, ${ptsId}, p.id, p.connection_id, 'MedicationRequest/m' || g, 4, 'MedicationRequest', 'http://www.nlm.nih.gov/research/umls/rxnorm',
         'RX' || (g % 60), 'Drug ' || (g % 60), now() - ((g % 400) || ' days')::interval, (now() - ((g % 400) || ' days')::interval)::date, md5('m' || g), 'fhir',
         '{"resourceType":"MedicationRequest","id":"m' || g || '","dosageInstruction":[{"timing":{"repeat":{"frequency":2,"period":1,"periodUnit":"d"}},"route":{"text":"Oral"},"doseAndRate":[{"doseQuantity":{"value":500,"unit":"mg"}}]}]}'
    from generate_series(1, ${medN}) g, source_patients p where p.patient_key = 'bench-s'`);
for (const [type, docType, n, prefix] of [['Condition', 8, dxN, 'c'], ['Procedure', 6, prN, 'p']] as const) {
  await db.execute(sql`insert into source_records (env, project_id, site_id, subject_id, source_patient_id, connection_id, external_id, doc_type, resource_type,
      code_system, code, display, effective_at, effective_date, content_hash, raw_format, raw)
    select 'PRO', 1, ${siteA.id}, ${ptsId}, p.id, p.connection_id, ${type} || '/' || ${prefix} || g, ${docType}, ${type}, 'http://snomed.info/sct',
           ${prefix} || (g % 80), ${type} || ' ' || (g % 80), now() - ((g % 900) || ' days')::interval, (now() - ((g % 900) || ' days')::interval)::date, md5(${prefix} || g), 'fhir',
           '{"resourceType":"' || ${type} || '","id":"' || ${prefix} || g || '"}'
      from generate_series(1, ${n}) g, source_patients p where p.patient_key = 'bench-s'`);
}
// ingest grades each lab result as it stores it (source_records.lab, migration 0053); the SQL seed above did not,
// so they are graded here, and the table vacuumed as autovacuum would after a load
const tg = performance.now();
const graded = await regradeLabs(db, { id: ptsId });
const gradeMs = performance.now() - tg;
await server.database.ownerExecuteSql('vacuum analyze source_records');
console.log(`data: ${RECORDS} source records for one subject (${labN} labs, ${medN} medications, ${dxN} diagnoses, ${prN} procedures; ${((Date.now() - t0) / 1000).toFixed(1)} s to seed; ${graded} lab results graded and stored in ${gradeMs.toFixed(0)} ms)`);

const q = (xs: number[], p: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(p * xs.length))]!.toFixed(1);

// the pure generator over the records in memory: what generation reads (stored assessments; of the lab results only
// the out-of-range ones and the first after each), and every record graded here as before migration 0053
const consent = s!.firstVisitDate;
const records = rowsOf<GenRecord>(await db.execute(generationRecords(s!, consent)));
const everything = rowsOf<GenRecord>(await db.execute(sql`select ${GEN_RECORD_SELECT} from ${sourceRecords} r where r.subject_id = ${ptsId} and r.deleted_at is null`));
const regraded: number[] = [];
for (let i = 0; i < ITER + 5; i++) {
  const t = performance.now();
  generateCandidates(everything, consent);
  if (i >= 5) regraded.push(performance.now() - t);
}
console.log(`generator (in memory, all ${everything.length} records, each graded): p50 ${q(regraded, 0.5)} ms, p99 ${q(regraded, 0.99)} ms`);
let found = 0;
const pure: number[] = [];
for (let i = 0; i < ITER + 5; i++) {
  const t = performance.now();
  found = generateCandidates(records, consent).length;
  if (i >= 5) pure.push(performance.now() - t);
}
console.log(`generator (in memory, the ${records.length} records generation reads): ${found} candidates; p50 ${q(pure, 0.5)} ms, p99 ${q(pure, 0.99)} ms`);

const svc = new SafetyService(db);
let t = performance.now();
const first = await svc.generateForSubject(ptsId);
console.log(`generateForSubject, first run (every candidate written): ${(performance.now() - t).toFixed(1)} ms (${first.created} created)`);
const steady: number[] = [];
for (let i = 0; i < ITER; i++) {
  t = performance.now();
  await svc.generateForSubject(ptsId);
  steady.push(performance.now() - t);
}
console.log(`generateForSubject, nothing changed (fingerprint unchanged: skipped): p50 ${q(steady, 0.5)} ms, p99 ${q(steady, 0.99)} ms (${ITER} runs)`);
const forced: number[] = [];
for (let i = 0; i < ITER; i++) {
  t = performance.now();
  await svc.generateForSubject(ptsId, { force: true });
  forced.push(performance.now() - t);
}
console.log(`generateForSubject, forced (read ${RECORDS} records, generate, compare with the stored candidates, nothing to write): p50 ${q(forced, 0.5)} ms, p99 ${q(forced, 0.99)} ms (${ITER} runs)`);
await server.close();
fs.rmSync(dataDir, { recursive: true, force: true });

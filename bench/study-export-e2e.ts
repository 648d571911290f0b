/**
 * The study exports end to end (issue 14 item 7), the mode of bench/study-export.bench.ts when DATABASE_URL is set: a
 * design version of the demo project with one visit and five forms of ten items (every item type), SUBJECTS subjects
 * with all 50 values each, seeded in SQL a chunk of 10,000 subjects at a time (a set is grown to a larger SUBJECTS on
 * the same database, never shrunk), then ANALYZE. Each export then runs as the job runner runs it — a queued
 * `export_files` row and `ExportsService.run`: the kind's generator reading keyset pages of 500 from the database into
 * a temporary file (hashed on the way), copied into a file store — in a fresh process of its own, printing the time to
 * generate the file (items/s), the whole job's time, the file's size and the peak RSS / heap / external memory sampled
 * every 100 ms (and at every progress report).
 *
 * FORMATS (default odm,xlsx,datasetjson; Dataset-JSON is one form, as the export is), AUDIT=1 (ODM audit records),
 * EXPORT_NODE_ARGS (extra node options of the export processes, e.g. "--cpu-prof --cpu-prof-dir=/tmp/prof"), KEEP (a
 * folder to copy the files to, to look at them).
 */
import { randomUUID } from 'node:crypto';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { and, eq } from 'drizzle-orm';
import type { FieldComponent, FormDefinition } from '@esource/shared';
import { openDatabase } from '../apps/server/src/db/client';
import { designVersions, exportFiles, forms, users, visitForms, visits } from '../apps/server/src/db/schema';
import { LocalFileStore } from '../apps/server/src/modules/documents/file-store';
import { ExportsService } from '../apps/server/src/modules/exports/exports.service';
import { lastChild } from '../apps/server/src/modules/exports/export-process';
import { studyExportRequest } from '../apps/server/src/modules/exports/study/study-exports';
import type { JobRunner } from '../apps/server/src/modules/jobs/job-runner';
import type { Sampler } from './study-export.bench';

const mb = (n: number) => `${(n / 1024 / 1024).toFixed(0)} MB`;

/** the benchmark's design version of the demo project: one visit, FORMS forms of ten items (every item type) */
const E2E_VERSION_NO = 90;
const E2E_PREFIX = 'SX';
const E2E_FORMS = ['EX1', 'EX2', 'EX3', 'EX4', 'EX5'];
const CHUNK = 10_000;

function e2eForm(code: string): FormDefinition {
  const opts = (...xs: [string, string][]) => xs.map(([value, label]) => ({ value, label, labelEn: label }));
  const f = (n: number, type: FieldComponent['type'], variable: string, label: string, extra: Partial<FieldComponent> = {}): FieldComponent => ({ id: `f${n}`, type, variable, label, labelEn: label, ...extra });
  return {
    name: `Bench ${code}`,
    code,
    nameEn: `Bench ${code}`,
    cycle: false,
    layout: 'vertical',
    labelWidth: 120,
    recordType: 'medical',
    components: [
      f(1, 'number', 'NUM', 'Count'),
      f(2, 'number', 'WEIGHT', 'Weight', { precision: 1, unit: 'kg' }),
      f(3, 'date', 'DAT', 'Date'),
      f(4, 'datetime', 'DTM', 'Date and time'),
      f(5, 'text', 'TXT', 'Text'),
      f(6, 'radio', 'RAD', 'Yes or no', { options: opts(['1', 'Yes'], ['2', 'No']) }),
      f(7, 'select', 'SEL', 'Grade', { options: opts(['1', 'Mild'], ['2', 'Moderate'], ['3', 'Severe']) }),
      f(8, 'checkbox', 'CHK', 'Symptoms', { options: opts(['A', 'Headache'], ['B', 'Nausea'], ['C', 'Dizziness']) }),
      f(9, 'textarea', 'NOTE', 'Notes'),
      f(10, 'number', 'SCORE', 'Score'),
    ],
  };
}

/** The ten values of an instance `i` (SQL), one of each item type; the notes hold characters XML escapes. */
const E2E_VALUES = `('NUM', to_jsonb(40 + i.id % 50)),
  ('WEIGHT', to_jsonb(round(50 + (i.id % 400) / 10.0, 1))),
  ('DAT', to_jsonb(to_char(date '2026-01-01' + (i.id % 300), 'YYYY-MM-DD'))),
  ('DTM', to_jsonb(to_char(timestamp '2026-01-01 08:00' + (i.id % 5000) * interval '37 minutes', 'YYYY-MM-DD HH24:MI'))),
  ('TXT', to_jsonb('text ' || i.id % 997)),
  ('RAD', to_jsonb(case when i.id % 2 = 0 then '1' else '2' end)),
  ('SEL', to_jsonb((1 + i.id % 3)::text)),
  ('CHK', case i.id % 3 when 0 then '["A"]'::jsonb when 1 then '["A","C"]'::jsonb else '["B"]'::jsonb end),
  ('NOTE', to_jsonb('Reported ' || i.id % 13 || ' episodes & <none> since the last visit')),
  ('SCORE', to_jsonb(i.id % 10))`;

/** Seeds (or grows) the set to SUBJECTS subjects, then runs each format's export job in a process of its own. */
export async function endToEnd(SUBJECTS: number, benchUrl: string) {
  // (the seeding server's modules in this process only: an export's process loads what the job needs)
  const { seedSubjects, startSeedingServer } = await import('./bench-kit');
  const { server, exec } = await startSeedingServer('study-export');
  const db = server.database.db;
  const one = async <T,>(q: string) => (await exec(q)).rows[0] as T;
  let [version] = await db.select({ id: designVersions.id }).from(designVersions).where(and(eq(designVersions.projectId, 1), eq(designVersions.versionNo, E2E_VERSION_NO)));
  if (!version) {
    [version] = await db.insert(designVersions).values({ projectId: 1, versionNo: E2E_VERSION_NO, name: 'bench-export', status: 1, publishedEnvs: ['PRO'], publishedAt: new Date() }).returning({ id: designVersions.id });
    const [visit] = await db.insert(visits).values({ versionId: version!.id, code: 'V1', name: 'Visit 1', nameEn: 'Visit 1', sortOrder: 1 }).returning({ id: visits.id });
    const fs_ = await db
      .insert(forms)
      .values(E2E_FORMS.map((code, i) => ({ versionId: version!.id, code, name: `Bench ${code}`, nameEn: `Bench ${code}`, definition: e2eForm(code), sortOrder: i + 1 })))
      .returning({ id: forms.id });
    await db.insert(visitForms).values(fs_.map((f, i) => ({ visitId: visit!.id, formId: f.id, sortOrder: i + 1 })));
  }
  const v = version!.id;
  const { n: existing } = await one<{ n: number }>(`select count(*)::int as n from subjects where design_version_id = ${v}`);
  if (existing > SUBJECTS) throw new Error(`the database holds ${existing} benchmark subjects, more than SUBJECTS=${SUBJECTS}: drop it for a smaller set`);
  if (existing < SUBJECTS) {
    console.log(`seeding subjects ${existing + 1}–${SUBJECTS} × ${E2E_FORMS.length} forms × 10 items, ${CHUNK.toLocaleString()} subjects a chunk …`);
    const ts = Date.now();
    for (let from = existing + 1; from <= SUBJECTS; from += CHUNK) {
      const to = Math.min(SUBJECTS, from + CHUNK - 1);
      const range = `su.pts_no between '${E2E_PREFIX}${String(from).padStart(6, '0')}' and '${E2E_PREFIX}${String(to).padStart(6, '0')}'`;
      await seedSubjects(exec, { from, count: to, prefix: E2E_PREFIX, digits: 6, versionId: String(v), siteNo: `case when g % 2 = 0 then '01' else '02' end` });
      await exec(`insert into crf_instances (env, project_id, site_id, subject_id, visit_id, form_id, status, version, updated_by, created_at, updated_at)
        select 'PRO', 1, su.site_id, su.id, vi.id, f.id, case su.id % 10 when 0 then 3 when 1 then 1 else 2 end, 2, crc.id, t, t
          from subjects su
          join visits vi on vi.version_id = ${v}
          join forms f on f.version_id = ${v}
          cross join (select id from users where account = 'crc1') crc
          cross join lateral (select timestamptz '2026-01-01 08:00+08' + (su.id % 300) * interval '1 day' as t) x
         where su.project_id = 1 and su.env = 'PRO' and ${range}`);
      await exec(`insert into crf_values (instance_id, variable, value, entry_mode, updated_by, updated_at)
        select i.id, x.variable, jsonb_build_object('v', x.v), 2, i.updated_by, i.updated_at
          from crf_instances i
          join subjects su on su.id = i.subject_id
          cross join lateral (values ${E2E_VALUES}) x(variable, v)
         where su.project_id = 1 and su.env = 'PRO' and ${range}`);
      // the statistics after each chunk: the counters' statement triggers plan their joins on them (without, a third
      // chunk's values ran for over 14 minutes on a nested loop)
      await server.database.ownerExecuteSql('analyze subjects, crf_instances, crf_values');
      process.stdout.write(`  ${to.toLocaleString()} subjects: ${((Date.now() - ts) / 1000).toFixed(0)} s\n`);
    }
    const ta = Date.now();
    await server.database.ownerExecuteSql('analyze subjects, crf_instances, crf_values');
    console.log(`  analyze: ${((Date.now() - ta) / 1000).toFixed(1)} s`);
  }
  const { n: values } = await one<{ n: number }>(`select count(*)::int as n from crf_values cv join crf_instances i on i.id = cv.instance_id join subjects su on su.id = i.subject_id where su.design_version_id = ${v} and su.status <> 0`);
  const [firstForm] = await db.select({ id: forms.id }).from(forms).where(and(eq(forms.versionId, v), eq(forms.code, E2E_FORMS[0]!)));
  await server.close();
  console.log(`study exports end to end (${server.database.kind}) — ${SUBJECTS.toLocaleString()} subjects × ${E2E_FORMS.length * 10} items (${values.toLocaleString()} values); goal: ODM ≥ 50,000 items/s with RSS < 200 MB, Excel at constant memory`);
  const formats = (process.env.FORMATS ?? 'odm,xlsx,datasetjson').split(',');
  const extra = process.env.EXPORT_NODE_ARGS ? process.env.EXPORT_NODE_ARGS.split(' ') : [];
  for (const f of formats) {
    const r = spawnSync(process.execPath, [...extra, '--import', 'tsx', fileURLToPath(benchUrl)], {
      stdio: 'inherit',
      env: { ...process.env, EXPORT_RUN: f, EXPORT_VERSION: String(v), EXPORT_FORM: String(firstForm!.id), EXPORT_VALUES: String(values) },
    });
    if (r.status !== 0) throw new Error(`${f}: exit ${r.status}`);
  }
}

/**
 * One export as the job runner runs it: a queued `export_files` row, then `ExportsService.run` (the kind's generator
 * reading keyset pages into a temporary file, hashed on the way, then copied into a file store), in a fresh process.
 */
export async function endToEndRun(format: string, sampler: Sampler) {
  const kind = ({ odm: 'study-odm', xlsx: 'study-xlsx', datasetjson: 'study-datasetjson' } as const)[format as 'odm'];
  if (!kind) throw new Error(`FORMATS: odm, xlsx or datasetjson, not ${format}`);
  const versionId = Number(process.env.EXPORT_VERSION);
  const formId = Number(process.env.EXPORT_FORM);
  const database = await openDatabase({ databaseUrl: process.env.DATABASE_URL, dataDir: os.tmpdir() });
  const db = database.db;
  // the items the file holds: every value (Dataset-JSON: the values of its one form)
  const items =
    format === 'datasetjson'
      ? ((await database.executeSql(`select count(*)::int as n from crf_values cv join crf_instances i on i.id = cv.instance_id join subjects su on su.id = i.subject_id where i.form_id = ${formId} and su.status <> 0`)).rows[0] as { n: number }).n
      : Number(process.env.EXPORT_VALUES);
  const [dm] = await db.select({ id: users.id }).from(users).where(eq(users.account, 'dm'));
  const params = studyExportRequest.parse({ versionId, language: 'en_US', audit: process.env.AUDIT === '1', ...(format === 'datasetjson' ? { formId } : {}) });
  const jobId = randomUUID();
  const [row] = await db
    .insert(exportFiles)
    .values({ env: 'PRO', projectId: 1, siteId: null, subjectId: null, kind, params, scopeKey: `bench:${jobId}`, title: 'bench', fileName: `bench.${format}`, status: 'queued', jobId, createdBy: dm!.id })
    .returning({ id: exportFiles.id });
  const storeDir = fs.mkdtempSync(path.join(os.tmpdir(), 'esource-bench-export-store-'));
  const svc = new ExportsService(database, null as unknown as JobRunner /* run() does not queue */, new LocalFileStore(storeDir));
  global.gc?.();
  const before = process.memoryUsage().rss;
  const m = sampler();
  const t0 = performance.now();
  let generated = NaN;
  await svc.run({ exportId: row!.id }, { jobId, attempt: 0, report: async (done, total) => {
    m.sample();
    if (done >= total) generated = performance.now();
  } });
  const job = (performance.now() - t0) / 1000;
  const peak = m.stop();
  const [done] = await db.select({ status: exportFiles.status, size: exportFiles.size, error: exportFiles.error }).from(exportFiles).where(eq(exportFiles.id, row!.id));
  const [stored] = await db.select({ key: exportFiles.fileKey }).from(exportFiles).where(eq(exportFiles.id, row!.id));
  if (process.env.KEEP && stored?.key) fs.copyFileSync(new LocalFileStore(storeDir).pathOf(stored.key), path.join(process.env.KEEP, `study-export.${format}`));
  fs.rmSync(storeDir, { recursive: true, force: true });
  await database.close();
  if (done?.status !== 'done') throw new Error(`${kind}: ${done?.status} ${done?.error}`);
  const gen = (generated - t0) / 1000;
  const what = format === 'datasetjson' ? `one form, ${items.toLocaleString()} items` : `${items.toLocaleString()} items`;
  console.log(
    `${kind.padEnd(17)} ${what}: generated in ${gen.toFixed(1)} s (${Math.round(items / gen).toLocaleString()} items/s), job ${job.toFixed(1)} s with the store; ${mb(done.size ?? 0)}; RSS ${mb(before)} before, peak ${mb(peak.rss)}, heap ${mb(peak.heap)}, external ${mb(peak.external)}; ` +
      (lastChild.pid ? `written by a child process (EXPORT_PROCESS): its peak RSS ${mb(lastChild.maxRssKb * 1024)}; ` : 'written in this process; ') +
      `load ${os.loadavg()[0]!.toFixed(1)}`,
  );
}

/**
 * The demo hospital's side of the demo study (issue 11 item 7), for `npm start` only (tests seed their own): a 'fhir'
 * connection at the demo project's first site in UAT and PRO pointing at the demo FHIR server, and demo subjects
 * H-001.. carrying the Synthea patients' medical record numbers, so that a new user can run an extraction at once.
 * Idempotent: runs on every start and adds only what is missing (and follows a changed DEMO_FHIR_PORT).
 */
import { and, desc, eq, inArray, isNull, sql } from 'drizzle-orm';
import { mappingRuleSave, visitWindow } from '@esource/shared';
import type { Database, Db } from '../db/client';
import { designVersions, forms, mappingRules, projects, sites, sourceConnections, subjects, users, visits } from '../db/schema';
import { DEMO_BUNDLES, DEMO_MRN_SYSTEM, demoMrnOf } from '../modules/sources/demo-fhir-server';
import { MappingService } from '../modules/prefill/mapping.service';
import { jobContext } from '../modules/prefill/prefill-schedule.job';
import { AppError } from '../lib/errors';
import { DEMO_PROJECT_NO } from './seed';

export const DEMO_CONNECTION_NAME = 'Demo hospital (FHIR R4)';

export async function seedDemoHospital(db: Db, baseUrl: string): Promise<void> {
  const [p] = await db.select({ id: projects.id }).from(projects).where(eq(projects.no, DEMO_PROJECT_NO));
  if (!p) return;
  for (const env of ['UAT', 'PRO'] as const) {
    const [site] = await db.select().from(sites).where(and(eq(sites.projectId, p.id), eq(sites.env, env), eq(sites.siteNo, '01')));
    if (!site) continue;
    const config = {
      baseUrl,
      auth: 'none',
      identifierSystems: [{ system: DEMO_MRN_SYSTEM, type: 'medicalRecordId' }],
      timeoutMs: 30_000,
      pageLimit: 200,
      pageSize: 100,
      resourceTypes: ['Observation', 'Condition', 'MedicationRequest', 'MedicationStatement', 'Procedure', 'DiagnosticReport', 'Encounter', 'AllergyIntolerance', 'Immunization'],
    };
    const [existing] = await db
      .select()
      .from(sourceConnections)
      .where(and(eq(sourceConnections.projectId, p.id), eq(sourceConnections.env, env), eq(sourceConnections.siteId, site.id), eq(sourceConnections.name, DEMO_CONNECTION_NAME), isNull(sourceConnections.deletedAt)));
    if (!existing) {
      await db.insert(sourceConnections).values({ env, projectId: p.id, siteId: site.id, kind: 'fhir', name: DEMO_CONNECTION_NAME, config });
    } else if ((existing.config as { baseUrl?: string }).baseUrl !== baseUrl) {
      await db
        .update(sourceConnections)
        .set({ config: { ...(existing.config as object), baseUrl }, version: existing.version + 1, updatedAt: new Date() })
        .where(eq(sourceConnections.id, existing.id));
    }
    const [v] = await db
      .select({ id: designVersions.id })
      .from(designVersions)
      .where(and(eq(designVersions.projectId, p.id), sql`${env} = any(${designVersions.publishedEnvs})`))
      .orderBy(desc(designVersions.versionNo))
      .limit(1);
    const ids: number[] = [];
    for (const [i, file] of DEMO_BUNDLES.entries()) {
      const ptsNo = `H-${String(i + 1).padStart(3, '0')}`;
      const [found] = await db.select({ id: subjects.id }).from(subjects).where(and(eq(subjects.projectId, p.id), eq(subjects.env, env), eq(subjects.ptsNo, ptsNo)));
      if (found) continue;
      // first visit 28 days ago: today is week 4 (V3, day 28, window −3/+7), where the demo hospital's dates are aligned
      const first = new Date(Date.now() - 28 * 86_400_000).toISOString().slice(0, 10);
      const [s] = await db
        .insert(subjects)
        .values({ env, projectId: p.id, siteId: site.id, ptsNo, status: 1, designVersionId: v?.id ?? null, firstVisitDate: first, medicalRecordId: demoMrnOf(file) })
        .returning({ id: subjects.id });
      ids.push(s!.id);
    }
    if (ids.length) await db.execute(sql`select refresh_subject_progress(array[${sql.join(ids.map((i) => sql`${i}`), sql`, `)}]::int[])`);
  }
}

/**
 * The demo-only date alignment (demo-fhir-server.ts alignBundle): for each demo bundle, the day before the planned date
 * of its demo subject's week-4 visit (V3; first visit + 28 days by visitWindow), from the subject as stored (PRO, else UAT), so
 * that a database seeded days ago still lines up with its own subjects.
 */
export async function demoAlignment(db: Db): Promise<Partial<Record<string, string>>> {
  const [p] = await db.select({ id: projects.id }).from(projects).where(eq(projects.no, DEMO_PROJECT_NO));
  if (!p) return {};
  const out: Partial<Record<string, string>> = {};
  for (const [i, file] of DEMO_BUNDLES.entries()) {
    const ptsNo = `H-${String(i + 1).padStart(3, '0')}`;
    const rows = await db
      .select({ env: subjects.env, first: subjects.firstVisitDate, versionId: subjects.designVersionId })
      .from(subjects)
      .where(and(eq(subjects.projectId, p.id), eq(subjects.ptsNo, ptsNo), inArray(subjects.env, ['PRO', 'UAT'])));
    const s = rows.find((r) => r.env === 'PRO') ?? rows[0];
    if (!s?.first) continue;
    const [v3] = s.versionId ? await db.select().from(visits).where(and(eq(visits.versionId, s.versionId), eq(visits.code, 'V3'))) : [];
    // the day before the planned date (inside the −3 window): a result taken "today" at a later hour than the demo
    // is started would be a future time, which the eCRF refuses
    const planned = visitWindow(s.first, v3 ?? { dayOffset: 28, windowBefore: 3, windowAfter: 7 }).planned;
    out[file] = new Date(Date.parse(`${planned}T00:00:00Z`) - 86_400_000).toISOString().slice(0, 10);
  }
  return out;
}

/** The demo mapping: LOINC → the demo design's lab (LB) and vital-sign (VS) items, nearest to the visit date, inside the window. */
export const DEMO_MAPPING: { form: string; variable: string; code: string; unit?: string; expression?: string }[] = [
  // a datetime item takes the time the result was taken (FHIRPath on the raw resource), here the blood count's
  { form: 'LB', variable: 'LBDTC', code: '718-7', expression: 'Observation.effective' },
  { form: 'LB', variable: 'HGB', code: '718-7', unit: 'g/L' }, // Synthea: g/dL
  { form: 'LB', variable: 'WBC', code: '6690-2', unit: '10*9/L' }, // Synthea: 10*3/uL
  { form: 'LB', variable: 'PLT', code: '777-3', unit: '10*9/L' },
  { form: 'LB', variable: 'NA', code: '2947-0', unit: 'mmol/L' },
  { form: 'LB', variable: 'K', code: '6298-4', unit: 'mmol/L' },
  { form: 'LB', variable: 'CREAT', code: '38483-4', unit: 'mg/dL' },
  { form: 'LB', variable: 'GLUC', code: '2339-0', unit: 'mg/dL' },
  { form: 'VS', variable: 'VSDTC', code: '8480-6', expression: 'Observation.effective' }, // the blood pressure's time
  { form: 'VS', variable: 'SYSBP', code: '8480-6' },
  { form: 'VS', variable: 'DIABP', code: '8462-4' },
  { form: 'VS', variable: 'HR', code: '8867-4' },
  { form: 'VS', variable: 'WEIGHT', code: '29463-7', unit: 'kg' },
];

/**
 * Seeds the demo mapping rules (DEMO_MAPPING) on the LB and VS forms of every design version of the demo project,
 * through the mapping service (validated and audited as the data manager 'dm'); a rule that exists is left as it is.
 */
export async function seedDemoMappingRules(database: Database): Promise<number> {
  const db = database.db;
  const [p] = await db.select({ id: projects.id }).from(projects).where(eq(projects.no, DEMO_PROJECT_NO));
  const [dm] = await db.select({ id: users.id }).from(users).where(eq(users.account, 'dm'));
  if (!p || !dm) return 0;
  const ctx = await jobContext(database, p.id, 'PRO', dm.id, 'seed:demo-mapping');
  if (!ctx) return 0;
  const list = await db
    .select({ id: forms.id, code: forms.code })
    .from(forms)
    .innerJoin(designVersions, eq(designVersions.id, forms.versionId))
    .where(and(eq(designVersions.projectId, p.id), inArray(forms.code, ['LB', 'VS'])));
  const svc = new MappingService(db);
  let added = 0;
  for (const f of list) {
    const have = new Set((await db.select({ v: mappingRules.variable }).from(mappingRules).where(eq(mappingRules.formId, f.id))).map((r) => r.v));
    for (const m of DEMO_MAPPING.filter((x) => x.form === f.code && !have.has(x.variable))) {
      const input = mappingRuleSave.parse({
        formId: f.id,
        variable: m.variable,
        method: m.expression ? 'fhirpath' : 'code',
        codes: [{ system: 'http://loinc.org', code: m.code }],
        useSynonyms: false,
        selection: 'nearest',
        windowOnly: true,
        ...(m.expression ? { expression: m.expression } : {}),
        ...(m.unit ? { unit: m.unit } : {}),
      });
      try {
        await svc.save(ctx, input);
        added++;
      } catch (err) {
        // a design version whose form lacks the item: nothing to map there
        if (!(err instanceof AppError && err.code === 'VALIDATION')) throw err;
      }
    }
  }
  return added;
}

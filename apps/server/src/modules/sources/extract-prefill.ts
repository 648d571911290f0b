/**
 * Automatic pre-fill after an extraction (issue 11 items 4, 5): when a finished extraction stored new or changed
 * source records for subjects, each of those subjects' visits whose window holds today (in the project's time zone;
 * or the task's explicit visit list) is pre-filled in inject mode — only EMPTY items, entry mode 6, never
 * overwriting (PrefillService.prefillSubjectVisit) — unless the project's autoPrefillDisabled is set. A failure never
 * fails the extraction: it becomes a progress item (type 2, status error) with the spec's 'Automatic prefill
 * failure' message for the user who started the task.
 */
import { and, eq, inArray } from 'drizzle-orm';
import { PROGRESS_STATUS, PROGRESS_TYPE, type Env, type Language } from '@esource/shared';
import type { Database } from '../../db/client';
import { prefillSchedules, progressItems, projects, subjects, visits } from '../../db/schema';
import { AppError } from '../../lib/errors';
import { translator } from '../../lib/i18n';
import { PrefillService } from '../prefill/prefill.service';
import { jobContext } from '../prefill/prefill-schedule.job';

export interface AutoPrefillInput {
  taskId: number;
  projectId: number;
  env: string;
  /** who started the task (null for the automatic daily run: the pre-fill schedule's owner, else the project's creator acts) */
  userId: number | null;
  language: Language;
  /** subjects whose records the extraction created or changed */
  subjectIds: number[];
  /** the day whose visit windows count (YYYY-MM-DD); default today in the project's time zone */
  day?: string;
  /** explicit visits instead of those in window */
  visitIds?: number[];
  now?: Date;
}

export interface AutoPrefillOutcome {
  skipped?: 'noSubjects' | 'disabled' | 'noActor';
  /** subject visits pre-filled (attempted) */
  visits: number;
  /** items filled */
  filled: number;
  failures: string[];
}

export function localDay(now: Date, timeZone: string): string {
  const parts = new Intl.DateTimeFormat('en-CA', { timeZone, year: 'numeric', month: '2-digit', day: '2-digit' }).formatToParts(now);
  const get = (k: string) => parts.find((x) => x.type === k)?.value ?? '';
  return `${get('year')}-${get('month')}-${get('day')}`;
}

export async function prefillAfterExtraction(database: Database, input: AutoPrefillInput): Promise<AutoPrefillOutcome> {
  const out: AutoPrefillOutcome = { visits: 0, filled: 0, failures: [] };
  if (input.subjectIds.length === 0) return { ...out, skipped: 'noSubjects' };
  const db = database.db;
  const [p] = await db.select().from(projects).where(eq(projects.id, input.projectId));
  if (!p || p.autoPrefillDisabled) return { ...out, skipped: 'disabled' };
  let actor = input.userId;
  if (actor === null) {
    const [sched] = await db
      .select({ by: prefillSchedules.updatedBy })
      .from(prefillSchedules)
      .where(and(eq(prefillSchedules.projectId, p.id), eq(prefillSchedules.env, input.env)));
    actor = sched?.by ?? p.createdBy ?? null;
  }
  if (actor === null) return { ...out, skipped: 'noActor' };
  const ctx = await jobContext(database, p.id, input.env as Env, actor, `extract:${input.taskId}`);
  if (!ctx) return { ...out, skipped: 'noActor' };
  ctx.language = input.language;
  const prefill = new PrefillService(db);
  const day = input.day ?? localDay(input.now ?? new Date(), p.timezone);
  const wanted = new Set(input.subjectIds);
  let due: { subjectId: number; visitId: number }[];
  if (input.visitIds?.length) {
    due = input.subjectIds.flatMap((subjectId) => input.visitIds!.map((visitId) => ({ subjectId, visitId })));
  } else {
    due = (await prefill.subjectVisitsInWindow(input.env, p.id, day)).filter((d) => wanted.has(d.subjectId));
  }
  if (due.length === 0) return out;
  const names = new Map(
    (await db.select({ id: subjects.id, ptsNo: subjects.ptsNo }).from(subjects).where(inArray(subjects.id, [...wanted]))).map((s) => [s.id, s.ptsNo]),
  );
  const visitNames = new Map(
    (await db.select({ id: visits.id, name: visits.name, nameEn: visits.nameEn }).from(visits).where(inArray(visits.id, [...new Set(due.map((d) => d.visitId))]))).map((v) => [
      v.id,
      input.language === 'en_US' ? (v.nameEn ?? v.name) : v.name,
    ]),
  );
  const t = translator(input.language);
  const failedSubjects = new Set<number>();
  for (const d of due) {
    const where = `${names.get(d.subjectId) ?? d.subjectId} ${visitNames.get(d.visitId) ?? d.visitId}`;
    out.visits++;
    try {
      const r = await prefill.prefillSubjectVisit(ctx, d.subjectId, d.visitId, 'inject');
      out.filled += r.filled;
      for (const f of r.failures) {
        out.failures.push(`${where}: ${f.message}`);
        failedSubjects.add(d.subjectId);
      }
    } catch (e) {
      // a refusal in the user's language (not its code); any other failure is logged in full as well
      if (!(e instanceof AppError)) console.error(`[sources] automatic pre-fill of ${where} after task ${input.taskId}:`, e);
      out.failures.push(`${where}: ${e instanceof AppError ? t(`errors.${e.code}`, e.params) : e instanceof Error ? e.message : String(e)}`);
      failedSubjects.add(d.subjectId);
    }
  }
  if (out.failures.length) {
    const only = failedSubjects.size === 1 ? [...failedSubjects][0]! : null;
    await db.insert(progressItems).values({
      env: input.env,
      projectId: p.id,
      userId: actor,
      type: PROGRESS_TYPE.extraction,
      status: PROGRESS_STATUS.error,
      displayInformation: t('prefill.autoFailureDetail', { detail: out.failures.slice(0, 3).join('; ') }).slice(0, 500),
      ...(only !== null ? { ptsId: only, ptsNo: names.get(only) ?? null } : {}),
    });
  }
  return out;
}

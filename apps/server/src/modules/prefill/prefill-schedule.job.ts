/**
 * Scheduled automatic pre-fill (issue 11 item 5): each project environment's prefill_schedules row says on which
 * days (daily; weekly weekdays 1-7; monthly days 1-31, a day past the month's end = its last day) between its start
 * and end date the inject run happens. A tick (every few minutes, in any process; the day is claimed atomically
 * through last_run_on, so a day runs once) queues one pg-boss job per due schedule. The job fills only EMPTY items
 * of the subjects' visits whose window holds today, with entry mode inject 6, never overwriting, and reports
 * done/total per subject in a progress item (type 2); a failure is reported with the spec's 'Automatic prefill
 * failure' message and the job goes on with the next subject.
 */
import { and, eq, isNull, or, sql } from 'drizzle-orm';
import { PROGRESS_STATUS, PROGRESS_TYPE, scheduleRunsOn, type Env } from '@esource/shared';
import type { Database } from '../../db/client';
import { prefillSchedules, progressItems, projects, users } from '../../db/schema';
import type { ProjectScopedContext } from '../../lib/context';
import { AppError } from '../../lib/errors';
import { translator } from '../../lib/i18n';
import type { JobRunner } from '../jobs/job-runner';
import { PrefillService } from './prefill.service';

export const PREFILL_INJECT_JOB = 'prefill.inject';
const TICK_MS = 5 * 60_000;

interface InjectJobData {
  scheduleId: number;
  day: string;
}

function localDay(now: Date, timeZone: string): string {
  const parts = new Intl.DateTimeFormat('en-CA', { timeZone, year: 'numeric', month: '2-digit', day: '2-digit' }).formatToParts(now);
  const get = (k: string) => parts.find((x) => x.type === k)?.value ?? '';
  return `${get('year')}-${get('month')}-${get('day')}`;
}

/** The acting context of an automatic run: the schedule's owner, every site of the project. */
export async function jobContext(database: Database, projectId: number, env: Env, userId: number, requestId: string): Promise<ProjectScopedContext | null> {
  const [u] = await database.db.select().from(users).where(eq(users.id, userId));
  const [p] = await database.db.select().from(projects).where(eq(projects.id, projectId));
  if (!u || !p) return null;
  return {
    requestId,
    language: 'zh_CN',
    ip: '127.0.0.1',
    user: { id: u.id, account: u.account, name: u.name, orgId: u.orgId, systemRoleId: u.systemRoleId },
    sessionId: 0,
    loginType: 1,
    env,
    project: { id: p.id, no: p.no, name: p.name, status: p.status, memberId: 0, roleId: 0, roleCode: 'SYSTEM', isDm: false, siteIds: null },
    siteId: null,
    pms: new Set(),
    systemPms: new Set(),
    product: null,
    source: null,
    orgId: null,
  };
}

export class PrefillScheduler {
  private readonly prefill: PrefillService;
  constructor(
    private readonly database: Database,
    private readonly jobs: JobRunner,
  ) {
    this.prefill = new PrefillService(database.db);
  }

  /** Queues today's runs of the due schedules (each schedule at most once a day). Returns how many were queued. */
  async tick(now = new Date()): Promise<number> {
    const db = this.database.db;
    const rows = await db
      .select({ s: prefillSchedules, tz: projects.timezone, disabled: projects.autoPrefillDisabled })
      .from(prefillSchedules)
      .innerJoin(projects, eq(projects.id, prefillSchedules.projectId))
      .where(and(eq(prefillSchedules.enabled, true), isNull(projects.deletedAt)));
    let queued = 0;
    for (const r of rows) {
      const day = localDay(now, r.tz);
      if (r.disabled || !scheduleRunsOn(r.s, day) || r.s.lastRunOn === day || !r.s.updatedBy) continue;
      const claimed = await db
        .update(prefillSchedules)
        .set({ lastRunOn: day })
        .where(and(eq(prefillSchedules.id, r.s.id), or(isNull(prefillSchedules.lastRunOn), sql`${prefillSchedules.lastRunOn} <> ${day}`)))
        .returning({ id: prefillSchedules.id });
      if (claimed.length === 0) continue;
      const t = translator('zh_CN');
      await this.jobs.enqueue(PREFILL_INJECT_JOB, { scheduleId: r.s.id, day } satisfies InjectJobData, {
        singletonKey: `prefill-inject-${r.s.id}-${day}`,
        progress: { userId: r.s.updatedBy, env: r.s.env as Env, projectId: r.s.projectId, type: PROGRESS_TYPE.extraction, displayInformation: `${t('prefill.autoRun')} ${day}` },
      });
      queued++;
    }
    return queued;
  }

  /** The inject run of one schedule on one day (see the file comment). */
  async run(data: InjectJobData, report: (done: number, total: number) => Promise<void>, jobId: string): Promise<{ filled: number; failures: string[] }> {
    const [s] = await this.database.db.select().from(prefillSchedules).where(eq(prefillSchedules.id, data.scheduleId));
    if (!s?.updatedBy) return { filled: 0, failures: [] };
    const ctx = await jobContext(this.database, s.projectId, s.env as Env, s.updatedBy, `job:${jobId}`);
    if (!ctx) return { filled: 0, failures: [] };
    const due = await this.prefill.subjectVisitsInWindow(s.env, s.projectId, data.day);
    const subjectsDone = new Set<number>();
    const total = new Set(due.map((d) => d.subjectId)).size;
    let filled = 0;
    const failures: string[] = [];
    const t = translator(ctx.language);
    for (const d of due) {
      try {
        const r = await this.prefill.prefillSubjectVisit(ctx, d.subjectId, d.visitId, 'inject');
        filled += r.filled;
        for (const f of r.failures) failures.push(t('prefill.autoFailureDetail', { detail: `${d.subjectId}/${d.visitId}/${f.formId}: ${f.message}` }));
      } catch (e) {
        // the progress item is read by users: a translated message, the library/database text only in the log
        if (!(e instanceof AppError)) console.error('[prefill inject]', e);
        const message = e instanceof AppError ? t(`errors.${e.code}`, e.params) : t('errors.INTERNAL');
        failures.push(t('prefill.autoFailureDetail', { detail: `${d.subjectId}/${d.visitId}: ${message}` }));
      }
      subjectsDone.add(d.subjectId);
      await report(subjectsDone.size, total);
    }
    if (failures.length) {
      // a progress item of its own (status error) carries the spec's message and the first reasons
      await this.database.db.insert(progressItems).values({
        env: s.env,
        projectId: s.projectId,
        userId: s.updatedBy,
        type: PROGRESS_TYPE.extraction,
        status: PROGRESS_STATUS.error,
        displayInformation: failures.slice(0, 3).join('; ').slice(0, 500),
      });
    }
    return { filled, failures };
  }
}

export function registerPrefillJobs(jobs: JobRunner, database: Database): PrefillScheduler {
  const scheduler = new PrefillScheduler(database, jobs);
  jobs.define<InjectJobData>(
    PREFILL_INJECT_JOB,
    async (data, ctx) => {
      await scheduler.run(data, (done, total) => ctx.report(done, total), ctx.jobId);
    },
    { retryLimit: 0 },
  );
  const timer = setInterval(() => {
    if (jobs.started) scheduler.tick().catch((e: unknown) => console.error('[prefill schedule]', e instanceof Error ? e.message : e));
  }, TICK_MS);
  timer.unref();
  return scheduler;
}


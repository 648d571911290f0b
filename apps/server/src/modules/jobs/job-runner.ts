/**
 * Durable background jobs on pg-boss (v10) in the one PostgreSQL database (embedded PGlite or the server):
 * jobs survive restarts, retry with back-off, and report progress into progress_items (spec §3), which the
 * progress panel polls.
 */
import PgBoss from 'pg-boss';
import { and, eq, sql } from 'drizzle-orm';
import type { Database } from '../../db/client';
import type { Config } from '../../config/config';
import { progressItems } from '../../db/schema';
import { PROGRESS_STATUS, type Env, type ProgressType } from '@esource/shared';

export interface JobProgress {
  userId: number;
  env: Env;
  projectId: number;
  siteId?: number | null;
  type: ProgressType;
  displayInformation: string;
  ptsNo?: string | null;
  ptsId?: number | null;
  designVersionId?: number | null;
}

export interface JobContext {
  jobId: string;
  /** attempt number, from 0 */
  attempt: number;
  /** reports done/total for one counter of the progress item (shown as 'done/total') */
  report(done: number, total: number, key?: string): Promise<void>;
}

export type JobHandler<T> = (data: T, ctx: JobContext) => Promise<void>;

interface Defined {
  handler: JobHandler<never>;
  retryLimit: number;
}

interface Envelope<T> {
  data: T;
  progressItemId: number | null;
}

export class JobRunner {
  private boss: PgBoss | null = null;
  private readonly handlers = new Map<string, Defined>();
  private working = false;

  constructor(
    private readonly database: Database,
    private readonly config: Config,
  ) {}

  /** Declares a job type. Handlers must be idempotent: a job may run again after a crash. */
  define<T>(name: string, handler: JobHandler<T>, opts: { retryLimit?: number } = {}): void {
    this.handlers.set(name, { handler: handler, retryLimit: opts.retryLimit ?? 3 });
  }

  get started(): boolean {
    return this.boss !== null;
  }

  async start(opts: { work: boolean }): Promise<void> {
    const boss = new PgBoss({
      // pg-boss creates a table per queue: it needs the owner's connection (the application's role may not)
      db: { executeSql: (text: string, values?: unknown[]) => this.database.ownerExecuteSql(text, values) },
      schema: 'pgboss',
      supervise: opts.work,
      schedule: opts.work,
      migrate: true,
    });
    boss.on('error', (err: Error) => console.error('[jobs]', err.message));
    await boss.start();
    this.boss = boss;
    for (const name of this.handlers.keys()) {
      if (!(await boss.getQueue(name))) await boss.createQueue(name);
    }
    if (opts.work) {
      this.working = true;
      for (const [name, def] of this.handlers) {
        await boss.work<Envelope<unknown>>(
          name,
          { pollingIntervalSeconds: 1, batchSize: 1, includeMetadata: true },
          async (jobs) => {
            for (const job of jobs) await this.run(def, job);
          },
        );
      }
    }
  }

  private async run(
    def: Defined,
    job: { id: string; data: Envelope<unknown>; retryCount: number; retryLimit: number },
  ): Promise<void> {
    const itemId = job.data.progressItemId;
    const ctx: JobContext = {
      jobId: job.id,
      attempt: job.retryCount,
      report: async (done, total, key = 'count') => {
        if (!itemId) return;
        await this.database.db
          .update(progressItems)
          .set({
            extraInfo: sql`coalesce(${progressItems.extraInfo}, '{}'::jsonb) || ${JSON.stringify({ [key]: { done, total } })}::jsonb`,
            updatedAt: new Date(),
          })
          .where(eq(progressItems.id, itemId));
      },
    };
    try {
      await def.handler(job.data.data as never, ctx);
      // (only from processing: a handler that stopped because its work was cancelled, or taken over by a restart,
      // leaves the error its canceller set)
      if (itemId)
        await this.database.db
          .update(progressItems)
          .set({ status: PROGRESS_STATUS.success, updatedAt: new Date() })
          .where(and(eq(progressItems.id, itemId), eq(progressItems.status, PROGRESS_STATUS.processing)));
    } catch (err) {
      // The last attempt marks the notice as failed; earlier ones leave it processing while pg-boss retries.
      if (itemId && job.retryCount >= job.retryLimit) await this.setStatus(itemId, PROGRESS_STATUS.error);
      throw err;
    }
  }

  private async setStatus(id: number, status: number) {
    await this.database.db.update(progressItems).set({ status, updatedAt: new Date() }).where(eq(progressItems.id, id));
  }

  /** Queues a job; with `progress`, a progress item (status processing) is created for the user first. */
  async enqueue(
    name: string,
    data: unknown,
    opts: { progress?: JobProgress; singletonKey?: string; startAfterSeconds?: number; /** the job's id (a UUID), when the caller records it first */ id?: string } = {},
  ): Promise<{ jobId: string | null; progressItemId: number | null }> {
    if (!this.boss) throw new Error('job runner not started');
    const def = this.handlers.get(name);
    if (!def) throw new Error(`unknown job ${name}`);
    let progressItemId: number | null = null;
    if (opts.progress) {
      const p = opts.progress;
      const [row] = await this.database.db
        .insert(progressItems)
        .values({
          env: p.env,
          projectId: p.projectId,
          siteId: p.siteId ?? null,
          userId: p.userId,
          type: p.type,
          status: PROGRESS_STATUS.processing,
          displayInformation: p.displayInformation,
          ptsNo: p.ptsNo ?? null,
          ptsId: p.ptsId ?? null,
          designVersionId: p.designVersionId ?? null,
        })
        .returning({ id: progressItems.id });
      progressItemId = row!.id;
    }
    const envelope: Envelope<unknown> = { data, progressItemId };
    const jobId = await this.boss.send(name, envelope as object, {
      retryLimit: def.retryLimit,
      retryDelay: 2,
      retryBackoff: true,
      expireInSeconds: 3600,
      ...(opts.id ? { id: opts.id } : {}),
      ...(opts.singletonKey ? { singletonKey: opts.singletonKey } : {}),
      ...(opts.startAfterSeconds ? { startAfter: opts.startAfterSeconds } : {}),
    });
    if (progressItemId && jobId) {
      await this.database.db.update(progressItems).set({ jobId }).where(eq(progressItems.id, progressItemId));
    }
    return { jobId, progressItemId };
  }

  async jobState(name: string, id: string): Promise<string | null> {
    const job = await this.boss?.getJobById(name, id);
    return job?.state ?? null;
  }

  /** A queued job's state and own data (the envelope's data), also from the archive; null when pg-boss has no such job. */
  async jobInfo(name: string, id: string): Promise<{ state: string; data: unknown } | null> {
    const job = await this.boss?.getJobById<Envelope<unknown>>(name, id, { includeArchive: true });
    return job ? { state: job.state, data: job.data.data } : null;
  }

  /** Cancels a job that is no longer wanted (a job whose worker died stays 'active' until it expires). */
  async cancel(name: string, id: string): Promise<void> {
    await this.boss?.cancel(name, id);
  }

  async stop(): Promise<void> {
    if (!this.boss) return;
    await this.boss.stop({ graceful: this.working, close: false, timeout: 5000 });
    this.boss = null;
    this.working = false;
  }
}

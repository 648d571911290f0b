/**
 * Starts one eSource process: opens the database (migrating it), seeds the demo when asked, starts the job
 * runner (workers unless role=api) and, unless role=worker, the HTTP server.
 */
import type { FastifyInstance } from 'fastify';
import { loadConfig, type Config } from './config/config';
import { openDatabase, type Database } from './db/client';
import { seedDemo } from './seed/seed';
import { buildApp, type BuildOptions, type RegisteredRoute } from './app';
import { JobRunner } from './modules/jobs/job-runner';
import { registerJobs } from './jobs';
import type { AppDeps } from './app-deps';
import { setAuditChainKey } from './modules/audit/audit.service';
import { resolveAuditKey, warnAboutAuditKey } from './modules/audit/audit-key';
import { auditAnchorFilePath, writeCheckpoint } from './modules/audit/audit-anchors';
import { pruneLoginThrottle } from './modules/auth/auth.repo';

export interface RunningServer {
  config: Config;
  database: Database;
  jobs: JobRunner;
  app: FastifyInstance | null;
  deps: AppDeps | null;
  routes: RegisteredRoute[];
  url: string | null;
  close(): Promise<void>;
}

export interface StartOptions {
  config?: Partial<Config>;
  seed?: boolean;
  /** lets tests add job types and routes */
  setupJobs?: (jobs: JobRunner) => void;
  extraRoutes?: BuildOptions['extraRoutes'];
  /** lets tests add cross-module hooks (AppDeps.hooks) */
  extraHooks?: BuildOptions['extraHooks'];
  logger?: boolean;
  listen?: boolean;
}

export async function startServer(opts: StartOptions = {}): Promise<RunningServer> {
  const config = loadConfig(opts.config);
  // the audit key before anything is audited (seeding included); production refuses to start without one
  const auditKey = resolveAuditKey(config);
  warnAboutAuditKey(auditKey);
  setAuditChainKey(auditKey.key);
  const database = await openDatabase(config);
  if (opts.seed ?? true) await seedDemo(database.db);
  const jobs = new JobRunner(database, config);
  registerJobs(jobs, config);
  opts.setupJobs?.(jobs);
  await jobs.start({ work: config.role !== 'api' });

  let app: FastifyInstance | null = null;
  let deps: AppDeps | null = null;
  let routes: RegisteredRoute[] = [];
  let url: string | null = null;
  if (config.role !== 'worker') try {
    const built = await buildApp({
      config,
      database,
      jobs,
      ...(opts.extraRoutes ? { extraRoutes: opts.extraRoutes } : {}),
      ...(opts.extraHooks ? { extraHooks: opts.extraHooks } : {}),
      ...(opts.logger !== undefined ? { logger: opts.logger } : {}),
    });
    app = built.app;
    deps = built.deps;
    routes = built.routes;
    await app.ready();
    if (opts.listen ?? true) {
      await app.listen({ port: config.port, host: config.host });
      const addr = app.server.address();
      const port = typeof addr === 'object' && addr ? addr.port : config.port;
      url = `http://127.0.0.1:${port}`;
    }
  } catch (err) {
    await app?.close().catch(() => undefined);
    await jobs.stop();
    await database.close();
    throw err;
  }
  // Workers anchor the audit chains' heads every few minutes and at shutdown (audit-anchors.ts).
  const anchorFile = auditAnchorFilePath(config);
  const checkpoint = (reason: string) =>
    writeCheckpoint(database.db, { file: anchorFile, reason }).then(
      (r) => {
        for (const x of r.refused) console.error(`[audit] not anchored, verify the trail: ${x}`);
      },
      (err: unknown) => console.error('[audit] checkpoint failed:', (err as Error).message),
    );
  const anchoring = config.role !== 'api';
  const timer =
    anchoring && config.auditCheckpointMinutes > 0
      ? setInterval(() => void checkpoint('schedule'), config.auditCheckpointMinutes * 60_000)
      : null;
  timer?.unref();
  // Workers forget quiet failure counts of account names that have no user (login_throttle) once an hour.
  const prune = () =>
    pruneLoginThrottle(database.db).catch((err: unknown) => console.error('[auth] login_throttle housekeeping failed:', (err as Error).message));
  const pruneTimer = config.role !== 'api' ? setInterval(() => void prune(), 60 * 60_000) : null;
  pruneTimer?.unref();
  let closed = false;
  return {
    config,
    database,
    jobs,
    app,
    deps,
    routes,
    url,
    close: async () => {
      if (closed) return;
      closed = true;
      if (timer) clearInterval(timer);
      if (pruneTimer) clearInterval(pruneTimer);
      await app?.close();
      await jobs.stop();
      if (anchoring) await checkpoint('shutdown');
      await database.close();
    },
  };
}

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
import { pruneSmsRows } from './modules/sms/sms-provider';
import { resolveSourceSecretKey } from './modules/sources/secret-box';
import { ExtractService } from './modules/sources/extract.service';
import { DeidJob } from './modules/documents/deid.job';
import { fileStoreOf } from './modules/documents/file-store';
import { DropFolderPoller, dropRoot } from './modules/sources/drop-folder';
import { startHl7Listener } from './modules/hl7/hl7-runtime';
import type { MllpListener } from './modules/hl7/mllp-listener';
import { computeMissingItems } from './modules/ecrf/missing-items';

export interface RunningServer {
  config: Config;
  database: Database;
  jobs: JobRunner;
  app: FastifyInstance | null;
  deps: AppDeps | null;
  routes: RegisteredRoute[];
  url: string | null;
  /** the HL7 v2 MLLP listener (worker or all-in-one process with MLLP_PORT set), else null */
  mllp: MllpListener | null;
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
  // connection secrets' key (issue 11); production refuses to start without one
  const sourceKey = resolveSourceSecretKey(config);
  if (sourceKey.warning) console.warn(`\n*** SOURCE SECRET KEY: ${sourceKey.warning} ***\n`);
  const database = await openDatabase(config);
  if (opts.seed ?? true) await seedDemo(database.db);
  const jobs = new JobRunner(database, config);
  registerJobs(jobs, config, database);
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
  // Workers forget quiet failure counts of account names that have no user (login_throttle) once an hour, and verification
  // codes and development outbox messages past their keeping (pruneSmsRows).
  const prune = () =>
    Promise.all([
      pruneLoginThrottle(database.db).catch((err: unknown) => console.error('[auth] login_throttle housekeeping failed:', (err as Error).message)),
      pruneSmsRows(database.db).catch((err: unknown) => console.error('[sms] housekeeping failed:', (err as Error).message)),
    ]);
  const pruneTimer = config.role !== 'api' ? setInterval(() => void prune(), 60 * 60_000) : null;
  pruneTimer?.unref();
  // Workers enqueue the daily automatic extractions (12:00 in each project's time zone; idempotent per subject per day).
  const extractSvc = new ExtractService(database, jobs);
  const autoTimer =
    config.role !== 'api' && process.env.AUTO_EXTRACT !== '0'
      ? setInterval(() => void extractSvc.autoTick().catch((err: unknown) => console.error('[sources] automatic extraction failed:', (err as Error).message)), 60_000)
      : null;
  autoTimer?.unref();
  // Workers restart extraction tasks whose process died or whose job was never queued (ExtractService.recover).
  const recoverTasks = () =>
    extractSvc.recover().catch((err: unknown) => console.error('[sources] task recovery failed:', (err as Error).message));
  const recoverTimer = config.role !== 'api' ? setInterval(() => void recoverTasks(), 60_000) : null;
  recoverTimer?.unref();
  if (config.role !== 'api') void recoverTasks();
  // Workers queue again source files whose de-identification job is gone or whose worker died (DeidJob.recover).
  const deidJob = new DeidJob(database, jobs, fileStoreOf(config));
  const recoverFiles = () => deidJob.recover().catch((err: unknown) => console.error('[documents] recovery failed:', (err as Error).message));
  const recoverFilesTimer = config.role !== 'api' ? setInterval(() => void recoverFiles(), 60_000) : null;
  recoverFilesTimer?.unref();
  if (config.role !== 'api') void recoverFiles();
  // Workers compute the missing required items of forms no save has computed (from before migration 0040, or a
  // design version edited in DEV since: ecrf/missing-items.ts), at start and every 10 minutes. Until then the
  // missing-data report evaluates those forms itself (exact, slower).
  let closing = false;
  let catchingUp: Promise<unknown> | null = null;
  const catchUp = () => {
    catchingUp ??= computeMissingItems(database.db, { stopped: () => closing })
      .then(async (n) => {
        if (n === 0) return;
        console.log(`[ecrf] missing required items computed for ${n} forms`);
        // the reports' plans read the new lists' statistics (the owner's right; autovacuum may be slow or off)
        if (n >= 1000 && !closing) await database.ownerExecuteSql('analyze crf_instances, subjects, crf_report_counts');
      })
      .catch((err: unknown) => console.error('[ecrf] computing missing required items failed:', (err as Error).message))
      .finally(() => (catchingUp = null));
  };
  const missingTimer = config.role !== 'api' ? setInterval(catchUp, 10 * 60_000) : null;
  missingTimer?.unref();
  if (config.role !== 'api') catchUp();
  // Workers poll the drop folders of 'fhir_file' connections (only under SOURCE_DROP_ROOT; drop-folder.ts).
  const dropPoller = new DropFolderPoller(database, extractSvc);
  const dropTimer =
    config.role !== 'api' && dropRoot()
      ? setInterval(() => void dropPoller.tick().catch((err: unknown) => console.error('[sources] drop folder poll failed:', (err as Error).message)), 30_000)
      : null;
  dropTimer?.unref();
  // The HL7 v2 listener: messages left unprocessed by a previous run first, then the port (hl7-runtime.ts).
  let mllp: MllpListener | null = null;
  if (config.role !== 'api' && config.mllpPort !== null) {
    try {
      mllp = await startHl7Listener(database.db, config);
    } catch (err) {
      await app?.close().catch(() => undefined);
      await jobs.stop();
      await database.close();
      throw err;
    }
  }
  let closed = false;
  return {
    config,
    database,
    jobs,
    app,
    deps,
    routes,
    url,
    mllp,
    close: async () => {
      if (closed) return;
      closed = true;
      await mllp?.stop();
      if (timer) clearInterval(timer);
      if (pruneTimer) clearInterval(pruneTimer);
      if (autoTimer) clearInterval(autoTimer);
      if (recoverTimer) clearInterval(recoverTimer);
      if (recoverFilesTimer) clearInterval(recoverFilesTimer);
      if (dropTimer) clearInterval(dropTimer);
      if (missingTimer) clearInterval(missingTimer);
      closing = true;
      await catchingUp;
      await app?.close();
      await jobs.stop();
      if (anchoring) await checkpoint('shutdown');
      await database.close();
    },
  };
}

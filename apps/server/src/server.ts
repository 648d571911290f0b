/**
 * Starts one eSource process: opens the database (migrating it), seeds the demo when asked, starts the job
 * runner (workers unless role=api) and, unless role=worker, the HTTP server.
 */
import type { FastifyInstance } from 'fastify';
import { loadConfig, type Config } from './config/config';
import { openDatabase, type Database } from './db/client';
import { seedDemo } from './db/seed';
import { buildApp, type BuildOptions, type RegisteredRoute } from './app';
import { JobRunner } from './modules/jobs/job-runner';
import { registerJobs } from './jobs';
import type { AppDeps } from './app-deps';

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
  logger?: boolean;
  listen?: boolean;
}

export async function startServer(opts: StartOptions = {}): Promise<RunningServer> {
  const config = loadConfig(opts.config);
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
      await app?.close();
      await jobs.stop();
      await database.close();
    },
  };
}

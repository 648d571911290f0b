import type { Config } from './config/config';
import type { Database } from './db/client';
import type { AuthService } from './modules/auth/auth.service';
import type { AccessCache } from './modules/auth/access-cache';
import type { ResponseCache } from './lib/response-cache';
import type { JobRunner } from './modules/jobs/job-runner';
import type { SubjectDataCheck } from './modules/projects/projects.service';
import type { CollectingCheck } from './modules/design/design.service';

/**
 * Cross-module hooks: one module asks a question that other modules answer ("does this project hold subject
 * data?"). They are wired once, at the composition root (app.ts), and handed to the services that ask —
 * never pushed into a module-level array by whichever route factory happens to run.
 */
export interface ModuleHooks {
  /** a project for which any check says yes cannot be deleted */
  subjectDataChecks: readonly SubjectDataCheck[];
  /** a design version for which any check says yes is 'collecting' */
  collectingChecks: readonly CollectingCheck[];
}

/** What route factories receive: the services of the one process. */
export interface AppDeps {
  config: Config;
  database: Database;
  auth: AuthService;
  jobs: JobRunner;
  hooks: ModuleHooks;
  /** the guard's cache of access answers (GUARD_CACHE; null = off): read by tests and benchmarks */
  access: AccessCache | null;
  /** answers of routes declared `cache: true` (RESPONSE_CACHE; null = off): read by tests and benchmarks */
  responses: ResponseCache | null;
}

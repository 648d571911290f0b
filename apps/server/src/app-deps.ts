import type { Config } from './config/config';
import type { Database } from './db/client';
import type { AuthService } from './modules/auth/auth.service';
import type { JobRunner } from './modules/jobs/job-runner';

/** What route factories receive: the services of the one process. */
export interface AppDeps {
  config: Config;
  database: Database;
  auth: AuthService;
  jobs: JobRunner;
}

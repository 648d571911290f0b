/** Registers the product's background job types with the runner. */
import type { Config } from './config/config';
import type { JobRunner } from './modules/jobs/job-runner';
import { registerSelfTestJob } from './modules/jobs/self-test.job';

export function registerJobs(jobs: JobRunner, config: Config): void {
  registerSelfTestJob(jobs, config);
}

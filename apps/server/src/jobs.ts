/** Registers the product's background job types with the runner. */
import type { Config } from './config/config';
import type { JobRunner } from './modules/jobs/job-runner';
import { registerSelfTestJob } from './modules/jobs/self-test.job';
import type { Database } from './db/client';
import { registerExtractJobs } from './modules/sources/extract.service';
import { registerPrefillJobs } from './modules/prefill/prefill-schedule.job';
import { registerDocumentJobs } from './modules/documents/deid.job';
import { fileStoreOf } from './modules/documents/file-store';
import { registerSubjectPdfJob } from './modules/documents/subject-pdf';
import { registerExportJob } from './modules/exports/exports.service';
import { registerSafetyJobs } from './modules/safety/safety.service';
import { registerEdcJobs } from './modules/edc/edc-sync.service';
import { edcAdapterFor } from './modules/edc/adapters';

export function registerJobs(jobs: JobRunner, config: Config, database?: Database): void {
  registerSelfTestJob(jobs, config);
  // source extraction and file ingestion (issue 11)
  if (database) registerExtractJobs(jobs, database);
  // scheduled automatic pre-fill (inject, entry mode 6)
  if (database) registerPrefillJobs(jobs, database);
  // automatic de-identification of uploaded source documents (issue 12)
  if (database) registerDocumentJobs(jobs, database, fileStoreOf(config));
  // PDF synthesis of a subject's de-identified pages
  if (database) registerSubjectPdfJob(jobs, database, fileStoreOf(config));
  // safety candidates of a whole project (issue 13): more subjects than one request generates
  if (database) registerSafetyJobs(jobs, database.db);
  // EDC sync runs and the scheduled syncs (issue 14)
  if (database) registerEdcJobs(jobs, database.db, edcAdapterFor);
  // generated files: casebook PDFs (issue 14), later study exports
  if (database) registerExportJob(jobs, database, fileStoreOf(config));
}

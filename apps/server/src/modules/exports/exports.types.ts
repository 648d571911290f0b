/**
 * The contract of a kind of generated file (see exports.kinds.ts, the registry).
 */
import type { Writable } from 'node:stream';
import type { z } from 'zod';
import type { ExportKind, Language, Permission } from '@esource/shared';
import type { Db } from '../../db/client';
import type { ProjectScopedContext } from '../../lib/context';

/** What `prepare` decides about a file about to be made. */
export interface ExportTarget {
  /** the site whose data it holds (null: several) — download is limited to callers who reach it */
  siteId: number | null;
  subjectId: number | null;
  /** one file per user × kind × scopeKey is made at a time (a casebook: 'subject:<id>') */
  scopeKey: string;
  /** what the list shows (a subject number) */
  title: string;
  fileName: string;
  /** the progress panel's text, in the caller's language */
  progressText: string;
  /** the subject the progress panel links to */
  progressSubject?: { ptsId: number; ptsNo: string } | null;
}

/** What `generate` gets: the stored parameters and who asked, in which language. */
export interface GenerateInput<P> {
  db: Db;
  params: P;
  env: string;
  projectId: number;
  siteId: number | null;
  subjectId: number | null;
  createdBy: { id: number; name: string };
  language: Language;
  createdAt: Date;
}

/** Progress: done of total units (forms, subjects, rows …). */
export type ReportProgress = (done: number, total: number) => Promise<void>;

export interface ExportKindDef<P> {
  kind: ExportKind;
  params: z.ZodType<P>;
  permission: Permission;
  contentType: string;
  prepare(db: Db, ctx: ProjectScopedContext, params: P): Promise<ExportTarget>;
  generate(input: GenerateInput<P>, out: Writable, report: ReportProgress): Promise<void>;
  /** written by a child process with a capped heap where the database allows it (export-process.ts): the study exports */
  ownProcess?: boolean;
}

/** A kind with its parameters checked at both ends (what the job reads back from the database is parsed again). */
export interface AnyExportKind {
  kind: ExportKind;
  permission: Permission;
  contentType: string;
  parse(raw: unknown): unknown;
  prepare(db: Db, ctx: ProjectScopedContext, params: unknown): Promise<ExportTarget>;
  generate(input: GenerateInput<unknown>, out: Writable, report: ReportProgress): Promise<void>;
  ownProcess: boolean;
}

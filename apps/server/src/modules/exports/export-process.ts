/**
 * Study exports (ODM, Excel, Dataset-JSON) run in a child process of their own when the database is the PostgreSQL
 * server (docs/decisions.md "Study exports in a child process"): the job's process keeps its own libraries (OCR,
 * de-identification, PDF) and the export runs with only its code loaded and its heap capped, so its memory is the
 * export's own (issue 14: < 200 MB of RSS for 100,000 subjects × 50 items). The embedded database lives inside the
 * server's process and cannot be opened twice, so there the export runs in the job's process, as the casebook does
 * everywhere. EXPORT_PROCESS=0 keeps every export in the job's process; EXPORT_NODE_ARGS replaces the child's flags.
 */
import { fork } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { ErrorCode } from '@esource/shared';
import { AppError } from '../../lib/errors';
import type { GenerateInput, ReportProgress } from './exports.types';

/** the child's V8 flags: an old space of 96 MB (the export keeps two pages of rows; the rest is garbage) */
const CHILD_FLAGS = ['--max-old-space-size=96', '--max-semi-space-size=4'];

export interface ChildRequest {
  kind: string;
  input: Omit<GenerateInput<unknown>, 'db' | 'createdAt'> & { createdAt: string };
  file: string;
  connection: { connectionString: string; options?: string };
}

export type ChildReply =
  | { t: 'progress'; done: number; total: number }
  | { t: 'done'; sha256: string; size: number; maxRssKb: number }
  | { t: 'error'; code?: ErrorCode; params?: Record<string, string | number>; message?: string };

/** The child's entry and how to load it: through tsx, as the server itself runs from source. */
function childCommand(): { script: string; execArgv: string[] } {
  const script = fileURLToPath(new URL('./export-child.ts', import.meta.url));
  const flags = process.env.EXPORT_NODE_ARGS !== undefined ? process.env.EXPORT_NODE_ARGS.split(/\s+/).filter(Boolean) : CHILD_FLAGS;
  return { script, execArgv: ['--import', 'tsx', ...flags] };
}

/** the last child's peak resident memory (kB, from its own resource usage): for the benchmark and the tests */
export const lastChild = { maxRssKb: 0, pid: 0 };

export function exportInChildEnabled(): boolean {
  return !['0', 'false', 'off'].includes((process.env.EXPORT_PROCESS ?? '').trim().toLowerCase());
}

/**
 * Runs a kind's generate in a child process writing `file`; resolves with the file's hash and size once the child has
 * written it all. The child's own errors come back as they were (an AppError keeps its code); a child that dies
 * without answering (killed, out of memory) is an error naming its exit.
 */
export function generateInChild(
  kind: string,
  input: GenerateInput<unknown>,
  file: string,
  connection: ChildRequest['connection'],
  report: ReportProgress,
): Promise<{ sha256: string; size: number }> {
  const { script, execArgv } = childCommand();
  const { db: _db, createdAt, ...rest } = input;
  const request: ChildRequest = { kind, input: { ...rest, createdAt: createdAt.toISOString() }, file, connection };
  return new Promise((resolve, reject) => {
    // (cwd: where tsx resolves from; stdout and stderr go to the server's own)
    const child = fork(script, [], { execArgv, stdio: ['ignore', 'inherit', 'inherit', 'ipc'], serialization: 'advanced' });
    const answered: { reply: ChildReply | null } = { reply: null };
    let progress = Promise.resolve();
    child.on('message', (m: ChildReply) => {
      if (m.t === 'progress') progress = progress.then(() => report(m.done, m.total)).catch(() => undefined);
      else answered.reply = m;
    });
    child.once('error', reject);
    child.once('exit', (code, signal) => {
      void progress.then(() => {
        const a = answered.reply;
        if (a?.t === 'done') {
          Object.assign(lastChild, { maxRssKb: a.maxRssKb, pid: child.pid ?? 0 });
          return resolve({ sha256: a.sha256, size: a.size });
        }
        if (a?.t === 'error' && a.code) return reject(new AppError(a.code, a.params ?? {}));
        reject(new Error(a?.t === 'error' ? `export child: ${a.message ?? 'failed'}` : `export child ended (code ${code}, signal ${signal}) without an answer`));
      });
    });
    child.send(request);
  });
}

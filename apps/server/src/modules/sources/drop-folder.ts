/**
 * Drop folders of 'fhir_file' connections (issue 11 item 1): a worker tick picks up the *.json / *.ndjson files (also
 * gzipped) dropped in a connection's config.dropFolder and ingests each as a file task, like an upload.
 *
 * - Only under the server's allowed root, SOURCE_DROP_ROOT (no root: no drop folders at all). The folder is checked
 *   when the connection is saved and again, by its real path (symlinks resolved), at every tick.
 * - A file is claimed by renaming it into <folder>/processing/ (atomic: of two workers one wins); its task is created
 *   under a per-connection advisory lock only when no task names that path yet (stats.dropFile), so a claimed file
 *   becomes exactly one task, also after a restart between the rename and the task. When the job ends, the file
 *   moves to processed/ or failed/; a tick also settles files whose task ended while the process was down.
 * - Files still being written are left for the next tick (modified less than minAgeMs ago).
 */
import fs from 'node:fs';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { and, eq, isNull, sql } from 'drizzle-orm';
import { TASK_STATUS, type FhirFileConnectionConfig } from '@esource/shared';
import type { Database } from '../../db/client';
import { sourceConnections, sourceExtractTasks } from '../../db/schema';
import type { ExtractService } from './extract.service';

export const DROP_FILE = /\.(json|ndjson)(\.gz)?$/i;
const SUBFOLDERS = ['processing', 'processed', 'failed'] as const;

/** The allowed root of drop folders (SOURCE_DROP_ROOT, its real path), or null when drop folders are off. */
export function dropRoot(env: NodeJS.ProcessEnv = process.env): string | null {
  const root = env.SOURCE_DROP_ROOT?.trim();
  if (!root) return null;
  try {
    return fs.realpathSync(path.resolve(root));
  } catch {
    return null;
  }
}

/**
 * Checks a configured drop folder: the message key of the problem (validation.*), or the folder's real path. It
 * must be an absolute path of an existing directory inside the allowed root (after resolving symlinks and '..').
 */
export function checkDropFolder(folder: string, root = dropRoot()): { problem: string } | { real: string } {
  if (!root) return { problem: 'validation.dropFolderOff' };
  if (!path.isAbsolute(folder)) return { problem: 'validation.dropFolderOutside' };
  let real: string;
  try {
    real = fs.realpathSync(path.resolve(folder));
  } catch {
    return { problem: 'validation.dropFolderMissing' };
  }
  const rel = path.relative(root, real);
  if (rel === '' || rel.startsWith('..') || path.isAbsolute(rel)) return { problem: 'validation.dropFolderOutside' };
  if (!fs.statSync(real).isDirectory()) return { problem: 'validation.dropFolderMissing' };
  return { real };
}

/** Moves a finished drop file into processed/ or failed/ (next to processing/). */
export async function settleDropFile(file: string, ok: boolean): Promise<void> {
  const folder = path.dirname(path.dirname(file));
  const target = path.join(folder, ok ? 'processed' : 'failed', path.basename(file));
  await fs.promises.mkdir(path.dirname(target), { recursive: true });
  await fs.promises.rename(file, target).catch((err: unknown) => {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
  });
}

export interface DropTickResult {
  queued: number;
  settled: number;
  refused: number;
}

export class DropFolderPoller {
  constructor(
    private readonly database: Database,
    private readonly extract: ExtractService,
    private readonly opts: { root?: string | null; minAgeMs?: number } = {},
  ) {}

  async tick(now = Date.now()): Promise<DropTickResult> {
    const out: DropTickResult = { queued: 0, settled: 0, refused: 0 };
    const root = this.opts.root === undefined ? dropRoot() : this.opts.root;
    if (!root) return out;
    const conns = await this.database.db
      .select()
      .from(sourceConnections)
      .where(and(eq(sourceConnections.kind, 'fhir_file'), eq(sourceConnections.enabled, true), isNull(sourceConnections.deletedAt), sql`${sourceConnections.config}->>'dropFolder' is not null`));
    for (const c of conns) {
      const folder = (c.config as FhirFileConnectionConfig).dropFolder;
      if (!folder) continue;
      const checked = checkDropFolder(folder, root);
      if ('problem' in checked) {
        out.refused++;
        console.error(`[sources] drop folder of connection ${c.id} refused: ${checked.problem}`);
        continue;
      }
      try {
        await this.pollOne(c, checked.real, now, out);
      } catch (err) {
        console.error(`[sources] drop folder of connection ${c.id}:`, (err as Error).message);
      }
    }
    return out;
  }

  private async pollOne(c: typeof sourceConnections.$inferSelect, folder: string, now: number, out: DropTickResult): Promise<void> {
    for (const sub of SUBFOLDERS) await fs.promises.mkdir(path.join(folder, sub), { recursive: true });
    const processing = path.join(folder, 'processing');
    // claim new files: rename into processing/ (one worker wins)
    for (const e of await fs.promises.readdir(folder, { withFileTypes: true })) {
      if (!e.isFile() || !DROP_FILE.test(e.name)) continue;
      const from = path.join(folder, e.name);
      const st = await fs.promises.lstat(from).catch(() => null);
      if (!st?.isFile() || now - st.mtimeMs < (this.opts.minAgeMs ?? 5000)) continue;
      const claimed = path.join(processing, `${new Date(now).toISOString().replace(/[-:.]/g, '')}-${randomBytes(3).toString('hex')}-${e.name}`);
      try {
        await fs.promises.rename(from, claimed);
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code === 'ENOENT') continue; // another worker took it
        throw err;
      }
    }
    // every claimed file: one task (created once, under the lock), or settled when its task already ended
    for (const name of (await fs.promises.readdir(processing)).sort()) {
      if (!DROP_FILE.test(name)) continue;
      const file = path.join(processing, name);
      type Task = typeof sourceExtractTasks.$inferSelect;
      const task = await this.database.db.transaction(async (tx): Promise<{ created: boolean; t: Task }> => {
        await tx.execute(sql`select pg_advisory_xact_lock(hashtext(${`source-drop:${c.id}`}))`);
        const [existing] = await tx.select().from(sourceExtractTasks).where(and(eq(sourceExtractTasks.connectionId, c.id), sql`${sourceExtractTasks.stats}->>'dropFile' = ${file}`));
        if (existing) return { created: false, t: existing };
        const [row] = await tx
          .insert(sourceExtractTasks)
          .values({ env: c.env, projectId: c.projectId, siteId: c.siteId, connectionId: c.id, trigger: 'file', stats: { fileName: name.replace(/^\w+-[0-9a-f]{6}-/, ''), dropFile: file } })
          .returning();
        return { created: true, t: row! };
      });
      if (task.created) {
        await this.extract.enqueue(task.t, null, 'zh_CN', '', null, { file, fileName: name, dropFile: true });
        out.queued++;
      } else if (task.t.status >= TASK_STATUS.done) {
        await settleDropFile(file, task.t.status === TASK_STATUS.done);
        out.settled++;
      }
    }
  }
}

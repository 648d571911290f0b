/**
 * A study export in a process of its own (export-process.ts starts it; docs/decisions.md "Study exports in a child
 * process"). It gets one request over IPC, writes the file to the path it was given with its own small connection
 * pool (the application's login), reports progress and the result over IPC, and exits. Its heap is capped by the
 * parent's flags, so a 100,000-subject ODM file is written in well under 200 MB of RSS whatever the parent loaded.
 */
import pg from 'pg';
import { drizzle } from 'drizzle-orm/node-postgres';
import * as schema from '../../db/schema';
import type { Db } from '../../db/client';
import { AppError } from '../../lib/errors';
import { exportKind } from './exports.kinds';
import { writeExportFile } from './export-file';
import type { ChildReply, ChildRequest } from './export-process';

const send = (m: ChildReply) => new Promise<void>((resolve) => process.send!(m, () => resolve()));

// the job's process is gone (stopped, killed): nobody would take the file
const lost = () => process.exit(1);
process.once('disconnect', lost);

process.once('message', (req: ChildRequest) => {
  const pool = new pg.Pool({ ...req.connection, max: 2 });
  const run = async () => {
    const def = exportKind(req.kind);
    if (!def) throw new Error(`unknown export kind ${req.kind}`);
    const db = drizzle(pool, { schema }) as unknown as Db;
    const r = await writeExportFile(def, { ...req.input, db, createdAt: new Date(req.input.createdAt) }, req.file, (done, total) =>
      send({ t: 'progress', done, total }),
    );
    await send({ t: 'done', ...r, maxRssKb: process.resourceUsage().maxRSS });
  };
  run()
    .catch(async (err: unknown) => {
      const reply: ChildReply =
        err instanceof AppError
          ? { t: 'error', code: err.code, params: err.params }
          : { t: 'error', message: err instanceof Error ? (err.stack ?? err.message) : String(err) };
      await send(reply);
      process.exitCode = 1;
    })
    .finally(() => {
      void pool.end().finally(() => {
        process.off('disconnect', lost);
        process.disconnect();
      });
    });
});

/**
 * Drop folders of 'fhir_file' connections (issue 11 item 1): only under the allowed root SOURCE_DROP_ROOT (checked
 * when saved, symlinks and '..' resolved, and again at each tick); a tick picks up the new *.json / *.ndjson files,
 * ingests each as one file task and moves it to processed/ or failed/; a file is never processed twice — two workers
 * ticking at once, a second tick, a restart after the claim or after the job all leave one task per file.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import zlib from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { and, eq } from 'drizzle-orm';
import type { ConnectionView } from '@esource/shared';
import { sites, sourceConnections, sourceExtractTasks } from '../src/db/schema';
import { DEMO_BUNDLES, SYNTHEA_DIR } from '../src/modules/sources/demo-fhir-server';
import { DropFolderPoller } from '../src/modules/sources/drop-folder';
import { ExtractService } from '../src/modules/sources/extract.service';
import { startTestServer, type TestServer } from './harness';

let s: TestServer;
let dm = '';
let siteA = 0;
let root = '';
let inbox = '';
let connId = 0;
const H = { proId: 1, proType: 'PRO', language: 'en_US' };
const bundle = () => zlib.gunzipSync(fs.readFileSync(path.join(SYNTHEA_DIR, DEMO_BUNDLES[1])));
const poller = () => new DropFolderPoller(s.database, new ExtractService(s.database, s.jobs), { root: fs.realpathSync(root), minAgeMs: 0 });
const ls = (sub: string) => (fs.existsSync(path.join(inbox, sub)) ? fs.readdirSync(path.join(inbox, sub)).sort() : []);
const tasks = () => s.database.db.select().from(sourceExtractTasks).where(eq(sourceExtractTasks.connectionId, connId)).orderBy(sourceExtractTasks.id);

/** every task ended and its file moved out of processing/ (the move follows the task's end) */
async function allEnded() {
  const end = Date.now() + 60_000;
  for (;;) {
    const list = await tasks();
    if (list.length && list.every((t) => t.status >= 2) && ls('processing').length === 0) return list;
    if (Date.now() > end) throw new Error(`tasks still live: ${JSON.stringify(list.map((t) => [t.id, t.status]))}`);
    await new Promise((r) => setTimeout(r, 300));
  }
}

const save = (dropFolder: string) =>
  s.api.post<ConnectionView>('/project/source/connection/add', { token: dm, headers: H, json: { siteId: siteA, kind: 'fhir_file', name: `Drop ${dropFolder.slice(-20)}`, config: { dropFolder } } });

beforeAll(async () => {
  // (the root is set after the start: the server's own 30 s poller stays off, the test ticks itself)
  s = await startTestServer();
  root = fs.mkdtempSync(path.join(os.tmpdir(), 'esource-drop-'));
  inbox = path.join(root, 'hospital-a');
  fs.mkdirSync(inbox);
  process.env.SOURCE_DROP_ROOT = root;
  dm = await s.api.login('dm');
  const [a] = await s.database.db.select().from(sites).where(and(eq(sites.projectId, 1), eq(sites.env, 'PRO'), eq(sites.siteNo, '01')));
  siteA = a!.id;
}, 120_000);

afterAll(async () => {
  delete process.env.SOURCE_DROP_ROOT;
  await s?.stop();
  fs.rmSync(root, { recursive: true, force: true });
});

describe('drop folders', () => {
  it('a drop folder must be an existing folder inside the allowed root (symlinks and .. resolved)', async () => {
    const outside = fs.mkdtempSync(path.join(os.tmpdir(), 'esource-outside-'));
    fs.symlinkSync(outside, path.join(root, 'sneaky'));
    try {
      for (const bad of ['/etc', path.join(root, '..'), root, `${inbox}/../../etc`, 'hospital-a', path.join(root, 'sneaky'), path.join(root, 'missing')]) {
        const r = await save(bad);
        expect(r.body.code, bad).toBe(400);
        expect(r.body.detail![0]!.field).toBe('config.dropFolder');
      }
      expect((await save('/etc')).body.detail![0]!.message).toBe(`the folder must be inside the allowed drop folder root ${root}`);
      expect((await save(path.join(root, 'missing'))).body.detail![0]!.message).toBe('the folder does not exist on the server');
      const ok = await save(inbox);
      expect(ok.body.code, JSON.stringify(ok.body)).toBe(200);
      connId = ok.body.data.id;
    } finally {
      fs.rmSync(path.join(root, 'sneaky'));
      fs.rmSync(outside, { recursive: true, force: true });
    }
  });

  it('new files become one task each (two workers ticking at once), then move to processed/ or failed/', async () => {
    const b = bundle();
    const entries = (JSON.parse(b.toString('utf8')) as { entry: unknown[] }).entry.length;
    fs.writeFileSync(path.join(inbox, 'patient.json'), b);
    fs.writeFileSync(path.join(inbox, 'cut-off.json'), '{"resourceType":"Bundle","entry":[{"resource":{"resourceType":"Patient","id":"x"}},');
    fs.writeFileSync(path.join(inbox, 'README.txt'), 'not a FHIR file');
    const [one, two] = await Promise.all([poller().tick(), poller().tick()]);
    // a tick that lists the folder while the other is still claiming leaves a file to the next tick (every 30 s):
    // what must hold is one task per file, never two
    const three = await poller().tick();
    expect(one.queued + two.queued + three.queued).toBe(2);
    const list = await allEnded();
    expect(list).toHaveLength(2);
    const byName = new Map(list.map((t) => [(t.stats as { fileName: string }).fileName, t]));
    expect(byName.get('patient.json')).toMatchObject({ status: 2, trigger: 'file', stats: expect.objectContaining({ read: entries, patientsQueued: 1 }) as unknown });
    expect(byName.get('cut-off.json')).toMatchObject({ status: 3, errorCode: 'source.error.fileFormat' });
    expect(ls('processed')).toEqual([expect.stringMatching(/-patient\.json$/)]);
    expect(ls('failed')).toEqual([expect.stringMatching(/-cut-off\.json$/)]);
    expect(ls('processing')).toEqual([]);
    expect(fs.readdirSync(inbox).sort()).toEqual(['README.txt', 'failed', 'processed', 'processing']);
  }, 90_000);

  it('never twice: a second tick, a restarted worker, a file claimed or finished just before a crash', async () => {
    expect((await poller().tick()).queued).toBe(0);
    // a crash after the job but before the move: the file is back in processing/, its task has ended
    const done = ls('processed')[0]!;
    fs.renameSync(path.join(inbox, 'processed', done), path.join(inbox, 'processing', done));
    // a crash right after the claim: a file in processing/ without a task
    fs.writeFileSync(path.join(inbox, 'processing', '20270101T000000000Z-abcdef-late.ndjson'), `${JSON.stringify({ resourceType: 'Patient', id: 'late-1', identifier: [{ value: 'LATE-1' }] })}\n`);
    const r = await poller().tick();
    expect(r).toMatchObject({ queued: 1, settled: 1 });
    const list = await allEnded();
    expect(list).toHaveLength(3);
    expect(ls('processed')).toEqual([expect.stringMatching(/-late\.ndjson$/), done].sort());
    expect(await poller().tick()).toMatchObject({ queued: 0, settled: 0 });
    expect(await tasks()).toHaveLength(3);
  }, 90_000);

  it('a folder moved outside the root afterwards is refused at the tick', async () => {
    await s.database.db.update(sourceConnections).set({ config: { dropFolder: '/tmp' } }).where(eq(sourceConnections.id, connId));
    fs.writeFileSync(path.join(inbox, 'ignored.json'), bundle());
    expect(await poller().tick()).toMatchObject({ queued: 0, refused: 1 });
    expect(await tasks()).toHaveLength(3);
  });
});

import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { eq } from 'drizzle-orm';
import { messages, users } from '../src/db/schema';
import { ApiClient, createServerDatabase, dropServerDatabase, startTestServer, type TestServer } from './harness';

const P = { proId: 1 };
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'esource-jobs-'));
let serverDb: string | undefined;
const cleanups: (() => Promise<void>)[] = [];
afterAll(async () => {
  for (const c of cleanups) await c();
  await dropServerDatabase(serverDb);
  fs.rmSync(tmp, { recursive: true, force: true });
});

type Item = { id: number; status: number; extraInfoMap: Record<string, { done: number; total: number }> | null; displayInformation: string };

async function waitFor<T>(fn: () => Promise<T>, ok: (v: T) => boolean, ms = 30_000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = await fn();
    if (ok(v)) return v;
    if (Date.now() > end) throw new Error(`timed out; last value ${JSON.stringify(v)}`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

describe('background jobs', () => {
  it('a job queued before a restart completes after it, reporting progress', async () => {
    serverDb = await createServerDatabase();
    const persisted = { dataDir: tmp, databaseUrl: serverDb };
    // 1. an API-only process queues the job; nobody works on it
    const a: TestServer = await startTestServer({ config: { ...persisted, role: 'api' }, databaseUrl: serverDb ?? '' });
    const tokenA = await a.api.login('crc1');
    const started = await a.api.post<{ jobId: string; progressItemId: number }>('/test/jobs/start', {
      token: tokenA,
      headers: P,
      form: { type: 1, steps: 3, stepMs: 50, label: 'Upload of subject 001', ptsNo: '001' },
    });
    expect(started.status).toBe(200);
    const queued = await a.api.post<Item[]>('/proProgressDisplay/list', { token: tokenA, headers: P, json: { type: 1 } });
    expect(queued.body.data).toEqual([expect.objectContaining({ id: started.body.data.progressItemId, status: 1, displayInformation: 'Upload of subject 001' })]);
    await a.close();

    // 2. the app comes back with workers; the job runs to the end
    const b = await startTestServer({ config: { ...persisted, role: 'all' }, databaseUrl: serverDb ?? '' });
    cleanups.push(() => b.close());
    const tokenB = await b.api.login('crc1');
    const done = await waitFor(
      () => b.api.post<Item[]>('/proProgressDisplay/list', { token: tokenB, headers: P, json: { type: 1 } }),
      (r) => r.body.data[0]?.status === 2,
    );
    expect(done.body.data[0]!.extraInfoMap).toEqual({ count: { done: 3, total: 3 } });
    expect(await b.jobs.jobState('system.self-test', started.body.data.jobId)).toBe('completed');

    // closing the notice marks it read; another user's ids are not touched
    const crc2 = await b.api.login('crc2');
    const other = await b.api.post<{ updated: number }>('/proProgressDisplay/updateIsReadByIdList', {
      token: crc2,
      headers: P,
      form: { idList: [started.body.data.progressItemId] },
    });
    expect(other.body.data.updated).toBe(0);
    const read = await b.api.post<{ updated: number }>('/proProgressDisplay/updateIsReadByIdList', {
      token: tokenB,
      headers: P,
      form: { idList: String(started.body.data.progressItemId) },
    });
    expect(read.body.data.updated).toBe(1);
    const after = await b.api.post<Item[]>('/proProgressDisplay/list', { token: tokenB, headers: P, json: { type: 1 } });
    expect(after.body.data).toEqual([]);
  });

  it('a job that fails ends as an error item', async () => {
    const s = await startTestServer();
    cleanups.push(() => s.stop());
    const token = await s.api.login('dm');
    const started = await s.api.post<{ progressItemId: number }>('/test/jobs/start', {
      token,
      headers: P,
      form: { type: 3, steps: 1, stepMs: 0, fail: 'true' },
    });
    const r = await waitFor(
      () => s.api.post<Item[]>('/proProgressDisplay/list', { token, headers: P, json: { type: 3 } }),
      (x) => x.body.data.find((i) => i.id === started.body.data.progressItemId)?.status === 3,
    );
    expect(r.status).toBe(200);
  });

  it('badgeInfo counts the caller\'s unread messages in this environment', async () => {
    const s = await startTestServer();
    cleanups.push(() => s.stop());
    const [u] = await s.database.db.select().from(users).where(eq(users.account, 'cra'));
    await s.database.db.insert(messages).values([
      { env: 'PRO', userId: u!.id, kind: 'query', title: 'Query opened' },
      { env: 'PRO', userId: u!.id, kind: 'query', title: 'Query answered', isRead: true },
      { env: 'UAT', userId: u!.id, kind: 'query', title: 'Other env' },
    ]);
    const token = await new ApiClient(s.url!).login('cra');
    const r = await s.api.post<{ unread: number; total: number }>('/message/manager/badgeInfo', { token });
    expect(r.body.data).toEqual({ unread: 1, total: 2 });
  });
});

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eq } from 'drizzle-orm';
import { users } from '../src/db/schema';
import { startTestServer, type TestServer } from './harness';

let s: TestServer;
let admin: string;
let cra: string;
let dm: string;
let craId: number;
let dmId: number;
beforeAll(async () => {
  s = await startTestServer();
  admin = await s.api.login('admin');
  cra = await s.api.login('cra');
  dm = await s.api.login('dm');
  craId = (await s.database.db.select().from(users).where(eq(users.account, 'cra')))[0]!.id;
  dmId = (await s.database.db.select().from(users).where(eq(users.account, 'dm')))[0]!.id;
});
afterAll(async () => {
  await s?.stop();
});

type Page = {
  totalCount: number;
  pageNumber: number;
  pageSize: number;
  unread: number;
  content: { id: number; title: string; isRead: boolean; kind: string; readTime: string | null; senderName: string | null; senderAccount: string | null }[];
};
const send = (userIds: number[], title: string, content = '', proType = 'PRO') =>
  s.api.post('/system/user/sendMessage', { token: admin, headers: { proType }, form: { userIds, title, content } });
const list = (token: string, json: Record<string, unknown> = {}, proType = 'PRO') =>
  s.api.post<Page>('/message/manager/list', { token, headers: { proType }, json });
const badge = async (token: string, proType = 'PRO') =>
  (await s.api.post<{ unread: number; total: number }>('/message/manager/badgeInfo', { token, headers: { proType } })).body.data;

describe('message centre', () => {
  it('lists only the recipient\'s messages in this environment, with filters and paging', async () => {
    await send([craId], 'Monitoring visit', 'Please confirm the date.');
    await send([craId, dmId], 'Database lock', 'The lock is planned for Friday.');
    await send([craId], 'UAT only', '', 'UAT');
    const all = await list(cra);
    expect(all.status).toBe(200);
    expect(all.body.data.content.map((m) => m.title)).toEqual(['Database lock', 'Monitoring visit']);
    expect(all.body.data).toMatchObject({ totalCount: 2, unread: 2, pageNumber: 1, pageSize: 50 });
    expect((await list(cra, {}, 'UAT')).body.data.content.map((m) => m.title)).toEqual(['UAT only']);
    expect((await list(dm)).body.data.content.map((m) => m.title)).toEqual(['Database lock']);
    // the recipient sees who sent it
    expect(all.body.data.content[0]).toMatchObject({ senderAccount: 'admin', senderName: expect.any(String) });

    expect((await list(cra, { keyword: 'friday' })).body.data.content.map((m) => m.title)).toEqual(['Database lock']);
    expect((await list(cra, { kind: 'team' })).body.data.totalCount).toBe(0);
    expect((await list(cra, { kind: 'system' })).body.data.totalCount).toBe(2);
    const today = new Date().toISOString().slice(0, 10);
    expect((await list(cra, { from: today, to: today, timeZone: 'UTC' })).body.data.totalCount).toBe(2);
    expect((await list(cra, { from: '2000-01-01', to: '2000-01-31' })).body.data.totalCount).toBe(0);
    expect((await list(cra, { from: '2000-02-01', to: '2000-01-01' })).status).toBe(400);
    expect((await list(cra, { pageSize: 100 })).body.data.pageSize).toBe(100);
    expect((await list(cra, { pageSize: 30 })).status).toBe(400);
  });

  it('reads one, marks read (one and all); the badge follows; another user\'s id is 404', async () => {
    const before = await badge(cra);
    const { content } = (await list(cra, { isRead: false })).body.data;
    expect(content.length).toBe(before.unread);
    const first = content[0]!;

    const detail = await s.api.get<{ id: number; title: string; isRead: boolean }>('/message/manager/detail', { token: cra, headers: { proType: 'PRO' }, query: { id: first.id } });
    expect(detail.body.data).toMatchObject({ id: first.id, title: first.title, isRead: false });
    const foreign = await s.api.get('/message/manager/detail', { token: dm, headers: { proType: 'PRO', language: 'en_US' }, query: { id: first.id } });
    expect(foreign.status).toBe(404);
    expect(foreign.body.message).toBe('Message not found');
    const foreignRead = await s.api.post('/message/manager/read', { token: dm, headers: { proType: 'PRO' }, form: { idList: [first.id] } });
    expect(foreignRead.status).toBe(404);
    expect((await badge(cra)).unread).toBe(before.unread);

    const read = await s.api.post<{ updated: number; unread: number }>('/message/manager/read', { token: cra, headers: { proType: 'PRO' }, form: { idList: [first.id] } });
    expect(read.body.data).toEqual({ updated: 1, unread: before.unread - 1 });
    expect((await badge(cra)).unread).toBe(before.unread - 1);
    const again = await s.api.post<{ updated: number }>('/message/manager/read', { token: cra, headers: { proType: 'PRO' }, form: { idList: [first.id] } });
    expect(again.body.data.updated).toBe(0);
    const readOnes = (await list(cra, { isRead: true })).body.data.content;
    expect(readOnes.map((m) => m.id)).toEqual([first.id]);
    expect(readOnes[0]!.readTime).not.toBeNull();

    const all = await s.api.post<{ updated: number; unread: number }>('/message/manager/readAll', { token: cra, headers: { proType: 'PRO' } });
    expect(all.body.data).toEqual({ updated: before.unread - 1, unread: 0 });
    expect(await badge(cra)).toMatchObject({ unread: 0 });
    // the other environment and the other user are untouched
    expect((await badge(cra, 'UAT')).unread).toBe(1);
    expect((await badge(dm)).unread).toBe(1);
  });
});

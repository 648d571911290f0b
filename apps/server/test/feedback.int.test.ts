/**
 * Feedback (issue 15 item 5) over real HTTP: a user sends feedback with a screenshot (checked by content, re-encoded
 * without metadata, served only to the sender and the feedback administrators), the page path without its query;
 * administrators list it (filters, sort, paging), answer (the answer lands in the sender's messages, in the environment
 * they sent it from), close with a note, reopen and export it — each step audited — and every refusal: not an image, too
 * large, too long a text, a flood, another user's screenshot or detail, no permission, a stale answer naming who acted,
 * a step the status does not allow.
 */
import ExcelJS from 'exceljs';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { and, desc, eq, sql } from 'drizzle-orm';
import type { FeedbackDetail, FeedbackMinePage, FeedbackPage, MessagePage } from '@esource/shared';
import { auditEvents, feedback, roles, users } from '../src/db/schema';
import { startTestServer, type TestServer } from './harness';
import { noisePng } from './images';

let s: TestServer;
const tokens: Record<string, string> = {};
const ids: Record<string, number> = {};

beforeAll(async () => {
  s = await startTestServer();
  // a second feedback administrator (the stale checks need someone else acting): the data manager gets the
  // administrator's system role in this test's own database
  const [adminRole] = await s.database.db.select({ id: roles.id }).from(roles).where(eq(roles.code, 'ADMIN'));
  await s.database.db.update(users).set({ systemRoleId: adminRole!.id }).where(eq(users.account, 'dm'));
  for (const a of ['admin', 'dm', 'crc1', 'crc2', 'pi', 'cra', 'ae']) {
    tokens[a] = await s.api.login(a);
    ids[a] = (await s.database.db.select({ id: users.id }).from(users).where(eq(users.account, a)))[0]!.id;
  }
});
afterAll(async () => {
  await s?.stop();
});

const db = () => s.database.db;
const H = (language = 'en_US', env = 'PRO') => ({ language, proType: env });

async function send(
  token: string,
  fields: Record<string, string>,
  file?: { bytes: Buffer; name: string },
  headers = H(),
) {
  const fd = new FormData();
  for (const [k, v] of Object.entries(fields)) fd.append(k, v);
  if (file) fd.append('screenshot', new Blob([file.bytes]), file.name);
  return s.api.post<FeedbackDetail>('/feedback/add', { token, raw: { body: fd }, headers });
}
const post = <T = unknown>(
  path: string,
  token: string,
  form: Record<string, string | number>,
  headers = H(),
) => s.api.post<T>(path, { token, form, headers });
const page = (token: string, form: Record<string, string | number> = {}, headers = H()) =>
  post<FeedbackPage>('/feedback/page', token, { pageNumber: 1, pageSize: 50, ...form }, headers);
const auditOf = (id: number, action: string) =>
  db()
    .select()
    .from(auditEvents)
    .where(
      and(
        eq(auditEvents.action, action),
        eq(auditEvents.entity, 'feedback'),
        eq(auditEvents.entityId, String(id)),
      ),
    )
    .orderBy(desc(auditEvents.id));
const count = async () =>
  (
    await db()
      .select({ n: sql<number>`count(*)::int` })
      .from(feedback)
  )[0]!.n;

const png = (w = 320, h = 200) =>
  sharp({ create: { width: w, height: h, channels: 3, background: '#2a6' } })
    .png()
    .withExif({ IFD0: { Make: 'SecretCam', Copyright: 'GPS 31.2304N 121.4737E' } })
    .toBuffer();

let sent: FeedbackDetail;

describe('sending', () => {
  it('stores feedback with a screenshot re-encoded without metadata, the page path without its query, audited', async () => {
    const shot = await png();
    expect(shot.includes(Buffer.from('SecretCam'))).toBe(true);
    const r = await send(
      tokens.crc1!,
      {
        category: 'bug',
        content: 'The visit list does not scroll on my laptop.',
        pagePath: '/project/centerPtsList?keyword=H-001#top',
      },
      { bytes: shot, name: 'screen.png' },
    );
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    sent = r.body.data;
    expect(sent).toMatchObject({
      category: 'bug',
      status: 'open',
      pagePath: '/project/centerPtsList',
      env: 'PRO',
      loginType: 3,
      hasScreenshot: true,
      userId: ids.crc1,
      userName: 'Amy Coordinator',
      version: 1,
      replies: [],
      screenshotType: 'image/png',
    });
    const [a] = await auditOf(sent.id, 'feedback.add');
    expect(a).toBeDefined();
    expect(JSON.parse(a!.newValue!)).toMatchObject({
      category: 'bug',
      pagePath: '/project/centerPtsList',
      screenshot: { type: 'image/png' },
    });
  });

  it('serves the screenshot to its sender and to administrators (audited), to nobody else', async () => {
    const own = await s.api.get<string>('/feedback/screenshot', {
      token: tokens.crc1!,
      query: { id: sent.id },
    });
    expect(own.status).toBe(200);
    const res = await fetch(`${s.api.base}/api/feedback/screenshot?id=${sent.id}`, {
      headers: { token: tokens.admin! },
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('image/png');
    const bytes = Buffer.from(await res.arrayBuffer());
    expect(await sharp(bytes).metadata()).toMatchObject({ format: 'png', width: 320, height: 200 });
    expect(bytes.includes(Buffer.from('SecretCam'))).toBe(false);
    expect(await auditOf(sent.id, 'feedback.screenshot')).toHaveLength(1);
    // the sender's own look is not an access to someone else's data
    for (const who of ['crc2', 'pi', 'cra']) {
      const r = await s.api.get('/feedback/screenshot', {
        token: tokens[who]!,
        query: { id: sent.id },
        headers: H(),
      });
      expect(r.status, who).toBe(404);
      expect(r.body.errorCode).toBe('NOT_FOUND');
      expect(
        (await s.api.get('/feedback/detail', { token: tokens[who]!, query: { id: sent.id } })).status,
        who,
      ).toBe(404);
    }
    expect((await s.api.get('/feedback/screenshot', { token: null, query: { id: sent.id } })).status).toBe(
      401,
    );
    expect(
      (await s.api.get<FeedbackDetail>('/feedback/detail', { token: tokens.crc1!, query: { id: sent.id } }))
        .body.data.id,
    ).toBe(sent.id);
  });

  it('accepts feedback without a screenshot as a plain form too', async () => {
    const r = await post<FeedbackDetail>('/feedback/add', tokens.crc2!, {
      category: 'suggestion',
      content: 'Please add a dark theme.',
      pagePath: '/overview',
    });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    expect(r.body.data).toMatchObject({
      hasScreenshot: false,
      category: 'suggestion',
      pagePath: '/overview',
    });
    expect(
      (await s.api.get('/feedback/screenshot', { token: tokens.crc2!, query: { id: r.body.data.id } }))
        .status,
    ).toBe(404);
  });

  it('refuses a file that is not an image, a damaged one, one over 2 MB, in the request language; nothing is stored', async () => {
    const before = await count();
    const text = await send(
      tokens.crc2!,
      { category: 'bug', content: 'x' },
      { bytes: Buffer.from('#!/bin/sh\necho hi\n'), name: 'shot.png' },
    );
    expect(text.status).toBe(400);
    expect(text.body).toMatchObject({
      errorCode: 'FEEDBACK_SCREENSHOT_INVALID',
      message: 'The screenshot must be a PNG or JPG image: the content is not a PNG or JPG image',
    });
    expect(text.body.detail?.[0]?.field).toBe('screenshot');
    const zh = await send(
      tokens.crc2!,
      { category: 'bug', content: 'x' },
      { bytes: Buffer.from('%PDF-1.4'), name: 'shot.jpg' },
      H('zh_CN'),
    );
    expect(zh.body.message).toBe('截图须为 PNG 或 JPG 图片：文件内容不是 PNG 或 JPG 图片');
    const jpeg = await sharp({
      create: {
        width: 400,
        height: 400,
        channels: 3,
        background: '#000',
        noise: { type: 'gaussian', mean: 128, sigma: 40 },
      },
    })
      .jpeg()
      .toBuffer();
    const cut = await send(
      tokens.crc2!,
      { category: 'bug', content: 'x' },
      { bytes: jpeg.subarray(0, jpeg.length >> 1), name: 'cut.jpg' },
    );
    expect(cut.body.errorCode).toBe('FEEDBACK_SCREENSHOT_INVALID');
    const webp = await sharp({ create: { width: 10, height: 10, channels: 3, background: '#fff' } })
      .webp()
      .toBuffer();
    expect(
      (await send(tokens.crc2!, { category: 'bug', content: 'x' }, { bytes: webp, name: 'a.png' })).body
        .errorCode,
    ).toBe('FEEDBACK_SCREENSHOT_INVALID');
    const big = await noisePng();
    expect(big.length).toBeGreaterThan(2 * 1024 * 1024);
    const large = await send(
      tokens.crc2!,
      { category: 'bug', content: 'x' },
      { bytes: big, name: 'big.png' },
    );
    expect(large.status).toBe(400);
    expect(large.body).toMatchObject({
      errorCode: 'FEEDBACK_SCREENSHOT_TOO_LARGE',
      message: 'The screenshot can be at most 2 MB',
    });
    // far larger: refused while streaming (too large, or the body limit)
    const huge = await send(
      tokens.crc2!,
      { category: 'bug', content: 'x' },
      { bytes: Buffer.alloc(9 * 1024 * 1024, 1), name: 'huge.png' },
    );
    expect([400, 413]).toContain(huge.status);
    expect(await count()).toBe(before);
  });

  it('refuses a text over 2,000 characters, an empty text and an unknown category', async () => {
    const before = await count();
    const long = await send(tokens.crc2!, { category: 'bug', content: 'x'.repeat(2001) });
    expect(long.status).toBe(400);
    expect(long.body.errorCode).toBe('VALIDATION');
    expect(long.body.detail?.[0]?.field).toBe('content');
    expect((await send(tokens.crc2!, { category: 'bug', content: 'x'.repeat(2000) })).status).toBe(200);
    expect((await send(tokens.crc2!, { category: 'bug', content: '   ' })).body.detail?.[0]?.field).toBe(
      'content',
    );
    expect((await send(tokens.crc2!, { category: 'praise', content: 'great' })).body.detail?.[0]?.field).toBe(
      'category',
    );
    // a page that is not a path of the app is not kept
    const odd = await send(tokens.crc2!, {
      category: 'other',
      content: 'odd page',
      pagePath: 'https://evil.example/x?y',
    });
    expect(odd.body.data.pagePath).toBeNull();
    expect(await count()).toBe(before + 2);
  });

  it('refuses the eleventh feedback of a user within an hour, translated, and accepts again once the hour passed', async () => {
    for (let i = 1; i <= 10; i++) {
      const r = await post('/feedback/add', tokens.pi!, { category: 'question', content: `Question ${i}` });
      expect(r.status, `#${i} ${JSON.stringify(r.body)}`).toBe(200);
    }
    const before = await count();
    const flood = await send(
      tokens.pi!,
      { category: 'question', content: 'One more' },
      { bytes: await png(), name: 'a.png' },
    );
    expect(flood.status).toBe(429);
    expect(flood.body.errorCode).toBe('FEEDBACK_FLOOD');
    expect(flood.body.message).toMatch(
      /^You have sent 10 feedback messages in the last hour; you can send more in (59|60) min$/,
    );
    const zh = await post(
      '/feedback/add',
      tokens.pi!,
      { category: 'question', content: 'One more' },
      H('zh_CN'),
    );
    expect(zh.body.message).toMatch(/^您在过去一小时内已提交 10 条意见反馈/);
    expect(await count()).toBe(before);
    // another user is not held back by this one
    expect((await post('/feedback/add', tokens.cra!, { category: 'other', content: 'Hello' })).status).toBe(
      200,
    );
    // the oldest of the ten leaves the hour
    await db().execute(
      sql`update feedback set created_at = created_at - interval '61 minutes' where id = (select min(id) from feedback where user_id = ${ids.pi!})`,
    );
    expect(
      (await post('/feedback/add', tokens.pi!, { category: 'question', content: 'Now again' })).status,
    ).toBe(200);
    expect(
      (await post('/feedback/add', tokens.pi!, { category: 'question', content: 'And once more' })).status,
    ).toBe(429);
  });

  it('lets no two simultaneous requests of one user pass the hourly limit together', async () => {
    const results = await Promise.all(
      Array.from({ length: 14 }, (_, i) =>
        post('/feedback/add', tokens.ae!, { category: 'other', content: `Burst ${i}` }),
      ),
    );
    const statuses = results.map((r) => r.status).sort();
    expect(statuses.filter((x) => x === 200)).toHaveLength(10);
    expect(statuses.filter((x) => x === 429)).toHaveLength(4);
    expect(
      (
        await db()
          .select({ n: sql<number>`count(*)::int` })
          .from(feedback)
          .where(eq(feedback.userId, ids.ae!))
      )[0]!.n,
    ).toBe(10);
  });
});

describe('administration', () => {
  it('refuses the list, answers, closes, reopens and the export to users without the permissions', async () => {
    for (const who of ['crc1', 'pi', 'cra']) {
      expect((await page(tokens[who]!)).status, who).toBe(403);
      expect(
        (await post('/feedback/reply', tokens[who]!, { id: sent.id, version: 1, content: 'hi' })).status,
        who,
      ).toBe(403);
      expect(
        (await post('/feedback/close', tokens[who]!, { id: sent.id, version: 1, content: 'hi' })).status,
        who,
      ).toBe(403);
      expect((await post('/feedback/reopen', tokens[who]!, { id: sent.id, version: 1 })).status, who).toBe(
        403,
      );
      expect((await s.api.get('/feedback/export', { token: tokens[who]! })).status, who).toBe(403);
    }
    const [f] = await db().select().from(feedback).where(eq(feedback.id, sent.id));
    expect(f).toMatchObject({ status: 'open', version: 1 });
  });

  it('lists with filters, keyword, sending days and sort order, paged 50/100/200', async () => {
    const all = await page(tokens.admin!);
    expect(all.status, JSON.stringify(all.body)).toBe(200);
    expect(all.body.data.totalCount).toBe(await count());
    // newest first by default
    const times = all.body.data.content.map((r) => r.createTime);
    expect([...times].sort().reverse()).toEqual(times);
    const asc = await page(tokens.admin!, { sortOrder: 'ascend' });
    expect(asc.body.data.content[0]!.createTime <= asc.body.data.content.at(-1)!.createTime).toBe(true);
    const bugs = await page(tokens.admin!, { category: 'bug' });
    expect(bugs.body.data.content.every((r) => r.category === 'bug')).toBe(true);
    expect(bugs.body.data.content.map((r) => r.id)).toContain(sent.id);
    const kw = await page(tokens.admin!, { keyword: 'does not scroll' });
    expect(kw.body.data.content.map((r) => r.id)).toEqual([sent.id]);
    expect(
      (await page(tokens.admin!, { keyword: 'Amy Coordinator' })).body.data.content.map((r) => r.id),
    ).toContain(sent.id);
    expect((await page(tokens.admin!, { keyword: 'centerPtsList' })).body.data.totalCount).toBe(1);
    const today = new Date().toISOString().slice(0, 10);
    expect(
      (await page(tokens.admin!, { from: today, to: today, timeZone: 'UTC', keyword: 'does not scroll' }))
        .body.data.totalCount,
    ).toBe(1);
    expect((await page(tokens.admin!, { from: '2001-01-01', to: '2001-12-31' })).body.data.totalCount).toBe(
      0,
    );
    expect((await page(tokens.admin!, { from: '2030-01-02', to: '2030-01-01' })).status).toBe(400);
    expect((await page(tokens.admin!, { pageSize: 20 })).status).toBe(400);
    const open = await page(tokens.admin!, { status: 'open', pageSize: 100 });
    expect(open.body.data.pageSize).toBe(100);
    expect(open.body.data.content.every((r) => r.status === 'open')).toBe(true);
  });

  it('answers: the answer lands in the sender’s messages (the environment they sent from, with the badge), audited', async () => {
    const badge = async (env: string) =>
      (
        await s.api.post<{ unread: number }>('/message/manager/badgeInfo', {
          token: tokens.crc1!,
          headers: { proType: env },
        })
      ).body.data.unread;
    const before = await badge('PRO');
    const r = await post<FeedbackDetail>('/feedback/reply', tokens.admin!, {
      id: sent.id,
      version: 1,
      content: 'Thanks — fixed in the next release.',
    });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    expect(r.body.data).toMatchObject({
      status: 'answered',
      version: 2,
      updatedByName: 'System Admin',
      replyCount: 1,
    });
    expect(r.body.data.replies).toMatchObject([
      { kind: 'answer', content: 'Thanks — fixed in the next release.', userName: 'System Admin' },
    ]);
    expect(await badge('PRO')).toBe(before + 1);
    const list = await s.api.post<MessagePage>('/message/manager/list', {
      token: tokens.crc1!,
      json: { pageNumber: 1, pageSize: 50, kind: 'feedback' },
      headers: { proType: 'PRO' },
    });
    expect(list.status, JSON.stringify(list.body)).toBe(200);
    const m = list.body.data.content[0]!;
    expect(m).toMatchObject({ kind: 'feedback', isRead: false, senderName: 'System Admin' });
    expect(JSON.parse(m.content.slice('feedback:'.length))).toMatchObject({
      f: sent.id,
      e: 'answer',
      cat: 'bug',
      text: 'Thanks — fixed in the next release.',
    });
    expect(m.content.startsWith('feedback:')).toBe(true);
    // the sender's list shows the answer
    const mine = await post<FeedbackMinePage>('/feedback/mine', tokens.crc1!, {
      pageNumber: 1,
      pageSize: 50,
    });
    expect(mine.body.data.content.find((f) => f.id === sent.id)?.replies.map((x) => x.kind)).toEqual([
      'answer',
    ]);
    expect(mine.body.data.content.every((f) => f.userId === ids.crc1)).toBe(true);
    const [a] = await auditOf(sent.id, 'feedback.answer');
    expect(a).toMatchObject({ field: 'status', oldValue: 'open', userName: 'System Admin' });
  });

  it('sends the answer to the environment the feedback was sent from', async () => {
    const uat = await send(
      tokens.crc2!,
      { category: 'question', content: 'Where is the UAT data?' },
      undefined,
      H('en_US', 'UAT'),
    );
    expect(uat.body.data.env).toBe('UAT');
    expect(
      (
        await post('/feedback/reply', tokens.admin!, {
          id: uat.body.data.id,
          version: 1,
          content: 'In the UAT environment.',
        })
      ).status,
    ).toBe(200);
    const of = async (env: string) =>
      (
        await s.api.post<MessagePage>('/message/manager/list', {
          token: tokens.crc2!,
          json: { pageNumber: 1, pageSize: 50, kind: 'feedback' },
          headers: { proType: env },
        })
      ).body.data.content;
    expect((await of('UAT')).map((m) => JSON.parse(m.content.slice(9)).f)).toContain(uat.body.data.id);
    expect((await of('PRO')).map((m) => JSON.parse(m.content.slice(9)).f)).not.toContain(uat.body.data.id);
  });

  it('refuses a stale answer or close naming who acted, what they did and when; nothing changes', async () => {
    // the data manager (now a second administrator) answers on the version both saw
    const other = await post<FeedbackDetail>('/feedback/reply', tokens.dm!, {
      id: sent.id,
      version: 2,
      content: 'Also: try the latest browser.',
    });
    expect(other.status, JSON.stringify(other.body)).toBe(200);
    const stale = await post('/feedback/reply', tokens.admin!, {
      id: sent.id,
      version: 2,
      content: 'My second answer',
    });
    expect(stale.status).toBe(409);
    expect(stale.body.errorCode).toBe('FEEDBACK_STALE');
    expect(stale.body.message).toMatch(
      /^Dana Manager answered this feedback at \d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2} UTC since you opened it; reload to see it before you act$/,
    );
    const zh = await post(
      '/feedback/close',
      tokens.admin!,
      { id: sent.id, version: 1, content: 'done' },
      H('zh_CN'),
    );
    expect(zh.body.message).toMatch(/^Dana Manager 已于 .* 回复了此反馈/);
    const [f] = await db().select().from(feedback).where(eq(feedback.id, sent.id));
    expect(f).toMatchObject({ status: 'answered', version: 3, updatedBy: ids.dm });
    expect(await auditOf(sent.id, 'feedback.answer')).toHaveLength(2);
  });

  it('closes with a note (sent to the sender), refuses answering closed feedback, reopens; each audited', async () => {
    expect(
      (await post('/feedback/close', tokens.admin!, { id: sent.id, version: 3, content: '' })).body
        .detail?.[0]?.field,
    ).toBe('content');
    expect(
      (await post('/feedback/close', tokens.admin!, { id: sent.id, version: 3, content: 'x'.repeat(2001) }))
        .status,
    ).toBe(400);
    const closed = await post<FeedbackDetail>('/feedback/close', tokens.admin!, {
      id: sent.id,
      version: 3,
      content: 'Fixed in 2.4.',
    });
    expect(closed.status, JSON.stringify(closed.body)).toBe(200);
    expect(closed.body.data).toMatchObject({ status: 'closed', version: 4 });
    const msgs = await s.api.post<MessagePage>('/message/manager/list', {
      token: tokens.crc1!,
      json: { pageNumber: 1, pageSize: 50, kind: 'feedback' },
      headers: { proType: 'PRO' },
    });
    expect(JSON.parse(msgs.body.data.content[0]!.content.slice(9))).toMatchObject({
      f: sent.id,
      e: 'close',
      text: 'Fixed in 2.4.',
    });
    const answerClosed = await post('/feedback/reply', tokens.admin!, {
      id: sent.id,
      version: 4,
      content: 'late',
    });
    expect(answerClosed.status).toBe(409);
    expect(answerClosed.body).toMatchObject({
      errorCode: 'FEEDBACK_CLOSED',
      message: 'This feedback is closed; reopen it before answering or closing it',
    });
    expect(
      (await post('/feedback/close', tokens.admin!, { id: sent.id, version: 4, content: 'again' })).body
        .errorCode,
    ).toBe('FEEDBACK_CLOSED');
    const reopened = await post<FeedbackDetail>('/feedback/reopen', tokens.admin!, {
      id: sent.id,
      version: 4,
      content: 'Came back in 2.5',
    });
    expect(reopened.status, JSON.stringify(reopened.body)).toBe(200);
    // it had answers: it is answered again, not open
    expect(reopened.body.data).toMatchObject({ status: 'answered', version: 5 });
    expect(reopened.body.data.replies.map((r) => r.kind)).toEqual(['answer', 'answer', 'close', 'reopen']);
    expect((await post('/feedback/reopen', tokens.admin!, { id: sent.id, version: 5 })).body.errorCode).toBe(
      'FEEDBACK_NOT_CLOSED',
    );
    expect(await auditOf(sent.id, 'feedback.close')).toHaveLength(1);
    expect(await auditOf(sent.id, 'feedback.reopen')).toHaveLength(1);
    // never answered, then closed and reopened: open again
    const q = await post<FeedbackDetail>('/feedback/add', tokens.cra!, {
      category: 'question',
      content: 'Unanswered',
    });
    await post('/feedback/close', tokens.admin!, { id: q.body.data.id, version: 1, content: 'Duplicate' });
    expect(
      (await post<FeedbackDetail>('/feedback/reopen', tokens.admin!, { id: q.body.data.id, version: 2 })).body
        .data.status,
    ).toBe('open');
    expect(
      (await post('/feedback/reply', tokens.admin!, { id: 999999, version: 1, content: 'x' })).status,
    ).toBe(404);
  });

  it('exports the filtered list to Excel in the request language, formulas neutralised, audited', async () => {
    await post('/feedback/add', tokens.crc2!, {
      category: 'other',
      content: '=HYPERLINK("http://evil.example","click")',
    });
    const res = await fetch(`${s.api.base}/api/feedback/export?category=other&timeZone=Asia%2FShanghai`, {
      headers: { token: tokens.admin!, language: 'en_US' },
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toContain('spreadsheetml');
    expect(decodeURIComponent(res.headers.get('content-disposition') ?? '')).toContain('Feedback-');
    const wb = new ExcelJS.Workbook();
    await wb.xlsx.load(Buffer.from(await res.arrayBuffer()) as unknown as ArrayBuffer);
    const ws = wb.worksheets[0]!;
    expect(ws.name).toBe('Feedback');
    expect((ws.getRow(1).values as unknown[]).slice(1, 8)).toEqual([
      'No.',
      'Sent',
      'Sender',
      'Account',
      'Category',
      'Status',
      'Feedback',
    ]);
    const rows = ws.getSheetValues().slice(2) as unknown[][];
    const expected = (await page(tokens.admin!, { category: 'other', pageSize: 200 })).body.data.totalCount;
    expect(rows.filter(Boolean)).toHaveLength(expected);
    const evil = rows.find((r) => r && String(r[7]).includes('HYPERLINK'))!;
    expect(evil[7]).toBe(`'=HYPERLINK("http://evil.example","click")`);
    expect(evil[5]).toBe('Other');
    const zh = await fetch(
      `${s.api.base}/api/feedback/export?keyword=${encodeURIComponent('does not scroll')}`,
      { headers: { token: tokens.admin!, language: 'zh_CN' } },
    );
    const wz = new ExcelJS.Workbook();
    await wz.xlsx.load(Buffer.from(await zh.arrayBuffer()) as unknown as ArrayBuffer);
    const r2 = wz.worksheets[0]!.getRow(2).values as unknown[];
    expect(r2[5]).toBe('问题缺陷');
    expect(String(r2[11])).toContain('Fixed in 2.4.');
    const [a] = await db()
      .select()
      .from(auditEvents)
      .where(eq(auditEvents.action, 'feedback.export'))
      .orderBy(desc(auditEvents.id));
    expect(a).toMatchObject({ newValue: '1' });
    expect(JSON.parse(a!.reason!)).toMatchObject({ keyword: 'does not scroll' });
  });
});

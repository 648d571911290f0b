/**
 * Personal settings (issue 15 item 1) over real HTTP: name and e-mail, the avatar (checked by content, re-encoded
 * without metadata, served by its key), the phone change by a code from the development SMS outbox — and every
 * refusal: wrong, expired, reused, replaced and spent codes, request floods per account and per number, a number bound
 * to another account, an avatar that is not an image or is too large, another user's id — each audited, the code never.
 * The SMS outbox page's call (administrators only), and the HTTP gateway adapter end to end against a local receiver.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { and, desc, eq, sql } from 'drizzle-orm';
import sharp from 'sharp';
import { SMS_CODE } from '@esource/shared';
import { auditEvents, phoneCodes, smsOutbox, users } from '../src/db/schema';
import { fileStoreOf } from '../src/modules/documents/file-store';
import { pruneSmsRows } from '../src/modules/sms/sms-provider';
import { startTestServer, type TestServer } from './harness';
import { noisePng } from './images';

let s: TestServer;
let admin: string;
const ids: Record<string, number> = {};
const tokens: Record<string, string> = {};

beforeAll(async () => {
  s = await startTestServer();
  admin = await s.api.login('admin');
  for (const a of ['crc1', 'crc2', 'pi', 'cra', 'dm']) {
    tokens[a] = await s.api.login(a);
    ids[a] = (await s.database.db.select({ id: users.id }).from(users).where(eq(users.account, a)))[0]!.id;
  }
});
afterAll(async () => {
  await s?.stop();
});

const db = () => s.database.db;
const post = <T = unknown>(
  path: string,
  token: string,
  form: Record<string, string | number> = {},
  language = 'en_US',
) => s.api.post<T>(path, { token, form, headers: { language } });

type Sent = { phone: string; expiresIn: number; resendIn: number };

/** The newest outbox message to a number and the code in it. */
async function outboxCode(phone: string): Promise<string> {
  const [m] = await db()
    .select()
    .from(smsOutbox)
    .where(eq(smsOutbox.phone, phone))
    .orderBy(desc(smsOutbox.id))
    .limit(1);
  const code = /\b(\d{6})\b/.exec(m?.body ?? '')?.[1];
  if (!code) throw new Error(`no code in the outbox for ${phone}`);
  return code;
}

/** Moves an account's (or a number's) code requests back in time, as if `seconds` had passed. */
async function age(seconds: number, where: { userId?: number; phone?: string }) {
  const cond = where.userId ? eq(phoneCodes.userId, where.userId) : eq(phoneCodes.phone, where.phone!);
  await db()
    .update(phoneCodes)
    .set({
      createdAt: sql`${phoneCodes.createdAt} - make_interval(secs => ${seconds})`,
      expiresAt: sql`${phoneCodes.expiresAt} - make_interval(secs => ${seconds})`,
    })
    .where(cond);
}

const auditOf = (userId: number, action: string) =>
  db()
    .select()
    .from(auditEvents)
    .where(and(eq(auditEvents.action, action), eq(auditEvents.entityId, String(userId))))
    .orderBy(desc(auditEvents.id));

const phoneOf = async (userId: number) =>
  (await db().select({ p: users.phone }).from(users).where(eq(users.id, userId)))[0]!.p;

let seq = 0;
/** A fresh number nobody has. */
const freshPhone = () => `1370000${String(1000 + ++seq).slice(-4)}`;

describe('personal info', () => {
  it('changes the caller’s own name and e-mail, audited field by field; user info shows them', async () => {
    const r = await post<{ name: string; mail: string | null }>('/user/updatePersonalInfo', tokens.crc1!, {
      name: 'Amy C. Coordinator',
      mail: 'amy@hospital.example',
    });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    expect(r.body.data).toMatchObject({
      id: ids.crc1,
      name: 'Amy C. Coordinator',
      mail: 'amy@hospital.example',
    });
    const info = await s.api.post<{ user: { name: string; mail: string } }>('/auth/user/pmsInfo', {
      token: tokens.crc1!,
      json: {},
    });
    expect(info.body.data.user).toMatchObject({ name: 'Amy C. Coordinator', mail: 'amy@hospital.example' });
    const a = await auditOf(ids.crc1!, 'profile.update');
    expect(a.map((x) => x.field).sort()).toEqual(['mail', 'name']);
    expect(a.find((x) => x.field === 'name')).toMatchObject({
      oldValue: 'Amy Coordinator',
      newValue: 'Amy C. Coordinator',
    });
    // an e-mail can be cleared; nothing changed = nothing audited
    const cleared = await post<{ mail: string | null }>('/user/updatePersonalInfo', tokens.crc1!, {
      name: 'Amy C. Coordinator',
      mail: '',
    });
    expect(cleared.body.data.mail).toBeNull();
    await post('/user/updatePersonalInfo', tokens.crc1!, { name: 'Amy C. Coordinator', mail: '' });
    expect(await auditOf(ids.crc1!, 'profile.update')).toHaveLength(3);
  });

  it('refuses a bad e-mail, an empty name and another user’s id, changing nothing', async () => {
    const bad = await post('/user/updatePersonalInfo', tokens.crc1!, { name: 'X', mail: 'not-an-address' });
    expect(bad.status).toBe(400);
    expect(bad.body.errorCode).toBe('VALIDATION');
    expect(bad.body.detail?.[0]).toMatchObject({ field: 'mail', message: 'must be an email address' });
    const zh = await post(
      '/user/updatePersonalInfo',
      tokens.crc1!,
      { name: 'X', mail: 'not-an-address' },
      'zh_CN',
    );
    expect(zh.body.detail?.[0]?.message).toBe('须为有效的邮箱地址');
    expect((await post('/user/updatePersonalInfo', tokens.crc1!, { name: '', mail: '' })).status).toBe(400);
    const other = await post('/user/updatePersonalInfo', tokens.crc1!, {
      id: ids.crc2!,
      name: 'Hijacked',
      mail: '',
    });
    expect(other.status).toBe(403);
    expect(other.body.errorCode).toBe('FORBIDDEN');
    const [c2] = await db().select().from(users).where(eq(users.id, ids.crc2!));
    expect(c2!.name).toBe('Ben Coordinator');
    // the caller's own id is fine
    expect(
      (
        await post('/user/updatePersonalInfo', tokens.crc2!, {
          id: ids.crc2!,
          name: 'Ben Coordinator',
          mail: 'ben@x.example',
        })
      ).status,
    ).toBe(200);
  });
});

describe('avatar', () => {
  const upload = (
    token: string,
    bytes: Buffer,
    name = 'me.jpg',
    fields: Record<string, string> = {},
    language = 'en_US',
  ) => {
    const fd = new FormData();
    for (const [k, v] of Object.entries(fields)) fd.append(k, v);
    fd.append('file', new Blob([bytes]), name);
    return s.api.post<{ imgUrl: string | null }>('/user/updateAvatar', {
      token,
      raw: { body: fd },
      headers: { language },
    });
  };
  const fetchAvatar = (url: string) => fetch(`${s.api.base}${url}`);

  it('re-encodes a photo to a 256-pixel square without its metadata and serves it by key without a session', async () => {
    const photo = await sharp({ create: { width: 900, height: 600, channels: 3, background: '#3366cc' } })
      .jpeg()
      .withExif({ IFD0: { Make: 'SecretCam', Copyright: 'GPS 31.2304N 121.4737E' } })
      .toBuffer();
    expect((await sharp(photo).metadata()).exif).toBeDefined();
    const r = await upload(tokens.pi!, photo);
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    const url = r.body.data.imgUrl!;
    expect(url).toMatch(/^\/api\/user\/avatar\?key=[0-9a-f]{64}$/);
    const res = await fetchAvatar(url);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('image/jpeg');
    const served = Buffer.from(await res.arrayBuffer());
    const meta = await sharp(served).metadata();
    expect(meta).toMatchObject({ format: 'jpeg', width: 256, height: 256 });
    expect(meta.exif).toBeUndefined();
    expect(served.includes(Buffer.from('SecretCam'))).toBe(false);
    // the user info carries it (the header's avatar)
    const info = await s.api.post<{ user: { imgUrl: string } }>('/auth/user/pmsInfo', {
      token: tokens.pi!,
      json: {},
    });
    expect(info.body.data.user.imgUrl).toBe(url);
    const [a] = await auditOf(ids.pi!, 'profile.avatar');
    expect(a).toMatchObject({ field: 'imgUrl', oldValue: null });
    expect(JSON.parse(a!.newValue!)).toMatchObject({ url, type: 'image/jpeg' });
  });

  it('keeps transparency as PNG', async () => {
    const png = await sharp({
      create: { width: 120, height: 80, channels: 4, background: { r: 0, g: 128, b: 0, alpha: 0.5 } },
    })
      .png()
      .toBuffer();
    const r = await upload(tokens.cra!, png, 'logo.png');
    expect(r.status).toBe(200);
    const res = await fetchAvatar(r.body.data.imgUrl!);
    expect(res.headers.get('content-type')).toBe('image/png');
    expect(await sharp(Buffer.from(await res.arrayBuffer())).metadata()).toMatchObject({
      format: 'png',
      width: 256,
      height: 256,
      hasAlpha: true,
    });
    // an alpha channel nobody uses (all opaque) is a JPEG like any photo
    const opaque = await sharp({
      create: { width: 50, height: 50, channels: 4, background: { r: 9, g: 9, b: 9, alpha: 1 } },
    })
      .png()
      .toBuffer();
    const o = await upload(tokens.cra!, opaque, 'flat.png');
    expect((await fetchAvatar(o.body.data.imgUrl!)).headers.get('content-type')).toBe('image/jpeg');
  });

  it('refuses a file that is not an image, whatever its name, in the request’s language', async () => {
    const before = await phoneOf(ids.dm!);
    const r = await upload(tokens.dm!, Buffer.from('#!/bin/sh\necho not an image\n'), 'photo.png');
    expect(r.status).toBe(400);
    expect(r.body.errorCode).toBe('AVATAR_INVALID');
    expect(r.body.message).toBe(
      'The avatar must be a PNG or JPG image: the content is not a PNG or JPG image',
    );
    const zh = await upload(tokens.dm!, Buffer.from('%PDF-1.4 not a photo'), 'photo.jpg', {}, 'zh_CN');
    expect(zh.body.message).toBe('头像须为 PNG 或 JPG 图片：文件内容不是 PNG 或 JPG 图片');
    // a real image of another type (WebP) is refused too, and so is a truncated JPEG
    const webp = await sharp({ create: { width: 10, height: 10, channels: 3, background: '#fff' } })
      .webp()
      .toBuffer();
    expect((await upload(tokens.dm!, webp)).body.errorCode).toBe('AVATAR_INVALID');
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
    const cut = await upload(tokens.dm!, jpeg.subarray(0, Math.floor(jpeg.length / 2)));
    expect(cut.body.errorCode).toBe('AVATAR_INVALID');
    expect(cut.body.message).toMatch(
      /^The avatar must be a PNG or JPG image: the image is (incomplete \(cut off\)|damaged)$/,
    );
    const [u] = await db().select().from(users).where(eq(users.id, ids.dm!));
    expect(u!.imgUrl).toBeNull();
    expect(await phoneOf(ids.dm!)).toBe(before);
    expect(await auditOf(ids.dm!, 'profile.avatar')).toHaveLength(0);
  });

  it('refuses an image over 2 MB, and anything far larger before reading it all', async () => {
    const big = await noisePng();
    expect(big.length).toBeGreaterThan(2 * 1024 * 1024);
    const r = await upload(tokens.dm!, big, 'big.png');
    expect(r.status).toBe(400);
    expect(r.body).toMatchObject({
      errorCode: 'AVATAR_TOO_LARGE',
      message: 'The avatar can be at most 2 MB',
    });
    // 3 MB that are no image: "not an image" (the size alone does not decide)
    const junk = Buffer.alloc(3 * 1024 * 1024, 7);
    expect((await upload(tokens.dm!, junk, 'junk.jpg')).body.errorCode).toBe('AVATAR_INVALID');
    // 9 MB: refused while streaming (too large, or the body limit)
    const huge = await upload(tokens.dm!, Buffer.alloc(9 * 1024 * 1024, 1), 'huge.jpg');
    expect([400, 413]).toContain(huge.status);
    expect(['AVATAR_TOO_LARGE', 'PAYLOAD_TOO_LARGE']).toContain(huge.body.errorCode);
  });

  it('refuses another user’s id and a request without a file', async () => {
    const png = await sharp({ create: { width: 10, height: 10, channels: 3, background: '#f00' } })
      .png()
      .toBuffer();
    const r = await upload(tokens.dm!, png, 'a.png', { id: String(ids.crc2) });
    expect(r.status).toBe(403);
    const [c2] = await db().select().from(users).where(eq(users.id, ids.crc2!));
    expect(c2!.imgUrl).toBeNull();
    const fd = new FormData();
    fd.append('id', String(ids.dm));
    const none = await s.api.post('/user/updateAvatar', { token: tokens.dm!, raw: { body: fd } });
    expect(none.status).toBe(400);
    expect(none.body.errorCode).toBe('VALIDATION');
    // not multipart at all
    expect((await post('/user/updateAvatar', tokens.dm!, {})).status).toBe(415);
  });

  it('serves only keys that are someone’s current avatar; removal stops serving it', async () => {
    // some other stored content (e.g. a source document) is not reachable through the avatar URL
    const { key } = await fileStoreOf(s.config).put(Buffer.from('a confidential document'));
    expect((await fetchAvatar(`/api/user/avatar?key=${key}`)).status).toBe(404);
    expect((await fetchAvatar('/api/user/avatar?key=../../etc/passwd')).status).toBe(400);
    const [u] = await db().select().from(users).where(eq(users.id, ids.pi!));
    const url = u!.imgUrl!;
    expect((await fetchAvatar(url)).status).toBe(200);
    const r = await post<{ imgUrl: string | null }>('/user/removeAvatar', tokens.pi!);
    expect(r.status).toBe(200);
    expect(r.body.data.imgUrl).toBeNull();
    expect((await fetchAvatar(url)).status).toBe(404);
    expect((await auditOf(ids.pi!, 'profile.avatarRemove'))[0]).toMatchObject({
      oldValue: url,
      newValue: null,
    });
    expect((await post('/user/removeAvatar', tokens.pi!, { id: ids.crc1! })).status).toBe(403);
  });
});

describe('phone change', () => {
  const send = (token: string, phone: string, language = 'en_US') =>
    post<Sent>('/passport/sendCode4BindPhone', token, { phone }, language);
  const change = (
    token: string,
    phone: string,
    code: string,
    extra: Record<string, number> = {},
    language = 'en_US',
  ) => post<{ phone: string }>('/user/changeBindPhone', token, { phone, code, ...extra }, language);

  it('sends a code to the new number through the outbox and binds the number with it; the code is stored hashed and never audited', async () => {
    const phone = freshPhone();
    const old = await phoneOf(ids.crc1!);
    const r = await send(tokens.crc1!, phone);
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    expect(r.body.data).toEqual({
      phone: `${phone.slice(0, 3)}****${phone.slice(-4)}`,
      expiresIn: SMS_CODE.ttlSeconds,
      resendIn: SMS_CODE.resendSeconds,
    });
    const code = await outboxCode(phone);
    const [msg] = await db().select().from(smsOutbox).where(eq(smsOutbox.phone, phone));
    expect(msg).toMatchObject({ template: 'bindPhone', language: 'en_US', userId: ids.crc1 });
    expect(msg!.body).toContain('expires in 5 minutes');
    // stored: a salted hash, no code
    const [row] = await db().select().from(phoneCodes).where(eq(phoneCodes.phone, phone));
    expect(row!.codeHash).toMatch(/^[0-9a-f]{64}$/);
    expect(JSON.stringify(row)).not.toContain(code);

    const ok = await change(tokens.crc1!, phone, code);
    expect(ok.status, JSON.stringify(ok.body)).toBe(200);
    expect(ok.body.data.phone).toBe(`${phone.slice(0, 3)}****${phone.slice(-4)}`);
    expect(await phoneOf(ids.crc1!)).toBe(phone);
    const info = await s.api.post<{ user: { phone: string } }>('/auth/user/pmsInfo', {
      token: tokens.crc1!,
      json: {},
    });
    expect(info.body.data.user.phone).toBe(phone);
    expect((await auditOf(ids.crc1!, 'phone.change'))[0]).toMatchObject({
      field: 'phone',
      oldValue: old,
      newValue: phone,
    });
    expect(await auditOf(ids.crc1!, 'phone.codeSent')).toHaveLength(1);

    // reused
    const again = await change(tokens.crc1!, phone, code);
    expect(again.status).toBe(400);
    expect(again.body).toMatchObject({
      errorCode: 'SMS_CODE_USED',
      message: 'This verification code has already been used; request a new one',
    });
    // the code appears in no audit row at all
    const all = await db().select().from(auditEvents);
    expect(all.some((a) => [a.oldValue, a.newValue, a.reason].some((v) => v?.includes(code)))).toBe(false);
    expect((await auditOf(ids.crc1!, 'phone.changeRefused'))[0]!.reason).toBe('code already used');
  });

  it('refuses a wrong code with the attempts left, and spends the code after 5 wrong entries', async () => {
    const phone = freshPhone();
    expect((await send(tokens.crc2!, phone)).status).toBe(200);
    const code = await outboxCode(phone);
    const wrong = code === '000000' ? '111111' : '000000';
    const w1 = await change(tokens.crc2!, phone, wrong);
    expect(w1.status).toBe(400);
    expect(w1.body).toMatchObject({
      errorCode: 'SMS_CODE_WRONG',
      message: 'The verification code is wrong (4 attempts left)',
    });
    const zh = await change(tokens.crc2!, phone, wrong, {}, 'zh_CN');
    expect(zh.body.message).toBe('验证码错误（还可尝试 3 次）');
    await change(tokens.crc2!, phone, wrong);
    await change(tokens.crc2!, phone, wrong);
    const w5 = await change(tokens.crc2!, phone, wrong);
    expect(w5.body.errorCode).toBe('SMS_CODE_LOCKED');
    // now even the right code is refused
    const right = await change(tokens.crc2!, phone, code);
    expect(right.body.errorCode).toBe('SMS_CODE_LOCKED');
    expect(await phoneOf(ids.crc2!)).not.toBe(phone);
    const refused = await auditOf(ids.crc2!, 'phone.changeRefused');
    expect(refused.map((a) => a.reason)).toEqual([
      'code spent by wrong entries',
      'wrong code (5/5); code spent',
      'wrong code (4/5)',
      'wrong code (3/5)',
      'wrong code (2/5)',
      'wrong code (1/5)',
    ]);
  });

  it('counts parallel guesses one by one: never more than 5 entries of one code', async () => {
    const phone = freshPhone();
    await age(3600, { userId: ids.crc2! });
    expect((await send(tokens.crc2!, phone)).status).toBe(200);
    const code = await outboxCode(phone);
    const guesses = Array.from({ length: 12 }, (_, i) =>
      String((Number(code) + i + 1) % 1_000_000).padStart(6, '0'),
    );
    const rs = await Promise.all(guesses.map((g) => change(tokens.crc2!, phone, g)));
    const codes = rs.map((r) => r.body.errorCode);
    expect(codes.filter((c) => c === 'SMS_CODE_WRONG')).toHaveLength(4);
    expect(codes.filter((c) => c === 'SMS_CODE_LOCKED')).toHaveLength(8);
    const [row] = await db().select().from(phoneCodes).where(eq(phoneCodes.phone, phone));
    expect(row).toMatchObject({ attempts: 5, endReason: 'locked' });
  });

  it('refuses an expired code, a code replaced by a newer one, and a number no code went to', async () => {
    const phone = freshPhone();
    await age(3600, { userId: ids.crc2! });
    await send(tokens.crc2!, phone);
    const code = await outboxCode(phone);
    await age(SMS_CODE.ttlSeconds + 1, { userId: ids.crc2! });
    const r = await change(tokens.crc2!, phone, code);
    expect(r.body).toMatchObject({
      errorCode: 'SMS_CODE_EXPIRED',
      message: 'The verification code has expired; request a new one',
    });
    // a newer code replaces the older: the older one no longer binds
    const p2 = freshPhone();
    await send(tokens.crc2!, p2);
    const c2 = await outboxCode(p2);
    await age(61, { userId: ids.crc2! });
    await send(tokens.crc2!, p2);
    const c3 = await outboxCode(p2);
    if (c2 !== c3) expect((await change(tokens.crc2!, p2, c2)).body.errorCode).toBe('SMS_CODE_WRONG');
    // the first number's code was replaced as well
    expect((await change(tokens.crc2!, phone, code)).body.errorCode).toBe('SMS_CODE_NONE');
    expect((await change(tokens.crc2!, freshPhone(), '123456')).body).toMatchObject({
      errorCode: 'SMS_CODE_NONE',
      message: 'No verification code was sent to this number; request one first',
    });
    expect((await change(tokens.crc2!, p2, c3)).status).toBe(200);
  });

  it('allows one code a minute per account and per number, and 10 a day', async () => {
    const phone = freshPhone();
    await age(3600, { userId: ids.dm! });
    expect((await send(tokens.dm!, phone)).status).toBe(200);
    const soon = await send(tokens.dm!, freshPhone());
    expect(soon.status).toBe(429);
    expect(soon.body.errorCode).toBe('SMS_CODE_TOO_SOON');
    expect(soon.body.message).toMatch(/^A code was sent less than a minute ago; try again in (59|60) s$/);
    // per number: another account asking for the same number at once
    const other = await send(tokens.cra!, phone, 'zh_CN');
    expect(other.status).toBe(429);
    expect(other.body.message).toMatch(/^验证码发送过于频繁，请 (59|60) 秒后再试$/);
    expect((await auditOf(ids.cra!, 'phone.codeRefused'))[0]!.reason).toBe('too soon (per number)');
    expect((await auditOf(ids.dm!, 'phone.codeRefused'))[0]!.reason).toBe('too soon (per account)');
    // a flood over a day: 10 codes, then no more
    for (let i = 1; i < SMS_CODE.perDay; i++) {
      await age(61, { userId: ids.dm! });
      expect((await send(tokens.dm!, freshPhone())).status, `code ${i + 1}`).toBe(200);
    }
    await age(61, { userId: ids.dm! });
    const flood = await send(tokens.dm!, freshPhone());
    expect(flood.status).toBe(429);
    expect(flood.body).toMatchObject({
      errorCode: 'SMS_CODE_DAILY_LIMIT',
      message: 'No more verification codes today (10 a day); try again tomorrow',
    });
    expect((await auditOf(ids.dm!, 'phone.codeSent')).length).toBe(SMS_CODE.perDay);
    // a day later the account may ask again
    await age(24 * 3600, { userId: ids.dm! });
    expect((await send(tokens.dm!, freshPhone())).status).toBe(200);
  });

  it('refuses a number bound to another account (when sending and when binding) and the own current number', async () => {
    const taken = await phoneOf(ids.cra!);
    await age(3600, { userId: ids.pi! });
    const r = await send(tokens.pi!, taken!);
    expect(r.status).toBe(409);
    expect(r.body).toMatchObject({
      errorCode: 'PHONE_TAKEN',
      message: 'This phone number is bound to another account',
    });
    expect(
      await db()
        .select()
        .from(smsOutbox)
        .where(and(eq(smsOutbox.phone, taken!), eq(smsOutbox.userId, ids.pi!))),
    ).toHaveLength(0);
    expect((await auditOf(ids.pi!, 'phone.codeRefused'))[0]!.reason).toBe('number bound to another account');
    // a mistyped number does not hold back the next request
    expect((await send(tokens.pi!, freshPhone())).status).toBe(200);
    const own = await send(tokens.pi!, (await phoneOf(ids.pi!))!);
    expect(own.body.errorCode).toBe('PHONE_SAME');

    // bound by someone else between the code and its use
    const contested = freshPhone();
    await age(3600, { userId: ids.pi! });
    expect((await send(tokens.pi!, contested)).status).toBe(200);
    const piCode = await outboxCode(contested);
    await age(61, { phone: contested });
    await age(3600, { userId: ids.cra! });
    expect((await send(tokens.cra!, contested)).status).toBe(200);
    expect((await change(tokens.cra!, contested, await outboxCode(contested))).status).toBe(200);
    const lost = await change(tokens.pi!, contested, piCode);
    expect(lost.status).toBe(409);
    expect(lost.body.errorCode).toBe('PHONE_TAKEN');
    expect(await phoneOf(ids.pi!)).not.toBe(contested);
  });

  it('refuses another user’s id, bad numbers and bad codes', async () => {
    const other = await change(tokens.pi!, freshPhone(), '123456', { id: ids.crc1! });
    expect(other.status).toBe(403);
    const badPhone = await send(tokens.pi!, '12345');
    expect(badPhone.status).toBe(400);
    expect(badPhone.body.detail?.[0]).toMatchObject({
      field: 'phone',
      message: 'must be a mainland-China mobile number (11 digits starting 13–19)',
    });
    const badCode = await change(tokens.pi!, freshPhone(), '12ab56');
    expect(badCode.status).toBe(400);
    expect(badCode.body.detail?.[0]).toMatchObject({ field: 'code', message: 'must be 6 digits' });
    // no token: 401
    expect((await s.api.post('/passport/sendCode4BindPhone', { form: { phone: freshPhone() } })).status).toBe(
      401,
    );
  });
});

describe('SMS outbox page', () => {
  type Page = {
    totalCount: number;
    provider: string;
    content: { id: number; phone: string; body: string; userName: string | null }[];
  };
  it('lists the outbox newest first, paged and filtered by number, for administrators only', async () => {
    const r = await s.api.get<Page>('/system/sms/outbox', {
      token: admin,
      query: { pageNumber: 1, pageSize: 50 },
    });
    expect(r.status).toBe(200);
    expect(r.body.data.provider).toBe('outbox');
    const total = await db().select({ id: smsOutbox.id }).from(smsOutbox);
    expect(r.body.data.totalCount).toBe(total.length);
    const rowIds = r.body.data.content.map((x) => x.id);
    expect(rowIds).toEqual([...rowIds].sort((a, b) => b - a));
    const one = r.body.data.content[0]!;
    const f = await s.api.get<Page>('/system/sms/outbox', { token: admin, query: { phone: one.phone } });
    expect(f.body.data.content.every((x) => x.phone === one.phone)).toBe(true);
    expect(f.body.data.content[0]!.userName).toBeTruthy();
    const prefix = await s.api.get<Page>('/system/sms/outbox', { token: admin, query: { phone: '1370000' } });
    expect(prefix.body.data.totalCount).toBe(total.length);
    expect(
      (await s.api.get('/system/sms/outbox', { token: admin, query: { phone: "1' or 1=1" } })).status,
    ).toBe(400);
    expect((await s.api.get('/system/sms/outbox', { token: admin, query: { pageSize: 7 } })).status).toBe(
      400,
    );
    expect((await s.api.get('/system/sms/outbox', { token: tokens.crc1! })).status).toBe(403);
  });
});

describe('HTTP SMS gateway', () => {
  interface Received {
    headers: http.IncomingHttpHeaders;
    body: Record<string, unknown>;
  }
  let gw: http.Server;
  let gwUrl: string;
  const received: Received[] = [];
  type Answer = (body: Record<string, unknown>) => { status: number; body: string };
  let answer: Answer = () => ({ status: 200, body: '{"id":"gw-1"}' });
  let g: TestServer;

  beforeAll(async () => {
    gw = http.createServer((req, res) => {
      let data = '';
      req.on('data', (c: Buffer) => (data += c.toString()));
      req.on('end', () => {
        const body = JSON.parse(data) as Record<string, unknown>;
        received.push({ headers: req.headers, body });
        const a = answer(body);
        res.writeHead(a.status, { 'content-type': 'application/json' }).end(a.body);
      });
    });
    await new Promise<void>((r) => gw.listen(0, '127.0.0.1', r));
    gwUrl = `http://127.0.0.1:${(gw.address() as AddressInfo).port}/sms/send`;
    g = await startTestServer({
      config: {
        sms: {
          kind: 'http',
          url: gwUrl,
          key: 'k-123',
          template: 'SMS_0001',
          sign: 'eSource',
          timeoutMs: 2000,
        },
      },
    });
  });
  afterAll(async () => {
    await g?.stop();
    await new Promise((r) => gw?.close(r));
  });

  it('posts the message to the gateway (key, template, sign, text) and keeps nothing in the outbox', async () => {
    const token = await g.api.login('crc1');
    const phone = '13912345678';
    const r = await g.api.post('/passport/sendCode4BindPhone', {
      token,
      form: { phone },
      headers: { language: 'zh_CN' },
    });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    expect(received).toHaveLength(1);
    const m = received[0]!;
    expect(m.headers.authorization).toBe('Bearer k-123');
    expect(m.body).toMatchObject({ phone, template: 'SMS_0001', sign: 'eSource', language: 'zh_CN' });
    const code = (m.body.params as { code: string }).code;
    expect(code).toMatch(/^\d{6}$/);
    expect(m.body.text).toContain(code);
    expect(m.body.text).toContain('5 分钟内有效');
    expect(await g.database.db.select().from(smsOutbox)).toHaveLength(0);
    expect(
      (await g.api.get<{ provider: string }>('/system/sms/outbox', { token: await g.api.login('admin') }))
        .body.data.provider,
    ).toBe('http');
    expect((await g.api.post('/user/changeBindPhone', { token, form: { phone, code } })).status).toBe(200);
  });

  it('answers a gateway failure with a translated reason; the undelivered code is void; audited without the code', async () => {
    const token = await g.api.login('crc2');
    const [me] = await g.database.db.select({ id: users.id }).from(users).where(eq(users.account, 'crc2'));
    answer = () => ({ status: 503, body: 'busy' });
    const r = await g.api.post('/passport/sendCode4BindPhone', {
      token,
      form: { phone: '13912340000' },
      headers: { language: 'en_US' },
    });
    expect(r.status).toBe(502);
    expect(r.body).toMatchObject({
      errorCode: 'SMS_SEND_FAILED',
      message: 'The text message could not be sent: the gateway answered HTTP 503',
    });
    const code = (received.at(-1)!.body.params as { code: string }).code;
    expect(
      (await g.api.post('/user/changeBindPhone', { token, form: { phone: '13912340000', code } })).body
        .errorCode,
    ).toBe('SMS_CODE_NONE');
    const [failed] = await g.database.db
      .select()
      .from(auditEvents)
      .where(and(eq(auditEvents.action, 'phone.codeFailed'), eq(auditEvents.entityId, String(me!.id))));
    expect(failed!.reason).toContain('status');
    // a refusal in the body, with the code blanked out of the reason
    await g.database.db.update(phoneCodes).set({ createdAt: sql`now() - interval '2 minutes'` });
    answer = (b) => ({
      status: 200,
      body: JSON.stringify({
        ok: false,
        error: `template rejected for ${(b.params as { code: string }).code}`,
      }),
    });
    const refused = await g.api.post('/passport/sendCode4BindPhone', {
      token,
      form: { phone: '13912340001' },
      headers: { language: 'en_US' },
    });
    const sentCode = (received.at(-1)!.body.params as { code: string }).code;
    expect(refused.status).toBe(502);
    expect(refused.body.message).toBe(
      'The text message could not be sent: the gateway refused it (template rejected for ******)',
    );
    expect(refused.body.message).not.toContain(sentCode);
    // an unreachable gateway
    await g.database.db.update(phoneCodes).set({ createdAt: sql`now() - interval '2 minutes'` });
    const closed = await new Promise<number>((res) => {
      const t = http.createServer();
      t.listen(0, '127.0.0.1', () => {
        const p = (t.address() as AddressInfo).port;
        t.close(() => res(p));
      });
    });
    const g2 = await startTestServer({
      config: {
        sms: {
          kind: 'http',
          url: `http://127.0.0.1:${closed}/x`,
          key: undefined,
          template: undefined,
          sign: undefined,
          timeoutMs: 1000,
        },
      },
    });
    try {
      const t2 = await g2.api.login('crc1');
      const u = await g2.api.post('/passport/sendCode4BindPhone', {
        token: t2,
        form: { phone: '13912340002' },
        headers: { language: 'en_US' },
      });
      expect(u.status).toBe(502);
      expect(u.body.message).toBe('The text message could not be sent: the gateway could not be reached');
    } finally {
      await g2.stop();
    }
    answer = () => ({ status: 200, body: '' });
  });
});

describe('housekeeping', () => {
  it('drops code rows past the daily limits and outbox messages past their week, nothing newer', async () => {
    const db = s.database.db;
    const [u] = await db.select({ id: users.id }).from(users).where(eq(users.account, 'pi'));
    const old = sql`now() - interval '3 days'`;
    const [oldCode] = await db
      .insert(phoneCodes)
      .values({ userId: u!.id, phone: '13900000091', salt: 'x', codeHash: 'y', expiresAt: old, createdAt: old })
      .returning({ id: phoneCodes.id });
    const [newCode] = await db
      .insert(phoneCodes)
      .values({ userId: u!.id, phone: '13900000092', salt: 'x', codeHash: 'y', expiresAt: sql`now()` })
      .returning({ id: phoneCodes.id });
    const week = sql`now() - interval '8 days'`;
    const [oldMsg] = await db
      .insert(smsOutbox)
      .values({ phone: '13900000091', template: 'bindPhone', body: 'old', language: 'en_US', createdAt: week })
      .returning({ id: smsOutbox.id });
    const [newMsg] = await db
      .insert(smsOutbox)
      .values({ phone: '13900000092', template: 'bindPhone', body: 'new', language: 'en_US' })
      .returning({ id: smsOutbox.id });
    const gone = await pruneSmsRows(db);
    expect(gone.codes).toBeGreaterThanOrEqual(1);
    expect(gone.outbox).toBeGreaterThanOrEqual(1);
    const codeIds = (await db.select({ id: phoneCodes.id }).from(phoneCodes)).map((r) => r.id);
    expect(codeIds).not.toContain(oldCode!.id);
    expect(codeIds).toContain(newCode!.id);
    const msgIds = (await db.select({ id: smsOutbox.id }).from(smsOutbox)).map((r) => r.id);
    expect(msgIds).not.toContain(oldMsg!.id);
    expect(msgIds).toContain(newMsg!.id);
    expect(await pruneSmsRows(db)).toEqual({ codes: 0, outbox: 0 });
  });
});

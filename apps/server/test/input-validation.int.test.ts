/**
 * Bad input answers 400 naming the field, in the caller's language, never 500 (security issue: "No 5xx on bad
 * input"): deep nesting, integers beyond int4, loose ids (booleans, '1e3'), NUL characters, impossible dates,
 * malformed headers and form bodies over the parser's limits.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { and, eq } from 'drizzle-orm';
import { sites } from '../src/db/schema';
import { startTestServer, type ApiResult, type TestServer } from './harness';

let s: TestServer;
let crc1: string;
let siteA: number;
const P = { proId: 1, proType: 'PRO' };

beforeAll(async () => {
  s = await startTestServer();
  const rows = await s.database.db.select().from(sites).where(and(eq(sites.projectId, 1), eq(sites.env, 'PRO')));
  siteA = rows.find((r) => r.siteNo === '01')!.id;
  crc1 = await s.api.login('crc1');
});
afterAll(async () => {
  await s?.stop();
});

/** 400 VALIDATION whose detail names `field`; returns the detail message. */
function expect400(r: ApiResult, field: string): string {
  expect(r.status, JSON.stringify(r.body).slice(0, 500)).toBe(400);
  expect(r.body).toMatchObject({ code: 400, status: '0', errorCode: 'VALIDATION' });
  expect(typeof r.body.requestId).toBe('string');
  const d = r.body.detail?.find((x) => x.field === field);
  expect(d, `detail naming ${field}: ${JSON.stringify(r.body.detail)}`).toBeTruthy();
  expect(r.body.message).toContain(field);
  return d!.message;
}

const deepArray = (n: number) => '['.repeat(n) + ']'.repeat(n);
const deepObject = (n: number) => '{"a":'.repeat(n) + '1' + '}'.repeat(n);

describe('deep nesting', () => {
  it('refuses a deeply nested JSON body on the login route (it overflowed the stack: 500)', async () => {
    for (const body of [deepArray(20_000), deepObject(20_000), `{"account":${deepArray(5_000)}}`]) {
      const zh = await s.api.post('/passport/login', { raw: { body, contentType: 'application/json' } });
      expect(expect400(zh, zh.body.detail?.[0]?.field ?? '?')).toBe('嵌套超过 32 层');
      const en = await s.api.post('/passport/login', { raw: { body, contentType: 'application/json' }, headers: { language: 'en_US' } });
      expect(en.body.detail?.[0]?.message).toBe('is nested more than 32 levels deep');
    }
    const named = await s.api.post('/passport/login', { raw: { body: `{"account":${deepArray(40)}}`, contentType: 'application/json' } });
    expect400(named, 'account.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0');
  });

  it('takes 32 levels, refuses 33', async () => {
    const ok = await s.api.post('/passport/login', { raw: { body: `{"account":"x","password":1,"x":${deepArray(31)}}`, contentType: 'application/json' } });
    expect(ok.body.detail?.some((d) => d.message.includes('32'))).toBeFalsy();
    const over = await s.api.post('/passport/login', { raw: { body: `{"account":"x","x":${deepArray(32)}}`, contentType: 'application/json' } });
    expect(over.status).toBe(400);
    expect(over.body.detail![0]!.field).toMatch(/^x(\.0){31}$/);
  });

  it('refuses form bodies nested too deep, with too many parameters or too long a list', async () => {
    const deep = await s.api.post('/passport/login', { raw: { body: `a${'[b]'.repeat(6)}=1`, contentType: 'application/x-www-form-urlencoded' }, headers: { language: 'en_US' } });
    expect(expect400(deep, 'body')).toBe('is nested more than 5 levels deep');
    const many = await s.api.post('/passport/login', { raw: { body: Array.from({ length: 20_001 }, (_, i) => `k${i}=1`).join('&'), contentType: 'application/x-www-form-urlencoded' } });
    expect(expect400(many, 'body')).toBe('参数过多（最多 20000 个）');
    const list = await s.api.post('/passport/login', { raw: { body: 'x=1&'.repeat(10_001), contentType: 'application/x-www-form-urlencoded' } });
    expect(expect400(list, 'body')).toBe('列表项过多（最多 10000 项）');
  });
});

describe('integers and ids', () => {
  it('refuses ids beyond int4 in bodies and queries (PostgreSQL refused them: 500)', async () => {
    const q = await s.api.get('/project/manage/getPtsByProIdAndPtsId', { token: crc1, headers: { ...P, language: 'en_US' }, query: { ptsId: '2147483648' } });
    expect(expect400(q, 'ptsId')).toBe('must be a whole-number id from 1 to 2147483647');
    const b = await s.api.post('/project/managePts/update', { token: crc1, headers: P, json: { ptsId: 2147483648, version: 1 } });
    expect(expect400(b, 'ptsId')).toBe('须为 1 到 2147483647 之间的整数 ID');
    const list = await s.api.post('/project/manage/ptsList', { token: crc1, headers: P, json: { pageNumber: 2 ** 40 } });
    expect400(list, 'pageNumber');
  });

  it('reads ids strictly: no booleans (true acted on record 1), exponents, hex, fractions or blanks', async () => {
    for (const bad of [true, 'true', '1e0', '0x1', '1.0', 1.5, '', '+1', '-1', 0, null, [1]]) {
      const r = await s.api.post('/project/managePts/update', { token: crc1, headers: P, json: { ptsId: bad, version: 1 } });
      expect400(r, 'ptsId');
    }
    const form = await s.api.get('/project/manage/getPtsByProIdAndPtsId', { token: crc1, headers: P, query: { ptsId: 'true' } });
    expect400(form, 'ptsId');
    // a form's digits still read as a number
    const fine = await s.api.get('/project/manage/getPtsByProIdAndPtsId', { token: crc1, headers: P, query: { ptsId: '2147483647' } });
    expect(fine.status).toBe(404);
  });

  it('refuses malformed id headers and proType, naming the header, even with a bad token (was 500)', async () => {
    for (const proId of ['2147483648', '99999999999999999999', 'true', '1e3', '0x10', '1.5', '-1', '0']) {
      const r = await s.api.post('/project/manage/ptsList', { token: 'not-a-session', headers: { proId, proType: 'PRO' } });
      expect(expect400(r, 'proId')).toBe('须为 1 到 2147483647 之间的整数 ID');
      expect(r.body.message).toBe('参数错误：请求头“proId”：须为 1 到 2147483647 之间的整数 ID');
    }
    const en = await s.api.post('/project/manage/ptsList', { token: crc1, headers: { ...P, proSiteId: '2147483648', language: 'en_US' } });
    expect(en.body.message).toBe("Invalid input: Header 'proSiteId': must be a whole-number id from 1 to 2147483647");
    expect400(await s.api.post('/project/manage/ptsList', { token: crc1, headers: { ...P, orgId: 'x' } }), 'orgId');
    expect400(await s.api.post('/project/manage/ptsList', { token: crc1, headers: { proId: 1, proType: 'QA' } }), 'proType');
    expect((await s.api.post('/project/manage/ptsList', { token: crc1, headers: { proId: 1, proType: 'pro' } })).status).toBe(200);
  });
});

describe('NUL characters', () => {
  it('refuses NUL in a body string, a key or a query, naming the field (PostgreSQL refused it: 500)', async () => {
    const add = await s.api.post('/project/managePts/add', { token: crc1, headers: P, json: { siteId: siteA, firstVisitDate: '2026-11-01', initials: 'A\u0000B' } });
    expect(expect400(add, 'initials')).toBe('不能包含空字符（\\u0000）');
    const form = await s.api.post('/project/managePts/add', { token: crc1, headers: { ...P, language: 'en_US' }, form: { siteId: siteA, firstVisitDate: '2026-11-01', initials: 'A\u0000' } });
    expect(expect400(form, 'initials')).toBe('must not contain the NUL character (\\u0000)');
    const login = await s.api.post('/passport/login', { json: { account: 'crc1\u0000', password: 'x', loginType: 3 } });
    expect400(login, 'account');
    const nested = await s.api.post('/passport/login', { json: { list: [{ ['k\u0000']: 1 }] } });
    expect400(nested, 'list.0.k\\u0000');
    const q = await s.api.post('/project/manage/ptsList', { token: crc1, headers: P, query: { keyword: 'a\u0000' } });
    expect400(q, 'keyword');
  });
});

describe('dates', () => {
  it('refuses impossible and out-of-range dates (2026-02-31 was stored as March 3rd; 0000-01-01 answered 500)', async () => {
    for (const d of ['2026-02-31', '2025-02-29', '0000-01-01', '1899-12-31', '2101-01-01', '2026-13-01', '2026-1-1']) {
      const add = await s.api.post('/project/managePts/add', { token: crc1, headers: P, form: { siteId: siteA, firstVisitDate: d } });
      expect(expect400(add, 'firstVisitDate')).toBe('须为 1900-01-01 至 2100-12-31 之间真实存在的日期（YYYY-MM-DD）');
      const list = await s.api.post('/project/manage/ptsList', { token: crc1, headers: P, form: { startDate: d } });
      expect400(list, 'startDate');
    }
    const leap = await s.api.post('/project/managePts/add', { token: crc1, headers: P, form: { siteId: siteA, firstVisitDate: '2024-02-29' } });
    expect(leap.status, JSON.stringify(leap.body)).toBe(200);
  });

  it('refuses impossible date-times in audit filters (0, true and 2026-02-31 were read as dates)', async () => {
    const admin = await s.api.login('admin');
    for (const t of ['2026-02-31', '0', 'true', '2026-02-28T25:00:00Z', '0000-01-01T00:00:00Z']) {
      const r = await s.api.post('/audit/log/v1/listByPage', { token: admin, form: { startTime: t } });
      expect400(r, 'startTime');
    }
    const ok = await s.api.post('/audit/log/v1/listByPage', { token: admin, form: { startTime: '2026-01-01T00:00:00.000Z', endTime: '2026-01-31' } });
    expect(ok.status).toBe(200);
  });
});

describe('messages from the catalogue', () => {
  it('answers bad JSON with the catalogue message in both languages (a guard: this already held)', async () => {
    const zh = await s.api.post('/passport/login', { raw: { body: '{"account":', contentType: 'application/json' } });
    expect(zh.body).toMatchObject({ code: 400, errorCode: 'BAD_JSON', message: '请求体不是有效的 JSON' });
    const en = await s.api.post('/passport/login', { raw: { body: '{nope', contentType: 'application/json' }, headers: { language: 'en_US' } });
    expect(en.body.message).toBe('The request body is not valid JSON');
  });

  it('gives a missing field and a wrong type in zh_CN (no English from zod)', async () => {
    const r = await s.api.post('/project/managePts/update', { token: crc1, headers: P, json: { version: 'x', siteId: {} } });
    expect(r.status).toBe(400);
    const texts = [r.body.message, ...r.body.detail!.map((d) => d.message)];
    for (const t of texts) expect(t).not.toMatch(/Invalid input|expected|received/);
    expect(r.body.detail!.find((d) => d.field === 'ptsId')!.message).toBe('必填');
  });

  it('names the page size rule from the catalogue', async () => {
    const r = await s.api.post('/project/manage/ptsList', { token: crc1, headers: { ...P, language: 'en_US' }, form: { pageSize: 77 } });
    expect(expect400(r, 'pageSize')).toBe('pageSize must be 50, 100 or 200');
    // it was an English literal in the schema, shown to zh_CN users as is
    const zh = await s.api.post('/project/manage/ptsList', { token: crc1, headers: P, form: { pageSize: 77 } });
    expect(expect400(zh, 'pageSize')).toBe('每页条数须为 50、100 或 200');
  });
});

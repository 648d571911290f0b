/**
 * System users (module 2): list, picker, detail, add, update, enable/disable, messages, and the Excel template,
 * import (all or nothing) and export, over real HTTP on the embedded PostgreSQL.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { and, asc, eq, sql } from 'drizzle-orm';
import ExcelJS from 'exceljs';
import { checkPasswordRules, USER_IMPORT_COLUMNS } from '@esource/shared';
import { auditEvents, departments, organizations, roles, sessions, users } from '../src/db/schema';
import { sha256Hex, startTestServer, type TestServer } from './harness';

let s: TestServer;
let admin: string;
const org: Record<'central' | 'a' | 'b', { id: number; name: string; deptId: number; deptName: string }> = {} as never;
let adminRoleId: number;
let dmRoleId: number;

const XLSX = 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet';

beforeAll(async () => {
  s = await startTestServer();
  admin = await s.api.login('admin');
  const db = s.database.db;
  for (const [key, code] of [
    ['central', 'CENTRAL'],
    ['a', 'DCH'],
    ['b', 'DUH'],
  ] as const) {
    const [o] = await db.select().from(organizations).where(eq(organizations.code, code));
    const [d] = await db.select().from(departments).where(eq(departments.orgId, o!.id)).orderBy(asc(departments.id)).limit(1);
    org[key] = { id: o!.id, name: o!.name, deptId: d!.id, deptName: d!.name };
  }
  adminRoleId = (await db.select().from(roles).where(eq(roles.code, 'ADMIN')))[0]!.id;
  dmRoleId = (await db.select().from(roles).where(eq(roles.code, 'DM')))[0]!.id;
});
afterAll(async () => {
  await s?.stop();
});

interface Row {
  id: number;
  account: string;
  name: string;
  phone: string | null;
  orgName: string | null;
  systemRoleCode: string | null;
  status: number;
  loginTypes: number[];
  lastLoginTime: string | null;
}
type Page = { pageNumber: number; pageSize: number; totalCount: number; content: Row[] };

const list = (query: Record<string, string | number> = {}, token = admin) => s.api.get<Page>('/auth/user/list', { token, query });

let seq = 0;
/** A valid new user as a form body. */
function newUser(over: Record<string, string | number | (string | number)[]> = {}) {
  seq += 1;
  return {
    account: `user.${seq}`,
    name: `Test User ${seq}`,
    phone: `139${String(10_000_000 + seq).slice(-8)}`,
    mail: `user${seq}@example.com`,
    idNumber: '11010519491231002X',
    orgId: org.a.id,
    deptId: org.a.deptId,
    loginTypes: [3],
    ...over,
  };
}

/** GET or POST with the raw bytes of the answer (downloads). */
async function download(path: string, token: string | null, headers: Record<string, string> = {}) {
  const res = await fetch(`${s.api.base}/api${path}`, { headers: { ...(token ? { token } : {}), ...headers } });
  return { res, buf: Buffer.from(await res.arrayBuffer()) };
}

async function readXlsx(buf: Buffer): Promise<ExcelJS.Workbook> {
  const wb = new ExcelJS.Workbook();
  await wb.xlsx.load(buf as unknown as Parameters<typeof wb.xlsx.load>[0]);
  return wb;
}

function sheetValues(ws: ExcelJS.Worksheet): string[][] {
  const out: string[][] = [];
  ws.eachRow((row) => {
    const vals = (row.values as unknown[]).slice(1).map((v) => (v === null || v === undefined ? '' : typeof v === 'string' ? v : JSON.stringify(v)));
    out.push(vals);
  });
  return out;
}

/** An .xlsx with the given header and rows. */
async function workbook(headers: string[], rows: (string | number)[][]): Promise<Buffer> {
  const wb = new ExcelJS.Workbook();
  const ws = wb.addWorksheet('Users');
  ws.addRow(headers);
  for (const r of rows) ws.addRow(r);
  return Buffer.from(await wb.xlsx.writeBuffer());
}

function upload(buf: Buffer, name = 'users.xlsx', headers: Record<string, string> = {}, token = admin) {
  const fd = new FormData();
  fd.append('file', new Blob([buf], { type: XLSX }), name);
  return s.api.post<{ imported: number; users: { account: string; initialPassword: string }[] }>('/user/importExcel', {
    token,
    headers,
    raw: { body: fd },
  });
}

const userCount = async () => (await s.database.db.select({ n: sql<number>`count(*)::int` }).from(users))[0]!.n;

describe('user list', () => {
  it('pages the users with names of organisation, role and group, and never the password hash', async () => {
    const r = await list();
    expect(r.status).toBe(200);
    expect(r.body.data).toMatchObject({ pageNumber: 1, pageSize: 50, totalCount: 7 });
    const a = r.body.data.content.find((x) => x.account === 'admin')!;
    expect(a).toMatchObject({ orgName: 'eSource Central Office', systemRoleCode: 'ADMIN', status: 1, loginTypes: [1] });
    expect(a.lastLoginTime).toBeTruthy();
    const text = JSON.stringify(r.body);
    expect(text).not.toContain('argon2');
    expect(text).not.toMatch(/passwordHash/);
  });

  it('filters by keyword (account, name, phone), status, organisation and login type', async () => {
    expect((await list({ keyword: 'crc' })).body.data.content.map((x) => x.account).sort()).toEqual(['crc1', 'crc2']);
    expect((await list({ keyword: 'Investigator' })).body.data.content.map((x) => x.account)).toEqual(['pi']);
    expect((await list({ keyword: '13800000005' })).body.data.content.map((x) => x.account)).toEqual(['crc2']);
    // LIKE wildcards are searched for literally
    expect((await list({ keyword: '%' })).body.data.totalCount).toBe(0);
    expect((await list({ keyword: '_' })).body.data.totalCount).toBe(0);
    expect((await list({ orgId: org.a.id })).body.data.content.map((x) => x.account).sort()).toEqual(['crc1', 'pi']);
    expect((await list({ loginType: 3 })).body.data.content.map((x) => x.account).sort()).toEqual(['crc1', 'crc2', 'pi']);
    expect((await list({ status: 0 })).body.data.totalCount).toBe(0);
    expect((await list({ status: 1, keyword: '', orgId: '' })).body.data.totalCount).toBe(7);
  });

  it('sorts by the chosen field and order', async () => {
    const asc1 = (await list({ sortField: 'account', sortOrder: 'asc' })).body.data.content.map((x) => x.account);
    expect(asc1).toEqual(['admin', 'ae', 'cra', 'crc1', 'crc2', 'dm', 'pi']);
    const desc1 = (await list({ sortField: 'account', sortOrder: 'descend' })).body.data.content.map((x) => x.account);
    expect(desc1).toEqual([...asc1].reverse());
    const byOrg = (await list({ sortField: 'orgName', sortOrder: 'asc' })).body.data.content.map((x) => x.orgName);
    expect(byOrg).toEqual([...byOrg].sort());
  });

  it('refuses a page size outside 50/100/200 and an unknown sort field, naming the field', async () => {
    const r = await list({ pageSize: 20 });
    expect(r.status).toBe(400);
    expect(r.body.detail![0]!.field).toBe('pageSize');
    const r2 = await list({ sortField: 'passwordHash' });
    expect(r2.status).toBe(400);
    expect(r2.body.detail![0]!.field).toBe('sortField');
  });

  it('offers a small picker list of enabled users', async () => {
    const r = await s.api.get<{ id: number; account: string; name: string; orgName: string | null }[]>('/auth/user/listByKeyWords', {
      token: admin,
      query: { keyword: 'c', limit: 2 },
    });
    expect(r.status).toBe(200);
    expect(r.body.data).toHaveLength(2);
    expect(Object.keys(r.body.data[0]!).sort()).toEqual(['account', 'id', 'name', 'orgName']);
    const over = await s.api.get('/auth/user/listByKeyWords', { token: admin, query: { limit: 51 } });
    expect(over.status).toBe(400);
  });
});

describe('user detail', () => {
  it('answers one user, and a 404 envelope for an unknown id', async () => {
    const [pi] = await s.database.db.select().from(users).where(eq(users.account, 'pi'));
    const r = await s.api.get<Row & { idNumber: string | null }>('/user/detail', { token: admin, query: { id: pi!.id } });
    expect(r.status).toBe(200);
    expect(r.body.data).toMatchObject({ id: pi!.id, account: 'pi', orgName: 'Demo City Hospital' });
    expect(JSON.stringify(r.body)).not.toContain('argon2');
    const missing = await s.api.get('/user/detail', { token: admin, query: { id: 999_999 }, headers: { language: 'en_US' } });
    expect(missing.status).toBe(404);
    expect(missing.body).toMatchObject({ code: 404, status: '0', errorCode: 'NOT_FOUND', message: 'User not found' });
  });
});

describe('adding a user', () => {
  it('creates the user with a generated initial password that logs in and must be changed', async () => {
    const body = newUser({ account: 'new.crc', loginTypes: [3] });
    const r = await s.api.post<{ id: number; account: string; initialPassword: string }>('/system/user/add', { token: admin, form: body });
    expect(r.status).toBe(200);
    expect(r.body.data.account).toBe('new.crc');
    const pw = r.body.data.initialPassword;
    expect(checkPasswordRules(pw)).toBeNull();
    const [u] = await s.database.db.select().from(users).where(eq(users.id, r.body.data.id));
    expect(u).toMatchObject({ account: 'new.crc', status: 1, passwordChangedAt: null, orgId: org.a.id, deptId: org.a.deptId, loginTypes: [3] });
    expect(u!.passwordHash).not.toContain(pw);
    const login = await s.api.post<{ passwordChangeDue: boolean }>('/passport/login', {
      form: { account: 'new.crc', password: sha256Hex(pw), loginType: 3 },
    });
    expect(login.status).toBe(200);
    expect(login.body.data.passwordChangeDue).toBe(true);
    const audit = await s.database.db
      .select()
      .from(auditEvents)
      .where(and(eq(auditEvents.action, 'user.add'), eq(auditEvents.entityId, String(u!.id))));
    const byField = Object.fromEntries(audit.map((a) => [a.field, a.newValue]));
    expect(byField).toMatchObject({ account: 'new.crc', phone: body.phone, orgId: String(org.a.id), loginTypes: '[3]', status: '1' });
    expect(audit.every((a) => a.userName === 'System Admin' && a.oldValue === null)).toBe(true);
    expect(JSON.stringify(audit)).not.toContain(pw);
  });

  const cases: { name: string; body: Record<string, unknown>; field: string; zh: RegExp; en: RegExp }[] = [
    { name: 'account of 51 characters', body: { account: 'a'.repeat(51) }, field: 'account', zh: /50/, en: /50/ },
    { name: 'bad phone', body: { phone: '12345678901' }, field: 'phone', zh: /手机号/, en: /mobile number/ },
    { name: 'bad mail', body: { mail: 'not-a-mail' }, field: 'mail', zh: /邮箱/, en: /email/ },
    { name: 'bad ID checksum', body: { idNumber: '110105194912310021' }, field: 'idNumber', zh: /校验位/, en: /check digit/ },
    { name: 'no login type', body: { loginTypes: '' }, field: 'loginTypes', zh: /登录类型/, en: /login type/ },
  ];
  for (const c of cases) {
    it(`refuses a ${c.name}, naming the field, in zh_CN and en_US`, async () => {
      for (const [language, re] of [
        ['zh_CN', c.zh],
        ['en_US', c.en],
      ] as const) {
        const before = await userCount();
        const r = await s.api.post('/system/user/add', { token: admin, headers: { language }, json: newUser(c.body as never) });
        expect(r.status, language).toBe(400);
        expect(r.body.errorCode).toBe('VALIDATION');
        const d = r.body.detail!.find((x) => x.field === c.field);
        expect(d, JSON.stringify(r.body.detail)).toBeTruthy();
        expect(d!.message, language).toMatch(re);
        expect(r.body.message).toContain(c.field);
        expect(await userCount()).toBe(before);
      }
    });
  }

  it('refuses an unknown organisation, a department of another organisation and a project role, in zh_CN and en_US', async () => {
    const unknownOrg = await s.api.post('/system/user/add', { token: admin, headers: { language: 'en_US' }, form: newUser({ orgId: 99_999 }) });
    expect(unknownOrg.status).toBe(400);
    expect(unknownOrg.body.errorCode).toBe('INVALID_REFERENCE');
    expect(unknownOrg.body.detail).toContainEqual({ field: 'orgId', message: 'no such organisation' });
    const zh = await s.api.post('/system/user/add', { token: admin, form: newUser({ orgId: 99_999 }) });
    expect(zh.body.detail).toContainEqual({ field: 'orgId', message: '机构不存在' });

    const otherDept = await s.api.post('/system/user/add', {
      token: admin,
      headers: { language: 'en_US' },
      form: newUser({ orgId: org.a.id, deptId: org.b.deptId }),
    });
    expect(otherDept.status).toBe(400);
    expect(otherDept.body.detail).toContainEqual({ field: 'deptId', message: 'the department does not belong to the organisation' });
    const otherDeptZh = await s.api.post('/system/user/add', { token: admin, form: newUser({ orgId: org.a.id, deptId: org.b.deptId }) });
    expect(otherDeptZh.body.detail).toContainEqual({ field: 'deptId', message: '科室不属于该机构' });

    const projectRole = await s.api.post('/system/user/add', { token: admin, form: newUser({ systemRoleId: dmRoleId }) });
    expect(projectRole.status).toBe(400);
    expect(projectRole.body.detail![0]!.field).toBe('systemRoleId');
  });

  it('refuses an account that exists in any letter case, naming the account', async () => {
    const before = await userCount();
    const r = await s.api.post('/system/user/add', { token: admin, headers: { language: 'en_US' }, form: newUser({ account: 'ADMIN' }) });
    expect(r.status).toBe(409);
    expect(r.body.errorCode).toBe('DUPLICATE');
    expect(r.body.message).toBe("Account 'ADMIN' already exists");
    expect(r.body.detail).toEqual([{ field: 'account', message: 'the account already exists' }]);
    const zh = await s.api.post('/system/user/add', { token: admin, form: newUser({ account: 'Admin' }) });
    expect(zh.body.detail).toEqual([{ field: 'account', message: '账号已存在' }]);
    expect(await userCount()).toBe(before);
  });

  it('accepts a system role and a permission group', async () => {
    const r = await s.api.post<{ id: number }>('/system/user/add', { token: admin, form: newUser({ systemRoleId: adminRoleId, permissionGroupId: 1, loginTypes: [1, 2] }) });
    expect(r.status).toBe(200);
    const d = await s.api.get<Row & { permissionGroupName: string }>('/user/detail', { token: admin, query: { id: r.body.data.id } });
    expect(d.body.data).toMatchObject({ systemRoleCode: 'ADMIN', permissionGroupName: 'Default', loginTypes: [1, 2] });
  });
});

describe('updating a user', () => {
  it('writes an audit row per changed field with the old and the new value', async () => {
    const body = newUser();
    const added = await s.api.post<{ id: number }>('/system/user/add', { token: admin, form: body });
    const id = added.body.data.id;
    const r = await s.api.post<{ phone: string; orgName: string; updateTime: string }>('/system/user/update', {
      token: admin,
      form: { ...body, account: 'ignored', id, phone: '13711112222', orgId: org.b.id, deptId: org.b.deptId, mail: '' },
    });
    expect(r.status).toBe(200);
    expect(r.body.data).toMatchObject({ phone: '13711112222', orgName: 'Demo University Hospital' });
    const rows = await s.database.db
      .select()
      .from(auditEvents)
      .where(and(eq(auditEvents.action, 'user.update'), eq(auditEvents.entityId, String(id))));
    const changes = Object.fromEntries(rows.map((a) => [a.field, [a.oldValue, a.newValue]]));
    expect(changes).toEqual({
      phone: [body.phone, '13711112222'],
      mail: [body.mail, null],
      orgId: [String(org.a.id), String(org.b.id)],
      deptId: [String(org.a.deptId), String(org.b.deptId)],
    });
    // the account is not changed by an update
    const [u] = await s.database.db.select().from(users).where(eq(users.id, id));
    expect(u!.account).toBe(body.account);

    // the same values again: nothing changes, nothing is audited
    const again = await s.api.post('/system/user/update', {
      token: admin,
      form: { ...body, id, phone: '13711112222', orgId: org.b.id, deptId: org.b.deptId, mail: '' },
    });
    expect(again.status).toBe(200);
    const after = await s.database.db
      .select()
      .from(auditEvents)
      .where(and(eq(auditEvents.action, 'user.update'), eq(auditEvents.entityId, String(id))));
    expect(after).toHaveLength(rows.length);

    // an editor holding an older version is refused
    const stale = await s.api.post('/system/user/update', {
      token: admin,
      form: { ...body, id, name: 'Someone Else', updateTime: '2020-01-01T00:00:00.000Z' },
    });
    expect(stale.status).toBe(409);
    expect(stale.body.errorCode).toBe('STALE_WRITE');
    const fresh = await s.api.post('/system/user/update', { token: admin, form: { ...body, id, name: 'Renamed', updateTime: r.body.data.updateTime } });
    expect(fresh.status).toBe(200);
  });

  it('answers 404 for an unknown user and validates like add', async () => {
    const r = await s.api.post('/system/user/update', { token: admin, form: { ...newUser(), id: 999_999 } });
    expect(r.status).toBe(404);
    const bad = await s.api.post('/system/user/update', { token: admin, form: { ...newUser({ phone: '123' }), id: 1 } });
    expect(bad.status).toBe(400);
    expect(bad.body.detail![0]!.field).toBe('phone');
  });
});

describe('enabling and disabling', () => {
  it("disabling ends the user's sessions at once and refuses their login; enabling lets them in again", async () => {
    const crc = await s.api.login('crc2');
    expect((await s.api.post('/auth/user/pmsInfo', { token: crc, json: {} })).status).toBe(200);
    const [u] = await s.database.db.select().from(users).where(eq(users.account, 'crc2'));
    const r = await s.api.post<{ endedSessions: number }>('/system/user/status/update', {
      token: admin,
      form: { id: u!.id, status: 0, reason: 'left the study' },
    });
    expect(r.status).toBe(200);
    expect(r.body.data.endedSessions).toBeGreaterThanOrEqual(1);
    const after = await s.api.post('/auth/user/pmsInfo', { token: crc, json: {} });
    expect(after.status).toBe(401);
    const open = await s.database.db.select().from(sessions).where(eq(sessions.userId, u!.id));
    expect(open.every((x) => x.endedAt !== null)).toBe(true);
    expect(open.some((x) => x.endReason === 'disabled')).toBe(true);
    const login = await s.api.post('/passport/login', { form: { account: 'crc2', password: sha256Hex('Demo@123456'), loginType: 3 } });
    expect(login.status).toBe(403);
    expect(login.body.errorCode).toBe('ACCOUNT_DISABLED');
    const [audit] = await s.database.db
      .select()
      .from(auditEvents)
      .where(and(eq(auditEvents.action, 'user.status'), eq(auditEvents.entityId, String(u!.id))));
    expect(audit).toMatchObject({ field: 'status', oldValue: '1', newValue: '0', reason: 'left the study' });
    expect((await list({ status: 0 })).body.data.content.map((x) => x.account)).toEqual(['crc2']);

    await s.api.post('/system/user/status/update', { token: admin, form: { id: u!.id, status: 1, reason: 'back' } });
    expect(await s.api.login('crc2')).toBeTruthy();
  });

  it('refuses an administrator disabling themself, and a missing reason', async () => {
    const [me] = await s.database.db.select().from(users).where(eq(users.account, 'admin'));
    const r = await s.api.post('/system/user/status/update', { token: admin, headers: { language: 'en_US' }, form: { id: me!.id, status: 0, reason: 'x' } });
    expect(r.status).toBe(400);
    expect(r.body.detail).toEqual([{ field: 'id', message: 'you cannot disable your own account' }]);
    const noReason = await s.api.post('/system/user/status/update', { token: admin, form: { id: me!.id, status: 1 } });
    expect(noReason.status).toBe(400);
    expect(noReason.body.detail![0]!.field).toBe('reason');
  });
});

describe('messages', () => {
  it('sends a message that shows in the recipient badge', async () => {
    const [cra] = await s.database.db.select().from(users).where(eq(users.account, 'cra'));
    const token = await s.api.login('cra');
    const before = await s.api.post<{ unread: number }>('/message/manager/badgeInfo', { token });
    const r = await s.api.post<{ sent: number }>('/system/user/sendMessage', {
      token: admin,
      form: { userIds: [cra!.id], title: 'Monitoring visit', content: 'Please confirm the date.' },
    });
    expect(r.status).toBe(200);
    expect(r.body.data.sent).toBe(1);
    const after = await s.api.post<{ unread: number }>('/message/manager/badgeInfo', { token });
    expect(after.body.data.unread).toBe(before.body.data.unread + 1);
    const unknown = await s.api.post('/system/user/sendMessage', { token: admin, form: { userIds: [999_999], title: 'x' } });
    expect(unknown.status).toBe(400);
    expect(unknown.body.detail![0]!.field).toBe('userIds');
  });
});

describe('permissions', () => {
  it('refuses users without system:user:* permissions with 403', async () => {
    for (const account of ['dm', 'crc1']) {
      const token = await s.api.login(account);
      expect((await list({}, token)).status, account).toBe(403);
      expect((await s.api.post('/system/user/add', { token, form: newUser() })).status, account).toBe(403);
      expect((await s.api.post('/system/user/status/update', { token, form: { id: 1, status: 0, reason: 'x' } })).status).toBe(403);
      expect((await download('/system/user/export', token)).res.status).toBe(403);
      expect((await download('/templates/downloadTemplate?type=user', token)).res.status).toBe(403);
      expect((await upload(await workbook(['account'], [['x']]), 'u.xlsx', {}, token)).status).toBe(403);
    }
    // a project role never opens the system screens, even inside the project
    const dm = await s.api.login('dm');
    expect((await s.api.get('/auth/user/list', { token: dm, headers: { proId: 1, proType: 'PRO' } })).status).toBe(403);
    expect((await s.api.get('/auth/user/list')).status).toBe(401);
  });
});

describe('Excel template, import and export', () => {
  it('downloads the template as .xlsx with headers in the request language and an example row', async () => {
    const { res, buf } = await download('/templates/downloadTemplate?type=user', admin);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe(XLSX);
    expect(res.headers.get('content-disposition')).toMatch(/^attachment; filename="[^"]+\.xlsx"; filename\*=UTF-8''.+\.xlsx$/);
    expect(decodeURIComponent(res.headers.get('content-disposition')!.split("UTF-8''")[1]!)).toBe('用户导入模板.xlsx');
    const wb = await readXlsx(buf);
    const rows = sheetValues(wb.worksheets[0]!);
    expect(rows[0]).toEqual(['账号', '姓名', '手机号', '邮箱', '身份证号', '机构', '科室', '登录类型', '系统角色', '权限组']);
    expect(rows[1]![0]).toBe('zhang.san');
    expect(wb.worksheets[1]!.name).toBe('填写说明');

    const en = await download('/templates/downloadTemplate?type=user', admin, { language: 'en_US' });
    const enRows = sheetValues((await readXlsx(en.buf)).worksheets[0]!);
    expect(enRows[0]).toEqual(['Account', 'Name', 'Mobile phone', 'Email', 'ID number', 'Organisation', 'Department', 'Login types', 'System role', 'Permission group']);
    expect((await download('/templates/downloadTemplate?type=other', admin)).res.status).toBe(400);
  });

  it('the template filled in imports as it is', async () => {
    const { buf } = await download('/templates/downloadTemplate?type=user', admin, { language: 'en_US' });
    const r = await upload(buf);
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    expect(r.body.data.users.map((u) => u.account)).toEqual(['zhang.san']);
  });

  it('imports nothing from a file with bad rows, and names every bad row and field', async () => {
    const before = await userCount();
    const auditBefore = (await s.database.db.select({ n: sql<number>`count(*)::int` }).from(auditEvents))[0]!.n;
    const zhHeaders = ['账号', '姓名', '手机号', '邮箱', '身份证号', '机构', '科室', '登录类型', '系统角色', '权限组'];
    const buf = await workbook(zhHeaders, [
      ['good.one', 'Good One', '13900000001', 'good1@example.com', '', org.a.name, org.a.deptName, '3', '', ''],
      ['bad.phone', 'Bad Phone', '1234', '', '', org.a.name, '', '3', '', ''],
      ['good.two', 'Good Two', '13900000002', '', '', 'DUH', '', '1,2', 'CENTRE', 'Default'],
      ['GOOD.ONE', 'Dup In File', '13900000003', '', '', org.a.name, '', '3', '', ''],
      ['crc1', 'Existing', '13900000004', 'bad-mail', '110105194912310021', 'No Such Hospital', 'Cardiology', '7', 'DM', 'Nope'],
    ]);
    const r = await upload(buf, 'anything.bin', { language: 'en_US' });
    expect(r.status).toBe(400);
    expect(r.body.errorCode).toBe('VALIDATION');
    const fields = r.body.detail!.map((d) => d.field);
    expect(fields).toContain('row 3: phone');
    expect(fields).toContain('row 5: account');
    expect(r.body.detail).toContainEqual({ field: 'row 5: account', message: 'the account also appears in row 2' });
    for (const f of ['account', 'mail', 'idNumber', 'orgName', 'loginTypes', 'systemRoleCode', 'permissionGroupName']) {
      expect(fields, f).toContain(`row 6: ${f}`);
    }
    expect(r.body.detail).toContainEqual({ field: 'row 6: account', message: 'the account already exists' });
    expect(fields.some((f) => f.startsWith('row 2:') || f.startsWith('row 4:'))).toBe(false);
    expect(r.body.message).toContain('row 3: phone');
    // nothing was written: no user, no audit row
    expect(await userCount()).toBe(before);
    expect((await s.database.db.select({ n: sql<number>`count(*)::int` }).from(auditEvents))[0]!.n).toBe(auditBefore);

    const zh = await upload(buf);
    expect(zh.body.detail).toContainEqual({ field: 'row 3: phone', message: '须为中国大陆手机号（以 13–19 开头的 11 位数字）' });
  });

  it('refuses a file that is not an .xlsx whatever its name, an empty sheet and a sheet without the columns', async () => {
    const notXlsx = await upload(Buffer.from('account,name\nx,y\n'), 'users.xlsx', { language: 'en_US' });
    expect(notXlsx.status).toBe(400);
    expect(notXlsx.body.detail).toEqual([{ field: 'file', message: 'the file is not an Excel workbook (.xlsx)' }]);
    const empty = await upload(await workbook(['Account', 'Name', 'Mobile phone', 'Organisation', 'Login types'], []), 'e.xlsx', { language: 'en_US' });
    expect(empty.body.detail).toEqual([{ field: 'file', message: 'the file holds no user rows' }]);
    const noCols = await upload(await workbook(['Account', 'Name'], [['a', 'b']]), 'c.xlsx', { language: 'en_US' });
    expect(noCols.status).toBe(400);
    expect(noCols.body.detail![0]!.message).toMatch(/Mobile phone/);
    const form = await s.api.post('/user/importExcel', { token: admin, form: { a: 1 } });
    expect(form.status).toBe(415);
  });

  it('refuses more than 1000 rows at once, before checking them', async () => {
    const rows = Array.from({ length: 1001 }, (_, i) => [`many.${i}`, 'Many', '13900000000', 'DCH', '3']);
    const r = await upload(await workbook(['account', 'name', 'phone', 'orgName', 'loginTypes'], rows), 'm.xlsx', { language: 'en_US' });
    expect(r.status).toBe(400);
    expect(r.body.detail).toEqual([{ field: 'file', message: 'at most 1000 rows can be imported at once' }]);
  });

  it('refuses a file over 5 MB', async () => {
    const r = await upload(Buffer.alloc(5 * 1024 * 1024 + 10, 1), 'big.xlsx');
    expect(r.status, JSON.stringify(r.body)).toBe(413);
    expect(r.body.errorCode).toBe('PAYLOAD_TOO_LARGE');
  });

  it('imports a good file in one go, each user with an initial password that logs in', async () => {
    const before = await userCount();
    const rows: (string | number)[][] = [];
    for (let i = 0; i < 55; i++) {
      rows.push([`bulk.${i}`, `Bulk ${i}`, 13600000000 + i, `bulk${i}@example.com`, '', i % 2 ? 'DCH' : org.b.name, '', i % 3 ? '3' : '1，2', '', '']);
    }
    const r = await upload(await workbook([...USER_IMPORT_COLUMNS], rows));
    expect(r.status, JSON.stringify(r.body.detail?.slice(0, 3))).toBe(200);
    expect(r.body.data.imported).toBe(55);
    expect(r.body.data.users).toHaveLength(55);
    expect(await userCount()).toBe(before + 55);
    const first = r.body.data.users[0]!;
    expect(checkPasswordRules(first.initialPassword)).toBeNull();
    const login = await s.api.post('/passport/login', { form: { account: first.account, password: sha256Hex(first.initialPassword), loginType: 1 } });
    expect(login.status).toBe(200);
    const [b1] = await s.database.db.select().from(users).where(eq(users.account, 'bulk.1'));
    expect(b1).toMatchObject({ orgId: org.a.id, loginTypes: [3], phone: '13600000001', passwordChangedAt: null });
    const audit = await s.database.db
      .select()
      .from(auditEvents)
      .where(and(eq(auditEvents.action, 'user.add'), eq(auditEvents.entityId, String(b1!.id))));
    expect(audit.find((a) => a.field === 'account')).toMatchObject({ newValue: 'bulk.1', reason: 'import' });

    // with more than a page of users, the second page holds the rest
    const total = (await list()).body.data.totalCount;
    expect(total).toBeGreaterThan(50);
    const p2 = await list({ pageNumber: 2, sortField: 'account', sortOrder: 'asc' });
    expect(p2.body.data.content).toHaveLength(total - 50);
    const p1 = await list({ pageNumber: 1, sortField: 'account', sortOrder: 'asc' });
    const ids = new Set([...p1.body.data.content, ...p2.body.data.content].map((x) => x.id));
    expect(ids.size).toBe(total);
  });

  it('exports the filtered list as .xlsx whose rows match the list', async () => {
    const query = { keyword: 'bulk.1', orgId: org.a.id, sortField: 'account', sortOrder: 'asc' };
    const listed = (await list(query)).body.data.content;
    expect(listed.length).toBeGreaterThan(1);
    const qs = new URLSearchParams(Object.entries(query).map(([k, v]): [string, string] => [k, String(v)])).toString();
    const { res, buf } = await download(`/system/user/export?${qs}`, admin, { language: 'en_US' });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe(XLSX);
    expect(res.headers.get('content-disposition')).toMatch(/attachment; filename="users-\d{8}-\d{4}\.xlsx"/);
    const rows = sheetValues((await readXlsx(buf)).worksheets[0]!);
    expect(rows[0]!.slice(0, 3)).toEqual(['Account', 'Name', 'Mobile phone']);
    expect(rows[0]).toContain('Status');
    expect(rows.slice(1).map((r) => r[0])).toEqual(listed.map((x) => x.account));
    expect(rows.slice(1).map((r) => r[2])).toEqual(listed.map((x) => x.phone));
    expect(rows.slice(1).every((r) => r.includes('Enabled') && r.includes('Demo City Hospital'))).toBe(true);
    const [audit] = await s.database.db.select().from(auditEvents).where(eq(auditEvents.action, 'user.export'));
    expect(audit!.newValue).toBe(String(listed.length));

    const zh = await download('/system/user/export?status=0', admin);
    const zhRows = sheetValues((await readXlsx(zh.buf)).worksheets[0]!);
    expect(zhRows[0]![0]).toBe('账号');
    expect(zhRows).toHaveLength(1);
  });
});

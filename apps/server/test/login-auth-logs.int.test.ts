/**
 * Issue 15 item 4: entering and leaving a project in the login log (spec §7 /audit/log/login/inProInfo and
 * outProInfo), and the authorisation log (/auth/log/page, exportExcel): who changed roles, permissions, permission
 * groups and memberships, old and new.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { and, asc, eq } from 'drizzle-orm';
import ExcelJS from 'exceljs';
import { auditEvents, departments, organizations, projectMembers, roles, users } from '../src/db/schema';
import { DEMO_PROJECT_ID, startTestServer, type TestServer } from './harness';

let s: TestServer;
let admin: string;
const P = { proId: DEMO_PROJECT_ID, proType: 'PRO' };

type Row = { action: string; userName: string | null; projectId: number | null; env: string | null; field: string | null; oldValue: string | null; newValue: string | null; display: { event: string } };
type Page = { totalCount: number; content: Row[] };

beforeAll(async () => {
  s = await startTestServer();
  admin = await s.api.login('admin');
});
afterAll(async () => {
  await s.stop();
});

const events = (action: string) => s.database.db.select().from(auditEvents).where(eq(auditEvents.action, action));

describe('login log: entering and leaving a project', () => {
  it('records an entry and a departure of the caller, with the project and environment, shown in the login log', async () => {
    const crc = await s.api.login('crc1');
    const enter = await s.api.post('/audit/log/login/inProInfo', { token: crc, headers: P });
    expect(enter.status).toBe(200);
    const leave = await s.api.post('/audit/log/login/outProInfo', { token: crc, headers: P });
    expect(leave.status).toBe(200);

    const log = await s.api.post<Page>('/audit/log/login/page', { token: admin, form: { pageSize: 50 }, headers: { language: 'en_US' } });
    expect(log.status).toBe(200);
    const mine = log.body.data.content.filter((r) => r.action.startsWith('project.'));
    expect(mine.slice(0, 2).map((r) => [r.action, r.userName, r.projectId, r.env, r.display.event])).toEqual([
      ['project.leave', expect.any(String), DEMO_PROJECT_ID, 'PRO', 'Left project'],
      ['project.enter', expect.any(String), DEMO_PROJECT_ID, 'PRO', 'Entered project'],
    ]);
    // the login log's event filter offers them, and filters by them
    const names = await s.api.get<{ value: string; label: string }[]>('/audit/log/login/eventNameList', { token: admin });
    expect(names.body.data.map((x) => x.value)).toEqual(['login.success', 'login.failure', 'logout', 'project.enter', 'project.leave']);
    expect(names.body.data.find((x) => x.value === 'project.enter')!.label).toBe('进入项目');
    const only = await s.api.post<Page>('/audit/log/login/page', { token: admin, form: { pageSize: 50, action: 'project.enter' } });
    expect(only.body.data.content.every((r) => r.action === 'project.enter')).toBe(true);
    expect(only.body.data.totalCount).toBeGreaterThanOrEqual(1);
  });

  it('refuses without a project, for a project the user is not a member of, and without a session; records nothing', async () => {
    const before = (await events('project.enter')).length;
    const crc = await s.api.login('crc1');
    const noProject = await s.api.post('/audit/log/login/inProInfo', { token: crc });
    expect(noProject.status).toBeGreaterThanOrEqual(400);
    // another project: crc1 is a member of the demo study only
    const other = await s.api.post('/audit/log/login/inProInfo', { token: crc, headers: { proId: 999_999, proType: 'PRO' } });
    expect([403, 404]).toContain(other.status);
    const anonymous = await s.api.post('/audit/log/login/inProInfo', { headers: P });
    expect(anonymous.status).toBe(401);
    expect((await events('project.enter')).length).toBe(before);
  });
});

describe('authorisation log', () => {
  it('lists role, membership and access-granting user changes with old and new values; not other user edits', async () => {
    // a role's permissions change
    const role = await s.api.post<{ id: number }>('/sys/role/add', {
      token: admin,
      form: { code: 'AUTHLOG', name: 'AuthLog', permissions: ['patient:page:query', 'verification:sdv:query'] },
    });
    expect(role.status).toBe(200);
    await s.api.post('/sys/role/update', {
      token: admin,
      form: { id: role.body.data.id, code: 'AUTHLOG', name: 'AuthLog', permissions: ['verification:sdv:query'] },
    });
    // a membership's role changes (the data manager edits the CRA's membership)
    const dm = await s.api.login('dm');
    const db = s.database.db;
    const [cra] = await db.select().from(users).where(eq(users.account, 'cra'));
    const [m] = await db.select().from(projectMembers).where(and(eq(projectMembers.userId, cra!.id), eq(projectMembers.projectId, DEMO_PROJECT_ID), eq(projectMembers.env, 'PRO')));
    const [crcRole] = await db.select().from(roles).where(eq(roles.code, 'CRC'));
    const upd = await s.api.post('/pro/user/update', { token: dm, headers: P, json: { id: m!.id, roleId: crcRole!.id, allSites: true, siteIds: [] } });
    expect(upd.status).toBe(200);
    // a user's name (not an access change) and their system role (an access change)
    const [o] = await db.select().from(organizations).where(eq(organizations.code, 'DCH'));
    const [d] = await db.select().from(departments).where(eq(departments.orgId, o!.id)).orderBy(asc(departments.id)).limit(1);
    const body = { account: 'auth.log.user', name: 'Auth Log', phone: '13912340001', mail: 'authlog@example.com', idNumber: '11010519491231002X', orgId: o!.id, deptId: d!.id, loginTypes: [3] };
    const added = await s.api.post<{ id: number }>('/system/user/add', { token: admin, form: body });
    expect(added.status).toBe(200);
    const [adminRole] = await db.select().from(roles).where(eq(roles.code, 'ADMIN'));
    await s.api.post('/system/user/update', { token: admin, form: { ...body, id: added.body.data.id, name: 'Auth Log Renamed' } });
    await s.api.post('/system/user/update', { token: admin, form: { ...body, id: added.body.data.id, name: 'Auth Log Renamed', systemRoleId: adminRole!.id } });

    const log = await s.api.post<Page>('/auth/log/page', { token: admin, form: { pageSize: 200 }, headers: { language: 'en_US' } });
    expect(log.status).toBe(200);
    const rows = log.body.data.content;
    expect(rows.find((r) => r.action === 'role.update' && r.field === 'permissions')).toMatchObject({
      oldValue: 'patient:page:query,verification:sdv:query',
      newValue: 'verification:sdv:query',
      display: { event: 'Role updated' },
    });
    expect(rows.find((r) => r.action === 'member.update' && r.field === 'role')).toMatchObject({ newValue: 'CRC' });
    const userRows = rows.filter((r) => r.action === 'user.update');
    expect(userRows.map((r) => r.field)).toEqual(['systemRoleId']);
    expect(rows.some((r) => r.action.startsWith('login') || r.action === 'logout')).toBe(false);

    // the event filter and its choices
    const names = await s.api.get<{ value: string; label: string }[]>('/auth/log/eventNameList', { token: admin, headers: { language: 'en_US' } });
    expect(names.body.data).toEqual(expect.arrayContaining([{ value: 'role.update', label: 'Role updated' }, { value: 'member.update', label: 'Member updated' }]));
    const roleOnly = await s.api.post<Page>('/auth/log/page', { token: admin, form: { pageSize: 200, action: 'role.add' } });
    expect(roleOnly.body.data.content.length).toBeGreaterThan(0);
    expect(roleOnly.body.data.content.every((r) => r.action === 'role.add')).toBe(true);

    // Excel, in the reader's language
    const res = await fetch(`${s.url}/api/auth/log/exportExcel?action=role.update`, { headers: { token: admin, language: 'en_US' } });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-disposition')).toMatch(/auth-log-\d{4}-\d{2}-\d{2}\.xlsx/);
    const wb = new ExcelJS.Workbook();
    await wb.xlsx.load(await res.arrayBuffer());
    const ws = wb.worksheets[0]!;
    expect(ws.name).toBe('Authorisation log');
    expect(ws.rowCount).toBeGreaterThan(1);
    for (let i = 2; i <= ws.rowCount; i++) expect(ws.getRow(i).getCell(4).value).toBe('Role updated');
  });

  it('is for those who may read it: others are refused, the migration grants it where the login log was', async () => {
    for (const who of ['cra', 'dm', 'crc1']) {
      const t = await s.api.login(who);
      expect((await s.api.post('/auth/log/page', { token: t })).status).toBe(403);
      expect((await fetch(`${s.url}/api/auth/log/exportExcel`, { headers: { token: t } })).status).toBe(403);
    }
    const pms = await s.database.executeSql(
      `select count(*)::int n from role_permissions a where a.permission = 'syslog:login-log:query'
         and not exists (select 1 from role_permissions b where b.role_id = a.role_id and b.permission = 'syslog:auth-log:query')`,
    );
    expect(pms.rows[0]!.n).toBe(0);
  });
});

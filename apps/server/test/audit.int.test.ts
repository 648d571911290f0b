import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { and, asc, eq, sql } from 'drizzle-orm';
import { auditEvents, projects, users } from '../src/db/schema';
import { GENESIS_HASH, changesOf, hashRow, recordAudit, verifyAuditChains } from '../src/modules/audit/audit.service';
import { sha256Hex, startTestServer, type TestServer } from './harness';

let s: TestServer;
beforeAll(async () => {
  s = await startTestServer();
});
afterAll(async () => {
  await s?.stop();
});

const rowsFor = (action: string) =>
  s.database.db.select().from(auditEvents).where(eq(auditEvents.action, action)).orderBy(asc(auditEvents.id));

describe('audit trail', () => {
  it('records logins, failures and logouts with who, when, request id and address', async () => {
    const bad = await s.api.post('/passport/login', { form: { account: 'cra', password: sha256Hex('nope'), loginType: 2 } });
    const token = await s.api.login('cra');
    await s.api.post('/auth/logout', { token });
    const [failure] = await rowsFor('login.failure');
    expect(failure).toMatchObject({ entity: 'user', newValue: 'cra', reason: 'bad password', requestId: bad.body.requestId });
    const [success] = await rowsFor('login.success');
    expect(success!.userName).toBe('Chris Monitor');
    expect(success!.ip).toBeTruthy();
    expect(success!.createdAt.getTime()).toBeGreaterThan(Date.now() - 60_000);
    expect(await rowsFor('logout')).toHaveLength(1);
  });

  it('records old and new values of a change, in the same transaction', async () => {
    const token = await s.api.login('dm');
    await s.api.post('/passport/envTypeSwitch', { token, form: { proType: 'UAT' } });
    const [sw] = await rowsFor('env.switch');
    expect(sw).toMatchObject({ field: 'env', oldValue: 'PRO', newValue: 'UAT', userName: 'Dana Manager' });
    const [u] = await s.database.db.select().from(users).where(eq(users.account, 'dm'));
    await s.api.post('/user/updatePwd', { token, form: { oldPwd: sha256Hex('Demo@123456'), newPwd: sha256Hex('Changed#123'), userId: u!.id } });
    const [pw] = await rowsFor('password.change');
    expect(pw!.field).toBe('passwordChangedAt');
    expect(pw!.oldValue).toBe(u!.passwordChangedAt!.toISOString());
    expect(Date.parse(pw!.newValue!)).toBeGreaterThan(u!.passwordChangedAt!.getTime());
    expect(pw!.oldValue).not.toContain('argon2');
  });

  it('shows the project trail to whoever may read it', async () => {
    const cra = await s.api.login('cra');
    const r = await s.api.post<{ totalCount: number; content: { action: string }[] }>('/project/auditLogs/listByPage', {
      token: cra,
      headers: { proId: 1, proType: 'PRO' },
      form: { pageSize: 50 },
    });
    expect(r.status).toBe(200);
    const admin = await s.api.login('admin');
    const sys = await s.api.post<{ totalCount: number; content: { action: string }[] }>('/audit/log/v1/listByPage', {
      token: admin,
      form: { action: 'login.success', pageSize: 50 },
    });
    expect(sys.body.data.totalCount).toBeGreaterThanOrEqual(3);
    expect(sys.body.data.content.every((x) => x.action === 'login.success')).toBe(true);
    const span = await s.api.post('/audit/log/v1/listByPage', {
      token: admin,
      form: { startTime: '2026-01-01', endTime: '2026-06-01' },
      headers: { language: 'en_US' },
    });
    expect(span.status).toBe(400);
    expect(span.body.message).toContain('must not exceed 90 days');
    const reversed = await s.api.post('/audit/log/v1/listByPage', { token: admin, form: { startTime: '2026-02-01', endTime: '2026-01-01' } });
    expect(reversed.body.message).toContain('开始时间不能晚于结束时间');
  });

  it('chains rows per project; verification passes on an intact trail', async () => {
    const r = await verifyAuditChains(s.database.db);
    expect(r.breaks).toEqual([]);
    expect(r.rows).toBeGreaterThan(5);
    const system = await s.database.db.select().from(auditEvents).where(eq(auditEvents.chainKey, 'system')).orderBy(asc(auditEvents.seq));
    expect(system[0]!.prevHash).toBe(GENESIS_HASH);
    for (let i = 1; i < system.length; i++) expect(system[i]!.prevHash).toBe(system[i - 1]!.hash);
  });

  it('stores any text exactly as hashed: quotes, backslashes, the word NULL, braces, new lines, emoji', async () => {
    const db = s.database.db;
    const odd = ['NULL', 'a "quoted" \\ back\\slash', '{1,2}', 'line1\nline2', '患者 🧪', '', ' padded '];
    await db.transaction((tx) =>
      recordAudit(
        tx,
        { userId: null, userName: 'test', env: 'PRO', requestId: 'r-odd', ip: '127.0.0.1' },
        odd.map((v, i) => ({ action: 'test.odd', entity: 'test', entityId: i, projectId: 1, subjectId: 999_999, oldValue: v, newValue: { v }, field: v || null })),
      ),
    );
    const rows = await rowsFor('test.odd');
    expect(rows.map((r) => r.oldValue)).toEqual(odd);
    expect(rows.map((r) => r.newValue)).toEqual(odd.map((v) => JSON.stringify({ v })));
    expect(rows.map((r) => r.chainKey)).toEqual(odd.map(() => 'project:1:subject:999999'));
    expect(rows.map((r) => r.seq)).toEqual(odd.map((_, i) => i + 1));
    expect((await verifyAuditChains(db, { chainKey: 'project:1:subject:999999' })).breaks).toEqual([]);
  });

  it('stores text with a lone surrogate (external data) well-formed, as hashed: the chain verifies', async () => {
    const db = s.database.db;
    const lone = `lab ${String.fromCharCode(0xd800)} note`;
    await db.transaction((tx) =>
      recordAudit(tx, { userId: null, userName: 'test', env: 'PRO', requestId: 'r-lone', ip: null }, [
        { action: 'test.lone', entity: 'test', entityId: 1, projectId: 1, subjectId: 999_990, oldValue: lone, reason: lone, changes: [{ field: 'x', oldValue: lone, newValue: null, reason: null, entryMode: 0, cause: null }] },
      ]),
    );
    const [row] = await rowsFor('test.lone');
    expect(row!.oldValue).toBe('lab \uFFFD note');
    expect(row!.reason).toBe('lab \uFFFD note');
    expect((await verifyAuditChains(db, { chainKey: 'project:1:subject:999990' })).breaks).toEqual([]);
  });

  it("one action's item changes are one chained row: read back exactly, and a changed or removed list breaks the chain", async () => {
    const db = s.database.db;
    const changes = [
      { field: 'HGB', oldValue: 120, newValue: 132.5, reason: 'lab re-checked "again"', entryMode: 0 },
      { field: 'NOTE', oldValue: null, newValue: '患者 🧪\nline2', reason: null },
      { field: 'PREG', oldValue: 'N', newValue: null, reason: 'typo', entryMode: 0, cause: 'ecrf.clearedByCondition' },
    ];
    await db.transaction((tx) =>
      recordAudit(tx, { userId: null, userName: 'test', env: 'PRO', requestId: 'r-changes', ip: null }, [
        { action: 'test.changes', entity: 'crf_instance', entityId: 7, projectId: 1, subjectId: 999_998, changes },
      ]),
    );
    const [row] = await rowsFor('test.changes');
    expect(row!.field).toBeNull();
    expect(changesOf(row!.changes)).toEqual([
      { field: 'HGB', oldValue: '120', newValue: '132.5', reason: 'lab re-checked "again"', entryMode: 0 },
      { field: 'NOTE', oldValue: null, newValue: '患者 🧪\nline2', reason: null },
      { field: 'PREG', oldValue: 'N', newValue: null, reason: 'typo', entryMode: 0, cause: 'ecrf.clearedByCondition' },
    ]);
    const chainKey = 'project:1:subject:999998';
    expect((await verifyAuditChains(db, { chainKey })).breaks).toEqual([]);
    const tamper = async (set: string) => {
      await s.database.ownerExecuteSql(`alter table audit_events disable trigger audit_events_no_update_delete;
        update audit_events set ${set} where id = ${row!.id};
        alter table audit_events enable trigger audit_events_no_update_delete`);
      return (await verifyAuditChains(db, { chainKey })).breaks;
    };
    const broken = [{ chainKey, id: row!.id, seq: 1, reason: 'hash' }];
    expect(await tamper(`changes = replace(changes, '132.5', '13.5')`)).toEqual(broken);
    expect(await tamper(`changes = null`)).toEqual(broken);
    await tamper(`changes = ${"'" + JSON.stringify(changesOf(row!.changes)).replace(/'/g, "''") + "'"}`);
    expect((await verifyAuditChains(db, { chainKey })).breaks).toEqual([]);
  });

  it('the database refuses UPDATE, DELETE and TRUNCATE on the trail', async () => {
    const db = s.database.db;
    const refused = async (p: Promise<unknown>) => {
      const err = await p.then(
        () => null,
        (e: unknown) => e as Error & { cause?: Error },
      );
      expect(err, 'the statement must fail').not.toBeNull();
      // the trigger refuses (PGlite, one user); on the server the application's role lacks the right to begin with
      expect(`${err!.message} ${err!.cause?.message ?? ''}`).toMatch(
        /append-only: (UPDATE|DELETE|TRUNCATE) refused|permission denied for table audit_events/,
      );
    };
    await refused(db.update(auditEvents).set({ newValue: 'forged' }).where(eq(auditEvents.seq, 1)));
    await refused(db.delete(auditEvents).where(eq(auditEvents.seq, 1)));
    await refused(db.execute(sql`truncate audit_events`));
    expect((await verifyAuditChains(db)).breaks).toEqual([]);
  });

  it('verification names the first broken row: a forged insert, and a row altered behind the trigger', async () => {
    const db = s.database.db;
    const [last] = await db
      .select()
      .from(auditEvents)
      .where(eq(auditEvents.chainKey, 'system'))
      .orderBy(sql`${auditEvents.seq} desc`)
      .limit(1);
    // someone inserts a row that looks right but was not made with the chain key
    const forged = {
      ...last!,
      seq: last!.seq + 1,
      action: 'login.success',
      userName: 'Mallory',
      prevHash: last!.hash,
      createdAt: new Date(),
    };
    const { id: _id, ...content } = forged;
    const [ins] = await db
      .insert(auditEvents)
      .values({ ...content, hash: sha256Hex(JSON.stringify(content)) })
      .returning({ id: auditEvents.id });
    const r = await verifyAuditChains(db);
    expect(r.breaks).toEqual([{ chainKey: 'system', id: ins!.id, seq: forged.seq, reason: 'hash' }]);
    expect(hashRow(last!.hash, forged)).not.toBe(sha256Hex(JSON.stringify(content)));

    // a superuser disables the trigger and edits a row of the project chain
    const [row] = await db.select().from(auditEvents).where(and(eq(auditEvents.chainKey, 'project:1'), eq(auditEvents.seq, 1)));
    // (as the owner: the application's own role may not disable triggers on the PostgreSQL server)
    await s.database.ownerExecuteSql(`alter table audit_events disable trigger audit_events_no_update_delete;
      update audit_events set new_value = 'tampered' where id = ${row!.id};
      alter table audit_events enable trigger audit_events_no_update_delete`);
    const r2 = await verifyAuditChains(db, { chainKey: 'project:1' });
    expect(r2.breaks).toEqual([{ chainKey: 'project:1', id: row!.id, seq: 1, reason: 'hash' }]);
  });
});

describe('audit screens', () => {
  it('lists event names with labels, the login log, and exports Excel', async () => {
    const admin = await s.api.login('admin');
    const names = await s.api.get<{ value: string; label: string }[]>('/audit/log/eventNameList', { token: admin, headers: { language: 'en_US' } });
    expect(names.body.data).toEqual(expect.arrayContaining([{ value: 'login.success', label: 'Login' }, { value: 'logout', label: 'Logout' }]));
    const zh = await s.api.get<{ value: string; label: string }[]>('/audit/log/eventNameList', { token: admin });
    expect(zh.body.data.find((x) => x.value === 'login.failure')!.label).toBe('登录失败');
    const log = await s.api.post<{ content: { action: string }[] }>('/audit/log/login/page', { token: admin, form: { pageSize: 100 } });
    expect(new Set(log.body.data.content.map((x) => x.action))).toEqual(new Set(['login.success', 'login.failure', 'logout']));
    const res = await fetch(`${s.url}/api/audit/log/v1/export?action=login.success`, { headers: { token: admin, language: 'en_US' } });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-disposition')).toMatch(/audit-trail-\d{4}-\d{2}-\d{2}\.xlsx/);
    const ExcelJS = (await import('exceljs')).default;
    const wb = new ExcelJS.Workbook();
    await wb.xlsx.load(await res.arrayBuffer());
    const ws = wb.worksheets[0]!;
    expect(ws.getRow(1).getCell(4).value).toBe('Event');
    expect(ws.rowCount).toBeGreaterThan(1);
    for (let i = 2; i <= ws.rowCount; i++) expect(ws.getRow(i).getCell(4).value).toBe('Login');
    const cra = await s.api.login('cra');
    expect((await fetch(`${s.url}/api/audit/log/v1/export`, { headers: { token: cra } })).status).toBe(403);
  });
});

describe('project audit log filters', () => {
  type Option = { value: string; label: string };
  type Picker = { id: number; account: string; name: string };
  const idOf = async (account: string) =>
    (await s.database.db.select().from(users).where(eq(users.account, account)))[0]!;

  beforeAll(async () => {
    const db = s.database.db;
    const [dm, crc2, pi] = await Promise.all([idOf('dm'), idOf('crc2'), idOf('pi')]);
    const [other] = await db
      .insert(projects)
      .values({ no: 'AUDIT-OTHER', name: 'Another project' })
      .returning();
    const actor = (u: typeof dm, env: string) => ({
      userId: u.id,
      userName: u.name,
      requestId: null,
      ip: null,
      env,
    });
    await db.transaction(async (tx) => {
      // project 1 in PRO: what a monitor of project 1 in PRO may pick
      await recordAudit(tx, actor(dm, 'PRO'), [
        { action: 'site.update', entity: 'site', entityId: 1, projectId: 1, field: 'name', newValue: 'x' },
      ]);
      // project 1 in UAT: another environment's trail
      await recordAudit(tx, actor(pi, 'UAT'), [
        { action: 'form.add', entity: 'form', entityId: 1, projectId: 1 },
      ]);
      // another project in PRO
      await recordAudit(tx, actor(crc2, 'PRO'), [
        { action: 'org.delete', entity: 'org', entityId: 9, projectId: other!.id },
      ]);
    });
  });

  it('answers a monitor the event names of this project in this environment, translated', async () => {
    const cra = await s.api.login('cra');
    const en = await s.api.get<Option[]>('/project/auditLogs/eventNameList', {
      token: cra,
      headers: { proId: 1, proType: 'PRO', language: 'en_US' },
    });
    expect(en.status).toBe(200);
    expect(en.body.data).toContainEqual({ value: 'site.update', label: 'Site updated' });
    const values = en.body.data.map((x) => x.value);
    // another environment's and another project's events, and trail-wide ones (logins), are not offered
    expect(values).not.toContain('form.add');
    expect(values).not.toContain('org.delete');
    expect(values).not.toContain('login.success');
    expect(values).toEqual([...values].sort());
    const zh = await s.api.get<Option[]>('/project/auditLogs/eventNameList', {
      token: cra,
      headers: { proId: 1, proType: 'PRO' },
    });
    expect(zh.body.data.find((x) => x.value === 'site.update')!.label).toBe('修改中心');
    // every name offered filters to at least one row of the project page
    const listed = await s.api.post<{ totalCount: number }>('/project/auditLogs/listByPage', {
      token: cra,
      headers: { proId: 1, proType: 'PRO' },
      form: { action: 'site.update' },
    });
    expect(listed.body.data.totalCount).toBeGreaterThanOrEqual(1);
  });

  it('answers a monitor the users of this trail, by keyword, at most 20', async () => {
    const cra = await s.api.login('cra');
    const headers = { proId: 1, proType: 'PRO' };
    const all = await s.api.get<Picker[]>('/project/auditLogs/userList', { token: cra, headers });
    expect(all.status).toBe(200);
    const accounts = all.body.data.map((u) => u.account);
    expect(accounts).toContain('dm');
    expect(accounts).not.toContain('crc2'); // only in another project's trail
    expect(accounts).not.toContain('pi'); // only in the UAT trail
    expect(all.body.data.length).toBeLessThanOrEqual(20);
    const dana = await s.api.get<Picker[]>('/project/auditLogs/userList?keyword=dana', {
      token: cra,
      headers,
    });
    expect(dana.body.data.map((u) => u.account)).toEqual(['dm']);
    const none = await s.api.get<Picker[]>('/project/auditLogs/userList?keyword=Ben', {
      token: cra,
      headers,
    });
    expect(none.body.data).toEqual([]);
    const tooMany = await s.api.get('/project/auditLogs/userList?limit=21', { token: cra, headers });
    expect(tooMany.status).toBe(400);
    // in UAT the same monitor sees that trail's people instead
    const uat = await s.api.get<Picker[]>('/project/auditLogs/userList', {
      token: cra,
      headers: { proId: 1, proType: 'UAT' },
    });
    expect(uat.body.data.map((u) => u.account)).toContain('pi');
    expect(uat.body.data.map((u) => u.account)).not.toContain('dm');
  });

  it('refuses callers without access to the project with 403', async () => {
    const admin = await s.api.login('admin'); // system administrator, not a member of project 1
    for (const url of ['/project/auditLogs/eventNameList', '/project/auditLogs/userList']) {
      const r = await s.api.get(url, { token: admin, headers: { proId: 1, proType: 'PRO' } });
      expect(r.status, url).toBe(403);
    }
    const cra = await s.api.login('cra');
    const [other] = await s.database.db.select().from(projects).where(eq(projects.no, 'AUDIT-OTHER'));
    for (const url of ['/project/auditLogs/eventNameList', '/project/auditLogs/userList']) {
      const r = await s.api.get(url, { token: cra, headers: { proId: other!.id, proType: 'PRO' } });
      expect(r.status, url).toBe(403);
    }
  });
});

/**
 * The audit trail as people read it: identifiers masked as the subject list masks them (by field name, in values,
 * JSON and reasons), and rows enriched into readable records (subject, visit, form, item label, option labels,
 * names instead of ids, translated machine reasons), on screen and in the export.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { and, eq } from 'drizzle-orm';
import ExcelJS from 'exceljs';
import type { AuditLogRow } from '@esource/shared';
import { organizations, rolePermissions, roles, sites } from '../src/db/schema';
import { maskAuditText, readableReason } from '../src/modules/audit/audit.present';
import { recordAudit } from '../src/modules/audit/audit.service';
import { startTestServer, type TestServer } from './harness';

let s: TestServer;
const P = { proId: 1, proType: 'PRO' };
const ID_CARD = '11010519491231002X';
const MR = 'MR20240001';
const MR2 = 'MR20249999';
const INPATIENT = 'IP778899';
let ptsId = 0;
let ptsNo = '';
let crc1 = '';

type Page = { totalCount: number; content: AuditLogRow[] };
const list = (token: string, form: Record<string, string | number> = {}, lang = 'en_US') =>
  s.api.post<Page>('/project/auditLogs/listByPage', {
    token,
    headers: { ...P, language: lang },
    form: { pageSize: 200, ...form },
  });

async function exportCells(
  token: string,
  query: Record<string, string> = {},
  lang = 'en_US',
): Promise<string[][]> {
  const qs = new URLSearchParams(query).toString();
  const res = await fetch(`${s.api.base}/api/project/auditLogs/export?${qs}`, {
    headers: { token, proId: '1', proType: 'PRO', language: lang },
  });
  expect(res.status).toBe(200);
  const wb = new ExcelJS.Workbook();
  await wb.xlsx.load(Buffer.from(await res.arrayBuffer()) as unknown as Parameters<typeof wb.xlsx.load>[0]);
  const out: string[][] = [];
  wb.worksheets[0]!.eachRow((row) =>
    out.push(
      (row.values as unknown[])
        .slice(1)
        .map((v) =>
          v == null ? '' : typeof v === 'object' ? JSON.stringify(v) : String(v as string | number),
        ),
    ),
  );
  return out;
}

beforeAll(async () => {
  s = await startTestServer();
  // the site coordinator role gets the project audit log here: the case "a site CRC with the permission"
  const [crc] = await s.database.db.select().from(roles).where(eq(roles.code, 'CRC'));
  await s.database.db
    .insert(rolePermissions)
    .values([
      { roleId: crc!.id, permission: 'prolog:audit-action:query' },
      { roleId: crc!.id, permission: 'prolog:audit-action:export' },
    ])
    .onConflictDoNothing();
  crc1 = await s.api.login('crc1');
  const [siteA] = await s.database.db
    .select()
    .from(sites)
    .where(and(eq(sites.projectId, 1), eq(sites.env, 'PRO'), eq(sites.siteNo, '01')));
  const first = new Date(Date.now() - 2 * 86_400_000).toISOString().slice(0, 10);
  const add = await s.api.post<{ ptsId: number; ptsNo: string; version: number }>('/project/managePts/add', {
    token: crc1,
    headers: P,
    form: {
      siteId: siteA!.id,
      firstVisitDate: first,
      initials: 'LS',
      medicalRecordId: MR,
      inpatientId: INPATIENT,
      idCard: ID_CARD,
    },
  });
  expect(add.status, JSON.stringify(add.body)).toBe(200);
  ptsId = add.body.data.ptsId;
  ptsNo = add.body.data.ptsNo;
  // an update whose reason quotes the ID card: free text carries identifiers too
  const upd = await s.api.post('/project/managePts/update', {
    token: crc1,
    headers: P,
    form: {
      ptsId,
      version: add.body.data.version,
      medicalRecordId: MR2,
      reason: `wrong record, card ${ID_CARD}`,
    },
  });
  expect(upd.status, JSON.stringify(upd.body)).toBe(200);
});
afterAll(async () => {
  await s?.stop();
});

describe('identifiers in the audit trail', () => {
  it('masks by field name, inside JSON and where a known identifier appears in text', () => {
    expect(maskAuditText(ID_CARD, 'idCard', [])).toBe('11**************2X');
    expect(maskAuditText('{"identifier":"MR20240001","status":1}', null, [])).toBe(
      '{"identifier":"MR******01","status":1}',
    );
    expect(maskAuditText(`see ${ID_CARD}`, 'reason', [ID_CARD])).toBe('see 11**************2X');
    expect(maskAuditText('Screening', 'status', [ID_CARD])).toBe('Screening');
  });

  it("stored machine reasons read as catalogue messages in the viewer's language", () => {
    expect(readableReason('import', 'en_US')).toBe('Imported from Excel');
    expect(readableReason('import', 'zh_CN')).toBe('Excel 导入');
    expect(readableReason('hidden by display condition', 'zh_CN')).toBe('显示条件隐藏了该数据项，已清空');
    expect(readableReason('[ecrf.clearedByCondition]', 'en_US')).toBe(
      'Cleared because a display condition hides the item',
    );
    expect(readableReason('[显示条件隐藏了该数据项，已清空] typo', 'en_US')).toBe(
      'Cleared because a display condition hides the item: typo',
    );
    expect(readableReason('typed by a person', 'en_US')).toBe('typed by a person');
  });

  for (const who of ['cra', 'dm'] as const) {
    it(`${who}: the list and the export of subject.add / subject.update show identifiers masked`, async () => {
      const token = await s.api.login(who);
      const r = await list(token);
      expect(r.status, JSON.stringify(r.body)).toBe(200);
      const mine = r.body.data.content.filter((x) => x.subjectId === ptsId);
      expect(mine.map((x) => x.action)).toEqual(expect.arrayContaining(['subject.add', 'subject.update']));
      const body = JSON.stringify(r.body);
      for (const raw of [ID_CARD, MR, MR2, INPATIENT]) expect(body).not.toContain(raw);
      const idRow = mine.find((x) => x.action === 'subject.add' && x.field === 'idCard')!;
      expect(idRow.newValue).toBe('11**************2X');
      expect(idRow.display.newValue).toBe('11**************2X');
      const upd = mine.find((x) => x.action === 'subject.update' && x.field === 'medicalRecordId')!;
      expect([upd.oldValue, upd.newValue]).toEqual(['MR******01', 'MR******99']);
      expect(upd.reason).toBe('wrong record, card 11**************2X');
      const cells = JSON.stringify(await exportCells(token));
      for (const raw of [ID_CARD, MR, MR2, INPATIENT]) expect(cells).not.toContain(raw);
      expect(cells).toContain('11**************2X');
    });
  }

  it('a site coordinator with patient:identifier:query sees them in full, on screen and in the export', async () => {
    const r = await list(crc1);
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    const idRow = r.body.data.content.find(
      (x) => x.subjectId === ptsId && x.action === 'subject.add' && x.field === 'idCard',
    )!;
    expect(idRow.newValue).toBe(ID_CARD);
    const upd = r.body.data.content.find((x) => x.subjectId === ptsId && x.action === 'subject.update')!;
    expect(upd.reason).toContain(ID_CARD);
    expect(JSON.stringify(await exportCells(crc1))).toContain(ID_CARD);
  });

  it('the subject export filter (identifier search) is masked in its stored reason', async () => {
    const res = await fetch(`${s.api.base}/api/project/manage/ptsExport?identifier=${MR2}`, {
      headers: { token: crc1, proId: '1', proType: 'PRO' },
    });
    expect(res.status).toBe(200);
    await res.arrayBuffer();
    const cra = await s.api.login('cra');
    const r = await list(cra, { action: 'subject.export' });
    expect(r.body.data.content.length).toBeGreaterThan(0);
    expect(JSON.stringify(r.body)).not.toContain(MR2);
  });

  it('user ID numbers are masked in the system trail', async () => {
    const admin = await s.api.login('admin');
    const [org] = await s.database.db.select().from(organizations).limit(1);
    const add = await s.api.post('/system/user/add', {
      token: admin,
      form: {
        account: 'auditee1',
        name: 'Audit Tee',
        phone: '13900000077',
        idNumber: ID_CARD,
        loginTypes: [1],
        orgId: org!.id,
      },
    });
    expect(add.status, JSON.stringify(add.body)).toBe(200);
    const r = await s.api.post<Page>('/audit/log/v1/listByPage', {
      token: admin,
      form: { action: 'user.add', pageSize: 50 },
    });
    expect(JSON.stringify(r.body)).not.toContain(ID_CARD);
    expect(r.body.data.content.find((x) => x.field === 'idNumber')!.newValue).toBe('11**************2X');
  });
});

describe('readable records', () => {
  it('an item change names subject, visit, form and item, with option labels and the translated machine reason', async () => {
    type Sched = { visitId: number; code: string; forms: { formId: number; code: string }[] };
    const sched = await s.api.get<Sched[]>('/project/pts/visits', {
      token: crc1,
      headers: P,
      query: { ptsId },
    });
    const v1 = sched.body.data.find((v) => v.code === 'V1')!;
    const dm = v1.forms.find((f) => f.code === 'DM')!.formId;
    const save = (body: Record<string, unknown>) =>
      s.api.post<{ instance: { version: number } }>('/crf/form/item/result/saveBatch', {
        token: crc1,
        headers: P,
        json: { ptsId, visitId: v1.visitId, formId: dm, ...body },
      });
    const a = await save({
      entryMode: 0,
      items: [
        { variable: 'SEX', value: '2' },
        { variable: 'PREG', value: 'N' },
      ],
    });
    expect(a.status, JSON.stringify(a.body)).toBe(200);
    // SEX 1 hides PREG: the server clears it with its own reason
    const b = await save({
      entryMode: 0,
      version: a.body.data.instance.version,
      items: [{ variable: 'SEX', value: '1', reason: 'entered wrong' }],
    });
    expect(b.status, JSON.stringify(b.body)).toBe(200);

    const cra = await s.api.login('cra');
    const en = (await list(cra, { action: 'crf.value' })).body.data.content.filter(
      (x) => x.subjectId === ptsId,
    );
    // the save is one event listing its items (issue 16 item 3), each read as a single-field row would be
    const saved = en.find((x) => x.changes?.some((c) => c.field === 'SEX' && c.oldValue === '2'))!;
    expect(saved.display).toMatchObject({ subject: ptsNo, visit: 'Screening', form: expect.stringMatching(/Demograph/) });
    expect(saved.entity).toBe('crf_instance');
    expect(saved.changes!.map((c) => c.field).sort()).toEqual(['PREG', 'SEX']);
    const sexAt = saved.changes!.findIndex((c) => c.field === 'SEX');
    const sex = saved.display.changes![sexAt]!;
    expect(sex.field).not.toBe('SEX');
    expect(sex.oldValue).not.toBe('2');
    expect(sex.newValue).not.toBe('1');
    expect(sex.reason).toBe('entered wrong');
    const pregAt = saved.changes!.findIndex((c) => c.field === 'PREG');
    expect(saved.changes![pregAt]).toMatchObject({ newValue: null, cause: expect.any(String) });
    expect(saved.display.changes![pregAt]).toMatchObject({
      field: expect.not.stringMatching(/^PREG$/),
      oldValue: expect.not.stringMatching(/^N$/),
    });
    const preg = { entityId: saved.entityId, siteId: saved.siteId };
    // a row stored with the eCRF's machine reason (written before its reasons became messages) reads as a sentence
    await s.database.db.transaction((tx) =>
      recordAudit(tx, { userId: null, userName: 'system', requestId: null, ip: null, env: 'PRO' }, [
        {
          action: 'crf.value',
          entity: 'crf_value',
          entityId: preg.entityId,
          projectId: 1,
          siteId: preg.siteId,
          subjectId: ptsId,
          field: 'PREG',
          oldValue: 'N',
          newValue: null,
          reason: 'hidden by display condition',
        },
      ]),
    );
    const again = (await list(cra, { action: 'crf.value' })).body.data.content.find(
      (x) => x.reason === 'hidden by display condition',
    )!;
    expect(again.display.reason).toBe('Cleared because a display condition hides the item');
    // a machine actor is named in the reader's language
    expect(again.userName).toBe('System');
    expect(again.display.visit).toBe('Screening');
    const zh = (await list(cra, { action: 'crf.value' }, 'zh_CN')).body.data.content.find(
      (x) => x.id === again.id,
    )!;
    expect(zh.display.reason).toBe('显示条件隐藏了该数据项，已清空');
    expect(zh.display.visit).toBe('筛选访视');
    expect(zh.userName).toBe('系统');
    expect(zh.display.event).toBe('修改表单条目');

    const cells = await exportCells(cra, { action: 'crf.value' });
    const header = cells[0]!;
    const row = cells.find((c) => c.includes('Cleared because a display condition hides the item'))!;
    expect(row[header.indexOf('Subject')]).toBe(ptsNo);
    expect(row[header.indexOf('Visit')]).toBe('Screening');
    // the export lists an event's item changes one per line, with the event's columns on each
    const lines = cells.filter((c) => c[header.indexOf('Request id')] === saved.requestId);
    expect(lines.map((c) => c[header.indexOf('Field code')]).sort()).toEqual(['PREG', 'SEX']);
    expect(lines.every((c) => c[header.indexOf('Subject')] === ptsNo)).toBe(true);
    expect(lines.find((c) => c[header.indexOf('Field code')] === 'SEX')![header.indexOf('Reason')]).toBe('entered wrong');
  });

  it('subject status and site show as labels and names, not codes and ids', async () => {
    const cra = await s.api.login('cra');
    const rows = (await list(cra, { action: 'subject.add' })).body.data.content.filter(
      (x) => x.subjectId === ptsId,
    );
    const status = rows.find((x) => x.field === 'status')!;
    expect(status.display.newValue).toBe('Screening');
    const site = rows.find((x) => x.field === 'siteId')!;
    expect(site.display.newValue).toBe('Demo City Hospital');
    expect(site.display.field).toBe('Site');
  });

  it('the system trail names organisations and departments', async () => {
    const admin = await s.api.login('admin');
    const org = await s.api.post<{ id: number }>('/org/info/add', {
      token: admin,
      form: { name: 'Audit Org', code: 'AUDORG' },
    });
    expect(org.status, JSON.stringify(org.body)).toBe(200);
    const dept = await s.api.post('/org/dept/add', {
      token: admin,
      form: { orgId: org.body.data.id, name: 'Cardiology' },
    });
    expect(dept.status, JSON.stringify(dept.body)).toBe(200);
    const r = await s.api.post<Page>('/audit/log/v1/listByPage', {
      token: admin,
      headers: { language: 'en_US' },
      form: { action: 'dept.add', pageSize: 50 },
    });
    const orgRow = r.body.data.content.find((x) => x.field === 'orgId')!;
    expect(orgRow.display).toMatchObject({
      newValue: 'Audit Org',
      field: 'Organisation',
      target: 'Cardiology',
      entity: 'Department',
    });
  });
});

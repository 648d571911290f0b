import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { and, eq } from 'drizzle-orm';
import { sites } from '../src/db/schema';
import { startTestServer, type TestServer } from './harness';

let s: TestServer;
const P = { proId: 1, proType: 'PRO' };
let crc1: string;
let ptsId: number;
let v1: number;
let dmForm: number;
type View = { instance: { id: number; status: number; version: number } | null; values: Record<string, { value: unknown; entryMode: number }> };
type Sched = { visitId: number; code: string; planned: string; start: string; end: string; state: string; forms: { formId: number; code: string; status: number }[] };

beforeAll(async () => {
  s = await startTestServer();
  crc1 = await s.api.login('crc1');
  const [siteA] = await s.database.db.select().from(sites).where(and(eq(sites.projectId, 1), eq(sites.env, 'PRO'), eq(sites.siteNo, '01')));
  const first = new Date(Date.now() - 20 * 86_400_000).toISOString().slice(0, 10);
  const r = await s.api.post<{ ptsId: number }>('/project/managePts/add', { token: crc1, headers: P, form: { siteId: siteA!.id, firstVisitDate: first } });
  ptsId = r.body.data.ptsId;
  const sched = await s.api.get<Sched[]>('/project/pts/visits', { token: crc1, headers: P, query: { ptsId } });
  const screening = sched.body.data.find((v) => v.code === 'V1')!;
  v1 = screening.visitId;
  dmForm = screening.forms.find((f) => f.code === 'DM')!.formId;
});
afterAll(async () => {
  await s?.stop();
});

const key = () => ({ ptsId, visitId: v1, formId: dmForm });
const save = (token: string, body: Record<string, unknown>, lang = 'en_US') =>
  s.api.post<View>('/crf/form/item/result/saveBatch', { token, headers: { ...P, language: lang }, json: { ...key(), ...body } });

describe('visit schedule', () => {
  it('computes planned dates and windows from the first visit, with states', async () => {
    const r = await s.api.get<Sched[]>('/project/pts/visits', { token: crc1, headers: P, query: { ptsId } });
    const byCode = Object.fromEntries(r.body.data.map((v) => [v.code, v]));
    expect(byCode.V2!.state).toBe('overdue'); // day 14 +3 is past at day 20
    expect(byCode.V3!.state).toBe('upcoming'); // day 28 −3 is ahead
    expect(byCode.V1!.state).toBe('overdue');
    expect(Date.parse(byCode.V2!.end) - Date.parse(byCode.V2!.start)).toBe(6 * 86_400_000);
    expect(r.body.data.find((v) => v.code === 'UNS')).toBeUndefined();
  });
});

describe('eCRF entry', () => {
  let version = 0;
  it('a display condition reveals a required field; stash skips required checks', async () => {
    const draft = await save(crc1, { entryMode: 0, items: [{ variable: 'SEX', value: '2' }] });
    expect(draft.status, JSON.stringify(draft.body)).toBe(200);
    expect(draft.body.data.instance).toMatchObject({ status: 1, version: 1 });
    version = 1;
    const incomplete = await save(crc1, { entryMode: 2, version, items: [{ variable: 'BRTHDTC', value: '1980-05-01' }] });
    expect(incomplete.status, JSON.stringify(incomplete.body)).toBe(400);
    // SEX is "2", so PREG is shown and required
    expect(incomplete.body.detail).toEqual([{ field: 'PREG', message: 'required' }]);
    const bad = await save(crc1, { entryMode: 2, version, items: [{ variable: 'BRTHDTC', value: '1980-13-45' }, { variable: 'PREG', value: 'maybe' }] });
    expect(bad.body.detail).toEqual([
      { field: 'BRTHDTC', message: 'the date must be YYYY-MM-DD' },
      { field: 'PREG', message: 'is not one of the options' },
    ]);
    const ok = await save(crc1, { entryMode: 2, version, items: [{ variable: 'BRTHDTC', value: '1980-05-01' }, { variable: 'PREG', value: 'N' }] });
    expect(ok.status).toBe(200);
    expect(ok.body.data.instance).toMatchObject({ status: 2, version: 2 });
    version = 2;
  });

  it('changing a saved value needs a reason; the history shows who, old, new, reason and mode', async () => {
    const noReason = await save(crc1, { entryMode: 2, version, items: [{ variable: 'BRTHDTC', value: '1981-05-01' }] });
    expect(noReason.body.detail).toEqual([{ field: 'BRTHDTC', message: 'changing a saved value needs a reason' }]);
    const changed = await save(crc1, { entryMode: 2, version, items: [{ variable: 'BRTHDTC', value: '1981-05-01', reason: 'typo in year' }] });
    expect(changed.status).toBe(200);
    version = changed.body.data.instance!.version;
    const h = await s.api.get<{ variable: string; oldValue: unknown; newValue: unknown; reason: string | null; userName: string; entryMode: number }[]>(
      '/crf/form/item/result/history',
      { token: crc1, headers: P, query: { instanceId: changed.body.data.instance!.id, variable: 'BRTHDTC' } },
    );
    expect(h.body.data.map((x) => [x.oldValue, x.newValue, x.reason, x.userName, x.entryMode])).toEqual([
      [null, '1980-05-01', null, 'Amy Coordinator', 2],
      ['1980-05-01', '1981-05-01', 'typo in year', 'Amy Coordinator', 2],
    ]);
  });

  it('a hidden item loses its value when its condition stops holding', async () => {
    const male = await save(crc1, { entryMode: 2, version, items: [{ variable: 'SEX', value: '1', reason: 'wrong sex entered' }] });
    expect(male.status, JSON.stringify(male.body)).toBe(200);
    expect(male.body.data.values.PREG!.value).toBeNull();
    version = male.body.data.instance!.version;
  });

  it('a second session with the old version is refused, naming who changed what; nothing is lost', async () => {
    const second = await s.api.login('crc1'); // the same coordinator in another browser
    const stale = await s.api.post<View>('/crf/form/item/result/saveBatch', {
      token: second,
      headers: { ...P, language: 'en_US' },
      json: { ...key(), entryMode: 2, version: 2, items: [{ variable: 'ETHNIC', value: 'HAN' }] },
    });
    expect(stale.status).toBe(409);
    expect(stale.body.message).toMatch(/^Amy Coordinator changed this form at .* \((BRTHDTC|SEX|PREG)(, (BRTHDTC|SEX|PREG))*\); please reload/);
    const now = await s.api.get<View>('/crf/form/item/result/list', { token: crc1, headers: P, query: key() });
    expect(now.body.data.values.BRTHDTC!.value).toBe('1981-05-01');
    expect(now.body.data.values.ETHNIC).toBeUndefined();
  });

  it('site B cannot read or write it', async () => {
    const crc2 = await s.api.login('crc2');
    expect((await s.api.get('/crf/form/item/result/list', { token: crc2, headers: P, query: key() })).status).toBe(404);
    expect((await save(crc2, { entryMode: 0, items: [] })).status).toBe(404);
  });

  it('certification makes the form read-only until uncertified with a reason', async () => {
    const pi = await s.api.login('pi');
    const view = await s.api.get<View>('/crf/form/item/result/list', { token: pi, headers: P, query: key() });
    const inst = view.body.data.instance!;
    expect((await s.api.post('/crf/report/check', { token: crc1, headers: P, form: { instanceId: inst.id, version: inst.version } })).status).toBe(403);
    const cert = await s.api.post<{ status: number; version: number }>('/crf/report/check', { token: pi, headers: P, form: { instanceId: inst.id, version: inst.version } });
    expect(cert.body.data.status).toBe(3);
    const locked = await save(crc1, { entryMode: 2, version: cert.body.data.version, items: [{ variable: 'ETHNIC', value: 'HAN' }] });
    expect(locked.status).toBe(409);
    expect(locked.body.message).toBe('The form is certified and read-only; uncertify it first');
    const noReason = await s.api.post('/crf/report/checkCancel', { token: pi, headers: P, form: { instanceId: inst.id, version: cert.body.data.version } });
    expect(noReason.status).toBe(400);
    const un = await s.api.post<{ status: number; version: number }>('/crf/report/checkCancel', {
      token: pi,
      headers: P,
      form: { instanceId: inst.id, version: cert.body.data.version, reason: 'query on birth date' },
    });
    expect(un.body.data.status).toBe(2);
    const again = await save(crc1, { entryMode: 2, version: un.body.data.version, items: [{ variable: 'ETHNIC', value: 'HAN' }] });
    expect(again.status).toBe(200);
  });

  it('the schedule shows the form completed', async () => {
    const r = await s.api.get<Sched[]>('/project/pts/visits', { token: crc1, headers: P, query: { ptsId } });
    expect(r.body.data.find((v) => v.code === 'V1')!.forms.find((f) => f.code === 'DM')!.status).toBe(2);
  });
});

describe('the answer of a save', () => {
  it('is exactly what reading the form afterwards shows (values, who, when, mode, version)', async () => {
    const vsForm = (await s.api.get<Sched[]>('/project/pts/visits', { token: crc1, headers: P, query: { ptsId } })).body.data
      .find((v) => v.code === 'V1')!
      .forms.find((f) => f.code === 'VS')!.formId;
    const k = { ptsId, visitId: v1, formId: vsForm };
    const first = await s.api.post<View>('/crf/form/item/result/saveBatch', {
      token: crc1,
      headers: P,
      json: { ...k, entryMode: 0, items: [{ variable: 'SYSBP', value: 120 }, { variable: 'HR', value: 70 }] },
    });
    expect(first.status, JSON.stringify(first.body)).toBe(200);
    const dm = await s.api.login('dm');
    // another user changes one item; the answer names both users where they set values
    const second = await s.api.post<View>('/crf/form/item/result/saveBatch', {
      token: dm,
      headers: P,
      json: { ...k, entryMode: 0, version: first.body.data.instance!.version, items: [{ variable: 'HR', value: 72 }, { variable: 'WEIGHT', value: '' }] },
    });
    expect(second.status, JSON.stringify(second.body)).toBe(200);
    const read = await s.api.get<View>('/crf/form/item/result/list', { token: crc1, headers: P, query: k });
    expect(second.body.data).toEqual(read.body.data);
    expect(Object.keys(read.body.data.values).sort()).toEqual(['HR', 'SYSBP']);
  });
});

describe('certifying a whole visit at once', () => {
  it('is all or nothing: a form changed since it was shown, or not completed, is named and nothing is certified', async () => {
    const pi = await s.api.login('pi');
    type Visit = { visitId: number; code: string; forms: { formId: number; code: string; status: number; instances: { id: number; status: number; version: number }[] }[] };
    const sched = async () => (await s.api.get<Visit[]>('/project/pts/visits', { token: crc1, headers: P, query: { ptsId } })).body.data.find((v) => v.code === 'V1')!;
    let v = await sched();
    const vs = v.forms.find((f) => f.code === 'VS')!.instances[0]!;
    // complete VS (the earlier test left it a draft)
    const done = await s.api.post<View>('/crf/form/item/result/saveBatch', {
      token: crc1,
      headers: P,
      json: { ptsId, visitId: v1, formId: v.forms.find((f) => f.code === 'VS')!.formId, entryMode: 2, version: vs.version, items: [{ variable: 'VSDTC', value: '2026-11-01 09:30' }, { variable: 'DIABP', value: 80 }] },
    });
    expect(done.status, JSON.stringify(done.body)).toBe(200);
    v = await sched();
    const items = v.forms.flatMap((f) => f.instances).map((i) => ({ instanceId: i.id, version: i.version }));
    const stale = await s.api.post('/crf/form/item/result/checkBatch', {
      token: pi,
      headers: { ...P, language: 'en_US' },
      json: { items: items.map((i, n) => (n === 0 ? { ...i, version: i.version - 1 } : i)) },
    });
    expect(stale.status).toBe(409);
    expect(JSON.stringify(stale.body)).toContain('changed since you opened it');
    expect((await sched()).forms.every((f) => f.instances.every((i) => i.status !== 3))).toBe(true);
    // a coordinator may not certify
    expect((await s.api.post('/crf/form/item/result/checkBatch', { token: crc1, headers: P, json: { items } })).status).toBe(403);
    const ok = await s.api.post<{ id: number; status: number; version: number }[]>('/crf/report/saveItemCertified', { token: pi, headers: P, json: { items } });
    expect(ok.status, JSON.stringify(ok.body)).toBe(200);
    expect(ok.body.data.map((r) => r.status)).toEqual(items.map(() => 3));
    const certified = await sched();
    expect(certified.forms.every((f) => f.status === 3)).toBe(true);
    const audit = await s.database.executeSql(`select count(*)::int as n from audit_events where action = 'crf.certify' and entity_id = any($1)`, [items.map((i) => String(i.instanceId))]);
    expect(Number(audit.rows[0]!.n)).toBeGreaterThanOrEqual(items.length);
    // uncertifying in a batch needs a reason
    const again = certified.forms.flatMap((f) => f.instances).map((i) => ({ instanceId: i.id, version: i.version }));
    const dm = await s.api.login('dm');
    expect((await s.api.post('/crf/form/item/result/checkCancel', { token: dm, headers: P, json: { items: again } })).status).toBe(400);
    const undone = await s.api.post('/crf/form/item/result/checkCancel', { token: dm, headers: P, json: { items: again, reason: 'query on the blood pressure' } });
    expect(undone.status, JSON.stringify(undone.body)).toBe(200);
    expect((await sched()).forms.every((f) => f.status === 2)).toBe(true);
  });
});

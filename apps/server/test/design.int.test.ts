import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { and, eq } from 'drizzle-orm';
import { auditEvents } from '../src/db/schema';
import { startTestServer, type TestServer } from './harness';

let s: TestServer;
let dm: string;
let projectId: number;
const DEV = () => ({ proId: projectId, proType: 'DEV' });

const form = (code: string, extra: Record<string, unknown> = {}) => ({
  name: `Form ${code}`,
  code,
  components: [
    { id: 'sex', type: 'radio', label: 'Sex', variable: 'sex', required: true, options: [{ value: '1', label: 'Male', mapping: 'M' }, { value: '2', label: 'Female', mapping: 'F' }] },
    { id: 'preg', type: 'radio', label: 'Pregnant', variable: 'preg', displayCondition: 'sex == "2"', options: [{ value: 'Y', label: 'Yes' }, { value: 'N', label: 'No' }] },
    { id: 'wt', type: 'number', label: 'Weight', variable: 'weight', unit: 'kg', precision: 1 },
    // a table cell's text with its English counterpart (kept by save, form export/import, version copy)
    { id: 'note', type: 'table', label: '说明', labelEn: 'Note', rows: 1, cols: 1, cells: [{ row: 0, col: 0, rowSpan: 1, colSpan: 1, text: '空腹称重', textEn: 'Weighed fasting' }] },
  ],
  ...extra,
});
/** The English texts of a definition's table cells. */
const cellTextsEn = (def: unknown) =>
  ((def as { components: { type: string; cells?: { textEn?: string }[] }[] }).components ?? [])
    .flatMap((c) => (c.type === 'table' ? c.cells!.map((x) => x.textEn) : []))
    .filter(Boolean);

beforeAll(async () => {
  s = await startTestServer();
  dm = await s.api.login('dm');
  const p = await s.api.post<{ id: number }>('/pro/info/add', { token: dm, form: { no: 'DES-1', name: 'Design study', scene: 1 } });
  projectId = p.body.data.id;
});
afterAll(async () => {
  await s?.stop();
});

describe('design versions, visits and forms', () => {
  let v1: number;
  let formId: number;
  let lock: number;

  it('creates a version in DEV only', async () => {
    const uat = await s.api.post('/crf/version/add', { token: dm, headers: { proId: projectId, proType: 'UAT', language: 'en_US' }, form: { name: 'v1' } });
    expect(uat.status).toBe(403);
    const r = await s.api.post<{ id: number; versionNo: number; status: number }>('/crf/version/add', { token: dm, headers: DEV(), form: { name: 'v1.0' } });
    expect(r.body.data).toMatchObject({ versionNo: 1, status: 0 });
    v1 = r.body.data.id;
  });

  it('saves a form with every rule enforced, and refuses a stale save', async () => {
    const empty = await s.api.post('/crf/form/save', { token: dm, headers: { ...DEV(), language: 'en_US' }, json: { versionId: v1, definition: { name: '', code: '', components: [] } } });
    expect(empty.status).toBe(400);
    expect(empty.body.detail!.map((d) => d.message)).toEqual(['Please fill in the form name', 'Please fill in the form code', 'The component list cannot be empty']);
    const dupOpt = form('DM');
    (dupOpt.components[0] as { options: unknown[] }).options.push({ value: '1', label: 'Other', mapping: 'O' });
    const bad = await s.api.post('/crf/form/save', { token: dm, headers: { ...DEV(), language: 'zh_CN' }, json: { versionId: v1, definition: dupOpt } });
    expect(bad.body.detail).toEqual([{ field: 'definition.components.0.options.2.value', message: '选项值重复' }]);

    const ok = await s.api.post<{ id: number; lockVersion: number; fieldCount: number }>('/crf/form/save', { token: dm, headers: DEV(), json: { versionId: v1, definition: form('DM') } });
    expect(ok.status).toBe(200);
    expect(ok.body.data.fieldCount).toBe(3);
    formId = ok.body.data.id;
    const upd = await s.api.post<{ lockVersion: number }>('/crf/form/save', {
      token: dm,
      headers: DEV(),
      json: { versionId: v1, id: formId, lockVersion: 1, definition: form('DM', { name: 'Demographics' }) },
    });
    expect(upd.body.data.lockVersion).toBe(2);
    lock = 2;
    const stale = await s.api.post('/crf/form/save', { token: dm, headers: { ...DEV(), language: 'en_US' }, json: { versionId: v1, id: formId, lockVersion: 1, definition: form('DM') } });
    expect(stale.status).toBe(409);
    expect(stale.body.message).toContain('Dana Manager');
    const audit = await s.database.db.select().from(auditEvents).where(and(eq(auditEvents.entity, 'form'), eq(auditEvents.action, 'form.update')));
    expect(JSON.parse(audit[0]!.oldValue!).name).toBe('Form DM');
    expect(JSON.parse(audit[0]!.newValue!).name).toBe('Demographics');
  });

  it('exports a form to JSON and imports it back identical; a wrong file names the reason', async () => {
    const res = await fetch(`${s.url}/api/crf/form/export?id=${formId}`, { headers: { token: dm, proId: String(projectId), proType: 'DEV' } });
    expect(res.headers.get('content-disposition')).toContain('DM.form.json');
    const text = await res.text();
    const file = JSON.parse(text) as { kind: string; form: { code: string } };
    expect(file.kind).toBe('esource.form');
    file.form.code = 'DM2';
    const imp = await s.api.post<{ id: number; definition: unknown }>('/crf/form/import', { token: dm, headers: DEV(), json: { versionId: v1, content: JSON.stringify(file) } });
    expect(imp.status).toBe(200);
    const original = await s.api.get<{ definition: Record<string, unknown> }>('/crf/form/get', { token: dm, headers: DEV(), query: { id: formId } });
    expect({ ...(imp.body.data.definition as Record<string, unknown>), code: 'DM' }).toEqual(original.body.data.definition);
    expect(cellTextsEn(file.form)).toEqual(['Weighed fasting']);
    expect(cellTextsEn(imp.body.data.definition)).toEqual(['Weighed fasting']);

    const notJson = await s.api.post('/crf/form/import', { token: dm, headers: { ...DEV(), language: 'en_US' }, json: { versionId: v1, content: '{oops' } });
    expect(notJson.status).toBe(400);
    expect(notJson.body.message).toMatch(/^Import failed, data format is not correct: /);
    const wrongShape = await s.api.post('/crf/form/import', { token: dm, headers: { ...DEV(), language: 'en_US' }, json: { versionId: v1, content: JSON.stringify({ hello: 1 }) } });
    expect(wrongShape.body.message).toBe('Import failed, data format is not correct: name: Invalid input: expected string, received undefined');
    const dupCode = await s.api.post('/crf/form/import', { token: dm, headers: DEV(), json: { versionId: v1, content: text } });
    expect(dupCode.status).toBe(409);
  });

  it('plans stages and visits with windows and forms', async () => {
    const st = await s.api.post<{ id: number }>('/pro/stage/save', { token: dm, headers: DEV(), form: { versionId: v1, name: 'Treatment', sortOrder: 1 } });
    const v = await s.api.post<{ id: number; formIds: number[]; windowAfter: number }>('/pro/visit/add', {
      token: dm,
      headers: DEV(),
      form: { versionId: v1, stageId: st.body.data.id, code: 'V2', name: 'Week 2', sortOrder: 2, dayOffset: 14, windowBefore: 3, windowAfter: 3, formIds: [formId] },
    });
    expect(v.body.data).toMatchObject({ formIds: [formId], windowAfter: 3 });
    const uns = await s.api.post<{ dayOffset: number; unscheduled: boolean }>('/pro/visit/add', {
      token: dm,
      headers: DEV(),
      form: { versionId: v1, code: 'UNS', name: 'Unscheduled', unscheduled: 'true', dayOffset: 99 },
    });
    expect(uns.body.data).toMatchObject({ unscheduled: true, dayOffset: 0 });
    const dup = await s.api.post('/pro/visit/add', { token: dm, headers: DEV(), form: { versionId: v1, code: 'V2', name: 'again' } });
    expect(dup.status).toBe(409);
    const list = await s.api.get<{ code: string }[]>('/pro/visit/list', { token: dm, headers: DEV(), query: { versionId: v1 } });
    expect(list.body.data.map((x) => x.code)).toEqual(['UNS', 'V2']);
  });

  it('publishes to UAT and PRO; then the version is locked and a new version copies it', async () => {
    const pub = await s.api.post<{ status: number; publishedEnvs: string[] }>('/crf/version/publish', { token: dm, headers: DEV(), form: { id: v1, envs: 'UAT,PRO' } });
    expect(pub.body.data).toMatchObject({ status: 1, publishedEnvs: ['PRO', 'UAT'] });
    const locked = await s.api.post('/crf/form/save', { token: dm, headers: { ...DEV(), language: 'en_US' }, json: { versionId: v1, id: formId, lockVersion: lock, definition: form('DM') } });
    expect(locked.status).toBe(409);
    expect(locked.body.message).toBe('This design version is published and cannot be changed; create a new version');
    const uat = await s.api.post<{ id: number }[]>('/crf/version/list', { token: dm, headers: { proId: projectId, proType: 'UAT' } });
    expect(uat.body.data.map((x) => x.id)).toEqual([v1]);
    const inForce = await s.api.post<{ version: { id: number }; visits: unknown[] }>('/pro/visit/listByEnabledVersion', { token: dm, headers: { proId: projectId, proType: 'PRO' } });
    expect(inForce.body.data.version.id).toBe(v1);
    expect(inForce.body.data.visits).toHaveLength(2);

    const v2 = await s.api.post<{ id: number; versionNo: number; formCount: number; visitCount: number; status: number }>('/crf/version/add', { token: dm, headers: DEV(), form: { name: 'v2.0' } });
    expect(v2.body.data).toMatchObject({ versionNo: 2, formCount: 2, visitCount: 2, status: 0 });
    const visits2 = await s.api.get<{ code: string; formIds: number[] }[]>('/pro/visit/list', { token: dm, headers: DEV(), query: { versionId: v2.body.data.id } });
    const forms2 = await s.api.get<{ id: number; code: string }[]>('/crf/form/list', { token: dm, headers: DEV(), query: { versionId: v2.body.data.id } });
    const dm2 = forms2.body.data.find((f) => f.code === 'DM')!;
    expect(visits2.body.data.find((x) => x.code === 'V2')!.formIds).toEqual([dm2.id]);
    const copied = await s.api.get<{ definition: unknown }>('/crf/form/get', { token: dm, headers: DEV(), query: { id: dm2.id } });
    expect(cellTextsEn(copied.body.data.definition)).toEqual(['Weighed fasting']);
    // UAT does not see the unpublished v2
    const notInUat = await s.api.get('/crf/form/list', { token: dm, headers: { proId: projectId, proType: 'UAT' }, query: { versionId: v2.body.data.id } });
    expect(notInUat.status).toBe(404);
  });
});

describe('project design export and import', () => {
  it('exports the demo design and imports it into another project as a new DEV version', async () => {
    const res = await fetch(`${s.url}/api/project/info/export`, { headers: { token: dm, proId: '1', proType: 'PRO' } });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-disposition')).toContain('DEMO-001.design.json');
    const text = await res.text();
    const file = JSON.parse(text) as { forms: { code: string }[]; visits: { code: string; forms: string[] }[] };
    expect(file.forms.map((f) => f.code)).toEqual(['DM', 'VS', 'LB', 'AE', 'CM', 'PR', 'MH', 'SH']);
    expect(file.visits.find((v) => v.code === 'V1')!.forms).toEqual(['DM', 'VS']);
    // the demo vital signs table's header text has its English text, kept through import and export
    expect(cellTextsEn(file.forms.find((f) => f.code === 'VS'))).toEqual(['Seated, after 5 minutes at rest (mmHg)']);

    const inUat = await s.api.post('/project/info/import', { token: dm, headers: { proId: projectId, proType: 'UAT' }, json: { content: text } });
    expect(inUat.status).toBe(403);
    const imp = await s.api.post<{ id: number; formCount: number; visitCount: number; status: number }>('/project/info/import', {
      token: dm,
      headers: DEV(),
      json: { content: text, name: 'from demo' },
    });
    expect(imp.status, JSON.stringify(imp.body)).toBe(200);
    expect(imp.body.data).toMatchObject({ formCount: 8, visitCount: 4, status: 0 });
    const again = await fetch(`${s.url}/api/project/info/export?versionId=${imp.body.data.id}`, { headers: { token: dm, proId: String(projectId), proType: 'DEV' } });
    const round = JSON.parse(await again.text()) as Record<string, unknown>;
    const orig = JSON.parse(text) as Record<string, unknown>;
    expect({ ...round, project: null, version: null }).toEqual({ ...orig, project: null, version: null });

    const broken = JSON.parse(text) as { visits: { forms: string[] }[] };
    broken.visits[0]!.forms.push('NOPE');
    const bad = await s.api.post('/project/info/import', { token: dm, headers: { ...DEV(), language: 'en_US' }, json: { content: JSON.stringify(broken) } });
    expect(bad.status).toBe(400);
    expect(bad.body.message).toBe('Import failed, data format is not correct: visits.0.forms.2: refers to something the file does not contain');
  });
});

describe('visit English names', () => {
  it('carries nameEn through add, update, list, version copy, export and import; over 50 characters is refused with the limit', async () => {
    const ver = await s.api.post<{ id: number }>('/crf/version/add', { token: dm, headers: DEV(), form: { name: 'en names' } });
    const en = (rows: { code: string; nameEn?: string | null }[]) => rows.filter((x) => x.code.startsWith('EN')).map((x) => [x.code, x.nameEn]);
    const versionId = ver.body.data.id;
    const added = await s.api.post<{ id: number; nameEn: string | null }>('/pro/visit/add', {
      token: dm,
      headers: DEV(),
      form: { versionId, code: 'EN1', name: '基线访视', nameEn: 'Baseline', dayOffset: 0 },
    });
    expect(added.status, JSON.stringify(added.body)).toBe(200);
    expect(added.body.data.nameEn).toBe('Baseline');
    const plain = await s.api.post<{ id: number; nameEn: string | null }>('/pro/visit/add', { token: dm, headers: DEV(), form: { versionId, code: 'EN2', name: '随访' } });
    expect(plain.body.data.nameEn).toBeNull();

    const tooLong = await s.api.post('/pro/visit/add', { token: dm, headers: { ...DEV(), language: 'en_US' }, form: { versionId, code: 'EN3', name: 'x', nameEn: 'y'.repeat(51) } });
    expect(tooLong.status).toBe(400);
    expect(JSON.stringify(tooLong.body)).toContain('50');

    const upd = await s.api.post<{ nameEn: string | null }>('/pro/visit/update', {
      token: dm,
      headers: DEV(),
      form: { id: added.body.data.id, code: 'EN1', name: '基线访视', nameEn: 'Baseline visit' },
    });
    expect(upd.body.data.nameEn).toBe('Baseline visit');
    const cleared = await s.api.post<{ nameEn: string | null }>('/pro/visit/update', { token: dm, headers: DEV(), form: { id: plain.body.data.id, code: 'EN2', name: '随访', nameEn: '' } });
    expect(cleared.body.data.nameEn).toBeNull();
    const audit = await s.database.db.select().from(auditEvents).where(and(eq(auditEvents.entity, 'visit'), eq(auditEvents.field, 'nameEn')));
    expect(audit.map((a) => a.newValue)).toContain('Baseline visit');

    const list = await s.api.get<{ code: string; nameEn: string | null }[]>('/pro/visit/list', { token: dm, headers: DEV(), query: { versionId } });
    expect(en(list.body.data)).toEqual([
      ['EN1', 'Baseline visit'],
      ['EN2', null],
    ]);

    const copy = await s.api.post<{ id: number }>('/crf/version/add', { token: dm, headers: DEV(), form: { name: 'en copy', basedOnId: versionId } });
    const copied = await s.api.get<{ code: string; nameEn: string | null }[]>('/pro/visit/list', { token: dm, headers: DEV(), query: { versionId: copy.body.data.id } });
    expect(copied.body.data.find((x) => x.code === 'EN1')!.nameEn).toBe('Baseline visit');

    const res = await fetch(`${s.url}/api/project/info/export?versionId=${versionId}`, { headers: { token: dm, proId: String(projectId), proType: 'DEV' } });
    const file = JSON.parse(await res.text()) as { visits: { code: string; nameEn?: string | null }[] };
    expect(en(file.visits)).toEqual([
      ['EN1', 'Baseline visit'],
      ['EN2', null],
    ]);
    const imp = await s.api.post<{ id: number }>('/project/info/import', { token: dm, headers: DEV(), json: { content: JSON.stringify(file), name: 'en import' } });
    expect(imp.status, JSON.stringify(imp.body)).toBe(200);
    const imported = await s.api.get<{ code: string; nameEn: string | null }[]>('/pro/visit/list', { token: dm, headers: DEV(), query: { versionId: imp.body.data.id } });
    expect(en(imported.body.data)).toEqual([
      ['EN1', 'Baseline visit'],
      ['EN2', null],
    ]);

    // a file exported before visits had English names still imports
    for (const v of file.visits) delete v.nameEn;
    const old = await s.api.post<{ id: number }>('/project/info/import', { token: dm, headers: DEV(), json: { content: JSON.stringify(file), name: 'old file' } });
    expect(old.status).toBe(200);
  });
});

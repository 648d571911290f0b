/**
 * Dictionaries over the real API (issue 13 item 5): the seeded demo versions; imports from CSV (UTF-8 and GB18030)
 * and .xlsx that become the active version; refused files (duplicate codes, unknown or missing columns, empty cells,
 * a taken label) with every problem named and nothing written; who may import and search; the ranked search (code,
 * term, synonym, pinyin initials, later English words, contains); the term list; switching versions; findBestTerm.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eq, sql } from 'drizzle-orm';
import ExcelJS from 'exceljs';
import type { DictionarySearchHit, DictionaryTermPage, DictionaryView } from '@esource/shared';
import { auditEvents, dictionaries } from '../src/db/schema';
import { findBestTerm } from '../src/modules/dictionaries/dictionaries.service';
import { startTestServer, type TestServer } from './harness';

let s: TestServer;
const tok: Record<string, string> = {};
const EN = { language: 'en_US' };
const XLSX = 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet';

type Problem = { field: string; message: string };

function upload(
  fields: Record<string, string>,
  file: Buffer | null,
  name = 'terms.csv',
  who = 'admin',
  language = 'en_US',
) {
  const fd = new FormData();
  for (const [k, v] of Object.entries(fields)) fd.append(k, v);
  if (file) fd.append('file', new Blob([file], { type: name.endsWith('.xlsx') ? XLSX : 'text/csv' }), name);
  return s.api.post<DictionaryView>('/system/dictionary/import', {
    token: tok[who],
    headers: { language },
    raw: { body: fd },
  });
}

const csv = (rows: string[][]) =>
  Buffer.from(
    rows.map((r) => r.map((c) => (/[",\n]/.test(c) ? `"${c.replace(/"/g, '""')}"` : c)).join(',')).join('\n'),
    'utf8',
  );

async function xlsx(rows: (string | number)[][]): Promise<Buffer> {
  const wb = new ExcelJS.Workbook();
  const ws = wb.addWorksheet('Terms');
  for (const r of rows) ws.addRow(r);
  return Buffer.from(await wb.xlsx.writeBuffer());
}

const search = (
  query: Record<string, string | number>,
  who = 'admin',
  headers: Record<string, string | number> = {},
) =>
  s.api.get<DictionarySearchHit[]>(`/${who === 'ae' ? 'project' : 'system'}/dictionary/search`, {
    token: tok[who],
    headers,
    query,
  });
const versions = (kind: string) =>
  s.api.post<DictionaryView[]>('/system/dictionary/list', { token: tok.admin, form: { kind } });
const terms = (body: Record<string, string | number>) =>
  s.api.post<DictionaryTermPage>('/system/dictionary/terms', {
    token: tok.admin,
    form: { pageSize: 50, ...body },
  });

async function counts() {
  const n = async (q: string) => Number((await s.database.executeSql(q)).rows[0]!.n);
  return {
    versions: await n('select count(*)::int as n from dictionaries'),
    terms: await n('select count(*)::int as n from dictionary_terms'),
    keys: await n('select count(*)::int as n from dictionary_keys'),
    audit: await n('select count(*)::int as n from audit_events'),
  };
}

beforeAll(async () => {
  s = await startTestServer();
  for (const a of ['admin', 'dm', 'ae', 'crc1']) tok[a] = await s.api.login(a);
});
afterAll(async () => {
  await s?.stop();
});

describe('the demo dictionaries', () => {
  it('are seeded once per kind as the active version, with their sources', async () => {
    for (const kind of ['drug', 'diagnosis', 'surgery', 'examination']) {
      const r = await versions(kind);
      expect(r.status, JSON.stringify(r.body)).toBe(200);
      expect(r.body.data).toHaveLength(1);
      expect(r.body.data[0]).toMatchObject({ kind, version: 'demo-1', active: true });
      expect(r.body.data[0]!.termCount).toBeGreaterThanOrEqual(60);
      expect(r.body.data[0]!.source).toMatch(/RxNorm|ICD-10-CM|ICD-9-CM|LOINC/);
    }
  });

  it('find hospital names, abbreviations and pinyin initials', async () => {
    const alt = await search({ kind: 'examination', text: '谷丙' });
    expect(alt.body.data[0]).toMatchObject({
      code: '1742-6',
      termZh: '丙氨酸氨基转移酶',
      match: 'synonym',
      synonym: '谷丙转氨酶',
    });
    const gxy = await search({ kind: 'diagnosis', text: 'gxy' });
    expect(gxy.body.data[0]).toMatchObject({
      code: 'I10',
      match: 'pinyin',
      synonym: '高血压',
      version: 'demo-1',
    });
    // every medication of the Synthea fixtures is found by its code and by its name as the fixture writes it
    const fixtures: [string, string][] = [
      ['313782', 'Acetaminophen 325 MG Oral Tablet'],
      ['316672', 'Simvistatin 10 MG'],
      [
        '1043400',
        'Acetaminophen 21.7 MG/ML / Dextromethorphan Hydrobromide 1 MG/ML / doxylamine succinate 0.417 MG/ML Oral Solution',
      ],
    ];
    for (const [code, name] of fixtures) {
      expect((await findBestTerm(s.database.db, 'drug', code))?.code).toBe(code);
      expect((await findBestTerm(s.database.db, 'drug', name.toUpperCase()))?.code, name).toBe(code);
    }
  });
});

describe('import', () => {
  it('imports a CSV as the new active version, audited, and searchable at once', async () => {
    const before = await counts();
    const r = await upload(
      { kind: 'diagnosis', version: 'v2', source: 'test list' },
      csv([
        ['编码', '中文名称', '英文名称', '同义词'],
        ['I10', '原发性高血压', 'Essential (primary) hypertension', '高血压；HTN'],
        ['E11.9', '2型糖尿病', 'Type 2 diabetes mellitus without complications', '糖尿病;T2DM'],
        ['D70.9', '中性粒细胞减少症', 'Neutropenia, unspecified', ''],
        ['R11.0', '恶心', '', ''],
        ['X99', '', 'English only', ''],
      ]),
      'icd10.csv',
    );
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    expect(r.body.data).toMatchObject({
      kind: 'diagnosis',
      version: 'v2',
      name: 'icd10',
      termCount: 5,
      active: true,
      createdBy: 'System Admin',
      source: 'test list',
    });
    const list = (await versions('diagnosis')).body.data;
    expect(list.map((v) => [v.version, v.active])).toEqual([
      ['v2', true],
      ['demo-1', false],
    ]);
    const after = await counts();
    expect(after.versions - before.versions).toBe(1);
    expect(after.terms - before.terms).toBe(5);
    expect(after.keys).toBeGreaterThan(before.keys + 5);
    const events = await s.database.db.select().from(auditEvents).where(eq(auditEvents.entity, 'dictionary'));
    const mine = events.filter((e) => e.entityId === String(r.body.data.id));
    expect(mine.map((e) => e.action).sort()).toEqual(['dictionary.activate', 'dictionary.import']);
    expect(mine.find((e) => e.action === 'dictionary.activate')).toMatchObject({
      oldValue: 'demo-1',
      newValue: 'v2',
      userName: 'System Admin',
    });
    // the active version is what the coding fields search now
    const hits = (await search({ kind: 'diagnosis', text: 'tnb' })).body.data;
    expect(hits[0]).toMatchObject({ code: 'E11.9', version: 'v2', match: 'pinyin', synonym: '糖尿病' });
    expect((await search({ kind: 'diagnosis', text: '2xtnb' })).body.data[0]).toMatchObject({
      code: 'E11.9',
      synonym: null,
    });
    // a full-width semicolon separates synonyms too
    expect(
      (await terms({ dictionaryId: r.body.data.id, keyword: 'HTN' })).body.data.content[0]!.synonyms,
    ).toEqual(['高血压', 'HTN']);
  });

  it('imports an .xlsx with English headers, and a CSV saved by Chinese Excel (GB18030)', async () => {
    const r = await upload(
      { kind: 'examination', version: 'lab-2' },
      await xlsx([
        ['*Code', 'Chinese term', 'English term', 'Synonyms'],
        ['1742-6', '丙氨酸氨基转移酶', 'Alanine aminotransferase', '谷丙转氨酶;ALT'],
        [718, '血红蛋白', 'Hemoglobin', 'Hb'],
      ]),
      'lab.xlsx',
    );
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    expect(r.body.data.termCount).toBe(2);
    const page = await terms({ dictionaryId: r.body.data.id });
    expect(page.body.data.content.map((t) => t.code)).toEqual(['1742-6', '718']);

    // "code,term_zh,term_en\nA01,霍乱,Cholera" in GB18030
    const gb = Buffer.concat([
      Buffer.from('code,term_zh,term_en\nA01,', 'latin1'),
      Buffer.from([0xbb, 0xf4, 0xc2, 0xd2]),
      Buffer.from(',Cholera\n', 'latin1'),
    ]);
    const g = await upload({ kind: 'diagnosis', version: 'gb' }, gb, 'gb.csv');
    expect(g.status, JSON.stringify(g.body)).toBe(200);
    expect((await terms({ dictionaryId: g.body.data.id })).body.data.content[0]).toMatchObject({
      code: 'A01',
      termZh: '霍乱',
      termEn: 'Cholera',
    });
    await s.api.post('/system/dictionary/activate', {
      token: tok.admin,
      form: { id: (await versions('diagnosis')).body.data.find((v) => v.version === 'v2')!.id },
    });
  });

  it('refuses duplicate codes, naming the code and both rows, and writes nothing', async () => {
    const before = await counts();
    const r = await upload(
      { kind: 'drug', version: 'dup' },
      csv([
        ['code', 'term_zh', 'term_en', 'synonyms'],
        ['161', '对乙酰氨基酚', 'acetaminophen', ''],
        ['1191', '阿司匹林', 'aspirin', ''],
        ['161', '扑热息痛', 'paracetamol', ''],
        ['', '无编码', '', ''],
        ['5640', '', '', ''],
        ['x'.repeat(51), '太长', '', ''],
      ]),
    );
    expect(r.status).toBe(400);
    expect(r.body.errorCode).toBe('VALIDATION');
    const d = r.body.detail as Problem[];
    expect(d).toEqual([
      { field: 'row 4: code', message: "the code '161' is also in row 2" },
      { field: 'row 5: code', message: 'the code is empty' },
      {
        field: 'row 6: term_zh',
        message: 'the Chinese and the English term are both empty: give at least one',
      },
      { field: 'row 7: code', message: 'is longer than 50 characters' },
    ]);
    expect(await counts()).toEqual(before);
    // in Chinese too
    const zh = await upload(
      { kind: 'drug', version: 'dup' },
      csv([
        ['code', 'term_zh', 'term_en'],
        ['A', '甲', ''],
        ['a', '乙', ''],
      ]),
      'x.csv',
      'admin',
      'zh_CN',
    );
    expect((zh.body.detail as Problem[])[0]).toEqual({
      field: 'row 3: code',
      message: '编码“a”与第 2 行重复',
    });
  });

  it('refuses an unknown or missing column, naming it', async () => {
    const before = await counts();
    const r = await upload(
      { kind: 'drug', version: 'cols' },
      csv([
        ['code', 'term_zh', 'english', 'dose'],
        ['1', '甲', 'a', '5 mg'],
      ]),
    );
    expect(r.status).toBe(400);
    expect((r.body.detail as Problem[]).map((p) => p.message)).toEqual([
      "unknown column 'dose': the columns are code (Code), term_zh (Chinese term), term_en (English term), synonyms (Synonyms)",
    ]);
    const m = await upload(
      { kind: 'drug', version: 'cols' },
      await xlsx([
        ['编码', '同义词'],
        ['1', 'x'],
      ]),
      'm.xlsx',
      'admin',
      'zh_CN',
    );
    expect(m.status).toBe(400);
    expect((m.body.detail as Problem[]).map((p) => p.message)).toEqual([
      '缺少“中文名称”列，请使用导入模板',
      '缺少“英文名称”列，请使用导入模板',
    ]);
    expect(m.body.message).toContain('中文名称');
    expect(await counts()).toEqual(before);
  });

  it('refuses a taken version label, a missing file, a binary file and bad fields', async () => {
    const taken = await upload(
      { kind: 'diagnosis', version: 'DEMO-1' },
      csv([
        ['code', 'term_zh', 'term_en'],
        ['1', '甲', ''],
      ]),
    );
    expect(taken.status).toBe(409);
    expect(taken.body.errorCode).toBe('DICTIONARY_VERSION_TAKEN');
    expect(taken.body.message).toBe("The Diagnosis dictionary already has a version 'DEMO-1'");
    const none = await upload({ kind: 'diagnosis', version: 'nofile' }, null);
    expect(none.status).toBe(400);
    expect(none.body.detail).toEqual([{ field: 'file', message: 'choose an .xlsx or .csv file' }]);
    const bin = await upload(
      { kind: 'diagnosis', version: 'bin' },
      Buffer.from([0xd0, 0xcf, 0x11, 0xe0, 0, 0, 1, 2]),
      'old.xls',
    );
    expect(bin.body.detail).toEqual([
      { field: 'file', message: 'the file is neither an Excel workbook (.xlsx) nor a CSV text file' },
    ]);
    const fields = await upload(
      { kind: 'food', version: '' },
      csv([
        ['code', 'term_zh', 'term_en'],
        ['1', '甲', ''],
      ]),
    );
    expect(fields.status).toBe(400);
    expect((fields.body.detail as Problem[]).map((p) => p.field).sort()).toEqual(['kind', 'version']);
    const empty = await upload(
      { kind: 'diagnosis', version: 'empty' },
      csv([['code', 'term_zh', 'term_en']]),
    );
    expect(empty.body.detail).toEqual([{ field: 'file', message: 'the file holds no terms' }]);
  });

  it('lists at most 200 problems, then how many more; refuses more than 200,000 terms', async () => {
    const bad = await upload(
      { kind: 'drug', version: 'many' },
      csv([['code', 'term_zh', 'term_en'], ...Array.from({ length: 250 }, (_, i) => ['', `药${i}`, ''])]),
    );
    const d = bad.body.detail as Problem[];
    expect(d).toHaveLength(201);
    expect(d[200]).toEqual({ field: 'file', message: '… and 50 more problems; fix these first' });
    const lines = ['code,term_zh,term_en'];
    for (let i = 0; i <= 200_000; i++) lines.push(`C${i},药${i},`);
    const big = await upload({ kind: 'drug', version: 'big' }, Buffer.from(lines.join('\n')));
    expect(big.status).toBe(400);
    expect(big.body.detail).toEqual([
      { field: 'file', message: 'at most 200000 rows can be imported at once' },
    ]);
  });

  it('refuses import, activation and the template to roles without system:dictionary:import', async () => {
    const before = await counts();
    const r = await upload(
      { kind: 'drug', version: 'dm' },
      csv([
        ['code', 'term_zh', 'term_en'],
        ['1', '甲', ''],
      ]),
      'x.csv',
      'dm',
    );
    expect(r.status).toBe(403);
    expect((await s.api.post('/system/dictionary/activate', { token: tok.dm, form: { id: 1 } })).status).toBe(
      403,
    );
    expect((await s.api.get('/system/dictionary/template', { token: tok.dm })).status).toBe(403);
    expect((await s.api.post('/system/dictionary/list', { token: tok.crc1, form: {} })).status).toBe(403);
    expect(await counts()).toEqual(before);
  });
});

describe('search', () => {
  let v: DictionaryView;
  beforeAll(async () => {
    const r = await upload(
      { kind: 'surgery', version: 'rank' },
      csv([
        ['code', 'term_zh', 'term_en', 'synonyms'],
        ['45.23', '结肠镜检查', 'Colonoscopy', '肠镜'],
        ['45.2', '大肠诊断性操作', 'Diagnostic procedures on large intestine', ''],
        ['452', '其他操作', 'Other procedure 452', ''],
        ['47.09', '其他阑尾切除术', 'Other appendectomy', '阑尾切除术'],
        ['47.01', '腹腔镜下阑尾切除术', 'Laparoscopic appendectomy', ''],
        ['51.23', '腹腔镜下胆囊切除术', 'Laparoscopic cholecystectomy', 'LC'],
        ['LC1', '肝脏活检', 'Liver biopsy', ''],
        [
          '99.25',
          '注射或输注癌症化学治疗药物',
          'Injection or infusion of cancer chemotherapeutic substance',
          '化疗',
        ],
      ]),
    );
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    v = r.body.data;
  });

  it('ranks the exact code first, then code prefixes', async () => {
    const r = (await search({ kind: 'surgery', text: '45.2' })).body.data;
    expect(r.map((h) => [h.code, h.match])).toEqual([
      ['45.2', 'code'],
      ['45.23', 'code'],
    ]);
    expect((await search({ kind: 'surgery', text: '4' })).body.data.map((h) => h.code)).toEqual([
      '452',
      '45.2',
      '45.23',
      '47.01',
      '47.09',
    ]);
  });

  it('an exact term or synonym before prefixes; a zh prefix; the synonym that matched', async () => {
    const lc = (await search({ kind: 'surgery', text: 'lc' })).body.data;
    // 'LC' is a synonym exactly: before the code prefix LC1 and the pinyin of 肠镜 (cj) does not match
    expect(lc.map((h) => [h.code, h.match, h.synonym])).toEqual([
      ['51.23', 'synonym', 'LC'],
      ['LC1', 'code', null],
    ]);
    const zh = (await search({ kind: 'surgery', text: '腹腔镜' })).body.data;
    expect(zh.map((h) => h.code).sort()).toEqual(['47.01', '51.23']);
    expect(zh.every((h) => h.match === 'term')).toBe(true);
    expect((await search({ kind: 'surgery', text: '肠镜' })).body.data[0]).toMatchObject({
      code: '45.23',
      match: 'synonym',
      synonym: '肠镜',
    });
  });

  it('pinyin initials and full pinyin of terms and synonyms', async () => {
    expect((await search({ kind: 'surgery', text: 'qtlwqcs' })).body.data[0]).toMatchObject({
      code: '47.09',
      match: 'pinyin',
      synonym: null,
    });
    expect((await search({ kind: 'surgery', text: 'lwqc' })).body.data[0]).toMatchObject({
      code: '47.09',
      match: 'pinyin',
      synonym: '阑尾切除术',
    });
    expect((await search({ kind: 'surgery', text: 'hualiao' })).body.data[0]).toMatchObject({
      code: '99.25',
      match: 'pinyin',
      synonym: '化疗',
    });
    expect((await search({ kind: 'surgery', text: 'HL' })).body.data.map((h) => h.code)).toContain('99.25');
  });

  it('a later English word, then a contains match when the prefixes find too few', async () => {
    const app = (await search({ kind: 'surgery', text: 'appendectomy' })).body.data;
    expect(app.map((h) => [h.code, h.match])).toEqual([
      ['47.01', 'term'],
      ['47.09', 'term'],
    ]);
    const cut = (await search({ kind: 'surgery', text: '切除' })).body.data;
    expect(cut.map((h) => h.code).sort()).toEqual(['47.01', '47.09', '51.23']);
    expect(cut.every((h) => h.match === 'contains')).toBe(true);
    expect((await search({ kind: 'surgery', text: 'ectomy', limit: 1 })).body.data).toHaveLength(1);
  });

  it('searches a named version, limits the results, and answers nothing for a kind without an active version', async () => {
    const old = (await versions('surgery')).body.data.find((x) => x.version === 'demo-1')!;
    expect(
      (await search({ kind: 'surgery', text: '45.23', dictionaryId: old.id })).body.data[0],
    ).toMatchObject({ version: 'demo-1', termZh: '结肠镜检查' });
    // a version of another kind is not searched
    expect((await search({ kind: 'drug', text: '45.23', dictionaryId: old.id })).body.data).toEqual([]);
    expect((await search({ kind: 'surgery', text: 'x', limit: 51 })).status).toBe(400);
    expect((await search({ kind: 'surgery', text: '   ' })).status).toBe(400);
  });

  it('is open to safety reviewers from their project, and to no one else', async () => {
    const ae = await search({ kind: 'surgery', text: '肠镜' }, 'ae', { proId: 1, proType: 'PRO' });
    expect(ae.status, JSON.stringify(ae.body)).toBe(200);
    expect(ae.body.data[0]!.code).toBe('45.23');
    expect(
      (
        await s.api.get('/system/dictionary/search', {
          token: tok.ae,
          headers: { proId: 1, proType: 'PRO' },
          query: { kind: 'surgery', text: 'x' },
        })
      ).status,
    ).toBe(403);
    expect(
      (
        await s.api.get('/project/dictionary/search', {
          token: tok.crc1,
          headers: { proId: 1, proType: 'PRO' },
          query: { kind: 'surgery', text: 'x' },
        })
      ).status,
    ).toBe(403);
    expect(
      (await s.api.get('/system/dictionary/search', { token: tok.dm, query: { kind: 'surgery', text: 'x' } }))
        .status,
    ).toBe(403);
  });

  it('the term list filters by code, term, synonym or pinyin, sorts and pages', async () => {
    const all = await terms({ dictionaryId: v.id, sortField: 'code', sortOrder: 'desc' });
    expect(all.body.data.totalCount).toBe(8);
    expect(all.body.data.content.map((t) => t.code).slice(0, 3)).toEqual(['LC1', '99.25', '51.23']);
    expect(
      (await terms({ dictionaryId: v.id, keyword: 'fqj' })).body.data.content.map((t) => t.code).sort(),
    ).toEqual(['47.01', '51.23']);
    expect((await terms({ dictionaryId: v.id, keyword: '阑尾切除' })).body.data.totalCount).toBe(2);
    const zh = await terms({ dictionaryId: v.id, sortField: 'termEn' });
    expect(zh.body.data.content[0]!.termEn).toBe('Colonoscopy');
    expect((await terms({ dictionaryId: v.id, pageSize: 30 })).status).toBe(400);
    expect((await terms({ dictionaryId: 999_999 })).status).toBe(404);
  });
});

describe('versions', () => {
  it('switch back to an earlier version: search follows, the switch is audited, a second switch changes nothing', async () => {
    const list = (await versions('surgery')).body.data;
    const demo = list.find((x) => x.version === 'demo-1')!;
    expect(demo.active).toBe(false);
    const r = await s.api.post<DictionaryView>('/system/dictionary/activate', {
      token: tok.admin,
      form: { id: demo.id },
    });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    expect(r.body.data).toMatchObject({ active: true, activatedBy: 'System Admin' });
    const active = await s.database.db.select().from(dictionaries).where(eq(dictionaries.kind, 'surgery'));
    expect(active.filter((d) => d.active).map((d) => d.version)).toEqual(['demo-1']);
    expect(
      (await search({ kind: 'surgery', text: '45.2' })).body.data.every((h) => h.version === 'demo-1'),
    ).toBe(true);
    expect(await findBestTerm(s.database.db, 'surgery', 'LC1')).toBeNull();
    const events = await s.database.db.execute(
      sql`select old_value, new_value from audit_events where action = 'dictionary.activate' and entity_id = ${String(demo.id)} and user_name <> 'seed'`,
    );
    expect((events as { rows: unknown[] }).rows).toEqual([{ old_value: 'rank', new_value: 'demo-1' }]);
    const again = await counts();
    expect(
      (await s.api.post('/system/dictionary/activate', { token: tok.admin, form: { id: demo.id } })).status,
    ).toBe(200);
    expect(await counts()).toEqual(again);
    expect(
      (await s.api.post('/system/dictionary/activate', { token: tok.admin, form: { id: 999_999 } })).status,
    ).toBe(404);
  });

  it('findBestTerm: exact code, term or synonym of the active version, in any case and width', async () => {
    expect(await findBestTerm(s.database.db, 'examination', '谷丙转氨酶')).toMatchObject({
      code: '1742-6',
      version: 'lab-2',
    });
    expect(await findBestTerm(s.database.db, 'examination', 'ＡＬＴ')).toMatchObject({ code: '1742-6' });
    expect(await findBestTerm(s.database.db, 'examination', 'hemoglobin')).toMatchObject({
      code: '718',
      termZh: '血红蛋白',
    });
    expect(await findBestTerm(s.database.db, 'examination', 'hemo')).toBeNull();
    expect(
      await findBestTerm(s.database.db, 'diagnosis', ' essential (PRIMARY)  hypertension '),
    ).toMatchObject({ code: 'I10', version: 'v2' });
  });
});

describe('template', () => {
  it('downloads in the request language and imports as it is', async () => {
    for (const [lang, head] of [
      ['zh_CN', ['*编码', '中文名称', '英文名称', '同义词']],
      ['en_US', ['*Code', 'Chinese term', 'English term', 'Synonyms']],
    ] as const) {
      const res = await fetch(`${s.api.base}/api/system/dictionary/template?kind=examination`, {
        headers: { token: tok.admin!, language: lang },
      });
      expect(res.status).toBe(200);
      const buf = Buffer.from(await res.arrayBuffer());
      const wb = new ExcelJS.Workbook();
      await wb.xlsx.load(buf as unknown as Parameters<typeof wb.xlsx.load>[0]);
      expect((wb.worksheets[0]!.getRow(1).values as string[]).slice(1)).toEqual(head);
      const r = await upload({ kind: 'examination', version: `tpl-${lang}` }, buf, 't.xlsx', 'admin', lang);
      expect(r.status, JSON.stringify(r.body)).toBe(200);
      expect(r.body.data.termCount).toBe(2);
    }
    const c = await fetch(`${s.api.base}/api/system/dictionary/template?kind=drug&format=csv`, {
      headers: { token: tok.admin!, ...EN },
    });
    expect(c.headers.get('content-type')).toContain('text/csv');
    const text = Buffer.from(await c.arrayBuffer());
    expect(text.subarray(0, 3)).toEqual(Buffer.from([0xef, 0xbb, 0xbf]));
    const r = await upload({ kind: 'drug', version: 'tpl-csv' }, text, 't.csv');
    expect(r.status, JSON.stringify(r.body)).toBe(200);
  });
});

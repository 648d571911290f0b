/**
 * OCR association over real HTTP (issue 12 item 6, POST /kbms/ai/kbmsCrfRules): a lab report's OCR lines (written
 * on the file row, as the de-identification job stores them) are read into results, matched to the lab form's items
 * through the mapping rules, the items' labels and a project OCR synonym, converted with UCUM, and kept as source
 * records of the file's region; the pre-fill review offers them and an accepted one is saved with entry mode KBMS 4
 * and its source. Running again changes nothing; a monitor (no pre-fill execute), another site and a file still
 * being de-identified are refused; a file with no visit and no readable date takes the visit the user chooses.
 */
process.env.OCR_ENGINE = 'none';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { and, eq, isNull } from 'drizzle-orm';
import type { OcrAssociationResult } from '@esource/shared';
import { LAB_GRADER_VERSION } from '@esource/interop';
import { auditEvents, sites, sourceFiles, sourceRecords, sourceRecordVersions } from '../src/db/schema';
import { startTestServer, type TestServer } from './harness';

let s: TestServer;
const P = { proId: 1, proType: 'PRO', language: 'en_US' };
const tok: Record<string, string> = {};
let siteA = 0;
let ptsId = 0;
let ptsB = 0;
let v1 = 0;
let v3 = 0;
let lbForm = 0;
let reportId = 0;
let undatedId = 0;
let runningId = 0;
let otherSiteId = 0;
/** the first run's answer */
let first: OcrAssociationResult;
const day = (offset: number) => new Date(Date.now() + offset * 86_400_000).toISOString().slice(0, 10);
const LOINC = 'http://loinc.org';

type Line = { page: number; text: string; x: number; y: number; width: number; height: number };
/** One table row as an OCR engine gives it: one region per cell. */
const row = (y: number, cells: string[], xs = [60, 320, 440, 560]): Line[] =>
  cells.map((text, i) => ({
    page: 0,
    text,
    x: xs[i]!,
    y: y + i,
    width: Math.max(40, text.length * 16),
    height: 28,
  }));
const line = (y: number, text: string): Line => ({
  page: 0,
  text,
  x: 60,
  y,
  width: text.length * 14,
  height: 26,
});

const report = (): Line[] => [
  line(40, '检验报告单 Laboratory Report'),
  line(80, '姓名: 张三   性别: 男   年龄: 45 岁'),
  line(120, `采样时间: ${day(-1)} 08:30`),
  ...row(170, ['项目', '结果', '单位', '参考范围']),
  ...row(210, ['血红蛋白 HGB', '13.2', 'g/dL', '13.0-17.5']),
  ...row(250, ['白细胞计数(WBC)', '11.2↑', '10^9/L', '3.5-9.5']),
  ...row(290, ['血小板 PLT', '210', '10^9/L', '125-350']),
  ...row(330, ['血钾 K', '3.2 ↓', 'mmol/L', '3.5-5.3']),
  line(370, 'Sodium 140 mmol/L 137-147'),
  line(410, 'Glucose 5.6 mmol/L (3.9-6.1) H'),
  ...row(450, ['尿酸 UA', '420', 'μmol/L', '208-428']),
  line(500, '第 1 页 共 1 页'),
];

const associate = (who: string, form: Record<string, number>, headers: Record<string, string | number> = P) =>
  s.api.post<OcrAssociationResult>('/kbms/ai/kbmsCrfRules', { token: tok[who], headers, form });

beforeAll(async () => {
  s = await startTestServer();
  for (const a of ['dm', 'crc1', 'crc2', 'cra']) tok[a] = await s.api.login(a);
  const db = s.database.db;
  const rows = await db
    .select()
    .from(sites)
    .where(and(eq(sites.projectId, 1), eq(sites.env, 'PRO')));
  siteA = rows.find((r) => r.siteNo === '01')!.id;
  const siteB = rows.find((r) => r.siteNo === '02')!.id;
  // week 4 (V3: day 28, window −3/+7) holds yesterday, the report's collection date
  ptsId = (
    await s.api.post<{ ptsId: number }>('/project/managePts/add', {
      token: tok.crc1,
      headers: P,
      form: { siteId: siteA, firstVisitDate: day(-28) },
    })
  ).body.data.ptsId;
  ptsB = (
    await s.api.post<{ ptsId: number }>('/project/managePts/add', {
      token: tok.crc2,
      headers: P,
      form: { siteId: siteB, firstVisitDate: day(-28) },
    })
  ).body.data.ptsId;
  const sched = await s.api.get<
    { visitId: number; code: string; forms: { formId: number; code: string }[] }[]
  >('/project/pts/visits', { token: tok.crc1, headers: P, query: { ptsId } });
  v1 = sched.body.data.find((v) => v.code === 'V1')!.visitId;
  const week4 = sched.body.data.find((v) => v.code === 'V3')!;
  v3 = week4.visitId;
  lbForm = week4.forms.find((f) => f.code === 'LB')!.formId;

  const save = async (body: Record<string, unknown>) => {
    const r = await s.api.post('/crf/config/mapping/save', {
      token: tok.dm,
      headers: P,
      json: { formId: lbForm, method: 'code', selection: 'nearest', windowOnly: true, ...body },
    });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
  };
  // the hospital's configuration: LOINC codes only (no display-text matching for the hospital's records)
  await save({ variable: 'HGB', codes: [{ system: LOINC, code: '718-7' }], useSynonyms: false });
  await save({
    variable: 'WBC',
    codes: [{ system: LOINC, code: '6690-2' }],
    useSynonyms: false,
    unit: '10*9/L',
  });
  await save({
    variable: 'PLT',
    codes: [{ system: LOINC, code: '777-3' }],
    useSynonyms: false,
    unit: '10*9/L',
  });
  await save({ variable: 'NA', codes: [{ system: LOINC, code: '2951-2' }], useSynonyms: false });
  await save({ variable: 'GLUC', codes: [{ system: LOINC, code: '2345-7' }], useSynonyms: false });
  // a rule without codes: matched by name only
  await save({ variable: 'K', codes: [], useSynonyms: true });
  // the OCR synonym configuration: the report's '血小板' names the item labelled 血小板计数
  const syn = await s.api.post('/project/ocrConfig/same/save', {
    token: tok.dm,
    headers: P,
    form: { term: '血小板计数', synonyms: '血小板, PLT count' },
  });
  expect(syn.status, JSON.stringify(syn.body)).toBe(200);

  const base = {
    env: 'PRO',
    projectId: 1,
    docType: 3,
    kind: 'image' as const,
    size: 1000,
    pages: 1,
    originalKey: 'a'.repeat(64),
    redactedKey: 'b'.repeat(64),
  };
  const [a, b, c, d] = await db
    .insert(sourceFiles)
    .values([
      { ...base, siteId: siteA, subjectId: ptsId, fileName: 'lab.png', status: 1, ocr: report() },
      // no visit and no labelled date
      {
        ...base,
        siteId: siteA,
        subjectId: ptsId,
        fileName: 'undated.png',
        status: 2,
        ocr: [...row(100, ['血红蛋白', '128', 'g/L'])],
      },
      { ...base, siteId: siteA, subjectId: ptsId, fileName: 'running.png', status: 0, ocr: [] },
      { ...base, siteId: siteB, subjectId: ptsB, fileName: 'other.png', status: 1, ocr: report() },
    ])
    .returning();
  [reportId, undatedId, runningId, otherSiteId] = [a!.id, b!.id, c!.id, d!.id];
});
afterAll(async () => {
  await s?.stop();
});

describe('POST /kbms/ai/kbmsCrfRules', () => {
  it('proposes the report’s values for the visit of its collection date, converted, each with its region', async () => {
    const r = await associate('crc1', { fileId: reportId });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    first = r.body.data;
    expect(first).toMatchObject({
      fileId: reportId,
      ptsId,
      reportDate: day(-1),
      effectiveDate: day(-1),
      visit: { visitId: v3, code: 'V3' },
      created: 6,
      updated: 0,
      unchanged: 0,
      withdrawn: 0,
    });
    const by = Object.fromEntries(first.proposals.map((p) => [p.variable, p]));
    expect(Object.keys(by).sort()).toEqual(['GLUC', 'HGB', 'K', 'NA', 'PLT', 'WBC']);
    expect(first.count).toBe(6);
    // g/dL → the item's g/L
    expect(by.HGB).toMatchObject({
      name: '血红蛋白 HGB',
      sourceValue: '13.2',
      sourceUnit: 'g/dL',
      range: '13.0-17.5',
      flag: null,
      value: 132,
      unit: 'g/L',
      conversion: { fromValue: 13.2, fromUnit: 'g/dL', toUnit: 'g/L' },
      problem: null,
    });
    // the report's '10^9/L' is UCUM 10*9/L: no conversion; the flag is kept
    expect(by.WBC).toMatchObject({ value: 11.2, flag: 'H', conversion: null, problem: null });
    expect(by.PLT).toMatchObject({ name: '血小板 PLT', value: 210 });
    expect(by.K).toMatchObject({ value: 3.2, flag: 'L' });
    expect(by.NA).toMatchObject({ name: 'Sodium', value: 140 });
    // glucose in mmol/L into a mg/dL item needs a molar mass: a problem, never a guess
    expect(by.GLUC).toMatchObject({
      value: null,
      problem: 'DATA_ABNORMAL',
      problemMessage: 'Data abnormal, cannot be filled',
    });
    // the union of the row's four cells
    expect(by.HGB!.region).toEqual({ page: 0, x: 60, y: 210, width: 560 + 9 * 16 - 60, height: 31 });
    expect(first.unmatched).toEqual([
      expect.objectContaining({ name: '尿酸 UA', sourceValue: '420', sourceUnit: 'μmol/L' }),
    ]);
  });

  it('keeps each result as a source record of the file region (code from the rule, or the name read)', async () => {
    const recs = await s.database.db
      .select()
      .from(sourceRecords)
      .where(eq(sourceRecords.sourceFileId, reportId));
    expect(recs).toHaveLength(6);
    const hgb = recs.find((r) => r.code === '718-7')!;
    expect(hgb).toMatchObject({
      rawFormat: 'ocr',
      connectionId: null,
      sourcePatientId: null,
      subjectId: ptsId,
      siteId: siteA,
      docType: 3,
      codeSystem: LOINC,
      display: '血红蛋白 HGB',
      valueNum: 13.2,
      unit: 'g/dL',
      effectiveDate: day(-1),
      version: 1,
    });
    expect(hgb.externalId).toBe(`file:${reportId}:p0:60,210,644,31#code:${LOINC}|718-7`);
    expect(hgb.region).toEqual({ page: 0, x: 60, y: 210, width: 644, height: 31 });
    expect(JSON.parse(hgb.raw)).toMatchObject({
      fileId: reportId,
      text: '血红蛋白 HGB | 13.2 | g/dL | 13.0-17.5',
      value: '13.2',
      range: '13.0-17.5',
    });
    // graded as it is stored (issue 13, migration 0053): in its own range read from the page, in the canonical g/L
    expect(hgb).toMatchObject({ labAnalyte: 'hemoglobin', labOut: false, labGraded: LAB_GRADER_VERSION });
    expect(hgb.lab).toMatchObject({ value: 132, low: 130, high: 175, rangeSource: 'record' });
    const k = recs.find((r) => r.display === '血钾')!;
    expect(k).toMatchObject({ code: null, valueNum: 3.2, unit: 'mmol/L' });
    const versions = await s.database.db
      .select()
      .from(sourceRecordVersions)
      .where(eq(sourceRecordVersions.recordId, hgb.id));
    expect(versions.map((v) => v.changeKind)).toEqual(['created']);
    const audit = await s.database.db
      .select()
      .from(auditEvents)
      .where(
        and(eq(auditEvents.action, 'document.ocrAssociation'), eq(auditEvents.entityId, String(reportId))),
      );
    expect(audit).toHaveLength(1);
  });

  it('is idempotent: a second run stores nothing new and proposes the same', async () => {
    const r = await associate('crc1', { fileId: reportId });
    expect(r.status).toBe(200);
    expect(r.body.data).toMatchObject({ created: 0, updated: 0, unchanged: 6, withdrawn: 0, count: 6 });
    expect(r.body.data.proposals.map((p) => [p.recordId, p.recordVersion, p.variable])).toEqual(
      first.proposals.map((p) => [p.recordId, p.recordVersion, p.variable]),
    );
    expect(
      await s.database.db.select().from(sourceRecords).where(eq(sourceRecords.sourceFileId, reportId)),
    ).toHaveLength(6);
    const audit = await s.database.db
      .select()
      .from(auditEvents)
      .where(
        and(eq(auditEvents.action, 'document.ocrAssociation'), eq(auditEvents.entityId, String(reportId))),
      );
    expect(audit).toHaveLength(1);
  });

  it('refuses a monitor (no pre-fill execute), another site’s file, a file still being de-identified', async () => {
    expect((await associate('cra', { fileId: reportId })).status).toBe(403);
    expect((await associate('crc2', { fileId: reportId })).status).toBe(404);
    expect((await associate('crc1', { fileId: otherSiteId })).status).toBe(404);
    expect((await associate('crc1', { fileId: 999_999 })).status).toBe(404);
    const running = await associate('crc1', { fileId: runningId }, { ...P, language: 'zh_CN' });
    expect(running.status).toBe(409);
    expect(running.body.errorCode).toBe('DOCUMENT_NOT_READY');
    expect(
      await s.database.db.select().from(sourceRecords).where(eq(sourceRecords.sourceFileId, otherSiteId)),
    ).toHaveLength(0);
  });

  it('a file with no visit and no date: no date until the user chooses the visit, then the visit’s planned date', async () => {
    const none = await associate('crc1', { fileId: undatedId });
    expect(none.status, JSON.stringify(none.body)).toBe(200);
    expect(none.body.data).toMatchObject({
      visit: null,
      reportDate: null,
      effectiveDate: null,
      created: 1,
      count: 1,
    });
    expect(none.body.data.proposals[0]).toMatchObject({ variable: 'HGB', value: 128, conversion: null });
    const chosen = await associate('crc1', { fileId: undatedId, visitId: v1 });
    expect(chosen.body.data).toMatchObject({
      visit: { visitId: v1, code: 'V1', planned: day(-28) },
      effectiveDate: day(-28),
      created: 0,
      updated: 1,
    });
    expect(chosen.body.data.proposals[0]!.recordVersion).toBe(2);
    // a visit of no schedule of the subject
    expect((await associate('crc1', { fileId: undatedId, visitId: 999_999 })).status).toBe(404);
  });
});

describe('the pre-fill review takes the proposals', () => {
  it('offers them beside the hospital’s candidates and saves an accepted one as KBMS 4 with its source', async () => {
    const key = { ptsId, visitId: v3, formId: lbForm };
    type Cand = {
      variable: string;
      state: string;
      candidateValue: unknown;
      source: { id: number; version: number };
    };
    const ex = await s.api.post<{ instance: { version: number } | null; candidates: Cand[] }>(
      '/crf/prefill/execute',
      { token: tok.crc1, headers: P, form: key },
    );
    expect(ex.status, JSON.stringify(ex.body)).toBe(200);
    const c = Object.fromEntries(ex.body.data.candidates.map((x) => [x.variable, x]));
    const hgbRec = first.proposals.find((p) => p.variable === 'HGB')!.recordId;
    expect(c.HGB).toMatchObject({ state: 'new', candidateValue: 132, source: { id: hgbRec, version: 1 } });
    expect(c.K).toMatchObject({ state: 'new', candidateValue: 3.2 });
    expect(c.GLUC).toMatchObject({ state: 'problem' });
    const d = (v: string) => ({
      variable: v,
      sourceRecordId: c[v]!.source.id,
      sourceVersion: c[v]!.source.version,
      decision: 'new',
    });
    const ok = await s.api.post<{ saved: number }>('/crf/prefill/visit/confirm', {
      token: tok.crc1,
      headers: P,
      json: { ...key, version: ex.body.data.instance?.version, decisions: [d('HGB'), d('K')] },
    });
    expect(ok.status, JSON.stringify(ok.body)).toBe(200);
    expect(ok.body.data.saved).toBe(2);
    const view = await s.api.get<{
      values: Record<string, { value: unknown; entryMode: number; sourceRef: string | null }>;
    }>('/crf/form/item/result/list', { token: tok.crc1, headers: P, query: key });
    expect(view.body.data.values.HGB).toMatchObject({
      value: 132,
      entryMode: 4,
      sourceRef: `source:${hgbRec}:v1`,
    });
    expect(view.body.data.values.K).toMatchObject({ value: 3.2, entryMode: 4 });
    // the source behind the value names the file and the region it was read from
    const rec = await s.api.get<{
      rawFormat: string;
      sourceFileId: number;
      region: unknown;
      externalId: string;
    }>('/crf/prefill/source/record', { token: tok.crc1, headers: P, query: { id: hgbRec, version: 1 } });
    expect(rec.status, JSON.stringify(rec.body)).toBe(200);
    expect(rec.body.data).toMatchObject({
      rawFormat: 'ocr',
      sourceFileId: reportId,
      region: { page: 0, x: 60, y: 210, width: 644, height: 31 },
    });
    expect(rec.body.data.externalId.startsWith(`file:${reportId}:p0:60,210,644,31#`)).toBe(true);
  });

  it('a proposal no longer made is withdrawn (its record soft-deleted with a new version)', async () => {
    // the OCR synonym goes away: the platelets line names no item any more
    const list = await s.api.post<{ content: { id: number }[] }>('/project/ocrConfig/same/list', {
      token: tok.dm,
      headers: P,
      form: { term: '血小板计数', pageSize: 50 },
    });
    expect(list.status, JSON.stringify(list.body)).toBe(200);
    expect(
      (
        await s.api.post('/project/ocrConfig/same/delete', {
          token: tok.dm,
          headers: P,
          form: { id: list.body.data.content[0]!.id },
        })
      ).status,
    ).toBe(200);
    const r = await associate('crc1', { fileId: reportId });
    expect(r.body.data).toMatchObject({ created: 0, updated: 0, unchanged: 5, withdrawn: 1, count: 5 });
    expect(r.body.data.unmatched.map((u) => u.name).sort()).toEqual(['尿酸 UA', '血小板 PLT']);
    const live = await s.database.db
      .select()
      .from(sourceRecords)
      .where(and(eq(sourceRecords.sourceFileId, reportId), isNull(sourceRecords.deletedAt)));
    expect(live).toHaveLength(5);
  });
});

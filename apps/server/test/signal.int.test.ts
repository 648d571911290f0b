/**
 * The signal report over the real API (issue 13 item 6): judged AEs at two sites (safety candidates of category 'ae'
 * judged yes, inserted as the safety review leaves them) counted per period × grade and × seriousness, per term (coded
 * or as reported, the dictionary's name in the caller's language), per site, and in total; every filter; what is
 * never counted (candidates to judge or judged no, other categories, removed subjects); site scope (an investigator
 * sees only their site); the permissions of the report and of its export; the terms table's paging and sorting; and
 * the Excel workbook in both languages.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { and, eq } from 'drizzle-orm';
import ExcelJS from 'exceljs';
import type { SignalReport, SignalTermPage } from '@esource/shared';
import { dictionaries, dictionaryTerms, rolePermissions, roles, safetyCandidates, sites, subjects } from '../src/db/schema';
import { startTestServer, type TestServer } from './harness';

let s: TestServer;
const H = { proId: 1, proType: 'PRO', language: 'en_US' };
const tok: Record<string, string> = {};
const site: Record<'a' | 'b', number> = { a: 0, b: 0 };
const pts: Record<'a1' | 'a2' | 'b1' | 'gone', number> = { a1: 0, a2: 0, b1: 0, gone: 0 };
/** dictionary codes of this test (no demo list holds them) */
const HEADACHE = 'ZZT-R51';
const NEUTROPENIA = 'ZZT-D70';
const NAUSEA = 'ZZT-R11';

const report = (who: string, body: Record<string, unknown> = {}, lang = 'en_US') => s.api.post<SignalReport>('/report/signal', { token: tok[who], headers: { ...H, language: lang }, json: body });
const terms = (who: string, body: Record<string, unknown> = {}, lang = 'en_US') =>
  s.api.post<SignalTermPage>('/report/signal/terms', { token: tok[who], headers: { ...H, language: lang }, json: { pageSize: 50, ...body } });
const exportFile = (who: string, query: Record<string, string> = {}, lang = 'en_US') =>
  fetch(`${s.url}/api/report/signal/export?${new URLSearchParams(query).toString()}`, { headers: { token: tok[who]!, proId: '1', proType: 'PRO', language: lang } });

let seq = 0;
/** A candidate as the safety review leaves it: judged yes (status 2) with the AE's fields, unless told otherwise. */
async function candidate(subject: keyof typeof pts, fields: Record<string, unknown>, o: { category?: 'ae' | 'cm'; status?: number } = {}) {
  const [p] = await s.database.db.select().from(subjects).where(eq(subjects.id, pts[subject]));
  seq += 1;
  await s.database.db.insert(safetyCandidates).values({
    env: 'PRO',
    projectId: 1,
    siteId: p!.siteId,
    subjectId: p!.id,
    category: o.category ?? 'ae',
    origin: 'diagnosis',
    key: `signal-test-${seq}`,
    term: String(fields.term),
    contentHash: `h${seq}`,
    status: o.status ?? 2,
    fields: o.status === 1 ? null : fields,
    judgedAt: o.status === 1 ? null : new Date(),
  });
}
const ae = (term: string, onset: string, grade: number, serious: boolean, relatedness: string, coded?: { code: string; term: string }) => ({
  term,
  ...(coded ? { coded } : {}),
  onset,
  ongoing: false,
  grade,
  serious,
  criteria: serious ? ['AESHOSP'] : [],
  relatedness,
  action: 'DOSE NOT CHANGED',
  outcome: 'RECOVERED/RESOLVED',
});

beforeAll(async () => {
  s = await startTestServer();
  for (const a of ['dm', 'pi', 'ae', 'crc1', 'crc2', 'cra']) tok[a] = await s.api.login(a);
  const rows = await s.database.db.select().from(sites).where(and(eq(sites.projectId, 1), eq(sites.env, 'PRO')));
  site.a = rows.find((r) => r.siteNo === '01')!.id;
  site.b = rows.find((r) => r.siteNo === '02')!.id;
  const add = async (who: string, siteId: number) => {
    const r = await s.api.post<{ ptsId: number }>('/project/managePts/add', { token: tok[who], headers: H, form: { siteId, firstVisitDate: '2026-01-02' } });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    return r.body.data.ptsId;
  };
  pts.a1 = await add('crc1', site.a);
  pts.a2 = await add('crc1', site.a);
  pts.gone = await add('crc1', site.a);
  pts.b1 = await add('crc2', site.b);
  // the active diagnosis dictionary names the coded terms in either language
  let [dict] = await s.database.db.select().from(dictionaries).where(and(eq(dictionaries.kind, 'diagnosis'), eq(dictionaries.active, true)));
  if (!dict) [dict] = await s.database.db.insert(dictionaries).values({ kind: 'diagnosis', version: 'signal-test', name: 'Signal test', active: true }).returning();
  await s.database.db.insert(dictionaryTerms).values([
    { dictionaryId: dict!.id, rowNo: 90_001, code: HEADACHE, termZh: '头痛', termEn: 'Headache', search: 'headache' },
    { dictionaryId: dict!.id, rowNo: 90_002, code: NEUTROPENIA, termZh: '中性粒细胞减少', termEn: 'Neutropenia', search: 'neutropenia' },
  ]);
});
afterAll(async () => {
  await s?.stop();
});

describe('nothing judged yet', () => {
  it('reports zeros, and says that nothing is judged (not that filters hide it)', async () => {
    const r = await report('dm');
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    expect(r.body.data.totals).toEqual({ events: 0, subjects: 0, serious: 0, severe: 0, sites: 0, terms: 0, judged: 0 });
    expect(r.body.data).toMatchObject({ periods: [], topTerms: [], sites: [] });
  });
});

describe('judged AEs at two sites', () => {
  beforeAll(async () => {
    // site A: two subjects, four AEs; site B: one subject, two AEs
    await candidate('a1', ae('Headache', '2026-01-10', 1, false, 'POSSIBLY RELATED', { code: HEADACHE, term: '头痛' }));
    await candidate('a1', ae('Cephalalgia ', '2026-03-05', 2, false, 'NOT RELATED', { code: HEADACHE, term: '头痛' }));
    await candidate('a2', ae('Neutropenia', '2026-03-20', 3, true, 'PROBABLY RELATED', { code: NEUTROPENIA, term: '中性粒细胞减少' }));
    await candidate('a2', ae('Rash', '2026-02', 2, false, 'UNLIKELY RELATED'));
    await candidate('b1', ae('headache', '2026', 4, true, 'RELATED', { code: HEADACHE, term: '头痛' }));
    await candidate('b1', ae('Nausea', '2026-06-02', 5, true, 'NOT RELATED', { code: NAUSEA, term: '恶心' }));
    // never counted: still to judge, judged no, another category, a removed subject
    await candidate('a1', ae('Fatigue', '2026-01-11', 1, false, 'RELATED'), { status: 1 });
    await candidate('a1', ae('Dizziness', '2026-01-12', 1, false, 'RELATED'), { status: 3 });
    await candidate('a2', { term: 'Paracetamol', start: '2026-01-01' }, { category: 'cm' });
    await candidate('gone', ae('Vomiting', '2026-01-15', 3, true, 'RELATED'));
    await s.database.db.update(subjects).set({ status: 0 }).where(eq(subjects.id, pts.gone));
  });

  it('counts events, subjects, serious, grade ≥ 3 and sites; only judged-yes AEs of live subjects', async () => {
    const r = await report('dm');
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    expect(r.body.data.totals).toEqual({ events: 6, subjects: 3, serious: 3, severe: 3, sites: 2, terms: 4, judged: 6 });
  });

  it('series per month × grade and × seriousness: a year-only onset apart, empty months filled with zeros', async () => {
    const { periods } = (await report('dm')).body.data;
    expect(periods.map((p) => [p.period, p.precision, p.events, p.serious, p.grades])).toEqual([
      ['2026', 'year', 1, 1, [0, 0, 0, 1, 0]],
      ['2026-01', 'month', 1, 0, [1, 0, 0, 0, 0]],
      ['2026-02', 'month', 1, 0, [0, 1, 0, 0, 0]],
      ['2026-03', 'month', 2, 1, [0, 1, 1, 0, 0]],
      ['2026-04', 'month', 0, 0, [0, 0, 0, 0, 0]],
      ['2026-05', 'month', 0, 0, [0, 0, 0, 0, 0]],
      ['2026-06', 'month', 1, 1, [0, 0, 0, 0, 1]],
    ]);
    expect(periods.find((p) => p.period === '2026-03')!.subjects).toBe(2);
    const q = (await report('dm', { period: 'quarter' })).body.data.periods;
    expect(q.map((p) => [p.period, p.events])).toEqual([
      ['2026', 1],
      ['2026-Q1', 4],
      ['2026-Q2', 1],
    ]);
    const y = (await report('dm', { period: 'year' })).body.data.periods;
    expect(y).toEqual([{ period: '2026', precision: 'year', events: 6, subjects: 3, serious: 3, grades: [1, 2, 1, 1, 1] }]);
  });

  it('top terms by coded term (named from the dictionary in the caller\'s language), or as reported', async () => {
    const en = (await report('dm')).body.data.topTerms;
    expect(en.map((t) => [t.term, t.code, t.events, t.subjects, t.serious, t.severe, t.maxGrade, t.grades])).toEqual([
      ['Headache', HEADACHE, 3, 2, 1, 1, 4, [1, 1, 0, 1, 0]],
      // ties: by key (c:… before r:…)
      ['Neutropenia', NEUTROPENIA, 1, 1, 1, 1, 3, [0, 0, 1, 0, 0]],
      // not in the dictionary: the coded term as judged
      ['恶心', NAUSEA, 1, 1, 1, 1, 5, [0, 0, 0, 0, 1]],
      // not coded: its reported term
      ['Rash', null, 1, 1, 0, 0, 2, [0, 1, 0, 0, 0]],
    ]);
    expect(en[0]).toMatchObject({ firstOnset: '2026', lastOnset: '2026-03-05' });
    const zh = (await report('dm', {}, 'zh_CN')).body.data.topTerms;
    expect(zh[0]!.term).toBe('头痛');
    // as reported: case and spaces folded, so 'Headache' and 'headache' are one term, 'Cephalalgia' another
    const reported = (await report('dm', { termBy: 'reported' })).body.data;
    expect(reported.totals.terms).toBe(5);
    // the group's name is one of its spellings (which one the database's collation decides)
    expect(reported.topTerms[0]!.term.toLowerCase()).toBe('headache');
    expect(reported.topTerms.slice(1).map((t) => [t.term, t.code, t.events])).toEqual([
      ['Cephalalgia', null, 1],
      ['Nausea', null, 1],
      ['Neutropenia', null, 1],
      ['Rash', null, 1],
    ]);
  });

  it('per site, most events first', async () => {
    const { sites: rows } = (await report('dm')).body.data;
    expect(rows.map((r) => [r.siteId, r.events, r.subjects, r.serious, r.severe, r.grades])).toEqual([
      [site.a, 4, 2, 1, 1, [1, 2, 1, 0, 0]],
      [site.b, 2, 1, 2, 2, [0, 0, 0, 1, 1]],
    ]);
  });

  it('filters: site, grade at least, serious only, related only, onset range (partial onsets counted when they overlap)', async () => {
    const totals = async (body: Record<string, unknown>) => (await report('dm', body)).body.data.totals;
    expect(await totals({ siteId: site.b })).toMatchObject({ events: 2, subjects: 1, sites: 1, judged: 6 });
    expect(await totals({ minGrade: 3 })).toMatchObject({ events: 3, severe: 3 });
    expect(await totals({ seriousOnly: true })).toMatchObject({ events: 3, serious: 3 });
    expect(await totals({ relatedOnly: true })).toMatchObject({ events: 4 });
    // March: Cephalalgia (03-05), Neutropenia (03-20), and the headache known only as '2026'; not the rash of '2026-02'
    const march = await report('dm', { onsetFrom: '2026-03-01', onsetTo: '2026-03-31' });
    expect(march.body.data.totals.events).toBe(3);
    expect(march.body.data.topTerms.map((t) => t.events)).toEqual([2, 1]);
    // February 15 onwards overlaps the rash's '2026-02'
    expect(await totals({ onsetFrom: '2026-02-15', onsetTo: '2026-02-28' })).toMatchObject({ events: 2 });
    expect(await totals({ siteId: site.a, minGrade: 2, relatedOnly: true })).toMatchObject({ events: 2 });
    // filters that leave nothing: zero events, but judged AEs exist
    expect(await totals({ siteId: site.b, minGrade: 5, relatedOnly: true })).toMatchObject({ events: 0, judged: 6 });
  });

  it('refuses bad filters, naming the field', async () => {
    const reversed = await report('dm', { onsetFrom: '2026-04-01', onsetTo: '2026-03-01' });
    expect(reversed.status).toBe(400);
    expect(reversed.body.detail?.[0]?.field).toBe('onsetFrom');
    expect((await report('dm', { onsetFrom: '2026-02-30' })).body.detail?.[0]?.field).toBe('onsetFrom');
    expect((await report('dm', { minGrade: 6 })).body.detail?.[0]?.field).toBe('minGrade');
    expect((await report('dm', { period: 'week' })).body.detail?.[0]?.field).toBe('period');
    expect((await terms('dm', { sortField: 'nope' })).body.detail?.[0]?.field).toBe('sortField');
    expect((await terms('dm', { pageSize: 7 })).body.detail?.[0]?.field).toBe('pageSize');
  });

  it('the terms table pages and sorts', async () => {
    const all = await terms('dm');
    expect(all.status, JSON.stringify(all.body)).toBe(200);
    expect(all.body.data).toMatchObject({ pageNumber: 1, pageSize: 50, totalCount: 4 });
    expect(all.body.data.content.map((t) => t.term)).toEqual(['Headache', 'Neutropenia', '恶心', 'Rash']);
    const byTerm = await terms('dm', { sortField: 'term', sortOrder: 'asc', termBy: 'reported' });
    expect(byTerm.body.data.content.map((t) => t.term.toLowerCase())).toEqual(['cephalalgia', 'headache', 'nausea', 'neutropenia', 'rash']);
    const byGrade = await terms('dm', { sortField: 'maxGrade', sortOrder: 'desc' });
    expect(byGrade.body.data.content.map((t) => t.maxGrade)).toEqual([5, 4, 3, 2]);
    const byLast = await terms('dm', { sortField: 'lastOnset', sortOrder: 'asc' });
    expect(byLast.body.data.content.map((t) => t.lastOnset)).toEqual(['2026-02', '2026-03-05', '2026-03-20', '2026-06-02']);
    // a page past the last one is empty but still says how many there are
    const past = await terms('dm', { pageNumber: 3 });
    expect(past.body.data).toMatchObject({ pageNumber: 3, totalCount: 4, content: [] });
    expect((await terms('dm', { seriousOnly: true })).body.data.totalCount).toBe(3);
  });

  it('site scope: the investigator of site A sees only site A, and may not name site B', async () => {
    const r = await report('pi');
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    expect(r.body.data.totals).toMatchObject({ events: 4, subjects: 2, sites: 1, judged: 4 });
    expect(r.body.data.sites.map((x) => x.siteId)).toEqual([site.a]);
    expect((await terms('pi')).body.data.content.map((t) => [t.term, t.events])).toEqual([
      ['Headache', 2],
      ['Neutropenia', 1],
      ['Rash', 1],
    ]);
    const other = await report('pi', { siteId: site.b });
    expect(other.status).toBe(403);
    expect(other.body.errorCode).toBe('SITE_FORBIDDEN');
    expect((await terms('pi', { siteId: site.b })).status).toBe(403);
    expect((await exportFile('pi', { siteId: String(site.b) })).status).toBe(403);
    // the AE reviewer reaches every site
    expect((await report('ae')).body.data.totals.events).toBe(6);
  });

  it('refuses whoever lacks the permission: the report, the table and the export', async () => {
    for (const who of ['crc1', 'cra']) {
      expect((await report(who)).status).toBe(403);
      expect((await terms(who)).status).toBe(403);
      expect((await exportFile(who)).status).toBe(403);
    }
    // reading the report is not exporting it
    const [cra] = await s.database.db.select().from(roles).where(eq(roles.code, 'CRA'));
    await s.database.db.insert(rolePermissions).values({ roleId: cra!.id, permission: 'clinical:signal:query' });
    try {
      const craTok = await s.api.login('cra');
      const r = await s.api.post<SignalReport>('/report/signal', { token: craTok, headers: H, json: {} });
      expect(r.status, JSON.stringify(r.body)).toBe(200);
      expect(r.body.data.totals.events).toBe(6);
      const x = await fetch(`${s.url}/api/report/signal/export`, { headers: { token: craTok, proId: '1', proType: 'PRO' } });
      expect(x.status).toBe(403);
    } finally {
      await s.database.db.delete(rolePermissions).where(and(eq(rolePermissions.roleId, cra!.id), eq(rolePermissions.permission, 'clinical:signal:query')));
    }
  });

  it('exports the workbook of the filters: by term, by period, by site, and the filters, translated', async () => {
    const res = await exportFile('dm', { period: 'quarter' });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toContain('spreadsheetml');
    expect(res.headers.get('content-disposition')).toMatch(/signal-report-\d{8}-\d{4}\.xlsx/);
    const wb = new ExcelJS.Workbook();
    await wb.xlsx.load(Buffer.from(await res.arrayBuffer()) as unknown as ArrayBuffer);
    expect(wb.worksheets.map((w) => w.name)).toEqual(['By term', 'By period', 'By site', 'Filters']);
    const rowsOf = (name: string) => {
      const out: unknown[][] = [];
      wb.getWorksheet(name)!.eachRow((r) => out.push((r.values as unknown[]).slice(1)));
      return out;
    };
    const byTerm = rowsOf('By term');
    expect(byTerm[0]).toEqual(['Term', 'Code', 'Events', 'Subjects', 'Serious', 'Grade ≥3', 'Grade 1', 'Grade 2', 'Grade 3', 'Grade 4', 'Grade 5', 'Worst grade', 'First onset', 'Last onset']);
    expect(byTerm[1]).toEqual(['Headache', HEADACHE, 3, 2, 1, 1, 1, 1, 0, 1, 0, 4, '2026', '2026-03-05']);
    expect(byTerm).toHaveLength(5);
    expect([byTerm[4]![0], byTerm[4]![2]]).toEqual(['Rash', 1]);
    const byPeriod = rowsOf('By period');
    expect(byPeriod[0]!.slice(0, 5)).toEqual(['Quarter', 'Events', 'Subjects', 'Serious', 'Non-serious']);
    expect(byPeriod.slice(1).map((r) => r.slice(0, 5))).toEqual([
      ['2026 (month unknown)', 1, 1, 1, 0],
      ['2026-Q1', 4, 2, 1, 3],
      ['2026-Q2', 1, 1, 1, 0],
    ]);
    const bySite = rowsOf('By site');
    expect(bySite.slice(1).map((r) => r.slice(1, 5))).toEqual([
      [4, 2, 1, 1],
      [2, 1, 2, 2],
    ]);
    const filters = Object.fromEntries(rowsOf('Filters').slice(1).map((r) => [r[0], r[1]]));
    expect(filters).toMatchObject({ Period: 'Quarter', Site: 'All', 'Serious only': 'No', Events: 6 });

    const zh = await exportFile('dm', { siteId: String(site.b), seriousOnly: 'true' }, 'zh_CN');
    expect(zh.status).toBe(200);
    const zwb = new ExcelJS.Workbook();
    await zwb.xlsx.load(Buffer.from(await zh.arrayBuffer()) as unknown as ArrayBuffer);
    expect(zwb.worksheets.map((w) => w.name)).toEqual(['按术语', '按时间段', '按中心', '筛选条件']);
    const zTerms: unknown[][] = [];
    zwb.getWorksheet('按术语')!.eachRow((r) => zTerms.push((r.values as unknown[]).slice(1)));
    expect(zTerms[0]!.slice(0, 3)).toEqual(['术语', '编码', '事件数']);
    // one event each: in the order of their codes
    expect(zTerms.slice(1).map((r) => [r[0], r[2]])).toEqual([
      ['恶心', 1],
      ['头痛', 1],
    ]);
    // the export's filters are validated as the report's
    expect((await exportFile('dm', { onsetFrom: '2026-05-01', onsetTo: '2026-01-01' })).status).toBe(400);
  });
});

/**
 * Desensitization configuration over the real API (issue 12, /project/ocrProConfig): keywords added, listed, searched,
 * deleted and imported (duplicates skipped, bad lines refusing the whole import, the 2000 limit), per environment; the
 * policy with its version check; who may read and who may change; the try-out; and that automatic de-identification
 * uses both (DeidJob options and a PDF whose keyword gets a box; OCR_ENGINE=none: the PDF's text layer gives the text).
 */
process.env.OCR_ENGINE = 'none';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { and, eq } from 'drizzle-orm';
import { DEFAULT_POLICY } from '@esource/deid';
import { close as closeOcr } from '@esource/ocr';
import {
  DEFAULT_DEID_POLICY,
  DEID_KEYWORDS_MAX,
  type DeidKeywordImportResult,
  type DeidKeywordPage,
  type DeidKeywordRow,
  type DeidPolicyView,
  type DeidTestResult,
  type SourceFileView,
} from '@esource/shared';
import { auditEvents, sites } from '../src/db/schema';
import { DeidJob } from '../src/modules/documents/deid.job';
import { fileStoreOf } from '../src/modules/documents/file-store';
import { startTestServer, type TestServer } from './harness';
import { labPdf, upload } from './documents-fixtures';

let s: TestServer;
const H = { proId: 1, proType: 'PRO', language: 'en_US' };
const UAT = { ...H, proType: 'UAT' };
const tok: Record<string, string> = {};
const URL = '/project/desensitization';

const list = async (
  o: { keyword?: string; pageNumber?: number; pageSize?: number } = {},
  headers = H,
  token = tok.dm!,
) => s.api.post<DeidKeywordPage>(`${URL}/keyword/list`, { token, headers, form: { pageSize: 50, ...o } });
const add = (keyword: string, note?: string, headers = H, token = tok.dm!) =>
  s.api.post<DeidKeywordRow>(`${URL}/keyword/add`, {
    token,
    headers,
    json: { keyword, ...(note ? { note } : {}) },
  });
const importText = (text: string, headers = H, token = tok.dm!) =>
  s.api.post<DeidKeywordImportResult>(`${URL}/keyword/import`, { token, headers, json: { text } });
const policy = (headers = H, token = tok.dm!) =>
  s.api.get<DeidPolicyView>(`${URL}/policy`, { token, headers });
const savePolicy = (body: Record<string, unknown>, headers = H, token = tok.dm!) =>
  s.api.post<DeidPolicyView>(`${URL}/policy/save`, { token, headers, json: body });
const tryText = (text: string, headers = H, token = tok.dm!) =>
  s.api.post<DeidTestResult>(`${URL}/test`, { token, headers, json: { text } });
const audits = (action: string) =>
  s.database.db.select().from(auditEvents).where(eq(auditEvents.action, action));

beforeAll(async () => {
  s = await startTestServer();
  for (const a of ['dm', 'cra', 'crc1']) tok[a] = await s.api.login(a);
});
afterAll(async () => {
  await s?.stop();
  await closeOcr();
});

describe('desensitization keywords', () => {
  let glucoseId = 0;

  it('starts empty, adds a keyword with a note and lists it with who added it', async () => {
    const empty = await list();
    expect(empty.status).toBe(200);
    expect(empty.body.data).toMatchObject({ totalCount: 0, total: 0, max: DEID_KEYWORDS_MAX, content: [] });
    const r = await add('  Glucose  ', 'lab word used as a test');
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    expect(r.body.data).toMatchObject({
      keyword: 'Glucose',
      note: 'lab word used as a test',
      createdBy: 'Dana Manager',
    });
    glucoseId = r.body.data.id;
    const l = await list();
    expect(l.body.data.content.map((k) => k.keyword)).toEqual(['Glucose']);
    const [a] = await audits('deidConfig.keywordAdd');
    expect(a).toMatchObject({
      entity: 'deidKeyword',
      entityId: String(glucoseId),
      projectId: 1,
      env: 'PRO',
      newValue: 'Glucose',
    });
  });

  it('refuses the same keyword in another letter case, a blank, a too long one, a tab or NUL', async () => {
    const dup = await add('GLUCOSE');
    expect(dup.status).toBe(409);
    expect(dup.body.errorCode).toBe('DUPLICATE');
    expect(dup.body.message).toBe("Desensitization keyword 'GLUCOSE' already exists");
    expect(dup.body.detail?.[0]?.field).toBe('keyword');
    const zh = await s.api.post(`${URL}/keyword/add`, {
      token: tok.dm,
      headers: { ...H, language: 'zh_CN' },
      json: { keyword: 'glucose' },
    });
    expect(zh.body.message).toBe('脱敏关键词“glucose”已存在');
    for (const bad of ['   ', 'x'.repeat(101), 'a\tb', 'a\u0000b']) {
      const r = await add(bad);
      expect(r.status, JSON.stringify(bad)).toBe(400);
      expect(r.body.errorCode).toBe('VALIDATION');
      expect(r.body.detail?.[0]?.field).toBe('keyword');
    }
    expect((await add('a\tb')).body.message).toContain('must be one line');
    expect((await add('x'.repeat(100))).status).toBe(200);
    expect((await list()).body.data.total).toBe(2);
  });

  it('imports many at once: known and repeated ones skipped and counted', async () => {
    const r = await importText('Ward 7\r\n\r\nglucose\n  Hospital A  \nWARD 7\n');
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    expect(r.body.data).toEqual({ added: 2, skipped: 2, total: 4 });
    const l = await list();
    expect(
      l.body.data.content
        .map((k) => k.keyword)
        .slice(0, 2)
        .sort(),
    ).toEqual(['Hospital A', 'Ward 7']);
    expect(await audits('deidConfig.keywordImport')).toHaveLength(2);
  });

  it('refuses a whole import with a bad line, naming the lines, and writes nothing', async () => {
    const r = await importText(`Clinic B\n${'y'.repeat(101)}\nfoo\tbar\nClinic C`);
    expect(r.status).toBe(400);
    expect(r.body.errorCode).toBe('IMPORT_FORMAT');
    expect(r.body.message).toBe(
      'Import failed, data format is not correct: line 2: longer than 100 characters; line 3: holds a tab or another control character',
    );
    expect(r.body.detail?.map((d) => d.field)).toEqual(['text', 'text']);
    const zh = await s.api.post(`${URL}/keyword/import`, {
      token: tok.dm,
      headers: { ...H, language: 'zh_CN' },
      json: { text: `ok\n${'y'.repeat(101)}` },
    });
    expect(zh.body.message).toBe('导入失败，数据格式不正确：第 2 行：超过 100 个字符');
    expect((await list()).body.data.total).toBe(4);
    expect((await list({ keyword: 'clinic' })).body.data.totalCount).toBe(0);
  });

  it('searches by text in any case (wildcards literal) and pages by 50/100/200 only', async () => {
    const ward = await list({ keyword: 'wARD' });
    expect(ward.body.data).toMatchObject({ totalCount: 1, total: 4 });
    expect(ward.body.data.content[0]!.keyword).toBe('Ward 7');
    expect((await list({ keyword: '%' })).body.data.totalCount).toBe(0);
    const bad = await list({ pageSize: 10 });
    expect(bad.status).toBe(400);
    expect(bad.body.detail?.[0]?.field).toBe('pageSize');
  });

  it('keeps each environment apart and holds at most 2000 keywords per project and environment', async () => {
    expect((await list({}, UAT)).body.data.total).toBe(0);
    const many = Array.from({ length: DEID_KEYWORDS_MAX - 1 }, (_, i) => `kw-${i}`).join('\n');
    const r = await importText(many, UAT);
    expect(r.status, JSON.stringify(r.body).slice(0, 500)).toBe(200);
    expect(r.body.data).toEqual({ added: DEID_KEYWORDS_MAX - 1, skipped: 0, total: DEID_KEYWORDS_MAX - 1 });
    const over = await importText('kw-0\nnew-1\nnew-2', UAT);
    expect(over.status).toBe(409);
    expect(over.body.errorCode).toBe('DEID_KEYWORD_LIMIT');
    expect(over.body.message).toBe(
      'A project can hold at most 2000 desensitization keywords: it has 1999, and this would add 2',
    );
    expect((await add('last one', undefined, UAT)).status).toBe(200);
    expect((await add('one too many', undefined, UAT)).body.errorCode).toBe('DEID_KEYWORD_LIMIT');
    // the PRO list did not change
    expect((await list()).body.data.total).toBe(4);
    const page2 = await list({ pageNumber: 2, pageSize: 200 }, UAT);
    expect(page2.body.data).toMatchObject({ pageNumber: 2, pageSize: 200, totalCount: DEID_KEYWORDS_MAX });
    expect(page2.body.data.content).toHaveLength(200);
  });

  it('deletes a keyword (audited); a second delete or another environment answers 404', async () => {
    const [x] = (await list({ keyword: 'xxxxxxxx' })).body.data.content;
    expect(
      (await s.api.post(`${URL}/keyword/delete`, { token: tok.dm, headers: UAT, form: { id: x!.id } }))
        .status,
    ).toBe(404);
    const r = await s.api.post<{ id: number }>(`${URL}/keyword/delete`, {
      token: tok.dm,
      headers: H,
      form: { id: x!.id },
    });
    expect(r.status).toBe(200);
    const again = await s.api.post(`${URL}/keyword/delete`, {
      token: tok.dm,
      headers: H,
      form: { id: x!.id },
    });
    expect(again.status).toBe(404);
    expect(again.body.message).toBe('Desensitization keyword not found');
    const [a] = await audits('deidConfig.keywordDelete');
    expect(a).toMatchObject({ entityId: String(x!.id), oldValue: 'x'.repeat(100) });
    expect((await list()).body.data.total).toBe(3);
  });

  it('lets readers read and try, and refuses every change to the CRA and the CRC', async () => {
    for (const who of ['cra', 'crc1']) {
      expect((await list({}, H, tok[who])).status, who).toBe(200);
      expect((await policy(H, tok[who])).status, who).toBe(200);
      expect((await tryText('Glucose', H, tok[who])).status, who).toBe(200);
      const refused = [
        await add('nope', undefined, H, tok[who]),
        await importText('nope', H, tok[who]),
        await s.api.post(`${URL}/keyword/delete`, { token: tok[who], headers: H, form: { id: glucoseId } }),
        await savePolicy({ ...DEFAULT_DEID_POLICY, maskOtherDates: true, version: 0 }, H, tok[who]),
      ];
      for (const r of refused) {
        expect(r.status, who).toBe(403);
        expect(r.body.errorCode, who).toBe('FORBIDDEN');
      }
    }
    expect((await list()).body.data.content.some((k) => k.id === glucoseId)).toBe(true);
  });
});

describe('desensitization policy', () => {
  it('reads the defaults (those of packages/deid) until saved', async () => {
    expect(DEFAULT_DEID_POLICY).toEqual(DEFAULT_POLICY);
    const r = await policy();
    expect(r.body.data).toEqual({ ...DEFAULT_POLICY, version: 0, updatedBy: null, updateTime: null });
  });

  it('saves over the version read, audits each changed switch, and refuses a stale version', async () => {
    const first = await savePolicy({ ...DEFAULT_DEID_POLICY, maskOtherDates: true, version: 0 });
    expect(first.status, JSON.stringify(first.body)).toBe(200);
    expect(first.body.data).toMatchObject({
      maskOtherDates: true,
      maskBirthDates: true,
      version: 1,
      updatedBy: 'Dana Manager',
    });
    const stale = await savePolicy({ ...DEFAULT_DEID_POLICY, version: 0 });
    expect(stale.status).toBe(409);
    expect(stale.body.errorCode).toBe('STALE_WRITE');
    expect(stale.body.message).toMatch(/^Dana Manager changed this data at /);
    // form-encoded booleans as well
    const second = await s.api.post<DeidPolicyView>(`${URL}/policy/save`, {
      token: tok.dm,
      headers: H,
      form: {
        maskBirthDates: 'true',
        maskOtherDates: 'true',
        maskHospitalNames: 'false',
        maskDoctorNames: 'false',
        version: 1,
      },
    });
    expect(second.status, JSON.stringify(second.body)).toBe(200);
    expect(second.body.data).toMatchObject({ maskHospitalNames: false, maskDoctorNames: false, version: 2 });
    const unchanged = await savePolicy({
      maskBirthDates: true,
      maskOtherDates: true,
      maskHospitalNames: false,
      maskDoctorNames: false,
      version: 2,
    });
    expect(unchanged.body.data.version).toBe(2);
    const rows = await audits('deidConfig.policy');
    expect(rows.map((a) => [a.field, a.oldValue, a.newValue]).sort()).toEqual([
      ['maskDoctorNames', 'true', 'false'],
      ['maskHospitalNames', 'true', 'false'],
      ['maskOtherDates', 'false', 'true'],
    ]);
    // another environment has its own
    expect((await policy(UAT)).body.data.version).toBe(0);
    const bad = await savePolicy({ maskBirthDates: 'maybe', version: 2 });
    expect(bad.status).toBe(400);
  });
});

describe('try-out and automatic de-identification', () => {
  it('shows the spans the project would hide: its keywords and, per policy, dates', async () => {
    const text = '  Seen at Ward 7 for a glucose test on 2024-03-05.  ';
    const r = await tryText(text);
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    const d = r.body.data;
    expect(d.text).toBe(text.trim());
    expect(d.keywords).toBe(3);
    expect(d.policy.maskOtherDates).toBe(true);
    const kw = d.spans.filter((x) => x.kind === 'keyword');
    expect(kw.map((x) => x.text).sort()).toEqual(['Ward 7', 'glucose']);
    for (const x of d.spans) expect(d.text.slice(x.start, x.end)).toBe(x.text);
    expect(kw[0]!.reason).toBe('keyword.project');
    expect(d.spans.some((x) => x.kind === 'date' && x.text.includes('2024-03-05'))).toBe(true);
    // another environment: no keywords, default policy (other dates shown)
    const uat = await tryText('Seen at Ward 7 on 2024-03-05', UAT);
    expect(uat.body.data.spans.some((x) => x.kind === 'keyword' && x.text === 'Ward 7')).toBe(false);
    expect(uat.body.data.spans.some((x) => x.kind === 'date')).toBe(false);
    expect((await tryText('x'.repeat(5001))).status).toBe(400);
  });

  it("passes the file's project keywords and policy to packages/deid, and a PDF's keyword gets a box", async () => {
    const job = new DeidJob(s.database, s.jobs, fileStoreOf(s.config));
    const opts = await job.options({ subjectId: 0, projectId: 1, env: 'PRO' });
    expect([...(opts.keywords ?? [])].sort()).toEqual(['Glucose', 'Hospital A', 'Ward 7']);
    expect(opts.policy).toEqual({
      maskBirthDates: true,
      maskOtherDates: true,
      maskHospitalNames: false,
      maskDoctorNames: false,
    });
    const uat = await job.options({ subjectId: 0, projectId: 1, env: 'UAT' });
    expect(uat.keywords).toHaveLength(DEID_KEYWORDS_MAX);
    expect(uat.policy).toEqual(DEFAULT_POLICY);

    const crc1 = await s.api.login('crc1');
    const [a] = await s.database.db
      .select()
      .from(sites)
      .where(and(eq(sites.projectId, 1), eq(sites.env, 'PRO'), eq(sites.siteNo, '01')));
    const pts = (
      await s.api.post<{ ptsId: number }>('/project/managePts/add', {
        token: crc1,
        headers: H,
        form: { siteId: a!.id, firstVisitDate: '2026-11-01' },
      })
    ).body.data.ptsId;
    const up = await upload(s.api, crc1, H, { ptsId: pts, docType: 3 }, [
      { name: 'lab.pdf', bytes: await labPdf() },
    ]);
    expect(up.status, JSON.stringify(up.body)).toBe(200);
    const end = Date.now() + 60_000;
    let file: SourceFileView | undefined;
    for (;;) {
      const l = await s.api.post<{ content: SourceFileView[] }>('/source/file/list', {
        token: crc1,
        headers: H,
        form: { ptsId: pts, pageSize: 50 },
      });
      file = l.body.data.content[0];
      if (file && file.status !== 0) break;
      if (Date.now() > end) throw new Error('de-identification did not finish');
      await new Promise((r) => setTimeout(r, 200));
    }
    expect(file.status, file.errorMessage ?? '').toBe(1);
    // 'Glucose 5.6 mmol/L' in the PDF's text layer: the project's keyword is boxed
    expect(file.boxes.filter((b) => b.kind === 'keyword').map((b) => b.reason)).toEqual(['keyword.project']);
  });
});

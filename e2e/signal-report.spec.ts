import { expect, test, type APIRequestContext, type Page } from '@playwright/test';
import ExcelJS from 'exceljs';
import { readFileSync } from 'node:fs';
import { apiLogin, noKeys, openLoggedIn, setLanguage, shootBoth, type ApiSession } from './helpers';

/**
 * Issue 13 item 6 journey (the signal report): site coordinators save vital signs with heart rates outside the
 * expected range at two sites, the data manager generates the safety candidates and judges them as adverse events
 * (terms coded to the diagnosis dictionary, grades 1–4, some serious), then opens /project/signalReport: the KPI cards
 * and the four charts match the API, the terms table lists the coded terms, the filters narrow the counts, a header
 * sorts the table, and the Excel export downloads. An environment without judged AEs shows the empty state; a slow
 * and a failed load show the loading and error states. Screens in English and Chinese.
 */
test.describe.configure({ mode: 'serial', timeout: 240_000 });

type Report = { totals: { events: number; subjects: number; serious: number; severe: number; judged: number; terms: number }; topTerms: { term: string; events: number }[] };
const headersOf = (s: ApiSession, env = s.user.projectType) => ({ token: s.token, proId: '1', proType: env });

/** One AE as the reviewer judges it. */
interface Judged {
  term: string;
  coded: { code: string; term: string };
  onset: string;
  grade: number;
  serious: boolean;
  relatedness: string;
}
const TACHY = { code: 'R00.0', term: '心动过速' };
const ANEMIA = { code: 'D64.9', term: '贫血' };
const HEADACHE = { code: 'R51.9', term: '头痛' };
const NAUSEA = { code: 'R11.0', term: '恶心' };
const NEUTROPENIA = { code: 'D70.9', term: '中性粒细胞减少症' };

/** A subject at a site whose vital signs at the first `visits` visits hold a heart rate outside 40–180 (flagged). */
async function flaggedSubject(request: APIRequestContext, crc: ApiSession, siteNo: string, visits: number) {
  const h = headersOf(crc);
  const sites = (await (await request.post('/api/pro/site/list', { headers: h })).json()) as { data: { id: number; siteNo: string }[] };
  const siteId = sites.data.find((x) => x.siteNo === siteNo)!.id;
  const add = (await (await request.post('/api/project/managePts/add', { headers: h, form: { siteId, firstVisitDate: '2026-08-01' } })).json()) as { data: { ptsId: number } };
  const { ptsId } = add.data;
  const sched = (await (await request.get(`/api/project/pts/visits?ptsId=${ptsId}`, { headers: h })).json()) as { data: { visitId: number; code: string; forms: { formId: number; code: string }[] }[] };
  for (const v of sched.data.filter((x) => x.forms.some((f) => f.code === 'VS')).slice(0, visits)) {
    const formId = v.forms.find((f) => f.code === 'VS')!.formId;
    const items = [
      { variable: 'VSDTC', value: '2026-08-02 09:30' },
      { variable: 'SYSBP', value: 124 },
      { variable: 'DIABP', value: 80 },
      { variable: 'HR', value: 190 },
    ];
    const saved = await request.post('/api/crf/form/item/result/saveBatch', { headers: h, data: { ptsId, visitId: v.visitId, formId, entryMode: 2, items } });
    expect(saved.ok(), await saved.text()).toBe(true);
  }
  return ptsId;
}

/** The data manager generates the subject's candidates and judges its AE candidates yes with these fields. */
async function judgeAll(request: APIRequestContext, dm: ApiSession, ptsId: number, aes: Judged[]) {
  const h = headersOf(dm);
  const gen = await request.post('/api/selection/generate', { headers: h, data: { ptsId } });
  expect(gen.ok(), await gen.text()).toBe(true);
  const list = (await (await request.post('/api/selection/list', { headers: h, data: { state: 'toJudge', category: 'ae', ptsId, pageSize: 50 } })).json()) as {
    data: { content: { id: number; version: number }[] };
  };
  expect(list.data.content.length).toBeGreaterThanOrEqual(aes.length);
  for (const [i, ae] of aes.entries()) {
    const c = list.data.content[i]!;
    const fields = { ...ae, ongoing: false, criteria: ae.serious ? ['AESHOSP'] : [], action: 'DOSE NOT CHANGED', outcome: 'RECOVERED/RESOLVED' };
    const r = await request.post('/api/selection/judge', { headers: h, data: { id: c.id, version: c.version, decision: 'yes', fields } });
    expect(r.ok(), await r.text()).toBe(true);
  }
}

async function apiReport(request: APIRequestContext, dm: ApiSession, body: Record<string, unknown> = {}): Promise<Report> {
  const r = await request.post('/api/report/signal', { headers: { ...headersOf(dm), language: 'en_US' }, data: body });
  expect(r.ok(), await r.text()).toBe(true);
  return ((await r.json()) as { data: Report }).data;
}

const kpi = (page: Page, key: string) => page.getByTestId(`signal-kpi-${key}`).locator('.ant-statistic-content-value');

test('the data manager reads the signal report of judged AEs: KPIs, charts, terms, filters, sorting and the export', async ({ page, request, browser }) => {
  const crc1 = await apiLogin(request, 'crc1', 3, 'site');
  const crc2 = await apiLogin(request, 'crc2', 3, 'site');
  const dm = await apiLogin(request, 'dm', 1, 'main');

  // an environment without any judged AE: the empty state says where AEs are judged
  const uat = await browser.newContext({ viewport: { width: 1440, height: 900 } });
  const empty = await uat.newPage();
  const dmUat: ApiSession = { ...dm, user: { ...dm.user, projectType: 'UAT' } };
  if ((await apiReport(request, dmUat)).totals.judged === 0) {
    await openLoggedIn(empty, dmUat, 'main', '/project/signalReport?proId=1');
    await expect(empty.getByTestId('signal-report-page')).toHaveAttribute('data-state', 'empty');
    await expect(empty.getByTestId('signal-empty')).toContainText('No adverse event has been judged yet.');
    await expect(empty.getByTestId('signal-to-judge')).toHaveAttribute('href', '/project/clinical/2');
    await noKeys(empty);
    await shootBoth(empty, 'signal-report-empty-en');
    await setLanguage(empty, 'zh_CN');
    await expect(empty.getByTestId('signal-empty')).toContainText('尚无已判定的不良事件');
    await noKeys(empty);
    await shootBoth(empty, 'signal-report-empty-zh');
  }
  await uat.close();

  // judged AEs at two sites
  const a = await flaggedSubject(request, crc1, '01', 3);
  const b = await flaggedSubject(request, crc1, '01', 2);
  const c = await flaggedSubject(request, crc2, '02', 2);
  await judgeAll(request, dm, a, [
    { term: 'Tachycardia', coded: TACHY, onset: '2026-08-12', grade: 1, serious: false, relatedness: 'POSSIBLY RELATED' },
    { term: 'Palpitations, fast heart rate', coded: TACHY, onset: '2026-09-03', grade: 2, serious: false, relatedness: 'PROBABLY RELATED' },
    { term: 'Anaemia', coded: ANEMIA, onset: '2026-10-20', grade: 3, serious: true, relatedness: 'RELATED' },
  ]);
  await judgeAll(request, dm, b, [
    { term: 'Headache', coded: HEADACHE, onset: '2026-09', grade: 1, serious: false, relatedness: 'NOT RELATED' },
    { term: 'Nausea', coded: NAUSEA, onset: '2026-10-02', grade: 2, serious: false, relatedness: 'UNLIKELY RELATED' },
  ]);
  await judgeAll(request, dm, c, [
    { term: 'Tachycardia', coded: TACHY, onset: '2026-10-15', grade: 4, serious: true, relatedness: 'RELATED' },
    { term: 'Neutropenia', coded: NEUTROPENIA, onset: '2026-11-01', grade: 4, serious: true, relatedness: 'RELATED' },
  ]);
  const all = await apiReport(request, dm);
  expect(all.totals.events).toBeGreaterThanOrEqual(7);

  // a slow first load shows the loading state, then the report
  await page.route('**/api/report/signal', async (route) => {
    await new Promise((r) => setTimeout(r, 1500));
    await route.continue();
  });
  await openLoggedIn(page, dm, 'main', '/project/signalReport?proId=1');
  await expect(page.getByTestId('signal-loading')).toBeVisible();
  await expect(page.getByTestId('signal-report-page')).toHaveAttribute('data-state', 'ready');
  await page.unroute('**/api/report/signal');

  // KPIs as the API counts them; the four charts drawn; the terms table with the dictionary's English names
  await expect(kpi(page, 'events')).toHaveText(String(all.totals.events));
  await expect(kpi(page, 'subjects')).toHaveText(String(all.totals.subjects));
  await expect(kpi(page, 'serious')).toHaveText(String(all.totals.serious));
  await expect(kpi(page, 'severe')).toHaveText(String(all.totals.severe));
  for (const chart of ['grade', 'serious', 'terms', 'sites']) {
    await expect(page.getByTestId(`signal-chart-${chart}`)).toHaveAttribute('data-drawn', 'true');
    await expect(page.getByTestId(`signal-chart-${chart}`).locator('canvas')).toHaveCount(1);
  }
  const table = page.getByTestId('signal-term-table');
  const tachyRow = table.locator('tr', { hasText: 'Tachycardia, unspecified' });
  await expect(tachyRow).toHaveCount(1);
  const tachy = all.topTerms.find((t) => t.term === 'Tachycardia, unspecified')!;
  await expect(tachyRow.locator('td').nth(1)).toHaveText(String(tachy.events));
  await expect(table.locator('tr', { hasText: 'Neutropenia, unspecified' })).toHaveCount(1);
  await noKeys(page);
  await shootBoth(page, 'signal-report-en');
  await page.screenshot({ path: 'e2e/artifacts/signal-report-en-full.png', fullPage: true });

  // filters: serious only, then grade ≥ 4 at site 02 — the cards follow the API's counts
  await page.getByTestId('signal-filter-serious').click();
  const serious = await apiReport(request, dm, { seriousOnly: true });
  await expect(kpi(page, 'events')).toHaveText(String(serious.totals.events));
  await expect(kpi(page, 'serious')).toHaveText(String(serious.totals.events));
  await page.getByTestId('signal-filter-serious').click();
  await page.getByTestId('signal-filter-grade').click();
  await page.locator('.ant-select-dropdown:not(.ant-select-dropdown-hidden) .ant-select-item-option', { hasText: 'Grade ≥ 4' }).click();
  const sites = (await (await request.post('/api/pro/site/list', { headers: headersOf(dm) })).json()) as { data: { id: number; siteNo: string }[] };
  const site2 = sites.data.find((x) => x.siteNo === '02')!.id;
  await page.getByTestId('signal-filter-site').click();
  await page.locator('.ant-select-dropdown:not(.ant-select-dropdown-hidden) .ant-select-item-option', { hasText: '02' }).click();
  const narrowed = await apiReport(request, dm, { minGrade: 4, siteId: site2 });
  await expect(kpi(page, 'events')).toHaveText(String(narrowed.totals.events));
  await expect(kpi(page, 'severe')).toHaveText(String(narrowed.totals.events));
  await expect(table.locator('tr', { hasText: 'Nausea' })).toHaveCount(0);
  // as reported, by quarter: the reviewer's own words
  await page.getByTestId('signal-filter-termby').getByText('Reported term').click();
  await page.getByTestId('signal-filter-period').getByText('Quarter').click();
  await expect(table.locator('[data-testid="signal-term"]', { hasText: /^Tachycardia$/ })).toHaveCount(1);
  await expect(page.getByTestId('signal-chart-grade')).toHaveAttribute('data-drawn', 'true');

  // filters that leave nothing: said so, and cleared in one click
  await page.getByTestId('signal-filter-related').click();
  await page.getByTestId('signal-filter-grade').click();
  await page.locator('.ant-select-dropdown:not(.ant-select-dropdown-hidden) .ant-select-item-option', { hasText: 'Grade ≥ 5' }).click();
  if ((await apiReport(request, dm, { minGrade: 5, siteId: site2, relatedOnly: true })).totals.events === 0) {
    await expect(page.getByTestId('signal-report-page')).toHaveAttribute('data-state', 'filtered-empty');
    await page.getByTestId('signal-filtered-empty').getByRole('button').click();
  } else {
    await page.getByTestId('signal-filter-related').click();
  }

  // back to every AE: a header sorts the table on the server
  await page.getByTestId('signal-filter-termby').getByText('Coded term').click();
  await page.getByTestId('signal-filter-period').getByText('Month').click();
  if (await page.getByTestId('signal-filter-grade').locator('.ant-select-clear').count()) {
    await page.getByTestId('signal-filter-grade').hover();
    await page.getByTestId('signal-filter-grade').locator('.ant-select-clear').click();
  }
  if (await page.getByTestId('signal-filter-site').locator('.ant-select-clear').count()) {
    await page.getByTestId('signal-filter-site').hover();
    await page.getByTestId('signal-filter-site').locator('.ant-select-clear').click();
  }
  await expect(kpi(page, 'events')).toHaveText(String(all.totals.events));
  const sorted = page.waitForRequest((r) => r.url().endsWith('/api/report/signal/terms') && (r.postDataJSON() as { sortField?: string }).sortField === 'subjects');
  await table.locator('th', { hasText: 'Subjects' }).click();
  await sorted;
  await expect(table.locator('th[aria-sort]', { hasText: 'Subjects' })).toHaveAttribute('aria-sort', 'descending');

  // the export: the workbook of the filters, in the page's language
  const download = page.waitForEvent('download');
  await page.getByTestId('signal-export').click();
  const file = await (await download).path();
  const wb = new ExcelJS.Workbook();
  await wb.xlsx.load(readFileSync(file) as unknown as ArrayBuffer);
  expect(wb.worksheets.map((w) => w.name)).toEqual(['By term', 'By period', 'By site', 'Filters']);
  const termRows: unknown[][] = [];
  wb.getWorksheet('By term')!.eachRow((r) => termRows.push((r.values as unknown[]).slice(1)));
  expect(termRows[0]!.slice(0, 3)).toEqual(['Term', 'Code', 'Events']);
  expect(termRows.find((r) => r[0] === 'Tachycardia, unspecified')?.[2]).toBe(tachy.events);

  // in Chinese
  await setLanguage(page, 'zh_CN');
  await expect(page.getByTestId('signal-kpi-events')).toContainText('不良事件');
  await expect(table.locator('tr', { hasText: '心动过速' })).toHaveCount(1);
  await noKeys(page);
  await shootBoth(page, 'signal-report-zh');
  await page.screenshot({ path: 'e2e/artifacts/signal-report-zh-full.png', fullPage: true });

  // a failed load says so and offers a retry
  await page.route('**/api/report/signal', (route) =>
    route.fulfill({ status: 500, contentType: 'application/json', body: JSON.stringify({ code: 500, status: '0', message: '服务器内部错误', errorCode: 'INTERNAL', requestId: 'e2e' }) }),
  );
  await page.reload();
  await expect(page.getByTestId('signal-error')).toBeVisible();
  await expect(page.getByTestId('signal-error')).toContainText('信号报告加载失败');
  await shootBoth(page, 'signal-report-error-zh');
  await page.unroute('**/api/report/signal');
  await page.getByTestId('signal-error').getByRole('button').click();
  await expect(page.getByTestId('signal-report-page')).toHaveAttribute('data-state', 'ready');
});

import { expect, test, type APIRequestContext, type Page } from '@playwright/test';
import ExcelJS from 'exceljs';
import { mkdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { ARTIFACTS, apiLogin, noKeys, openLoggedIn, setLanguage, type ApiSession } from './helpers';

/**
 * Issue 14 item 5 journey (the study reports of /project/reports): site coordinators save forms at two sites — one
 * demographics form of a woman without her pregnancy answered — and pre-fill a subject's forms from the demo
 * hospital, then change one pre-filled value by hand. The data manager opens /project/reports: the CRF tab shows the
 * completion KPIs as the API counts them, the stacked chart and the table, groups by visit and exports the workbook;
 * the missing-data tab charts the missing items and lists the pregnancy item; the data consistency tab lists the
 * value changed after pre-fill. Screens in English and Chinese (REPORT_SHOTS_DIR, default e2e/artifacts).
 */
test.describe.configure({ mode: 'serial', timeout: 300_000 });

const SHOTS = process.env.REPORT_SHOTS_DIR ?? ARTIFACTS;
mkdirSync(SHOTS, { recursive: true });
const headersOf = (s: ApiSession) => ({
  token: s.token,
  proId: '1',
  proType: s.user.projectType,
  language: 'en_US',
});

async function call<T>(
  request: APIRequestContext,
  s: ApiSession,
  url: string,
  data: object = {},
  method: 'post' | 'get' = 'post',
): Promise<T> {
  const r =
    method === 'post'
      ? await request.post(`/api${url}`, { headers: headersOf(s), data })
      : await request.get(`/api${url}`, { headers: headersOf(s) });
  const body = (await r.json()) as { status: string; data: T; message?: string };
  expect(body.status, `${url}: ${body.message ?? ''}`).toBe('1');
  return body.data;
}

type Visit = { visitId: number; code: string; forms: { formId: number; code: string }[] };

/** A subject at the site with its screening forms saved: demographics (a draft when `items` leave it incomplete) and vital signs. */
async function subjectWithForms(
  request: APIRequestContext,
  crc: ApiSession,
  siteNo: string,
  dm: Record<string, unknown>,
  complete: boolean,
) {
  const sites = await call<{ id: number; siteNo: string }[]>(request, crc, '/pro/site/list');
  const siteId = sites.find((x) => x.siteNo === siteNo)!.id;
  const { ptsId } = await call<{ ptsId: number }>(request, crc, '/project/managePts/add', {
    siteId,
    firstVisitDate: '2026-03-02',
  });
  const visits = await call<Visit[]>(request, crc, `/project/pts/visits?ptsId=${ptsId}`, {}, 'get');
  const v1 = visits.find((v) => v.code === 'V1')!;
  const form = (code: string) => v1.forms.find((f) => f.code === code)!.formId;
  const items = (o: Record<string, unknown>) =>
    Object.entries(o).map(([variable, value]) => ({ variable, value }));
  await call(request, crc, '/crf/form/item/result/saveBatch', {
    ptsId,
    visitId: v1.visitId,
    formId: form('DM'),
    entryMode: complete ? 2 : 0,
    items: items(dm),
  });
  await call(request, crc, '/crf/form/item/result/saveBatch', {
    ptsId,
    visitId: v1.visitId,
    formId: form('VS'),
    entryMode: 2,
    items: items({ VSDTC: '2026-03-02 09:30', SYSBP: 118, DIABP: 76 }),
  });
  return ptsId;
}

/**
 * A demo-hospital subject extracted (its in-window items pre-filled by the automatic run) and one pre-filled value
 * then changed by hand: what the consistency tab lists. Null when the demo hospital pre-filled nothing.
 */
async function editedPrefill(
  request: APIRequestContext,
  crc: ApiSession,
  dm: ApiSession,
): Promise<string | null> {
  const list = await call<{ content: { ptsId: number; ptsNo: string }[] }>(
    request,
    crc,
    '/project/manage/ptsList',
    { keyword: 'H-002', pageNumber: 1, pageSize: 50 },
  );
  const subject = list.content.find((x) => x.ptsNo === 'H-002');
  if (!subject) return null;
  await call(request, crc, '/project/managePts/addPtsTask', { ptsId: subject.ptsId });
  await expect
    .poll(
      async () =>
        (
          await call<{ task: { status: number } | null }>(request, crc, '/project/manage/queryProcessBar', {
            ptsId: subject.ptsId,
          })
        ).task?.status,
      { timeout: 90_000, intervals: [1000] },
    )
    .toBe(2);
  type Trace = {
    content: {
      ptsId: number;
      visitId: number;
      formId: number;
      unscheduledId: number;
      repeatNo: number;
      variable: string;
      value: unknown;
    }[];
  };
  const trace = await call<Trace>(request, dm, '/project/icrc-source', {
    ptsId: subject.ptsId,
    pageNumber: 1,
    pageSize: 50,
  });
  const v = trace.content.find((x) => typeof x.value === 'number');
  if (!v) return null;
  const key = {
    ptsId: v.ptsId,
    visitId: v.visitId,
    formId: v.formId,
    unscheduledId: v.unscheduledId,
    repeatNo: v.repeatNo,
  };
  const view = await call<{ instance: { version: number } }>(
    request,
    crc,
    `/crf/form/item/result/list?${new URLSearchParams(Object.entries(key).map(([k, x]) => [k, String(x)])).toString()}`,
    {},
    'get',
  );
  await call(request, crc, '/crf/form/item/result/saveBatch', {
    ...key,
    version: view.instance.version,
    entryMode: 0,
    items: [
      { variable: v.variable, value: (v.value as number) + 1, reason: 'Corrected against the paper record' },
    ],
  });
  return v.variable;
}

/** Screenshots of the page at 1440×900 and 1280×720 into SHOTS (`<name>-<width>.png`). */
async function shoot(page: Page, name: string) {
  for (const [w, h] of [
    [1440, 900],
    [1280, 720],
  ] as const) {
    await page.setViewportSize({ width: w, height: h });
    await page.waitForTimeout(400);
    await page.screenshot({ path: path.join(SHOTS, `${name}-${w}.png`), fullPage: true });
  }
  await page.setViewportSize({ width: 1440, height: 900 });
}

const kpi = (page: Page, key: string) =>
  page.getByTestId(`crf-kpi-${key}`).locator('.ant-statistic-content-value');

test('the data manager reads eCRF completion, missing data and data consistency, with charts and exports', async ({
  page,
  request,
}) => {
  const crc1 = await apiLogin(request, 'crc1', 3, 'site');
  const crc2 = await apiLogin(request, 'crc2', 3, 'site');
  const dm = await apiLogin(request, 'dm', 1, 'main');
  const woman = await subjectWithForms(request, crc1, '01', { SEX: '2', BRTHDTC: '1990-04-12' }, false);
  await subjectWithForms(request, crc2, '02', { SEX: '1', BRTHDTC: '1975-11-30' }, true);
  const edited = await editedPrefill(request, crc1, dm);

  const crf = await call<{
    totals: { subjects: number; expected: number; done: number; draft: number; notStarted: number };
  }>(request, dm, '/visual/report/crfReport');
  expect(crf.totals.expected).toBeGreaterThan(0);

  // a slow first load shows the loading state, then the report
  await page.route('**/api/visual/report/crfReport', async (route) => {
    await new Promise((r) => setTimeout(r, 1500));
    await route.continue();
  });
  await openLoggedIn(page, dm, 'main', '/project/reports?proId=1&tab=crf');
  await expect(page.getByTestId('crf-report-loading')).toBeVisible();
  await expect(page.getByTestId('crf-report')).toHaveAttribute('data-state', 'ready');
  await page.unroute('**/api/visual/report/crfReport');

  // the CRF tab: KPIs as the API counts them, the chart drawn, the table with a row per site and the totals
  await expect(kpi(page, 'subjects')).toHaveText(crf.totals.subjects.toLocaleString('en-US'));
  await expect(kpi(page, 'expected')).toHaveText(crf.totals.expected.toLocaleString('en-US'));
  await expect(kpi(page, 'done')).toHaveText(crf.totals.done.toLocaleString('en-US'));
  await expect(page.getByTestId('crf-chart')).toHaveAttribute('data-drawn', 'true');
  await expect(page.getByTestId('crf-chart').locator('canvas')).toHaveCount(1);
  const table = page.getByTestId('crf-table');
  await expect(table.locator('tbody tr.ant-table-row')).toHaveCount(2);
  await expect(table.locator('tbody tr', { hasText: 'Demo City Hospital' })).toHaveCount(1);
  await expect(table.locator('.report-total-row')).toContainText(crf.totals.expected.toLocaleString('en-US'));
  await noKeys(page);
  await shoot(page, 'reports-crf-en');

  // by visit, in plan order
  await page.getByTestId('crf-group').getByText('By visit').click();
  await expect(table.locator('tbody tr.ant-table-row').first()).toContainText('Screening');
  await expect(page.getByTestId('crf-chart')).toHaveAttribute('data-drawn', 'true');
  // a column header sorts the rows
  await table.locator('th', { hasText: 'Completion rate' }).click();
  await expect(table.locator('th[aria-sort]', { hasText: 'Completion rate' })).toHaveAttribute(
    'aria-sort',
    'ascending',
  );

  // the export: the workbook of the three groupings
  const download = page.waitForEvent('download');
  await page.getByTestId('crf-report-export').click();
  const file = await (await download).path();
  const wb = new ExcelJS.Workbook();
  await wb.xlsx.load(readFileSync(file) as unknown as ArrayBuffer);
  expect(wb.worksheets.map((w) => w.name)).toEqual(['By site', 'By visit', 'By form', 'Filters']);

  // the missing-data tab: the charts, and the woman's pregnancy listed (a man's is hidden by its condition)
  await page.getByTestId('report-tab-crfMissing').click();
  await expect(page.getByTestId('missing-report')).toHaveAttribute('data-state', 'ready');
  await expect(page.getByTestId('missing-chart-forms')).toHaveAttribute('data-drawn', 'true');
  await expect(page.getByTestId('missing-chart-items').locator('canvas')).toHaveCount(1);
  const missing = page.getByTestId('missing-table');
  await page.getByTestId('missing-report-filter-form').click();
  await page
    .locator('.ant-select-dropdown:not(.ant-select-dropdown-hidden) .ant-select-item-option', {
      hasText: 'Demographics',
    })
    .click();
  await expect(
    missing.locator('[data-testid="missing-item"]', { hasText: 'Pregnant' }).first(),
  ).toBeVisible();
  const rows = await call<{ content: { ptsId: number; variable: string }[] }>(
    request,
    dm,
    '/visual/report/crfReportMissing',
    { formCode: 'DM', pageSize: 200 },
  );
  expect(rows.content.some((r) => r.ptsId === woman && r.variable === 'PREG')).toBe(true);
  await noKeys(page);
  await shoot(page, 'reports-missing-en');

  // the data consistency tab: the value changed after pre-fill
  await page.getByTestId('report-tab-dataConsistency').click();
  await expect(page.getByTestId('consistency-report')).toHaveAttribute('data-state', /ready|empty/);
  if (edited) {
    await expect(page.getByTestId('consistency-report')).toHaveAttribute('data-state', 'ready');
    await expect(
      page.getByTestId('consistency-table').locator('tr', { hasText: edited }).first(),
    ).toContainText('Edited after pre-fill');
  }
  await noKeys(page);
  await shoot(page, 'reports-consistency-en');

  // in Chinese
  await setLanguage(page, 'zh_CN');
  await expect(page.getByTestId('consistency-report')).toContainText('预填');
  await noKeys(page);
  await shoot(page, 'reports-consistency-zh');
  await page.getByTestId('report-tab-crfMissing').click();
  await expect(page.getByTestId('missing-report')).toHaveAttribute('data-state', 'ready');
  await expect(page.getByTestId('missing-report')).toContainText('缺失数据项');
  await noKeys(page);
  await shoot(page, 'reports-missing-zh');
  await page.getByTestId('report-tab-crf').click();
  await expect(page.getByTestId('crf-report')).toHaveAttribute('data-state', 'ready');
  await expect(page.getByTestId('crf-kpi-expected')).toContainText('应填表单');
  await noKeys(page);
  await shoot(page, 'reports-crf-zh');

  // a failed load says so and offers a retry
  await page.route('**/api/visual/report/crfReport', (route) =>
    route.fulfill({
      status: 500,
      contentType: 'application/json',
      body: JSON.stringify({
        code: 500,
        status: '0',
        message: '服务器内部错误',
        errorCode: 'INTERNAL',
        requestId: 'e2e',
      }),
    }),
  );
  await page.reload();
  await expect(page.getByTestId('crf-report-error')).toBeVisible();
  await shoot(page, 'reports-crf-error-zh');
  await page.unroute('**/api/visual/report/crfReport');
  await page.getByTestId('crf-report-error').getByRole('button').click();
  await expect(page.getByTestId('crf-report')).toHaveAttribute('data-state', 'ready');
});

test('a monitor reads and exports the reports; a coordinator sees only the report tabs of its role', async ({
  page,
  browser,
  request,
}) => {
  const cra = await apiLogin(request, 'cra', 2, 'main');
  // the monitor role has query and export of the reports (seed): the buttons show
  await openLoggedIn(page, cra, 'main', '/project/reports?proId=1&tab=crfMissing');
  await expect(page.getByTestId('missing-report')).toHaveAttribute('data-state', /ready|empty/);
  await expect(page.getByTestId('missing-report-export')).toHaveCount(1);
  const ctx = await browser.newContext();
  const other = await ctx.newPage();
  const crc2 = await apiLogin(ctx.request, 'crc2', 3, 'site');
  await openLoggedIn(other, crc2, 'site', '/project/reports?proId=1');
  await expect(other.getByTestId('report-tab-crf')).toHaveCount(0);
  await ctx.close();
});

import { expect, test, type APIRequestContext, type Browser, type Page } from '@playwright/test';
import {
  DEMO_BUNDLES,
  DEMO_MRN_SYSTEM,
  demoMrnOf,
  startDemoFhirServer,
  type DemoFhirServer,
} from '../apps/server/src/modules/sources/demo-fhir-server';
import { apiLogin, noKeys, openLoggedIn, shootBoth, type ApiSession, type Variant } from './helpers';

/**
 * Issue 11 source-data journeys: a data manager adds a FHIR connection to the demo hospital (a real FHIR server:
 * @medplum/fhir-router over its in-memory repository, with Synthea patients) and tests it; a site coordinator runs
 * an extraction for a subject whose medical record number the hospital knows, sees the progress item finish, sees
 * the records by type and opens a raw record; the monitor sees every page read-only; the other site's coordinator
 * sees none of the subject's source data. Every screen is shot in both languages at 1440 and 1280.
 */
test.describe.configure({ mode: 'serial', timeout: 240_000 });

const STAMP = Date.now().toString(36).slice(-5).toUpperCase();
const MRN = demoMrnOf(DEMO_BUNDLES[0]);
const CONN_NAME = `Demo hospital ${STAMP}`;
let fhir: DemoFhirServer | null = null;
let fhirUrl = process.env.E2E_DEMO_FHIR_URL ?? '';
let ptsId = 0;
let ptsNo = '';

const USERS: Record<string, { account: string; type: number; variant: Variant }> = {
  dm: { account: 'dm', type: 1, variant: 'main' },
  cra: { account: 'cra', type: 2, variant: 'main' },
  crc1: { account: 'crc1', type: 3, variant: 'site' },
  crc2: { account: 'crc2', type: 3, variant: 'site' },
};

/** Logs in through the API in the PRO environment (where the site users work). */
async function login(request: APIRequestContext, who: keyof typeof USERS): Promise<ApiSession> {
  const u = USERS[who]!;
  const s = await apiLogin(request, u.account, u.type, u.variant);
  if (s.user.projectType !== 'PRO') {
    const r = await request.post('/api/passport/envTypeSwitch', { headers: { token: s.token }, form: { proType: 'PRO' } });
    expect(r.status()).toBe(200);
    s.user.projectType = 'PRO';
  }
  return s;
}

async function open(browser: Browser, who: keyof typeof USERS, url: string, lang: 'en_US' | 'zh_CN' = 'en_US'): Promise<Page> {
  const ctx = await browser.newContext();
  const page = await ctx.newPage();
  const s = await login(ctx.request, who);
  await openLoggedIn(page, s, USERS[who]!.variant, `${url}${url.includes('?') ? '&' : '?'}proId=1`, lang);
  await expect(page.getByTestId('project-label')).toContainText('DEMO-001');
  return page;
}

test.beforeAll(async ({ request }) => {
  if (!fhirUrl) {
    // the demo hospital the server started with the demo study (seeded as a connection of site 01), when it runs
    const dm = await login(request, 'dm');
    const list = (await (
      await request.post('/api/project/source/connection/list', { headers: { token: dm.token, proId: '1', proType: 'PRO' } })
    ).json()) as { data?: { name: string; config: { baseUrl?: string } }[] };
    const seeded = list.data?.find((c) => c.name === 'Demo hospital (FHIR R4)')?.config.baseUrl;
    if (seeded && (await request.get(`${seeded}/metadata`).then((r) => r.ok(), () => false))) fhirUrl = seeded;
  }
  if (!fhirUrl) {
    // the demo hospital, in this process: the server reaches it over HTTP like any hospital
    fhir = await startDemoFhirServer({ host: '127.0.0.1', bundles: [DEMO_BUNDLES[0], DEMO_BUNDLES[1]] });
    fhirUrl = fhir.url;
  }
  // a subject at site 01 whose medical record number is the demo patient's
  const crc = await login(request, 'crc1');
  const h = { token: crc.token, proId: '1', proType: 'PRO' };
  const sites = (await (await request.post('/api/pro/site/list', { headers: h })).json()) as { data: { id: number; siteNo: string }[] };
  const site = sites.data.find((x) => x.siteNo === '01')!;
  // the demo seed enrols subjects H-001.. with the demo patients' numbers (npm start); otherwise enrol one here
  const find = async () =>
    ((await (
      await request.post('/api/project/manage/ptsList', { headers: h, form: { identifier: MRN, pageNumber: 1, pageSize: 50 } })
    ).json()) as { data: { content: { ptsId: number; ptsNo: string }[] } }).data.content[0];
  let s = await find();
  if (!s) {
    const add = await request.post('/api/project/managePts/add', {
      headers: h,
      form: { siteId: site.id, firstVisitDate: new Date().toISOString().slice(0, 10), medicalRecordId: MRN },
    });
    expect(add.status()).toBe(200);
    s = await find();
  }
  ptsId = s!.ptsId;
  ptsNo = s!.ptsNo;
  expect(ptsId).toBeGreaterThan(0);
});

test.afterAll(async () => {
  await fhir?.close();
});

test('the data manager adds a FHIR connection to the demo hospital and tests it', async ({ browser }) => {
  const page = await open(browser, 'dm', '/project/sourceConnections');
  await expect(page.getByTestId('connections-page')).toBeVisible();
  await expect(page.getByTestId('connections-env')).toHaveText('PRO');
  await page.getByTestId('connection-add').click();
  const drawer = page.getByTestId('connection-drawer');
  await expect(drawer).toBeVisible();
  // the data manager sees every site: choose site 01
  await drawer.getByTestId('connection-site').click();
  await page.locator('.ant-select-item-option').filter({ hasText: /^01 / }).first().click();
  await drawer.getByTestId('connection-name').fill(CONN_NAME);
  await drawer.getByTestId('connection-base-url').fill(fhirUrl);
  await drawer.getByTestId('identifier-system-add').click();
  await drawer.getByTestId('identifier-system').fill(DEMO_MRN_SYSTEM);
  // a bearer token is a write-only secret
  await drawer.getByTestId('connection-auth').click();
  await page.locator('.ant-select-item-option').filter({ hasText: 'Bearer token' }).click();
  await expect(drawer.getByTestId('connection-secret')).toBeVisible();
  await drawer.getByTestId('connection-secret').fill('demo-token-not-checked');
  await shootBoth(page, 'sources-connection-drawer-en');
  await drawer.getByTestId('connection-save').click();

  // saved: the test dialog opens for the new connection
  const dialog = page.getByTestId('connection-test');
  await expect(dialog).toBeVisible();
  await dialog.getByTestId('connection-test-identifier').fill(MRN);
  await dialog.getByTestId('connection-test-run').click();
  await expect(dialog.getByTestId('connection-test-ok')).toBeVisible({ timeout: 60_000 });
  await expect(dialog.getByTestId('connection-test-patients')).toHaveText('1');
  await expect(dialog.getByTestId('connection-test-counts')).toContainText('Observation');
  await shootBoth(page, 'sources-connection-test-en');
  await page.keyboard.press('Escape');

  const row = page.getByTestId('connections-table').locator('tr').filter({ hasText: CONN_NAME });
  await expect(row).toContainText('FHIR R4 REST');
  await expect(row).toContainText('Passed');
  await noKeys(page);
  await shootBoth(page, 'sources-connections-en');

  // the stored token never comes back: the edit form says it is set and stays empty
  await row.getByRole('button', { name: CONN_NAME }).click();
  await expect(drawer.getByTestId('connection-secret')).toHaveValue('');
  await expect(drawer.getByTestId('connection-secret')).toHaveAttribute('placeholder', /leave empty to keep/);
  // back to no auth for the demo hospital (it ignores the header anyway)
  await drawer.getByTestId('connection-auth').click();
  await page.locator('.ant-select-item-option').filter({ hasText: /^None$/ }).click();
  await drawer.getByTestId('connection-save').click();
  await expect(drawer).toHaveCount(0);

  // a connection to nowhere: the test says why, clearly
  await page.getByTestId('connection-add').click();
  await drawer.getByTestId('connection-site').click();
  await page.locator('.ant-select-item-option').filter({ hasText: /^01 / }).first().click();
  await drawer.getByTestId('connection-name').fill(`Unreachable ${STAMP}`);
  await drawer.getByTestId('connection-base-url').fill('http://127.0.0.1:9/fhir');
  await drawer.getByTestId('connection-enabled').click();
  await drawer.getByTestId('connection-save').click();
  await expect(dialog).toBeVisible();
  await dialog.getByTestId('connection-test-run').click();
  await expect(dialog.getByTestId('connection-test-failed')).toBeVisible({ timeout: 60_000 });
  await shootBoth(page, 'sources-connection-test-failed-en');
  await page.keyboard.press('Escape');

  // zh_CN
  const zh = await open(browser, 'dm', '/project/sourceConnections', 'zh_CN');
  await expect(zh.getByTestId('connections-table')).toContainText(CONN_NAME);
  await expect(zh.locator('body')).toContainText('医院连接');
  await noKeys(zh);
  await shootBoth(zh, 'sources-connections-zh');
  await zh.getByTestId('connection-add').click();
  await expect(zh.getByTestId('connection-drawer')).toBeVisible();
  await zh.getByTestId('connection-kind').click();
  await zh.locator('.ant-select-item-option').filter({ hasText: 'SQL 视图' }).click();
  await expect(zh.getByTestId('sql-query-0')).toBeVisible();
  await shootBoth(zh, 'sources-connection-drawer-sql-zh');
});

test('a site coordinator runs an extraction, sees it finish, the records by type and a raw record', async ({ browser }) => {
  const page = await open(browser, 'crc1', `/project/ptsDetail?ptsId=${ptsId}&activeKey=source`);
  const tab = page.getByTestId('subject-source-tab');
  await expect(tab).toBeVisible();
  await tab.getByTestId('run-extraction').click();
  // the connection the data manager set up (the site may have others, e.g. the seeded demo hospital)
  await page.getByTestId('run-connection').click();
  await page.locator('.ant-select-item-option').filter({ hasText: CONN_NAME }).click();
  await page.getByTestId('run-extraction-ok').click();
  // the progress panel shows the extraction (type 2) and it finishes
  await expect(page.getByTestId('progress-group-2')).toBeVisible({ timeout: 30_000 });
  await expect(tab.getByTestId('latest-extraction').getByTestId('task-status')).toHaveText('Done', { timeout: 120_000 });
  await expect(page.getByTestId('progress-group-2')).toContainText(/succeeded|10\/10|成功/);
  await expect(tab.getByTestId('subject-source-counts')).toContainText('Test');
  await shootBoth(page, 'sources-subject-tab-en');

  await tab.getByTestId('open-source-data').click();
  await expect(page.getByTestId('source-data-page')).toBeVisible();
  await expect(page.getByTestId('source-subject-no')).toHaveText(ptsNo);
  await expect(page.getByTestId('source-timeline')).toBeVisible();
  const testCount = Number((await page.getByTestId('type-test').locator('.source-type-count').textContent()) ?? '0');
  expect(testCount).toBeGreaterThan(0);
  await noKeys(page);
  await shootBoth(page, 'sources-data-en');

  // only tests: every record shown is a test
  await page.getByTestId('type-test').click();
  await expect(page.getByTestId('source-timeline')).toBeVisible();
  const shownTypes = () =>
    page.locator('[data-doc-type]').evaluateAll((els) => [...new Set(els.map((e) => e.getAttribute('data-doc-type')))]);
  await expect.poll(shownTypes).toEqual(['test']);
  // a search that finds nothing says so
  await page.getByTestId('source-filter-text').locator('input').fill('no-such-code-xyz');
  await page.getByTestId('source-filter-text').locator('input').press('Enter');
  await expect(page.getByTestId('source-records-empty')).toBeVisible();
  await page.getByTestId('source-filter-text').locator('input').fill('');
  await page.getByTestId('source-filter-text').locator('input').press('Enter');

  // the raw record, exactly as the hospital sent it
  await page.locator('[data-testid^="record-open-"]').first().click();
  const drawer = page.getByTestId('record-drawer');
  // a test is an Observation or a DiagnosticReport; the payload is the resource as served, indented
  await expect(drawer.getByTestId('record-raw')).toContainText(/"resourceType": "(Observation|DiagnosticReport)",\s+"id": "/);
  await expect(drawer.getByTestId('record-versions')).toHaveCount(0);
  await drawer.getByRole('tab', { name: /Versions/ }).click();
  await expect(drawer.getByTestId('record-versions')).toContainText('v1');
  await drawer.getByRole('tab', { name: /As received/ }).click();
  await shootBoth(page, 'sources-record-en');
  await page.keyboard.press('Escape');

  // the acquisition details: the task with what it stored, and the task's own page
  await page.getByTestId('to-gather').click();
  await expect(page.getByTestId('gather-pts-page')).toBeVisible();
  await expect(page.getByTestId('gather-tasks')).toContainText('Done');
  await shootBoth(page, 'sources-gather-pts-en');
  await page.locator('[data-testid^="task-link-"]').first().click();
  await expect(page.getByTestId('gather-task-page')).toBeVisible();
  await expect(page.getByTestId('task-records')).toBeVisible();
  await noKeys(page);
  await shootBoth(page, 'sources-gather-task-en');

  await page.goto('/project/sourceMatching');
  await expect(page.getByTestId('matching-page')).toBeVisible();
  await shootBoth(page, 'sources-matching-en');

  // the same screens in Chinese
  const zh = await open(browser, 'crc1', `/project/sourceData?ptsId=${ptsId}`, 'zh_CN');
  await expect(zh.getByTestId('source-timeline')).toBeVisible();
  await expect(zh.getByTestId('source-types')).toContainText('检验');
  await noKeys(zh);
  await shootBoth(zh, 'sources-data-zh');
  await zh.locator('[data-testid^="record-open-"]').first().click();
  await expect(zh.getByTestId('record-raw')).toBeVisible();
  await shootBoth(zh, 'sources-record-zh');
  await zh.keyboard.press('Escape');
  await zh.goto(`/project/SickFile/gatherPtsData/detail?ptsId=${ptsId}`);
  await expect(zh.getByTestId('gather-tasks')).toContainText('已完成');
  await shootBoth(zh, 'sources-gather-pts-zh');
  await zh.locator('[data-testid^="task-link-"]').first().click();
  await expect(zh.getByTestId('gather-task-page')).toBeVisible();
  await shootBoth(zh, 'sources-gather-task-zh');
  await zh.goto('/project/sourceMatching');
  await expect(zh.getByTestId('matching-page')).toBeVisible();
  await noKeys(zh);
  await shootBoth(zh, 'sources-matching-zh');
  await zh.goto(`/project/ptsDetail?ptsId=${ptsId}&activeKey=source`);
  await expect(zh.getByTestId('subject-source-tab')).toBeVisible();
  await shootBoth(zh, 'sources-subject-tab-zh');
});

test('the data manager reads the reports: extraction, sync changes, data changes with export', async ({ browser }) => {
  for (const lang of ['en_US', 'zh_CN'] as const) {
    const page = await open(browser, 'dm', '/project/reports', lang);
    await expect(page.getByTestId('reports-page')).toBeVisible();
    await expect(page.getByTestId('extract-report-table')).toContainText(ptsNo);
    await noKeys(page);
    await shootBoth(page, `sources-report-extract-${lang === 'en_US' ? 'en' : 'zh'}`);
    await page.getByTestId('report-tab-syncChange').click();
    await expect(page.getByTestId('sync-change-table')).toBeVisible();
    await shootBoth(page, `sources-report-sync-${lang === 'en_US' ? 'en' : 'zh'}`);
    await page.getByTestId('report-tab-dataChange').click();
    await expect(page.getByTestId('data-change-table')).toBeVisible();
    {
      // the file is named in the user's language
      const download = page.waitForEvent('download');
      await page.getByTestId('data-change-export').click();
      expect((await download).suggestedFilename()).toMatch(
        lang === 'en_US' ? /^data-change-report-\d{8}-\d{4}\.xlsx$/ : /^数据变更报告-\d{8}-\d{4}\.xlsx$/,
      );
    }
    await shootBoth(page, `sources-report-data-${lang === 'en_US' ? 'en' : 'zh'}`);
    await page.getByTestId('report-tab-crf').click();
    // the study reports' tabs are built (issue 14): the CRF report opens
    await expect(page.getByTestId('crf-report')).toBeVisible();
    await page.context().close();
  }
});

test('the monitor sees the source pages read-only', async ({ browser }) => {
  const page = await open(browser, 'cra', '/project/sourceConnections');
  await expect(page.getByTestId('connections-table')).toContainText(CONN_NAME);
  await expect(page.getByTestId('connection-add')).toHaveCount(0);
  await expect(page.locator('[data-testid^="connection-delete-"]')).toHaveCount(0);
  await page.getByTestId('connections-table').locator('tr').filter({ hasText: CONN_NAME }).getByRole('button', { name: CONN_NAME }).click();
  await expect(page.getByTestId('connection-drawer')).toBeVisible();
  await expect(page.getByTestId('connection-save')).toHaveCount(0);
  await expect(page.getByTestId('connection-name')).toBeDisabled();
  await shootBoth(page, 'sources-connection-view-cra-en');
  await page.keyboard.press('Escape');

  await page.goto(`/project/sourceData?ptsId=${ptsId}`);
  await expect(page.getByTestId('source-timeline')).toBeVisible();
  await expect(page.getByTestId('run-extraction')).toHaveCount(0);
  await page.goto(`/project/SickFile/gatherPtsData/detail?ptsId=${ptsId}`);
  await expect(page.getByTestId('gather-tasks')).toBeVisible();
  await expect(page.getByTestId('run-extraction')).toHaveCount(0);
  await expect(page.locator('[data-testid^="task-retry-"], [data-testid^="task-cancel-"]')).toHaveCount(0);
  await page.goto('/project/sourceMatching');
  await expect(page.getByTestId('match-table')).toBeVisible();
  await expect(page.locator('[data-testid^="match-assign-"]')).toHaveCount(0);
  await page.goto('/project/reports?tab=dataChange');
  await expect(page.getByTestId('data-change-table')).toBeVisible();
  // exporting is reading: the monitor's role has report:data-change:export (seed: queries and exports)
  await expect(page.getByTestId('data-change-export')).toBeVisible();
  await shootBoth(page, 'sources-report-data-cra-en');
});

test("the other site's coordinator sees none of the subject's source data", async ({ browser, request }) => {
  const page = await open(browser, 'crc2', `/project/sourceData?ptsId=${ptsId}`);
  await expect(page.getByTestId('source-data-unavailable')).toBeVisible();
  await expect(page.getByTestId('source-timeline')).toHaveCount(0);
  await shootBoth(page, 'sources-data-other-site-en');
  await page.goto(`/project/SickFile/gatherPtsData/detail?ptsId=${ptsId}`);
  await expect(page.getByTestId('gather-unavailable')).toBeVisible();
  // the server refuses, not only the page
  const s = await login(request, 'crc2');
  const h = { token: s.token, proId: '1', proType: 'PRO' };
  const res = await request.post('/api/project/source/records/list', { headers: h, form: { ptsId, pageNumber: 1, pageSize: 50 } });
  const body = (await res.json()) as { status: string; data?: { content: unknown[] } };
  expect(body.status).not.toBe('1');
  // the connection of site 01 is not theirs either
  const conns = (await (await request.post('/api/project/source/connection/list', { headers: h })).json()) as { status: string; data?: { name: string }[] };
  expect((conns.data ?? []).map((c) => c.name)).not.toContain(CONN_NAME);
});

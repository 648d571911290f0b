import { expect, test, type APIRequestContext, type Browser, type Page } from '@playwright/test';
import { apiLogin, noKeys, openLoggedIn, pickSubject, setLanguage, shootBoth, type ApiSession, type Variant } from './helpers';

/**
 * Issue 11 journeys (mapping and pre-fill): a data manager maps a lab item of the demo design's laboratory form
 * (LB, week 4) to its LOINC code, tests the rule against a demo-hospital subject and saves it (a FHIRPath rule that
 * does not compile is refused at its field), keeps synonyms and the pre-fill schedule; a site coordinator opens the
 * week-4 lab form, opens 'Pre-fill from source', accepts two values, ignores a conflicting one (a merge would need a
 * reason), sees the filled values with their source link and opens the record behind one; the traceability report
 * lists value → source; the monitor sees it all read-only; the other site's coordinator sees none of it.
 *
 * Source records come from the demo hospital (the FHIR server `npm start` runs with Synthea patients; subject H-001
 * carries its patient's medical record number): the coordinator's extraction runs through the API before the journey.
 */
test.describe.configure({ mode: 'serial', timeout: 240_000 });

const users: Record<string, { account: string; type: number; variant: Variant }> = {
  dm: { account: 'dm', type: 1, variant: 'main' },
  crc1: { account: 'crc1', type: 3, variant: 'site' },
  crc2: { account: 'crc2', type: 3, variant: 'site' },
  cra: { account: 'cra', type: 2, variant: 'main' },
};
const LOINC = 'http://loinc.org';
let ptsId = 0;
let v3 = 0;
let lb = 0;

function api(request: APIRequestContext, s: ApiSession) {
  const headers = { token: s.token, proId: '1', proType: s.user.projectType, language: 'en_US' };
  return {
    post: async <T,>(path: string, form: Record<string, string | number>) => {
      const r = await request.post(`/api${path}`, { headers, form });
      const b = (await r.json()) as { status: string; data: T; message?: string };
      expect(b.status, `${path}: ${b.message ?? ''}`).toBe('1');
      return b.data;
    },
    json: async <T,>(path: string, data: object) => {
      const r = await request.post(`/api${path}`, { headers, data });
      const b = (await r.json()) as { status: string; data: T; message?: string };
      expect(b.status, `${path}: ${b.message ?? ''}`).toBe('1');
      return b.data;
    },
    get: async <T,>(path: string) => {
      const r = await request.get(`/api${path}`, { headers });
      const b = (await r.json()) as { status: string; data: T; message?: string };
      expect(b.status, `${path}: ${b.message ?? ''}`).toBe('1');
      return b.data;
    },
  };
}

async function open(browser: Browser, who: keyof typeof users, url: string, lang: 'en_US' | 'zh_CN' = 'en_US'): Promise<Page> {
  const u = users[who]!;
  const ctx = await browser.newContext({ acceptDownloads: true });
  const page = await ctx.newPage();
  const s = await apiLogin(ctx.request, u.account, u.type, u.variant);
  await openLoggedIn(page, s, u.variant, `${url}${url.includes('?') ? '&' : '?'}proId=1`, lang);
  await expect(page.getByTestId('project-label')).toContainText('DEMO-001');
  return page;
}

/** Chooses an option of an antd Select and checks that it took (a click during the dropdown's animation may not). */
async function pickOption(page: Page, testId: string, text: string | RegExp): Promise<void> {
  await expect(async () => {
    await page.getByTestId(testId).click();
    const option = page
      .locator('.ant-select-dropdown:not(.ant-select-dropdown-hidden) .ant-select-item-option')
      .filter({ hasText: text })
      .first();
    await option.waitFor({ state: 'visible', timeout: 3000 });
    await page.waitForTimeout(250);
    await option.click({ timeout: 3000 });
    await expect(page.getByTestId(testId)).toContainText(text, { timeout: 2000 });
  }).toPass({ timeout: 20_000 });
}


test.beforeAll(async ({ request }) => {
  const crc = api(request, await apiLogin(request, 'crc1', 3, 'site'));
  const dm = api(request, await apiLogin(request, 'dm', 1, 'main'));
  const list = await crc.post<{ content: { ptsId: number; ptsNo: string }[] }>('/project/manage/ptsList', { keyword: 'H-001', pageNumber: 1, pageSize: 50 });
  ptsId = list.content.find((s) => s.ptsNo === 'H-001')!.ptsId;
  const visits = await crc.get<{ visitId: number; code: string; forms: { formId: number; code: string }[] }[]>(`/project/pts/visits?ptsId=${ptsId}`);
  const week4 = visits.find((v) => v.code === 'V3')!;
  v3 = week4.visitId;
  lb = week4.forms.find((f) => f.code === 'LB')!.formId;
  // the demo may seed rules for the whole lab form, and an extraction pre-fills empty items of a visit in window by
  // itself (inject): the lab form starts without rules, so that the coordinator decides on its values by hand
  const fields = await dm.post<{ items: { variable: string; rule: { id: number; version: number } | null }[] }>('/crf/config/listField', { formId: lb });
  for (const f of fields.items) if (f.rule) await dm.post('/crf/config/mapping/delete', { id: f.rule.id, version: f.rule.version });
  // the coordinator extracts H-001 from the demo hospital (idempotent)
  await crc.post('/project/managePts/addPtsTask', { ptsId });
  await expect
    .poll(
      async () => {
        const types = await crc.post<{ docType: number; count: number }[]>('/project/managePts/queryTypeList', { ptsId });
        return types.find((t) => t.docType === 3)?.count ?? 0;
      },
      { timeout: 60_000, intervals: [1000] },
    )
    .toBeGreaterThan(0);
  // the task has ended (done), with whatever automatic pre-fill it ran
  await expect
    .poll(async () => (await crc.post<{ task: { status: number } | null }>('/project/manage/queryProcessBar', { ptsId })).task?.status, {
      timeout: 60_000,
      intervals: [1000],
    })
    .toBe(2);
  // a platelet count typed by hand that the hospital's differs from (the conflict of the journey)
  await crc.json('/crf/form/item/result/saveBatch', {
    ptsId,
    visitId: v3,
    formId: lb,
    unscheduledId: 0,
    repeatNo: 1,
    entryMode: 2,
    items: [{ variable: 'PLT', value: 200 }],
  });
  // sodium into grams cannot be: the candidate is a problem with the spec's message, never filled
  await dm.json('/crf/config/mapping/save', {
    formId: lb,
    variable: 'NA',
    method: 'code',
    codes: [{ system: LOINC, code: '2947-0' }],
    unit: 'g',
    selection: 'last',
    windowOnly: false,
  });
  // two more lab rules (the journey configures the haemoglobin one through the screen)
  for (const [variable, code] of [
    ['WBC', '6690-2'],
    ['PLT', '777-3'],
  ] as const) {
    await dm.json('/crf/config/mapping/save', {
      formId: lb,
      variable,
      method: 'code',
      codes: [{ system: LOINC, code }],
      unit: '10*9/L',
      selection: 'last',
      windowOnly: false,
    });
  }
});

test('a data manager maps haemoglobin to LOINC 718-7, tests it against H-001 and saves it', async ({ browser }) => {
  const page = await open(browser, 'dm', '/project/dataMapping');
  await expect(page.getByTestId('data-mapping-page')).toBeVisible();
  await pickOption(page, 'mapping-form', 'LB');
  await expect(page.getByTestId('rule-summary-WBC')).toContainText('6690-2');
  await expect(page.getByTestId('rule-summary-HGB')).toContainText('No rule');
  await expect(page.getByTestId('mapping-count')).toContainText('3 of 8 items');
  await shootBoth(page, 'mapping-list-en');

  // a FHIRPath expression that does not compile is refused at its field, with the server's reason
  await page.getByTestId('rule-edit-GLUC').click();
  await expect(page.getByTestId('rule-drawer')).toBeVisible();
  await page.getByTestId('rule-method-fhirpath').click();
  await page.getByTestId('rule-expression').fill('Observation.value.ofType(Quantity).value +');
  await page.getByTestId('rule-save').click();
  await expect(page.getByTestId('rule-form')).toContainText('does not compile');
  await page.getByRole('button', { name: 'Cancel' }).click();
  await expect(page.getByTestId('rule-drawer')).toBeHidden();
  await expect(page.getByTestId('rule-summary-GLUC')).toContainText('No rule');

  await page.getByTestId('rule-edit-HGB').click();
  await expect(page.getByTestId('rule-drawer')).toContainText('New rule: Hemoglobin');
  await page.getByTestId('rule-code-0').fill('718-7');
  await expect(page.getByTestId('rule-unit')).toHaveValue('g/L');
  await pickOption(page, 'rule-selection', 'Latest record');
  await page.getByTestId('rule-window-only').click();
  // tested before it is saved: what would be filled and why
  await pickSubject(page, 'rule-test-subject', 'H-001');
  await pickOption(page, 'rule-test-visit', 'V3');
  await page.getByTestId('rule-test-run').click();
  await expect(page.getByTestId('rule-test-result')).toBeVisible();
  // 13.76 g/dL in the hospital → 138 g/L in the form (the item's precision is 0)
  await expect(page.getByTestId('rule-test-value')).toContainText('138 g/L');
  await expect(page.getByTestId('rule-test-result')).toContainText('g/dL → g/L');
  await expect(page.getByTestId('rule-test-matched')).toContainText('2 matched');
  await shootBoth(page, 'mapping-rule-test-en');
  await page.getByTestId('rule-save').click();
  await expect(page.getByTestId('rule-drawer')).toBeHidden();
  await expect(page.getByTestId('rule-summary-HGB')).toContainText('718-7');
  await expect(page.getByTestId('rule-summary-HGB')).toContainText('Latest record');
  await expect(page.getByTestId('mapping-count')).toContainText('4 of 8 items');

  // the pre-fill schedule: weekly needs a weekday
  await page.getByRole('tab', { name: 'Pre-fill schedule' }).click();
  await expect(page.getByTestId('schedule-config')).toBeVisible();
  await expect(page.getByTestId('schedule-none')).toBeVisible();
  const sched = page.getByTestId('schedule-config');
  await sched.getByPlaceholder('Start date').click();
  await sched.getByPlaceholder('Start date').fill('2027-01-01');
  await sched.getByPlaceholder('End date').click();
  await sched.getByPlaceholder('End date').fill('2027-12-31');
  await sched.getByPlaceholder('End date').press('Tab');
  await expect(sched.getByPlaceholder('End date')).toHaveValue('2027-12-31');
  await page.getByTestId('schedule-frequency-weekly').click();
  await page.getByTestId('schedule-save').click();
  await expect(page.getByTestId('schedule-config')).toContainText('Choose at least one weekday');
  await page.getByTestId('schedule-weekdays').getByText('Mon').click();
  await page.getByTestId('schedule-weekdays').getByText('Thu').click();
  await page.getByTestId('schedule-save').click();
  await expect(page.getByText('The pre-fill schedule is saved.').last()).toBeVisible();
  await expect(page.getByTestId('schedule-last-run')).toContainText('Never');
  await shootBoth(page, 'prefill-schedule-en');
  await noKeys(page);

  // synonyms of the project: add, a duplicate term refused at the field
  await page.goto('/project/textConfig/same');
  await expect(page.getByTestId('synonyms-page')).toBeVisible();
  await page.getByTestId('synonym-add').click();
  await page.getByTestId('synonym-term').fill('Hemoglobin');
  await page.getByTestId('synonym-synonyms').click();
  await page.keyboard.type('Hb');
  await page.keyboard.press('Enter');
  await page.keyboard.type('血红蛋白');
  await page.keyboard.press('Enter');
  await page.getByTestId('synonym-save').click();
  await expect(page.getByTestId('synonym-term-Hemoglobin')).toBeVisible();
  await expect(page.getByTestId('synonym-table')).toContainText('血红蛋白');
  await page.getByTestId('synonym-add').click();
  await page.getByTestId('synonym-term').fill('hemoglobin');
  await page.getByTestId('synonym-save').click();
  await expect(page.locator('.ant-modal')).toContainText("'hemoglobin' already exists");
  await page.locator('.ant-modal').getByRole('button', { name: 'Cancel' }).click();
  await shootBoth(page, 'synonyms-en');

  // the same screens in Chinese
  await setLanguage(page, 'zh_CN');
  await expect(page.getByTestId('synonym-add')).toContainText('添加同义词');
  await shootBoth(page, 'synonyms-zh');
  await noKeys(page);
  await page.goto('/project/dataMapping');
  await pickOption(page, 'mapping-form', 'LB');
  await expect(page.getByTestId('rule-summary-HGB')).toContainText('最新一条');
  await shootBoth(page, 'mapping-list-zh');
  await page.getByTestId('rule-edit-HGB').click();
  await expect(page.getByTestId('rule-drawer')).toContainText('规则：血红蛋白');
  await shootBoth(page, 'mapping-rule-zh');
  await noKeys(page);
  await page.getByRole('button', { name: '取 消' }).or(page.getByRole('button', { name: '取消' })).first().click();
  await page.getByRole('tab', { name: '预填计划' }).click();
  await expect(page.getByTestId('schedule-config')).toContainText('每周');
  await shootBoth(page, 'prefill-schedule-zh');
  await noKeys(page);
  await page.context().close();
});

test('a site coordinator accepts two pre-filled values, ignores a conflicting one and opens the source behind one', async ({ browser }) => {
  const page = await open(browser, 'crc1', `/project/ptsDetail?ptsId=${ptsId}&activeKey=pts360`);
  await page.getByTestId('form-V3-LB').click();
  await expect(page.getByTestId('crf-entry')).toBeVisible();
  // the button says how many source values wait for a decision on this form
  await expect(page.locator('.ant-badge', { has: page.getByTestId('prefill-toggle') }).locator('.ant-badge-count')).toHaveAttribute('title', /^3 source values/);
  await page.getByTestId('prefill-toggle').click();
  const panel = page.getByTestId('prefill-panel');
  await expect(panel).toBeVisible();
  await expect(page.getByTestId('prefill-state-HGB')).toHaveText('New');
  await expect(page.getByTestId('prefill-state-WBC')).toHaveText('New');
  await expect(page.getByTestId('prefill-state-PLT')).toHaveText('Conflict');
  await expect(page.getByTestId('prefill-candidate-HGB')).toContainText('138 g/L');
  await expect(page.getByTestId('prefill-candidate-HGB')).toContainText('from 13.76');
  await expect(page.getByTestId('prefill-current-PLT')).toContainText('200');
  await expect(page.getByTestId('prefill-state-NA')).toHaveText('Problem');
  await expect(page.getByTestId('prefill-problem-NA')).toContainText('Data abnormal, cannot be filled');
  await expect(page.getByTestId('prefill-choose-new-NA')).toHaveCount(0);
  await shootBoth(page, 'prefill-panel-en');

  // a merge over the typed value needs a reason; the coordinator ignores it instead
  await page.getByTestId('prefill-choose-merge-PLT').click();
  await page.getByTestId('prefill-accept-all').click();
  await page.getByTestId('prefill-confirm').click();
  await expect(page.getByTestId('prefill-error-PLT')).toHaveText('Give a reason to replace the current value');
  await page.getByTestId('prefill-choose-ignore-PLT').click();
  await expect(page.getByTestId('prefill-confirm')).toHaveText(/Confirm \(3\)/);
  await page.getByTestId('prefill-confirm').click();
  await expect(page.getByText('Pre-fill saved: 2 values filled, 1 ignored.').last()).toBeVisible();

  // the form holds the values, each with its entry mode and a link to the record it came from
  await expect(page.getByTestId('crf-input-HGB').locator('input').or(page.locator('input[data-testid="crf-input-HGB"]')).first()).toHaveValue('138');
  await expect(page.getByTestId('crf-input-PLT').locator('input').or(page.locator('input[data-testid="crf-input-PLT"]')).first()).toHaveValue('200');
  await expect(page.getByTestId('source-link-HGB')).toContainText('Gathered');
  await expect(page.getByTestId('source-link-WBC')).toBeVisible();
  await expect(page.getByTestId('source-link-PLT')).toHaveCount(0);
  await expect(page.getByTestId('prefill-state-HGB')).toHaveText('Same');
  await expect(page.getByTestId('prefill-item-PLT')).toHaveCount(0);
  await expect(page.getByTestId('prefill-restore')).toContainText('(1)');
  await page.getByTestId('source-open-HGB').click();
  const drawer = page.getByTestId('source-record');
  await expect(drawer).toBeVisible();
  await expect(page.getByTestId('source-record-code')).toContainText('718-7');
  await expect(page.getByTestId('source-record-value')).toContainText('13.76');
  await expect(page.getByTestId('source-record-raw')).toContainText('"resourceType": "Observation"');
  await expect(page.getByTestId('source-record-changed')).toHaveCount(0);
  await shootBoth(page, 'prefill-source-record-en');
  await noKeys(page);
  await page.keyboard.press('Escape');

  // and finds what was filled, with its source, in the traceability report (their own sites' subjects)
  await page.goto('/project/icrc-source');
  await expect(page.getByTestId('traceability-page')).toBeVisible();
  await pickSubject(page, 'trace-filter-subject', 'H-001');
  await expect(page.getByTestId('trace-value-HGB')).toHaveText('138', { timeout: 30_000 });
  await expect(page.getByTestId('trace-table')).toContainText('718-7');
  await expect(page.getByTestId('trace-table')).not.toContainText('PLT');

  await page.context().close();

  const zh = await open(browser, 'crc1', `/project/ptsDetail?ptsId=${ptsId}&activeKey=pts360`, 'zh_CN');
  await zh.getByTestId('form-V3-LB').click();
  await zh.getByTestId('prefill-toggle').click();
  await expect(zh.getByTestId('prefill-panel')).toContainText('从源数据预填');
  await expect(zh.getByTestId('prefill-state-HGB')).toHaveText('相同');
  await expect(zh.getByTestId('source-link-HGB')).toContainText('采集');
  await expect(zh.getByTestId('prefill-problem-NA')).toContainText('数据异常，无法填充');
  await shootBoth(zh, 'prefill-panel-zh');
  await noKeys(zh);
  await zh.getByTestId('source-open-WBC').click();
  await expect(zh.getByTestId('source-record-code')).toContainText('6690-2');
  await shootBoth(zh, 'prefill-source-record-zh');
  await noKeys(zh);
  await zh.context().close();
});

test('the traceability report lists value → source; the data manager exports it', async ({ browser }) => {
  const page = await open(browser, 'dm', '/project/icrc-source');
  await expect(page.getByTestId('traceability-page')).toBeVisible();
  await pickSubject(page, 'trace-filter-subject', 'H-001');
  const table = page.getByTestId('trace-table');
  await expect(page.getByTestId('trace-value-HGB')).toHaveCount(1, { timeout: 30_000 });
  await expect(table).toContainText('H-001');
  await expect(page.getByTestId('trace-value-HGB')).toHaveText('138');
  await expect(page.getByTestId('trace-value-WBC')).toBeVisible();
  await expect(table).not.toContainText('PLT');
  await expect(table).toContainText('718-7');
  await expect(table).toContainText('Amy Coordinator');
  await shootBoth(page, 'traceability-en');
  const download = page.waitForEvent('download');
  await page.getByTestId('trace-export').click();
  expect((await download).suggestedFilename()).toMatch(/^traceability-.*\.xlsx$/);
  await page.getByTestId('trace-open-HGB').click();
  await expect(page.getByTestId('source-record-code')).toContainText('718-7');
  await page.keyboard.press('Escape');
  await setLanguage(page, 'zh_CN');
  await expect(page.getByTestId('trace-export')).toContainText('导出 Excel');
  await shootBoth(page, 'traceability-zh');
  await noKeys(page);
  await page.context().close();
});

test('the monitor sees mapping, pre-fill and the report read-only', async ({ browser }) => {
  const page = await open(browser, 'cra', '/project/dataMapping');
  await pickOption(page, 'mapping-form', 'LB');
  await expect(page.getByTestId('mapping-readonly')).toBeVisible();
  await expect(page.getByTestId('rule-delete-HGB')).toHaveCount(0);
  await page.getByTestId('rule-edit-HGB').click();
  await expect(page.getByTestId('rule-save')).toHaveCount(0);
  await expect(page.getByTestId('rule-code-0')).toBeDisabled();
  await page.keyboard.press('Escape');

  await page.goto(`/project/SickFile?ptsId=${ptsId}&activeKey=pts360`);
  await page.getByTestId('form-V3-LB').click();
  await expect(page.getByTestId('crf-entry')).toBeVisible();
  await expect(page.getByTestId('source-link-HGB')).toBeVisible();
  await page.getByTestId('prefill-toggle').click();
  await expect(page.getByTestId('prefill-readonly')).toBeVisible();
  await expect(page.getByTestId('prefill-confirm')).toHaveCount(0);
  await expect(page.getByTestId('prefill-state-HGB')).toHaveText('Same');
  await shootBoth(page, 'prefill-panel-monitor-en');

  await page.goto('/project/icrc-source');
  await pickSubject(page, 'trace-filter-subject', 'H-001');
  await expect(page.getByTestId('trace-value-HGB')).toHaveCount(1, { timeout: 30_000 });
  await expect(page.getByTestId('trace-value-HGB')).toHaveText('138');
  await expect(page.getByTestId('trace-table')).toContainText('718-7');
  // the schedule too is read-only for the monitor
  await page.goto('/project/dataMapping?tab=schedule');
  await expect(page.getByTestId('schedule-config')).toContainText('You can see the schedule but not change it.');
  await expect(page.getByTestId('schedule-save')).toHaveCount(0);
  await page.context().close();
});

test('the other site’s coordinator sees none of it', async ({ browser }) => {
  const page = await open(browser, 'crc2', `/project/ptsDetail?ptsId=${ptsId}&activeKey=pts360`);
  await expect(page.getByTestId('subject-unavailable')).toBeVisible();
  await expect(page.getByTestId('form-V3-LB')).toHaveCount(0);
  // the report opens, but lists nothing of another site's subjects
  await page.goto('/project/icrc-source');
  await expect(page.getByTestId('traceability-page')).toBeVisible();
  await expect(page.getByTestId('trace-table')).toBeVisible();
  await expect(page.getByTestId('trace-table')).not.toContainText('H-001');
  await expect(page.getByTestId('trace-value-HGB')).toHaveCount(0);
  await page.goto('/project/dataMapping');
  await expect(page.getByTestId('data-mapping-page')).toHaveCount(0);
  // and the server answers the pre-fill of that subject with nothing of it
  const s = await apiLogin(page.context().request, 'crc2', 3, 'site');
  const r = await page.context().request.post('/api/crf/prefill/execute', {
    headers: { token: s.token, proId: '1', proType: s.user.projectType },
    form: { ptsId, visitId: v3, formId: lb },
  });
  expect(r.status()).toBeGreaterThanOrEqual(400);
  expect(JSON.stringify(await r.json())).not.toContain('718-7');
  await page.context().close();
});

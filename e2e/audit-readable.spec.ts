import path from 'node:path';
import { expect, test, type Page } from '@playwright/test';
import { ARTIFACTS, apiLogin, enterDemoProject, openLoggedIn, untranslatedKeys, visibleText } from './helpers';

/**
 * Issue 11 / S3: the monitor reads the project audit log as records (subject, visit, form, item label, option
 * labels, old → new, reason) with identifiers masked; raw ids only in the expandable technical details.
 */
test.describe.configure({ mode: 'serial', timeout: 180_000 });

const ID_CARD = '11010519491231002X';
const STAMP = Date.now().toString(36).slice(-5).toUpperCase();
const MR = `MR${STAMP}`;
let ptsNo = '';

test.beforeAll(async ({ request }) => {
  const crc = await apiLogin(request, 'crc1', 3, 'site');
  const h = { token: crc.token, proId: '1', proType: 'PRO' };
  const sites = (await (await request.post('/api/pro/site/list', { headers: h })).json()) as { data: { id: number; siteNo: string }[] };
  const site = sites.data.find((x) => x.siteNo === '01')!;
  const add = await request.post('/api/project/managePts/add', {
    headers: h,
    form: { siteId: site.id, firstVisitDate: new Date().toISOString().slice(0, 10), medicalRecordId: MR, idCard: ID_CARD },
  });
  const s = ((await add.json()) as { data: { ptsId: number; ptsNo: string } }).data;
  ptsNo = s.ptsNo;
  const visits = (await (await request.get(`/api/project/pts/visits?ptsId=${s.ptsId}`, { headers: h })).json()) as {
    data: { visitId: number; code: string; forms: { formId: number; code: string }[] }[];
  };
  const v1 = visits.data.find((v) => v.code === 'V1')!;
  const save = await request.post('/api/crf/form/item/result/saveBatch', {
    headers: h,
    data: { ptsId: s.ptsId, visitId: v1.visitId, formId: v1.forms.find((f) => f.code === 'DM')!.formId, entryMode: 0, items: [{ variable: 'SEX', value: '2' }] },
  });
  expect(save.status()).toBe(200);
  // a form's batch save of seven lab values: one audit event listing its items (issue 16 item 3)
  const v3 = visits.data.find((v) => v.code === 'V3')!;
  const labs = { HGB: 132, WBC: 6.5, PLT: 250, NA: 140, K: 4.1, CREAT: 0.9, GLUC: 95 };
  const lab = await request.post('/api/crf/form/item/result/saveBatch', {
    headers: h,
    data: { ptsId: s.ptsId, visitId: v3.visitId, formId: v3.forms.find((f) => f.code === 'LB')!.formId, entryMode: 2, items: Object.entries(labs).map(([variable, value]) => ({ variable, value })) },
  });
  expect(lab.status(), await lab.text()).toBe(200);
});

async function shot(page: Page, name: string): Promise<void> {
  await page.waitForTimeout(400);
  await page.screenshot({ path: path.join(ARTIFACTS, name), fullPage: false });
}

const TEXT = {
  en_US: { subject: 'Subject', visit: 'Screening', form: 'Demographics', option: 'Female', event: 'Item changed', items: '7 items changed', all: 'Show all 7', glucose: 'Glucose: 95 mg/dL' },
  zh_CN: { subject: '受试者', visit: '筛选访视', form: '人口学', option: '女', event: '修改表单条目', items: '修改了 7 项', all: '显示全部 7 项', glucose: '血糖: 95 mg/dL' },
} as const;

for (const lang of ['en_US', 'zh_CN'] as const) {
  for (const [w, h] of [[1440, 900], [1280, 720]] as const) {
    test(`the monitor reads records, identifiers masked (${lang}, ${w}×${h})`, async ({ page, request }) => {
      await page.setViewportSize({ width: w, height: h });
      const s = await apiLogin(request, 'cra', 2, 'main');
      await openLoggedIn(page, s, 'main', '/overview', lang);
      await enterDemoProject(page);
      await page.goto('/project/auditLogs');
      const view = page.getByTestId('project-audit-logs');
      await expect(view.getByTestId('audit-table')).toBeVisible({ timeout: 30_000 });
      const table = view.getByTestId('audit-table');
      const x = TEXT[lang];
      const sexRow = table.locator('tr').filter({ hasText: ptsNo }).filter({ hasText: x.event }).filter({ hasText: x.form }).first();
      await expect(sexRow).toContainText(`${x.subject} ${ptsNo}`);
      await expect(sexRow).toContainText(x.visit);
      await expect(sexRow).toContainText(x.form);
      await expect(sexRow).toContainText(x.option);
      const text = await visibleText(page);
      expect(text).not.toContain(ID_CARD);
      expect(text).not.toContain(MR);
      expect(text).toContain('11**************2X');
      expect(text).not.toMatch(/crf_value #|subject #\d/);
      expect(untranslatedKeys(text)).toEqual([]);
      await shot(page, `audit-readable-${lang}-${w}.png`);
      // raw internals on demand
      await sexRow.locator('.ant-table-row-expand-icon').click();
      const tech = view.getByTestId('audit-technical').first();
      await expect(tech).toBeVisible();
      await expect(tech).toContainText('crf_instance');
      await expect(tech).toContainText('SEX');
      await shot(page, `audit-readable-tech-${lang}-${w}.png`);
    });
  }
}

for (const lang of ['en_US', 'zh_CN'] as const) {
  test(`a form's batch save reads as one event listing its items (${lang})`, async ({ page, request }) => {
    await page.setViewportSize({ width: 1440, height: 900 });
    const s = await apiLogin(request, 'cra', 2, 'main');
    await openLoggedIn(page, s, 'main', '/overview', lang);
    await enterDemoProject(page);
    await page.goto('/project/auditLogs');
    const table = page.getByTestId('project-audit-logs').getByTestId('audit-table');
    await expect(table).toBeVisible({ timeout: 30_000 });
    const x = TEXT[lang];
    const row = table.locator('tr').filter({ hasText: ptsNo }).filter({ hasText: x.items });
    await expect(row).toHaveCount(1);
    // five shown, the rest on demand
    await expect(row.getByTestId('audit-change')).toHaveCount(5);
    await row.getByTestId('audit-changes-toggle').click();
    await expect(row.getByTestId('audit-change')).toHaveCount(7);
    await expect(row).toContainText(x.glucose);
    expect(untranslatedKeys(await visibleText(page))).toEqual([]);
    await row.scrollIntoViewIfNeeded();
    await shot(page, `audit-batch-event-${lang}.png`);
  });
}

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
});

async function shot(page: Page, name: string): Promise<void> {
  await page.waitForTimeout(400);
  await page.screenshot({ path: path.join(ARTIFACTS, name), fullPage: false });
}

const TEXT = {
  en_US: { subject: 'Subject', visit: 'Screening', form: 'Demographics', option: 'Female', event: 'Item changed' },
  zh_CN: { subject: '受试者', visit: '筛选访视', form: '人口学', option: '女', event: '修改表单条目' },
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
      const sexRow = table.locator('tr').filter({ hasText: ptsNo }).filter({ hasText: x.event }).first();
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
      await expect(tech).toContainText('crf_value');
      await expect(tech).toContainText('SEX');
      await shot(page, `audit-readable-tech-${lang}-${w}.png`);
    });
  }
}

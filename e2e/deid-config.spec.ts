import { expect, test } from '@playwright/test';
import { apiLogin, enterDemoProject, noKeys, openLoggedIn, setLanguage, shootBoth } from './helpers';
import { labReportPng } from './doc-fixtures';

/**
 * Desensitization configuration (/project/ocrProConfig): a data manager adds a project keyword, tries a text and
 * sees the keyword and the identifiers the automatic de-identification would hide; the page reads in both languages.
 */
test('a data manager adds a desensitization keyword and tries it on a text', async ({ page, request }) => {
  const dm = await apiLogin(request, 'dm', 1, 'main');
  await openLoggedIn(page, dm, 'main');
  await enterDemoProject(page);
  await page.goto('/project/ocrProConfig');
  await expect(page.getByTestId('deid-config-page')).toBeVisible();
  await page.getByTestId('deid-keyword-add').click();
  await page.getByTestId('deid-keyword-input').fill('HTN-registry');
  await page.getByTestId('deid-keyword-save').click();
  await expect(page.getByTestId('deid-keyword-table')).toContainText('HTN-registry');
  await page.getByTestId('deid-test-text').fill('Patient John Smith, ID 11010519491231002X, HTN-registry visit. Glucose 5.6 mmol/L.');
  await page.getByTestId('deid-test-run').click();
  await expect(page.getByTestId('deid-test-result')).toContainText('HTN-registry');
  // the same settings tried on a photographed lab report (real OCR on the server; nothing stored)
  await page.getByTestId('deid-image-test').locator('input[type=file]').setInputFiles([{ name: 'lab.png', mimeType: 'image/png', buffer: await labReportPng() }]);
  await expect(page.getByTestId('deid-image-result')).toContainText('ID card', { timeout: 60_000 });
  await expect(page.getByTestId('deid-image-result').locator('.deid-image-box').first()).toBeVisible();
  await noKeys(page);
  await shootBoth(page, 'deid-config');
  await setLanguage(page, 'zh_CN');
  await noKeys(page);
  await shootBoth(page, 'deid-config-zh');
});

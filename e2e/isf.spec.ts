import { expect, test, type APIRequestContext } from '@playwright/test';
import { apiLogin, enterDemoProject, noKeys, openLoggedIn, setLanguage, shootBoth, type ApiSession } from './helpers';
import { dischargePdf } from './doc-fixtures';

/**
 * Issue 12 item 8 journey: the data manager configures a required document of the investigator site file; a site
 * coordinator sees the ISF dot on the menu, uploads the document, watches its de-identification, and the dot goes
 * away; the version opens on the review screen under /project/researchFile. Both languages looked at.
 */
test.describe.configure({ mode: 'serial', timeout: 240_000 });

const SUFFIX = Date.now().toString(36).slice(-5);
const KIND_EN = `Ethics approval ${SUFFIX}`;
const KIND_ZH = `伦理批件 ${SUFFIX}`;

const headersOf = (s: ApiSession) => ({ token: s.token, proId: '1', proType: s.user.projectType });

/** Starts from no required kind: the dot then counts this journey's kind only (a retry leaves none behind). */
async function removeAllKinds(request: APIRequestContext, dm: ApiSession) {
  const list = (await (await request.get('/api/rf/kind/list', { headers: headersOf(dm) })).json()) as { data: { id: number; version: number }[] };
  for (const k of list.data) await request.post('/api/rf/kind/delete', { data: { id: k.id, version: k.version }, headers: headersOf(dm) });
}

test('the data manager requires a document; the site uploads it and the ISF dot goes away', async ({ page, request, browser }) => {
  const dm = await apiLogin(request, 'dm', 1, 'main');
  await removeAllKinds(request, dm);
  await openLoggedIn(page, dm, 'main');
  await enterDemoProject(page);
  await page.goto('/project/researchFile');
  await expect(page.getByTestId('isf-page')).toBeVisible();
  await expect(page.getByTestId('isf-table')).toContainText('No document kinds yet');

  // the data manager adds a required kind for every site
  await page.getByTestId('isf-kinds').click();
  await page.getByTestId('isf-kind-add').click();
  await page.getByTestId('isf-kind-save').click();
  await expect(page.getByText("Enter the document's name.")).toBeVisible();
  await page.getByTestId('isf-kind-name').fill(KIND_ZH);
  await page.getByTestId('isf-kind-name-en').fill(KIND_EN);
  await page.getByTestId('isf-kind-save').click();
  await expect(page.getByTestId('isf-kinds-table')).toContainText(KIND_ZH);
  // the same name again is refused with the server's message
  await page.getByTestId('isf-kind-add').click();
  await page.getByTestId('isf-kind-name').fill(KIND_ZH);
  await page.getByTestId('isf-kind-save').click();
  await expect(page.getByTestId('isf-kind-error')).toContainText(`A document kind named "${KIND_ZH}" already exists`);
  await noKeys(page);
  await shootBoth(page, 'isf-kinds');
  await page.getByRole('dialog', { name: 'Add document kind' }).getByRole('button', { name: 'Cancel' }).click();
  await page.getByTestId('isf-kinds-drawer').getByRole('button', { name: 'Close' }).click();
  await expect(page.getByTestId('isf-kinds-drawer')).toBeHidden();
  await expect(page.getByTestId('isf-table').locator('tr', { hasText: KIND_EN })).toHaveCount(2); // both sites
  await expect(page.getByTestId('isf-table')).toContainText('Not uploaded');

  // the site coordinator sees the dot, and their own site only
  const crc = await apiLogin(request, 'crc1', 3, 'site');
  const ctx = await browser.newContext({ viewport: { width: 1440, height: 900 } });
  const site = await ctx.newPage();
  await openLoggedIn(site, crc, 'site', '/project/sickLoop?proId=1');
  // the closed Sources group carries the dot; opened, the entry does
  await expect(site.getByTestId('isf-dot-group')).toBeVisible({ timeout: 15_000 });
  await site.getByTestId('isf-dot-group').click();
  await expect(site.getByTestId('isf-dot')).toBeVisible();
  await site.getByTestId('menu-researchFile').click();
  await expect(site.getByTestId('isf-page')).toBeVisible();
  const row = site.getByTestId('isf-table').locator('tr', { hasText: KIND_EN });
  await expect(row).toHaveCount(1);
  await expect(row).toContainText('Not uploaded');
  await noKeys(site);
  await shootBoth(site, 'isf-site-missing');

  // upload: one file per version (a second choice replaces the first); an unsupported name is refused here
  await row.getByRole('button', { name: 'Upload' }).click();
  const dialog = site.getByTestId('isf-upload-dialog');
  await expect(dialog).toContainText('This upload becomes version 1');
  const input = dialog.locator('input[type=file]');
  await input.setInputFiles([{ name: 'approval.docx', mimeType: 'application/octet-stream', buffer: Buffer.from('PK') }]);
  await expect(site.getByTestId('isf-upload-problems')).toContainText('approval.docx');
  await expect(site.getByTestId('isf-upload-ok')).toBeDisabled();
  await input.setInputFiles([{ name: 'approval-a.pdf', mimeType: 'application/pdf', buffer: await dischargePdf() }]);
  await expect(dialog.locator('.ant-upload-list-item')).toHaveCount(1);
  await expect(site.getByTestId('isf-upload-problems')).toHaveCount(0);
  await site.getByTestId('isf-upload-ok').click();
  await expect(dialog).toBeHidden();

  // de-identification runs (real OCR), the list polls by itself; the dot goes away once a version is there
  await expect(row.getByTestId('file-status')).toHaveText('Waiting submit', { timeout: 180_000 });
  await expect(row).not.toContainText('Not uploaded');
  await expect(site.getByTestId('isf-dot')).toHaveCount(0, { timeout: 10_000 });
  await expect(site.getByTestId('isf-dot-group')).toHaveCount(0);

  // the history, and the version on the review screen, which leads back to the site file
  await row.locator('.ant-table-row-expand-icon').click();
  await expect(site.locator('[data-testid^="isf-versions-"]')).toContainText('approval-a.pdf');
  await noKeys(site);
  await shootBoth(site, 'isf-site-uploaded');
  await site.locator('[data-testid^="isf-version-"]').first().click();
  await expect(site).toHaveURL(/\/project\/researchFile\/pdfTuomin\?id=\d+/);
  await expect(site.getByText(KIND_EN)).toBeVisible();
  await noKeys(site);
  await shootBoth(site, 'isf-review');
  await site.getByRole('link', { name: 'Back' }).click();
  await expect(site).toHaveURL(/\/project\/researchFile$/);

  await setLanguage(site, 'zh_CN');
  await expect(site.getByTestId('isf-page')).toContainText('研究者文件夹');
  await expect(site.getByTestId('isf-table')).toContainText(KIND_ZH);
  await noKeys(site);
  await shootBoth(site, 'isf-site-zh');
  await ctx.close();

  // the data manager sees both sites, one uploaded, one missing
  await page.reload();
  await expect(page.getByTestId('isf-table').locator('tr', { hasText: KIND_EN }).filter({ hasText: 'Not uploaded' })).toHaveCount(1);
  await removeAllKinds(request, dm);
});

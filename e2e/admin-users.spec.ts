import { expect, test, type Page } from '@playwright/test';
import ExcelJS from 'exceljs';
import path from 'node:path';
import { tmpdir } from 'node:os';
import { ARTIFACTS, apiLogin, openLoggedIn, untranslatedKeys, visibleText } from './helpers';

/**
 * Module 2 users (issue 4 item 3): the administrator adds a user (a bad phone is refused with the message, a good
 * one gives the initial password once); an Excel file with one bad row imports nothing and names the row and
 * field; fixed, it imports every row.
 */
test.describe.configure({ mode: 'serial', timeout: 180_000 });

const STAMP = Date.now().toString(36).slice(-6);

async function pick(page: Page, testId: string, text: string): Promise<void> {
  await page.getByTestId(testId).click();
  await page.keyboard.type(text);
  await page
    .locator('.ant-select-dropdown:not(.ant-select-dropdown-hidden) .ant-select-item-option')
    .filter({ hasText: text })
    .first()
    .click();
}

async function shot(page: Page, name: string): Promise<void> {
  await page.waitForTimeout(300);
  await page.screenshot({ path: path.join(ARTIFACTS, name) });
}

const modalOk = (page: Page, title: RegExp) =>
  page.locator('.ant-modal').filter({ hasText: title }).locator('.ant-modal-footer .ant-btn-primary');

test('admin adds a user: a bad phone is refused, a good one gives the initial password once', async ({
  page,
  request,
}) => {
  const s = await apiLogin(request, 'admin', 1, 'main');
  await openLoggedIn(page, s, 'main', '/system/userSys');
  await expect(page.getByTestId('users-table')).toContainText('admin', { timeout: 30_000 });
  expect(page.url()).not.toContain('token');

  await page.getByTestId('users-add').click();
  const form = page.getByTestId('user-form');
  await expect(form).toBeVisible();
  const account = `e2e_${STAMP}`;
  await page.getByTestId('user-account').fill(account);
  await page.getByTestId('user-name').fill(`E2E User ${STAMP}`);
  await page.getByTestId('user-phone').fill('12345678');
  await pick(page, 'user-org', 'Demo City Hospital');
  await page.getByTestId('user-id-number').fill('110105194912310021');
  await modalOk(page, /Add user/).click();
  await expect(form).toContainText('Please enter a valid mobile number');
  await expect(form).toContainText('The ID number fails its check digit');
  await shot(page, 'admin-user-form-errors-en_US.png');

  await page.getByTestId('user-phone').fill('13912345678');
  await page.getByTestId('user-id-number').fill('11010519491231002X');
  await modalOk(page, /Add user/).click();
  const dialog = page.getByTestId('initial-password-dialog');
  await expect(dialog).toBeVisible();
  await expect(dialog).toContainText(account);
  const password = (await page.getByTestId('initial-password').innerText()).trim();
  expect(password.length).toBeGreaterThanOrEqual(8);
  await shot(page, 'admin-user-initial-password-en_US.png');
  await page.locator('.ant-modal').filter({ has: dialog }).getByRole('button', { name: 'I have noted it' }).click();
  await expect(dialog).toBeHidden();

  // the new user is in the list; the page number is kept in the URL
  await page.getByTestId('users-search').locator('input').fill(account);
  await page.getByTestId('users-search').locator('input').press('Enter');
  await expect(page.getByTestId('users-table')).toContainText(`E2E User ${STAMP}`);
  await expect(page).toHaveURL(/pageNumber=1/);

  // export with the current filter: an .xlsx download
  const download = page.waitForEvent('download');
  await page.getByTestId('users-export').click();
  expect((await download).suggestedFilename()).toMatch(/^users-\d{8}-\d{4}\.xlsx$/);

  // a duplicate account: the server's translated message
  await page.getByTestId('users-add').click();
  await page.getByTestId('user-account').fill(account);
  await page.getByTestId('user-name').fill('Dup');
  await page.getByTestId('user-phone').fill('13912345679');
  await pick(page, 'user-org', 'Demo City Hospital');
  await modalOk(page, /Add user/).click();
  await expect(page.getByTestId('user-form')).toContainText('the account already exists');
  await page.locator('.ant-modal').filter({ has: page.getByTestId('user-form') }).getByRole('button', { name: 'Cancel' }).click();

  // disable with a reason (required), then the detail drawer
  const row = page.getByTestId('users-table').locator('tr').filter({ hasText: account });
  await row.getByTestId('user-status').click();
  await modalOk(page, /Disable/).click();
  await expect(page.locator('.ant-modal').filter({ hasText: /Disable/ })).toContainText('Please give a reason');
  await page.getByTestId('status-reason').fill('E2E: left the study team');
  await modalOk(page, /Disable/).click();
  await expect(row).toContainText('Disabled');
  // a system message to that user
  await row.locator('button:has(.anticon-mail)').click();
  const msg = page.locator('.ant-modal').filter({ hasText: 'Send message' });
  await msg.getByRole('textbox').first().fill('Welcome to the study');
  await msg.locator('.ant-modal-footer .ant-btn-primary').click();
  await expect(page.locator('.ant-message')).toContainText('Message sent to 1 user(s)');
  await row.getByTestId('user-account-link').click();
  await expect(page.getByTestId('user-detail')).toContainText('11010519491231002X');
  await expect(page.getByTestId('user-detail')).toContainText('Initial password, not changed yet');
  await shot(page, 'admin-user-detail-en_US.png');
  expect(untranslatedKeys(await visibleText(page))).toEqual([]);
});

test('an Excel file with one bad row imports nothing and names the row and field; fixed, it imports', async ({
  page,
  request,
}) => {
  const s = await apiLogin(request, 'admin', 1, 'main');
  // the template, in English, filled in by the test
  const res = await request.get('/api/templates/downloadTemplate?type=user', {
    headers: { token: s.token, language: 'en_US' },
  });
  expect(res.ok()).toBeTruthy();
  const wb = new ExcelJS.Workbook();
  await wb.xlsx.load(Buffer.from(await res.body()) as unknown as ArrayBuffer);
  const ws = wb.worksheets[0]!;
  const headers = (ws.getRow(1).values as unknown[]).slice(1).map(String);
  const col = (h: string) => headers.indexOf(h) + 1;
  const rows = [
    { account: `imp_a_${STAMP}`, name: 'Import A', phone: '13700000001' },
    { account: `imp_b_${STAMP}`, name: 'Import B', phone: '1370000' },
    { account: `imp_c_${STAMP}`, name: 'Import C', phone: '13700000003' },
  ];
  rows.forEach((r, i) => {
    const row = ws.getRow(i + 2);
    for (let c = 1; c <= headers.length; c++) row.getCell(c).value = null;
    row.getCell(col('Account')).value = r.account;
    row.getCell(col('Name')).value = r.name;
    row.getCell(col('Mobile phone')).value = r.phone;
    row.getCell(col('Organisation')).value = 'Demo City Hospital';
    row.getCell(col('Login types')).value = '3';
    row.commit();
  });
  const bad = path.join(tmpdir(), `users-import-bad-${STAMP}.xlsx`);
  await wb.xlsx.writeFile(bad);

  await openLoggedIn(page, s, 'main', '/system/userSys');
  await page.getByTestId('users-import').click();
  await page.locator('.ant-modal input[type=file]').setInputFiles(bad);
  await page.getByTestId('import-submit').click();
  const problems = page.getByTestId('import-problems');
  await expect(problems).toBeVisible();
  await expect(problems).toContainText('Nothing was imported');
  const problemRow = problems.locator('tbody tr').filter({ hasText: 'Mobile phone' });
  await expect(problemRow).toHaveCount(1);
  await expect(problemRow.locator('td').first()).toHaveText('3');
  await shot(page, 'admin-users-import-problems-en_US.png');

  // nothing was imported, not even the good rows
  const list = await request.get(`/api/auth/user/list?keyword=imp_a_${STAMP}`, { headers: { token: s.token } });
  expect(((await list.json()) as { data: { totalCount: number } }).data.totalCount).toBe(0);

  // fixed, the same file imports all three, each with its initial password
  ws.getRow(3).getCell(col('Mobile phone')).value = '13700000002';
  const good = path.join(tmpdir(), `users-import-good-${STAMP}.xlsx`);
  await wb.xlsx.writeFile(good);
  await page.locator('.ant-modal input[type=file]').setInputFiles(good);
  await page.getByTestId('import-submit').click();
  const result = page.getByTestId('import-result');
  await expect(result).toContainText('3 user(s) imported');
  for (const r of rows) await expect(result).toContainText(r.account);
});

test('users tab in Chinese (screenshot)', async ({ page, request }) => {
  const s = await apiLogin(request, 'admin', 1, 'main');
  await openLoggedIn(page, s, 'main', '/system/userSys', 'zh_CN');
  await expect(page.getByTestId('users-table')).toContainText('admin', { timeout: 30_000 });
  await expect(page.getByTestId('tab-users')).toHaveText('用户');
  await shot(page, 'admin-users-zh_CN.png');
  expect(untranslatedKeys(await visibleText(page))).toEqual([]);
  await page.getByTestId('users-add').click();
  await expect(page.getByTestId('user-form')).toBeVisible();
  await shot(page, 'admin-user-form-zh_CN.png');
});

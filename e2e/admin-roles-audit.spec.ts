import { expect, test, type Locator, type Page } from '@playwright/test';
import path from 'node:path';
import { ARTIFACTS, apiLogin, enterDemoProject, openLoggedIn, untranslatedKeys, visibleText } from './helpers';

/**
 * Roles, permission groups, organisations (issue 4 items 2, 4) and the audit screens (item 7): the administrator
 * creates a role with permissions from the tree and changes them; the audit trail shows both with old and new
 * values; the date-range rules show in the form; a monitor reads the project's audit log.
 */
test.describe.configure({ mode: 'serial', timeout: 180_000 });

const STAMP = Date.now().toString(36).slice(-5).toUpperCase();
const CODE = `E2E_${STAMP}`;

async function shot(page: Page, name: string): Promise<void> {
  await page.waitForTimeout(300);
  await page.screenshot({ path: path.join(ARTIFACTS, name) });
}

async function pick(page: Page, testId: string, text: string): Promise<void> {
  await page.getByTestId(testId).click();
  await page.keyboard.type(text);
  await page
    .locator('.ant-select-dropdown:not(.ant-select-dropdown-hidden) .ant-select-item-option')
    .filter({ hasText: text })
    .first()
    .click();
}

/** The tree node whose title is exactly `title`. */
function node(tree: Locator, title: string): Locator {
  return tree
    .locator('.ant-tree-treenode')
    .filter({ has: tree.page().locator('.ant-tree-title').getByText(title, { exact: true }) });
}

async function inputOf(page: Page, testId: string): Promise<Locator> {
  const el = page.getByTestId(testId).first();
  return (await el.evaluate((e) => e.tagName)) === 'INPUT' ? el : el.locator('input').first();
}

async function typeDate(page: Page, testId: string, value: string): Promise<void> {
  const input = await inputOf(page, testId);
  await input.click();
  await input.fill(value);
  await input.press('Enter');
}

const modal = (page: Page, title: string) => page.locator('.ant-modal').filter({ hasText: title });

test('admin creates a role with permissions from the tree, changes them, and the audit trail shows both', async ({
  page,
  request,
}) => {
  const s = await apiLogin(request, 'admin', 1, 'main');
  await openLoggedIn(page, s, 'main', '/system/userSys?tab=roles');
  await expect(page.getByTestId('roles-table')).toContainText('ADMIN', { timeout: 30_000 });

  await page.getByTestId('roles-add').click();
  const dlg = modal(page, 'Add role');
  await page.getByTestId('role-name').fill('E2E审核员');
  await page.getByTestId('role-code').fill(CODE);
  const tree = page.getByTestId('permission-tree');
  // a whole module, and one resource of another
  await node(tree, 'System log').locator('.ant-tree-checkbox').click();
  await node(tree, 'System').locator('.ant-tree-switcher').click();
  await node(tree, 'Users').locator('.ant-tree-checkbox').click();
  await expect(dlg).toContainText('16 of');
  await shot(page, 'admin-role-dialog-en_US.png');
  await dlg.locator('.ant-modal-footer .ant-btn-primary').click();
  await expect(dlg).toBeHidden();
  const row = page.getByTestId('roles-table').locator('tr').filter({ hasText: CODE });
  await expect(row).toContainText('System · 8', { timeout: 20_000 });
  await expect(row).toContainText('System log · 8');
  await shot(page, 'admin-roles-en_US.png');

  // change: users out, roles in
  await row.getByTestId('role-edit').click();
  const edit = modal(page, 'Edit role');
  await expect(edit.getByTestId('role-code').locator('input').or(edit.getByTestId('role-code'))).toHaveValue(CODE);
  await node(tree, 'Users').locator('.ant-tree-checkbox').click();
  await node(tree, 'Roles').locator('.ant-tree-checkbox').click();
  await edit.locator('.ant-modal-footer .ant-btn-primary').click();
  await expect(edit).toBeHidden();
  await expect(row).toContainText('System · 4');

  // the ADMIN role is held: its delete is disabled and says by how many users (the server would refuse)
  const admin = page.getByTestId('roles-table').locator('tr').filter({ hasText: 'ADMIN' });
  await expect(admin.getByTestId('role-delete')).toBeDisabled();

  // the audit trail: the add and the update with old and new values
  await page.goto('/system/auditTrack');
  await expect(page.getByTestId('audit-table')).toBeVisible({ timeout: 30_000 });
  await pick(page, 'audit-event', 'Role updated');
  await page.getByTestId('audit-search').click();
  const permRow = page.getByTestId('audit-table').locator('tbody tr').filter({ hasText: 'Permissions' }).first();
  await expect(permRow).toContainText('Role updated');
  // long values show two lines; expand the old and the new value
  await page.waitForTimeout(300);
  for (let i = 0; i < 2 && (await permRow.locator('.ant-typography-expand').count()) > 0; i++)
    await permRow.locator('.ant-typography-expand').first().click();
  await expect(permRow.locator('.ant-typography-expand')).toHaveCount(0);
  await expect(permRow).toContainText('system:user:add');
  await expect(permRow).toContainText('system:role:query');
  await expect(permRow).toContainText('System Admin');
  await shot(page, 'admin-audit-trail-en_US.png');
  const download = page.waitForEvent('download');
  await page.getByTestId('audit-export').click();
  expect((await download).suggestedFilename()).toMatch(/^audit-trail-.*\.xlsx$/);

  await pick(page, 'audit-event', 'Role added');
  await page.getByTestId('audit-search').click();
  await expect(page.getByTestId('audit-table').locator('tbody tr').filter({ hasText: CODE }).first()).toContainText(
    'Role added',
  );

  // date-range rules, in the form
  await typeDate(page, 'audit-start', '2026-05-10');
  await typeDate(page, 'audit-end', '2026-05-01');
  await page.getByTestId('audit-search').click();
  await expect(page.getByTestId('audit-filters')).toContainText('The start date must not be later than the end date');
  await typeDate(page, 'audit-start', '2026-01-01');
  await typeDate(page, 'audit-end', '2026-04-01');
  await page.getByTestId('audit-search').click();
  await expect(page.getByTestId('audit-filters')).toContainText('The date range must not exceed 90 days');
  await shot(page, 'admin-audit-range-en_US.png');

  // the login log
  await page.getByTestId('tab-login').click();
  await expect(page.getByTestId('login-log').getByTestId('audit-table')).toContainText('Login');
  await shot(page, 'admin-login-log-en_US.png');
  expect(untranslatedKeys(await visibleText(page))).toEqual([]);
});

test('the authorisation log shows the role change; the login log shows a coordinator entering and leaving the project', async ({
  browser,
  page,
  request,
}) => {
  // a coordinator enters the demo study in the browser, then logs out (which leaves it)
  const crcContext = await browser.newContext();
  const crcPage = await crcContext.newPage();
  const crc = await apiLogin(request, 'crc1', 3, 'site');
  await openLoggedIn(crcPage, crc, 'site');
  const entered = crcPage.waitForRequest((r) => r.url().endsWith('/api/audit/log/login/inProInfo'));
  await enterDemoProject(crcPage);
  await entered;
  await crcPage.getByTestId('user-dropdown').click();
  await crcPage.getByTestId('user-menu-logout').click();
  const left = crcPage.waitForRequest((r) => r.url().endsWith('/api/audit/log/login/outProInfo'));
  await crcPage.locator('.logout-confirm .ant-modal').getByRole('button', { name: 'Log out' }).click();
  await left;
  await crcContext.close();

  const s = await apiLogin(request, 'admin', 1, 'main');
  await openLoggedIn(page, s, 'main', '/system/authLog');
  // the authorisation log: the role of the first journey, changed, with old and new permissions
  const auth = page.getByTestId('auth-log');
  await expect(auth.getByTestId('audit-table')).toBeVisible({ timeout: 30_000 });
  await pick(page, 'audit-event', 'Role updated');
  await auth.getByTestId('audit-search').click();
  const permRow = auth.getByTestId('audit-table').locator('tbody tr').filter({ hasText: 'Permissions' }).first();
  await expect(permRow).toContainText('Role updated');
  await expect(permRow).toContainText('System Admin');
  await shot(page, 'admin-auth-log-en_US.png');
  const download = page.waitForEvent('download');
  await auth.getByTestId('audit-export').click();
  expect((await download).suggestedFilename()).toMatch(/^authorisation-log-.*\.xlsx$/);

  // the login log: the coordinator's entry into DEMO-001 and departure
  await page.getByTestId('tab-login').click();
  const login = page.getByTestId('login-log');
  await expect(login.getByTestId('audit-table')).toBeVisible();
  const rows = login.getByTestId('audit-table').locator('tbody tr').filter({ hasText: 'Amy Coordinator' });
  await expect(rows.filter({ hasText: 'Entered project' }).first()).toContainText('DEMO-001');
  await expect(rows.filter({ hasText: 'Left project' }).first()).toContainText('DEMO-001');
  await shot(page, 'admin-login-log-projects-en_US.png');
  expect(untranslatedKeys(await visibleText(page))).toEqual([]);
});

test('permission group with login windows (end after start) and a reviewer', async ({ page, request }) => {
  const s = await apiLogin(request, 'admin', 1, 'main');
  await openLoggedIn(page, s, 'main', '/system/userSys?tab=groups');
  await page.getByTestId('groups-add').click();
  const dlg = modal(page, 'Add permission group');
  await page.getByTestId('group-name').fill(`E2E office hours ${STAMP}`);
  await pick(page, 'group-reviewer', 'System Admin');
  await page.getByTestId('window-add').click();
  const win = page.getByTestId('window-row').first();
  const [start, end] = [win.locator('.ant-picker input').nth(0), win.locator('.ant-picker input').nth(1)];
  await start.click();
  await start.fill('18:00');
  await start.press('Enter');
  await end.click();
  await end.fill('08:00');
  await end.press('Enter');
  await dlg.locator('.ant-modal-footer .ant-btn-primary').click();
  await expect(dlg).toContainText('The end must be later than the start');
  await end.click();
  await end.fill('20:00');
  await end.press('Enter');
  await shot(page, 'admin-group-dialog-en_US.png');
  await dlg.locator('.ant-modal-footer .ant-btn-primary').click();
  await expect(dlg).toBeHidden();
  const row = page.getByTestId('groups-table').locator('tr').filter({ hasText: `E2E office hours ${STAMP}` });
  await expect(row).toContainText('Mon–Fri');
  await expect(row).toContainText('18:00 – 20:00');
  await expect(row).toContainText('System Admin');
  await shot(page, 'admin-groups-en_US.png');
});

test('organisations and departments; an organisation in use cannot be deleted', async ({ page, request }) => {
  const s = await apiLogin(request, 'admin', 1, 'main');
  await openLoggedIn(page, s, 'main', '/system/userSys?tab=orgs');
  await page.getByTestId('orgs-add').click();
  const dlg = modal(page, 'Add organisation');
  await page.getByTestId('org-name').fill('x'.repeat(30) + 'y');
  // over the limit: the text stays as typed and the limit is named (never cut silently)
  await expect(page.getByTestId('org-name').locator('input').or(page.getByTestId('org-name'))).toHaveValue('x'.repeat(30) + 'y');
  await expect(dlg).toContainText('The organisation name may hold at most 30 characters');
  await page.getByTestId('org-name').fill(`E2E Hospital ${STAMP}`);
  await dlg.locator('.ant-modal-footer .ant-btn-primary').click();
  await expect(dlg).toBeHidden();
  const org = page.getByTestId('orgs-table').locator('tr').filter({ hasText: `E2E Hospital ${STAMP}` });
  await org.click();
  // the panel shows the chosen organisation before its department is typed (a loaded machine renders late)
  await expect(page.getByTestId('dept-panel')).toContainText(`E2E Hospital ${STAMP}`);
  const deptName = page.getByTestId('dept-new-name').locator('input').or(page.getByTestId('dept-new-name'));
  await deptName.fill('Cardiology');
  await expect(deptName).toHaveValue('Cardiology');
  await deptName.press('Enter');
  await expect(page.getByTestId('dept-panel').locator('.ant-list-item')).toContainText(['Cardiology']);
  await expect(deptName).toHaveValue('');
  // the department count column (the name may hold digits of its own)
  await expect(org.locator('td').nth(3)).toHaveText('1');
  await shot(page, 'admin-orgs-en_US.png');

  const demo = page.getByTestId('orgs-table').locator('tr').filter({ hasText: 'Demo City Hospital' });
  await demo.getByTestId('org-delete').click();
  const confirm = page.locator('.ant-popconfirm:not(.ant-popover-hidden)');
  await expect(confirm).toContainText('Demo City Hospital');
  await confirm.locator('.ant-btn-dangerous').click();
  await expect(page.locator('.ant-notification')).toContainText('in use', { timeout: 30_000 });
  await expect(demo).toHaveCount(1);
});

test('a monitor reads the project audit log', async ({ page, request }) => {
  const s = await apiLogin(request, 'cra', 2, 'main');
  await openLoggedIn(page, s, 'main', '/overview');
  await enterDemoProject(page);
  // the entry sits in the collapsed "Reports & logs" submenu
  await page.goto('/project/auditLogs');
  await expect(page.getByTestId('project-audit-logs').getByTestId('audit-table')).toBeVisible({ timeout: 30_000 });
  await expect(page.locator('.ant-notification')).toHaveCount(0);
  await shot(page, 'project-audit-logs-en_US.png');
  expect(untranslatedKeys(await visibleText(page))).toEqual([]);
});

test('admin screens in Chinese (screenshots)', async ({ page, request }) => {
  const s = await apiLogin(request, 'admin', 1, 'main');
  await openLoggedIn(page, s, 'main', '/system/userSys?tab=roles', 'zh_CN');
  await expect(page.getByTestId('roles-table')).toContainText('ADMIN', { timeout: 30_000 });
  await shot(page, 'admin-roles-zh_CN.png');
  await page.getByTestId('roles-add').click();
  await node(page.getByTestId('permission-tree'), '系统管理').locator('.ant-tree-switcher').click();
  await shot(page, 'admin-role-dialog-zh_CN.png');
  expect(untranslatedKeys(await visibleText(page))).toEqual([]);
  await page.keyboard.press('Escape');

  await page.getByTestId('tab-groups').click();
  await expect(page.getByTestId('groups-table')).toBeVisible();
  await shot(page, 'admin-groups-zh_CN.png');
  await page.getByTestId('groups-add').click();
  await page.getByTestId('window-add').click();
  await shot(page, 'admin-group-dialog-zh_CN.png');
  await page.keyboard.press('Escape');

  await page.getByTestId('tab-orgs').click();
  await page.getByTestId('orgs-table').locator('tr').filter({ hasText: 'Demo City Hospital' }).click();
  await shot(page, 'admin-orgs-zh_CN.png');

  await page.goto('/system/auditTrack');
  await expect(page.getByTestId('audit-table')).toBeVisible({ timeout: 30_000 });
  await shot(page, 'admin-audit-trail-zh_CN.png');
  expect(untranslatedKeys(await visibleText(page))).toEqual([]);
  await page.getByTestId('tab-login').click();
  await expect(page.getByTestId('login-log')).toBeVisible();
  await shot(page, 'admin-login-log-zh_CN.png');
});

import path from 'node:path';
import { expect, test, type Page, type Response } from '@playwright/test';
import { ARTIFACTS, apiLogin, enterDemoProject, openLoggedIn, type Variant } from './helpers';

/** Menu entries of features no issue has built yet (the route table test keeps the same list). */
const NOT_BUILT = new Set([
  'reports',
  'traceability', 'projectOcrSynonyms', 'projectTextSynonyms',
]);

/** Clicks every entry of the side menu now shown; returns the ids that opened a placeholder. */
async function walkMenu(page: Page, visited: Set<string>): Promise<string[]> {
  const menu = page.getByTestId('side-menu');
  await expect(menu).toBeVisible();
  const closed = menu.locator('.ant-menu-submenu:not(.ant-menu-submenu-open) > .ant-menu-submenu-title');
  while ((await closed.count()) > 0) await closed.first().click();
  const ids = await menu.locator('[data-testid^="menu-"]').evaluateAll((els) => els.map((e) => e.getAttribute('data-testid')!.slice(5)));
  const placeholders: string[] = [];
  for (const id of ids) {
    if (id === 'collapse' || visited.has(id)) continue;
    visited.add(id);
    await menu.getByTestId(`menu-${id}`).click();
    await expect(page.getByTestId('page-area')).toHaveAttribute('data-route', id);
    await expect(page.getByTestId('page-area').locator('.ant-spin-spinning')).toHaveCount(0);
    if (await page.getByTestId('placeholder-page').isVisible()) placeholders.push(id);
  }
  return placeholders;
}

const ROLES: [string, number, Variant][] = [
  ['admin', 1, 'main'],
  ['dm', 1, 'main'],
  ['cra', 2, 'main'],
  ['crc1', 3, 'site'],
  ['pi', 3, 'site'],
  ['ae', 4, 'ae'],
];

for (const [account, type, variant] of ROLES) {
  test(`every menu entry of ${account} opens a working screen unless its feature is not built`, async ({ page, request }) => {
    test.setTimeout(180_000);
    const s = await apiLogin(request, account, type, variant);
    await openLoggedIn(page, s, variant);
    await expect(page.getByTestId('module-tab-1')).toBeVisible();
    const visited = new Set<string>();
    const placeholders: string[] = [];
    const tabs = await page.getByTestId('module-tabs').locator('[data-testid^="module-tab-"]').evaluateAll((els) => els.map((e) => e.getAttribute('data-testid')!));
    const menuIds = () =>
      page.getByTestId('side-menu').locator('[data-testid^="menu-"]').evaluateAll((els) => els.map((e) => e.getAttribute('data-testid')).join(','));
    for (const tab of tabs) {
      if (tab === 'module-tab-1') continue; // the overview has no side menu; the project menu is walked below
      const before = (await page.getByTestId('side-menu').count()) ? await menuIds() : '';
      await page.getByTestId(tab).click();
      // the side menu is the new module's before it is walked (else the previous module's entries would be read)
      await expect.poll(menuIds).not.toBe(before);
      placeholders.push(...(await walkMenu(page, visited)));
    }
    await page.goto('/overview');
    if (account !== 'admin') {
      // every demo user but the administrator works in the demo project
      await enterDemoProject(page);
      placeholders.push(...(await walkMenu(page, visited)));
    }
    expect(visited.size).toBeGreaterThan(0);
    expect(placeholders.filter((id) => !NOT_BUILT.has(id)), `placeholders for built features (${account})`).toEqual([]);
    if (account === 'admin') {
      for (const id of ['roleSys', 'permissionGroup', 'orgDict', 'deptDict', 'superviseLog', 'loginLog']) expect(visited).toContain(id);
    }
  });
}

test('the system menu opens the roles, groups, organisation and log tabs', async ({ page, request }) => {
  await openAs(page, request, 'admin', 1, 'main', '/system/userSys');
  await page.getByTestId('menu-roleSys').click();
  await expect(page.getByTestId('tab-roles')).toHaveAttribute('aria-selected', 'true').catch(async () => {
    await expect(page.locator('.ant-tabs-tab-active')).toContainText(/Roles|角色/);
  });
  await page.screenshot({ path: path.join(ARTIFACTS, 'menu-roles-en_US-1440.png') });
  await page.getByTestId('module-tab-6').click();
  await page.getByTestId('menu-loginLog').click();
  await expect(page.locator('.ant-tabs-tab-active')).toContainText(/Login log|登录日志/i);
});

async function openAs(page: Page, request: Parameters<typeof apiLogin>[0], account: string, type: number, variant: Variant, to = '/overview') {
  const s = await apiLogin(request, account, type, variant);
  await openLoggedIn(page, s, variant, to);
  return s;
}

function watchFailures(page: Page) {
  const bad: string[] = [];
  const onResponse = (r: Response) => {
    if (r.url().includes('/api/') && r.status() >= 400 && !r.url().includes('/pmsInfo')) bad.push(`${r.status()} ${r.url()}`);
  };
  page.on('response', onResponse);
  return bad;
}

test('switching environment inside a project re-enters the project there, or goes home and says why', async ({ page, request }) => {
  await openAs(page, request, 'dm', 1, 'main');
  await enterDemoProject(page);
  await page.goto('/project/centerList');
  await expect(page.getByTestId('page-area')).toHaveAttribute('data-route', 'centerList');
  const bad = watchFailures(page);
  const from = (await page.getByTestId('current-env').textContent())!.trim();
  const to = from === 'UAT' ? 'PRO' : 'UAT';
  await page.getByTestId('env-switch').click();
  await page.getByTestId(`env-${to}`).click();
  await expect(page.getByTestId('current-env')).toHaveText(to);
  await expect(page.getByTestId('project-label')).toContainText('DEMO-001');
  await expect(page).toHaveURL(/\/project\/centerList/);
  await expect(page.getByTestId('page-area')).toHaveAttribute('data-route', 'centerList');
  await page.waitForTimeout(1500);
  await expect(page.locator('.ant-notification-notice')).toHaveCount(0);
  expect(bad).toEqual([]);
  await page.screenshot({ path: path.join(ARTIFACTS, 'env-switch-in-project-en_US-1440.png') });

  // a user with a membership in PRO only: switching to UAT goes home with an explanation
  const dm = await apiLogin(request, 'dm', 1, 'main');
  const p = await request.post('/api/pro/info/add', { headers: { token: dm.token }, form: { no: `ENV-${Date.now() % 1e8}`, name: 'Env switch study', scene: 1 } });
  const proId = ((await p.json()) as { data: { id: number } }).data.id;
  const roles = await request.get('/api/sys/role/projectOptions', { headers: { token: dm.token, proId: String(proId), proType: 'PRO' } });
  const cra = ((await roles.json()) as { data: { id: number; code: string }[] }).data.find((r) => r.code === 'CRA')!;
  const inv = await request.post('/api/pro/user/invite', { headers: { token: dm.token, proId: String(proId), proType: 'PRO' }, form: { account: 'admin', roleId: cra.id, allSites: 'true' } });
  expect(inv.status()).toBe(200);
  await page.context().clearCookies();
  const page2 = await page.context().newPage();
  const admin = await apiLogin(request, 'admin', 1, 'main');
  await openLoggedIn(page2, { ...admin, user: { ...admin.user, projectType: 'PRO' } }, 'main', `/project/ProjectManage?proId=${proId}`);
  await expect(page2.getByTestId('project-label')).toContainText('ENV-');
  const bad2 = watchFailures(page2);
  await page2.getByTestId('env-switch').click();
  await page2.getByTestId('env-UAT').click();
  await expect(page2.locator('.env-no-project')).toContainText('Env switch study');
  await page2.screenshot({ path: path.join(ARTIFACTS, 'env-switch-no-project-en_US-1440.png') });
  await expect(page2).toHaveURL(/\/overview$/);
  await expect(page2.getByTestId('current-env')).toHaveText('UAT');
  expect(bad2).toEqual([]);
});

test('after Login Expired and logging in again the user is back on the same page, query and project', async ({ page, request }) => {
  const s = await openAs(page, request, 'dm', 1, 'main');
  await enterDemoProject(page);
  await page.goto('/project/centerList?pageNumber=1&keep=yes');
  await expect(page.getByTestId('page-area')).toHaveAttribute('data-route', 'centerList');
  const env = (await page.getByTestId('current-env').textContent())!.trim();
  await request.post('/api/auth/logout', { headers: { token: s.token } });
  await page.getByTestId('page-area').click();
  await page.evaluate(() => document.dispatchEvent(new MouseEvent('click', { bubbles: true })));
  const dialog = page.locator('.login-expired-dialog .ant-modal');
  await expect(dialog).toBeVisible({ timeout: 40_000 });
  await dialog.getByRole('button').click();
  await expect(page).toHaveURL(/\/login\?redirect=/);
  await page.getByTestId('login-account').fill('dm');
  await page.getByTestId('login-password').fill('Demo@123456');
  await page.getByTestId('login-submit').click();
  await expect(page).toHaveURL(/\/project\/centerList\?pageNumber=1&keep=yes$/);
  await expect(page.getByTestId('project-label')).toContainText('DEMO-001');
  await expect(page.getByTestId('current-env')).toHaveText(env);
  await expect(page.getByTestId('page-area')).toHaveAttribute('data-route', 'centerList');
});

import { expect, test } from '@playwright/test';
import { apiLogin, openLoggedIn } from './helpers';

test.describe('route guard (spec §2)', () => {
  test('static routes pass without a token', async ({ page }) => {
    for (const p of ['/privacy', '/site/privacy', '/ae/privacy', '/agreement', '/person', '/404']) {
      await page.goto(p);
      await expect(page, p).toHaveURL(new RegExp(`${p.replace(/\//g, '\\/')}$`));
    }
    await page.goto('/site/privacy');
    await expect(page.getByTestId('legal-page')).toBeVisible();
    await expect(page.getByTestId('product-logo')).toHaveAttribute('data-product', 'site');
  });

  test('no token → the login path of the user’s site, and back to the target after login', async ({
    page,
  }) => {
    await page.goto('/project/ProjectManage');
    await expect(page).toHaveURL(/\/login\?redirect=%2Fproject%2FProjectManage$/);
    await page.getByTestId('login-account').fill('admin');
    await page.getByTestId('login-password').fill('Demo@123456');
    await page.getByTestId('login-submit').click();
    // no project entered yet → the project page sends the user to the overview
    await expect(page).toHaveURL(/\/overview$/);
  });

  test('a token in the query (with target and env) logs in, loads user info and is stripped', async ({
    page,
    request,
  }) => {
    const s = await apiLogin(request, 'dm', 1, 'main');
    const info = page.waitForRequest(
      (r) =>
        r.url().endsWith('/api/auth/user/pmsInfo') &&
        r.headers()['token'] === s.token &&
        r.headers()['protype'] === 'UAT',
    );
    await page.goto(`/overview?token=${s.token}&env=UAT&target=${encodeURIComponent('/user-info')}`);
    await info;
    await expect(page).toHaveURL(/\/user-info$/);
    await expect(page.getByTestId('user-info-page')).toContainText('Dana Manager');
    await expect(page.getByTestId('current-env')).toHaveText('UAT');
  });

  test('/project…?proId= enters that project; token and proId are stripped; pageNumber is kept', async ({
    page,
    request,
  }) => {
    const s = await apiLogin(request, 'dm', 1, 'main');
    await page.goto(`/project/centerPtsList?proId=1&token=${s.token}&pageNumber=3`);
    await expect(page).toHaveURL(/\/project\/centerPtsList\?pageNumber=3$/);
    await expect(page.getByTestId('project-label')).toHaveText(/DEMO-001-/);
    await expect(page.getByTestId('page-area')).toHaveAttribute('data-route', 'centerPtsList');
  });

  test('uuid= enters the project by uuid and project type', async ({ page, request }) => {
    const s = await apiLogin(request, 'dm', 1, 'main');
    const list = await request.post('/api/pro/info/page', {
      form: { pageNumber: 1, pageSize: 50 },
      headers: { token: s.token },
    });
    const uuid = ((await list.json()) as { data: { content: { uuidNo: string }[] } }).data.content[0]!.uuidNo;
    const resolver = await request.get(`/api/getProId?uuid=${uuid}&proType=PRO`, {
      headers: { token: s.token },
    });
    expect(((await resolver.json()) as { data: { proId: number } }).data.proId).toBe(1);
    await openLoggedIn(page, s, 'main', `/project/ProjectManage?uuid=${uuid}`);
    await expect(page).toHaveURL(/\/project\/ProjectManage$/);
    await expect(page.getByTestId('project-label')).toHaveText(/DEMO-001-/);
  });

  test('the login route goes to / (home) when logged in', async ({ page, request }) => {
    const s = await apiLogin(request, 'crc1', 3, 'site');
    await openLoggedIn(page, s, 'site', '/site/login');
    await expect(page).toHaveURL(/\/overview$/);
    await page.goto('/login');
    await expect(page).toHaveURL(/\/overview$/);
  });

  test('the All route clears the current project and resets the module to 1', async ({ page, request }) => {
    const s = await apiLogin(request, 'admin', 1, 'main');
    await openLoggedIn(page, s, 'main', '/system/userSys');
    await expect(page.getByTestId('module-tabs').locator('.ant-menu-item-selected')).toContainText(
      'User Management',
    );
    await page.goto('/overview');
    await expect(page.getByTestId('module-tabs').locator('.ant-menu-item-selected')).toContainText(
      'Project Manage',
    );
    const dm = await apiLogin(request, 'dm', 1, 'main');
    await openLoggedIn(page, dm, 'main', '/project/ProjectManage?proId=1');
    await expect(page.getByTestId('project-label')).toBeVisible();
    await page.getByTestId('module-tab-1').click();
    await expect(page).toHaveURL(/\/overview$/);
    await expect(page.getByTestId('project-label')).toHaveCount(0);
    expect(
      await page.evaluate(() => JSON.parse(localStorage.getItem('esource.session') ?? '{}').project),
    ).toBeNull();
    // and a project page now needs a project again
    await page.goto('/project/ProjectManage');
    await expect(page).toHaveURL(/\/overview$/);
  });

  test('unknown paths go to /404', async ({ page }) => {
    await page.goto('/no/such/page');
    await expect(page).toHaveURL(/\/404$/);
    await expect(page.getByTestId('not-found')).toBeVisible();
  });

  test('routes are filtered by the user’s pms', async ({ page, request }) => {
    const s = await apiLogin(request, 'crc1', 3, 'site');
    await openLoggedIn(page, s, 'site', '/project/sickLoop?proId=1');
    await expect(page.getByTestId('page-area')).toHaveAttribute('data-route', 'sickLoop');
    await expect(page.getByTestId('forbidden')).toHaveCount(0);
    // a CRC has no reports permission: the page is refused, and not in the menu
    await page.goto('/project/reports');
    await expect(page.getByTestId('forbidden')).toBeVisible();
    await expect(page.getByTestId('menu-reports')).toHaveCount(0);
    // the monitor's list is not a site user's route
    await page.goto('/project/craPtsList');
    await expect(page.getByTestId('forbidden')).toBeVisible();
  });
});

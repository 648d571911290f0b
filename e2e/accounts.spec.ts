import { expect, test, type APIRequestContext } from '@playwright/test';
import { apiLogin, openLoggedIn, setLanguage, shootBoth } from './helpers';

/** An administrator creates a fresh user (demo users keep their passwords); returns account and initial password. */
async function createUser(request: APIRequestContext, loginType: number) {
  const admin = await apiLogin(request, 'admin', 1, 'main');
  const orgs = await request.post('/api/org/info/page', { headers: { token: admin.token }, form: { pageNumber: 1, pageSize: 50 } });
  const orgId = ((await orgs.json()) as { data: { content: { id: number }[] } }).data.content[0]!.id;
  const n = Date.now() % 100_000_000;
  const account = `e2e.forced.${n}`;
  const res = await request.post('/api/system/user/add', {
    headers: { token: admin.token },
    form: { account, name: 'Fay Forced', phone: `139${String(n).padStart(8, '0')}`, orgId, loginTypes: loginType },
  });
  const body = (await res.json()) as { status: string; message: string; data: { initialPassword: string } };
  expect(body.status, body.message).toBe('1');
  return { account, initialPassword: body.data.initialPassword };
}

test('a user created by an administrator must change the initial password before anything else', async ({ page, request }) => {
  const u = await createUser(request, 3);
  await page.goto('/site/login');
  await page.getByTestId('login-account').fill(u.account);
  await page.getByTestId('login-password').fill(u.initialPassword);
  await page.getByTestId('login-submit').click();
  await expect(page).toHaveURL(/\/change-password$/);
  await expect(page.getByTestId('change-password-page')).toBeVisible();
  await expect(page.getByTestId('change-password-reason')).toContainText('初始密码');
  await shootBoth(page, 'change-password-zh_CN');
  await setLanguage(page, 'en_US');
  await expect(page.getByTestId('change-password-reason')).toContainText('initial password');
  await shootBoth(page, 'change-password-en_US');

  // the screen cannot be left: every page comes back here, remembering where the user was going
  await page.goto('/overview');
  await expect(page).toHaveURL(/\/change-password$/);
  await page.goto('/user-info?from=e2e');
  await expect(page).toHaveURL(/\/change-password\?redirect=%2Fuser-info%3Ffrom%3De2e$/);
  await expect(page.getByTestId('app-shell')).toHaveCount(0);
  // and the server refuses the session everything else
  const token = await page.evaluate(() => (JSON.parse(localStorage.getItem('esource.session')!) as { token: string }).token);
  const refused = await request.post('/api/pro/info/page', { headers: { token } });
  expect(refused.status()).toBe(403);
  expect(((await refused.json()) as { errorCode: string }).errorCode).toBe('PASSWORD_CHANGE_REQUIRED');

  // a wrong current password is named on its field
  await page.getByTestId('current-password').fill('Wrong@123456');
  await page.getByTestId('new-password').fill('Fresh#Pass2024');
  await page.getByTestId('confirm-password').fill('Fresh#Pass2024');
  await page.getByTestId('change-password-submit').click();
  await expect(page.locator('#oldPwd_help, .ant-form-item-explain-error').first()).toBeVisible();
  await expect(page).toHaveURL(/\/change-password/);

  await page.getByTestId('current-password').fill(u.initialPassword);
  await page.getByTestId('change-password-submit').click();
  await expect(page).toHaveURL(/\/user-info\?from=e2e$/);
  await expect(page.getByTestId('app-shell')).toBeVisible();
  expect((await request.post('/api/pro/info/page', { headers: { token } })).status()).not.toBe(403);

  // a site user (type 3) changes their password from the user menu too
  await page.getByTestId('user-dropdown').click();
  await page.getByTestId('user-menu-password').click();
  await expect(page.locator('.modify-password-dialog')).toBeVisible();
  await expect(page.locator('.modify-password-dialog').getByTestId('current-password')).toBeVisible();
  await shootBoth(page, 'modify-password-site-en_US');
});

test('logging out from the change screen works; AE and monitor users have Modify Password', async ({ page, request, context }) => {
  const u = await createUser(request, 4);
  await page.goto('/ae/login');
  await page.getByTestId('login-account').fill(u.account);
  await page.getByTestId('login-password').fill(u.initialPassword);
  await page.getByTestId('login-submit').click();
  await expect(page).toHaveURL(/\/change-password$/);
  await page.getByTestId('change-password-logout').click();
  await expect(page).toHaveURL(/\/ae\/login/);

  for (const [account, type, variant] of [
    ['ae', 4, 'ae'],
    ['cra', 2, 'main'],
  ] as const) {
    await context.clearCookies();
    const s = await apiLogin(request, account, type, variant);
    const p = await context.newPage();
    await openLoggedIn(p, s, variant);
    await p.getByTestId('user-dropdown').click();
    await p.getByTestId('user-menu-password').click();
    await expect(p.locator('.modify-password-dialog').getByTestId('current-password')).toBeVisible();
    await p.close();
  }
});

import { expect, test } from '@playwright/test';
import path from 'node:path';
import { apiLogin, ARTIFACTS, openLoggedIn, setLanguage, uiLogin } from './helpers';

test('Log Out asks "Sure to quit?" and logs out', async ({ page }) => {
  await uiLogin(page, 'crc1', 'site');
  await setLanguage(page, 'en_US');
  await page.getByTestId('user-dropdown').click();
  await page.getByTestId('user-menu-logout').click();
  const confirm = page.locator('.logout-confirm .ant-modal');
  await expect(confirm).toContainText('Sure to quit?');
  // cancelling keeps the user in
  await confirm.getByRole('button', { name: 'Cancel' }).click();
  await expect(page.getByTestId('app-shell')).toBeVisible();
  // the dialog closes with an animation; until it has gone its layer takes the next click (a run under load waited
  // for the user menu until the test's time ran out)
  await expect(page.locator('.logout-confirm .ant-modal-wrap')).toBeHidden();
  await page.getByTestId('user-dropdown').click();
  await page.getByTestId('user-menu-logout').click();
  const logoutCall = page.waitForRequest((r) => r.url().endsWith('/api/auth/logout'));
  await page.locator('.logout-confirm .ant-modal').getByRole('button', { name: 'Log out' }).click();
  await logoutCall;
  // back to the login page of the user's own site
  await expect(page).toHaveURL(/\/site\/login$/);
  await expect(page.getByTestId('login-page')).toBeVisible();
  // the session is over: the app no longer lets the user in
  await page.goto('/overview');
  await expect(page).toHaveURL(/\/site\/login\?redirect=%2Foverview$/);
});

test('a session expired on the server opens the non-closable Login Expired dialog', async ({
  page,
  request,
}) => {
  const s = await apiLogin(request, 'dm', 1, 'main');
  await openLoggedIn(page, s, 'main', '/overview', 'en_US');
  await expect(page.getByTestId('app-shell')).toBeVisible();
  // the server ends the session (as an idle expiry or an admin would)
  const out = await request.post('/api/auth/logout', { headers: { token: s.token } });
  expect(out.status()).toBe(200);
  // the next call (keep-alive on click, or the 30 s session check) gets 401
  await page.getByTestId('page-area').click();
  const dialog = page.locator('.login-expired-dialog .ant-modal');
  await expect(dialog).toBeVisible();
  await expect(dialog).toContainText('Login Expired');
  await expect(dialog).toContainText('Login has expired, please login again.');
  await expect(dialog.locator('.ant-modal-close')).toHaveCount(0);
  await page.keyboard.press('Escape');
  await page.mouse.click(5, 5);
  await expect(dialog).toBeVisible();
  // the token is cleared at once
  expect(
    await page.evaluate(() => JSON.parse(localStorage.getItem('esource.session') ?? '{}').token),
  ).toBeNull();
  await page.screenshot({ path: path.join(ARTIFACTS, 'login-expired-en_US.png') });
  await dialog.getByRole('button', { name: 'Log in again' }).click();
  await expect(page).toHaveURL(/\/login$/);
});

test('the session check every 30 s detects an expired session without any click', async ({
  page,
  request,
}) => {
  await page.clock.install();
  const s = await apiLogin(request, 'cra', 2, 'main');
  await openLoggedIn(page, s, 'main', '/overview', 'en_US');
  await expect(page.getByTestId('app-shell')).toBeVisible();
  await request.post('/api/auth/logout', { headers: { token: s.token } });
  const check = page.waitForRequest((r) => r.url().endsWith('/api/common/refresh'));
  await page.clock.fastForward(31_000);
  await check;
  await expect(page.locator('.login-expired-dialog .ant-modal')).toBeVisible();
});

test('keep-alive: input or click refreshes the session at most every 30 s', async ({ page, request }) => {
  await page.clock.install();
  const s = await apiLogin(request, 'dm', 1, 'main');
  await openLoggedIn(page, s, 'main', '/overview', 'en_US');
  await expect(page.getByTestId('app-shell')).toBeVisible();
  const refreshes: string[] = [];
  page.on('request', (r) => {
    if (r.url().endsWith('/api/common/refresh')) refreshes.push(r.postData() ?? '');
  });
  const touch = () => page.getByTestId('page-area').click({ position: { x: 5, y: 5 } });
  await touch();
  await touch();
  await touch();
  await expect.poll(() => refreshes.length).toBe(1);
  await page.clock.fastForward(10_000);
  await touch();
  await page.waitForTimeout(300);
  expect(refreshes.length).toBe(1);
  await page.clock.fastForward(21_000);
  await touch();
  await expect.poll(() => refreshes.filter((b) => !b.includes('check')).length).toBeGreaterThanOrEqual(2);
});

test('a 403 shows the no-permission message', async ({ page, request }) => {
  const s = await apiLogin(request, 'crc1', 3, 'site');
  await openLoggedIn(page, s, 'site', '/overview', 'en_US');
  await expect(page.getByTestId('app-shell')).toBeVisible();
  // a link into a project the user is not a member of: the server refuses it (403 NOT_MEMBER on project calls)
  await page.goto('/project/sickLoop?proId=999999');
  await expect(page.locator('.ant-message')).toContainText('No permission');
  await expect(page).toHaveURL(/\/overview$/);
});

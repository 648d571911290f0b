import { expect, test } from '@playwright/test';
import path from 'node:path';
import { ARTIFACTS, apiLogin, openLoggedIn, untranslatedKeys, visibleText } from './helpers';

/**
 * Issue 15 item 3: an administrator sets the contact users see on the login pages and the host addresses served by
 * getConfig; a wrong address is named on its field.
 */
test('an administrator sets the contact shown on the login page, and a host address', async ({ browser, page, request }) => {
  const s = await apiLogin(request, 'admin', 1, 'main');
  await openLoggedIn(page, s, 'main', '/system/settings');
  await expect(page.getByTestId('settings-contact')).toBeVisible({ timeout: 30_000 });
  const stamp = Date.now().toString(36).slice(-4);
  await page.getByTestId('contact-name').fill(`IT Helpdesk ${stamp}`);
  await page.getByTestId('contact-phone').fill('+86 10 8888 0000');
  await page.getByTestId('contact-mail').fill('help@hospital.example');
  await page.getByTestId('contact-save').click();
  await expect(page.locator('.ant-message')).toContainText('Saved');

  // a host address that is not one: named on its field, nothing saved
  await page.getByTestId('host-icrc').fill('javascript:alert(1)');
  await page.getByTestId('hosts-save').click();
  await expect(page.getByTestId('settings-hosts')).toContainText('must be an absolute http(s) address');
  await page.getByTestId('host-icrc').fill('https://icrc.hospital.example');
  await page.getByTestId('hosts-save').click();
  await expect(page.getByTestId('settings-hosts')).toContainText('set here');
  const served = await (await request.post('/api/sys/config/getConfig')).json();
  expect(served.data.icrc).toBe('https://icrc.hospital.example');
  await page.screenshot({ path: path.join(ARTIFACTS, 'system-settings-en_US.png'), fullPage: true });
  expect(untranslatedKeys(await visibleText(page))).toEqual([]);

  // put the default back (other journeys share this server)
  await page.getByTestId('host-icrc').fill('');
  await page.getByTestId('hosts-save').click();
  await expect(page.getByTestId('settings-hosts')).not.toContainText('set here');

  // the login page of a new visitor shows whom to contact
  const ctx = await browser.newContext();
  const visitor = await ctx.newPage();
  await visitor.goto('/login');
  await expect(visitor.getByTestId('admin-contact')).toContainText(`IT Helpdesk ${stamp} · +86 10 8888 0000 · help@hospital.example`);
  await visitor.screenshot({ path: path.join(ARTIFACTS, 'login-admin-contact.png') });
  await ctx.close();
});

import { expect, test } from '@playwright/test';
import { apiLogin, openLoggedIn, setLanguage, shootBoth } from './helpers';

test('the message centre lists, opens, filters and marks messages read; the badge follows', async ({ page, request }) => {
  // a long walk (two logins, filters, both languages, screenshots at two sizes): 25 s on a quiet machine, over 60 s
  // when the two cores are shared
  test.setTimeout(180_000);
  const admin = await apiLogin(request, 'admin', 1, 'main');
  const pi = await apiLogin(request, 'pi', 3, 'site');
  const stamp = Date.now();
  const env = pi.user.projectType;
  for (const [title, content] of [
    [`Monitoring visit ${stamp}`, 'Please confirm the date of the next monitoring visit.\nThe CRA will bring the SDV list.'],
    [`Database lock ${stamp}`, 'The lock is planned for Friday.'],
  ]) {
    const r = await request.post('/api/system/user/sendMessage', {
      headers: { token: admin.token, proType: env },
      form: { userIds: pi.user.id, title: title!, content: content! },
    });
    expect(r.status()).toBe(200);
  }
  const badgeOf = async () =>
    ((await (await request.post('/api/message/manager/badgeInfo', { headers: { token: pi.token, proType: env } })).json()) as {
      data: { unread: number };
    }).data.unread;
  const unreadBefore = await badgeOf();
  expect(unreadBefore).toBeGreaterThanOrEqual(2);
  // the badge shows 99+ past 99 (after the other journeys the investigator has many query notices)
  const shown = (n: number) => (n > 99 ? '99+' : String(n));

  await openLoggedIn(page, pi, 'site', '/overview', 'zh_CN');
  // reachable from the badge
  await expect(page.getByTestId('message-badge')).toContainText(shown(unreadBefore));
  await page.getByTestId('message-badge').click();
  await page.getByTestId('message-badge-open').click();
  await expect(page).toHaveURL(/\/messages$/);
  const table = page.getByTestId('messages-table');
  await expect(table).toContainText(`Database lock ${stamp}`);
  await shootBoth(page, 'messages-zh_CN');

  await setLanguage(page, 'en_US');
  await expect(page.getByTestId('messages-unread')).toHaveText(`${unreadBefore} unread`);
  // open one: the drawer shows it and it is read now; the badge goes down
  await page.getByRole('button', { name: `Monitoring visit ${stamp}` }).click();
  const drawer = page.locator('.message-drawer');
  await expect(drawer.getByTestId('message-content')).toContainText('SDV list');
  await shootBoth(page, 'messages-drawer-en_US');
  await drawer.getByRole('button', { name: 'Close' }).click();
  await expect(page.getByTestId('messages-unread')).toHaveText(`${unreadBefore - 1} unread`);
  await expect(page.getByTestId('message-badge')).toContainText(shown(unreadBefore - 1));

  // filters: keyword, read state
  await page.getByTestId('messages-filter-keyword').locator('input').fill(`Database lock ${stamp}`);
  await page.getByTestId('messages-filter-keyword').locator('input').press('Enter');
  await expect(table.locator('tbody tr[data-row-key]')).toHaveCount(1);
  await page.getByTestId('messages-filter-keyword').locator('input').fill('no such message anywhere');
  await page.getByTestId('messages-filter-keyword').locator('input').press('Enter');
  await expect(table).toContainText('No messages match these filters');
  await page.getByTestId('messages-filter-keyword').locator('input').fill('');
  await page.getByTestId('messages-filter-keyword').locator('input').press('Enter');
  await page.getByTestId('messages-filter-read').click();
  await page.locator('.ant-select-item-option').filter({ hasText: /^Read$/ }).click();
  await expect(table).toContainText(`Monitoring visit ${stamp}`);
  await expect(table).not.toContainText(`Database lock ${stamp}`);
  await shootBoth(page, 'messages-en_US');

  // mark all read
  await page.getByTestId('messages-read-all').click();
  await expect(page.getByTestId('messages-unread')).toHaveText('0 unread');
  expect(await badgeOf()).toBe(0);
  await expect(page.getByTestId('message-badge').locator('.ant-badge-count')).toHaveCount(0);

  // and from the user menu
  await page.goto('/overview');
  await page.getByTestId('user-dropdown').click();
  await page.getByTestId('user-menu-messages').click();
  await expect(page).toHaveURL(/\/messages$/);
  await expect(page.getByTestId('messages-page')).toBeVisible();
});

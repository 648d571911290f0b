import { expect, test } from '@playwright/test';
import { apiLogin, openLoggedIn } from './helpers';

test('Cmd+K / Ctrl+K opens search for centre users; a hit enters the project', async ({ page, request }) => {
  const s = await apiLogin(request, 'dm', 1, 'main');
  await openLoggedIn(page, s, 'main', '/overview');
  await expect(page.getByTestId('app-shell')).toBeVisible();
  await page.keyboard.press('Control+k');
  const input = page.getByTestId('search-input');
  await expect(input).toBeVisible();
  const searched = page.waitForRequest((r) => r.url().includes('/api/search?q=demo'));
  await input.fill('demo');
  await searched;
  const hit = page.getByTestId('search-hit').first();
  await expect(hit).toContainText('DEMO-001');
  await input.press('Enter');
  await expect(page.getByTestId('project-label')).toContainText('DEMO-001');
  // the button opens it too
  await page.getByTestId('search-button').click();
  await expect(page.getByTestId('search-input')).toBeVisible();
});

test('users who are not centre users have no search', async ({ page, request }) => {
  const s = await apiLogin(request, 'cra', 2, 'main');
  await openLoggedIn(page, s, 'main', '/overview');
  await expect(page.getByTestId('app-shell')).toBeVisible();
  await expect(page.getByTestId('search-button')).toHaveCount(0);
  await page.keyboard.press('Control+k');
  await page.waitForTimeout(300);
  await expect(page.getByTestId('search-input')).toHaveCount(0);
});

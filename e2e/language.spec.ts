import { expect, test, type Page } from '@playwright/test';
import path from 'node:path';
import { ARTIFACTS, enterDemoProject, setLanguage, uiLogin, untranslatedKeys, visibleText } from './helpers';

async function checkTranslated(page: Page, where: string) {
  await page.waitForTimeout(300);
  const text = await visibleText(page);
  expect(untranslatedKeys(text), `${where}: untranslated keys`).toEqual([]);
  return text;
}

async function shot(page: Page, name: string) {
  await page.screenshot({ path: path.join(ARTIFACTS, `${name}.png`) });
}

test('zh ⇄ en switches every visible string of the shell; antd and the header follow', async ({ page }) => {
  await page.goto('/login');
  await expect(page.getByTestId('login-page')).toBeVisible();
  // zh_CN is the default
  await expect(page.getByTestId('login-submit')).toHaveText(/登\s*录/);
  await checkTranslated(page, 'login zh');
  await shot(page, 'login-zh_CN');
  await setLanguage(page, 'en_US');
  await expect(page.getByTestId('login-submit')).toHaveText('Log in');
  await checkTranslated(page, 'login en');
  await shot(page, 'login-en_US');
  await setLanguage(page, 'zh_CN');

  await uiLogin(page, 'dm', 'main', 1);
  const zhOverview = await checkTranslated(page, 'overview zh');
  expect(zhOverview).toContain('我的项目');
  expect(zhOverview).toContain('项目管理');
  await shot(page, 'shell-overview-zh_CN');

  // the language header follows the choice
  const headerSeen = page.waitForRequest(
    (r) => r.url().includes('/api/') && r.headers()['language'] === 'en_US',
  );
  await setLanguage(page, 'en_US');
  const enOverview = await checkTranslated(page, 'overview en');
  expect(enOverview).toContain('My projects');
  expect(enOverview).toContain('Project Manage');
  expect(enOverview, 'no Chinese left on the English screen').not.toMatch(/[\u4e00-\u9fff]/);
  // antd's own strings follow (pagination size changer)
  await expect(page.locator('.ant-pagination')).toContainText('/ page');
  await shot(page, 'shell-overview-en_US');
  await headerSeen;

  await enterDemoProject(page);
  expect(await checkTranslated(page, 'project en')).not.toMatch(/[\u4e00-\u9fff]/);
  await expect(page.getByTestId('breadcrumb')).toContainText('Project Manage');
  await shot(page, 'shell-project-en_US');
  await page.getByTestId('user-dropdown').click();
  await expect(page.getByTestId('user-menu-logout')).toHaveText('Log Out');
  await checkTranslated(page, 'user menu en');
  await shot(page, 'shell-user-menu-en_US');
  await page.keyboard.press('Escape');

  await setLanguage(page, 'zh_CN');
  const zhProject = await checkTranslated(page, 'project zh');
  expect(zhProject).toContain('项目概览');
  expect(zhProject).not.toContain('Project overview');
  await shot(page, 'shell-project-zh_CN');

  // the choice persists across a reload
  await page.reload();
  await expect(page.getByTestId('language-switch')).toContainText('简体中文');
});

test('site and AE shells in both languages (screenshots)', async ({ page }) => {
  await uiLogin(page, 'crc1', 'site');
  await enterDemoProject(page);
  await checkTranslated(page, 'site zh');
  await shot(page, 'shell-site-zh_CN');
  await setLanguage(page, 'en_US');
  await checkTranslated(page, 'site en');
  await shot(page, 'shell-site-en_US');
});

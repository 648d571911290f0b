import { expect, test, type Page } from '@playwright/test';
import { apiLogin, openLoggedIn } from './helpers';

/**
 * A form whose rules fail shows the messages on its fields and nothing else: no uncaught page error (antd's
 * rejected validateFields promise used to surface as a page error reading "Object").
 */
test.describe.configure({ mode: 'serial', timeout: 120_000 });

function watchErrors(page: Page): string[] {
  const errors: string[] = [];
  page.on('pageerror', (e) => errors.push(e.message || String(e)));
  return errors;
}

const okOf = (page: Page) => page.locator('.ant-modal-footer .ant-btn-primary').last();

test('subject add and unscheduled visit with empty required fields: messages, no page error', async ({
  browser,
}) => {
  const ctx = await browser.newContext();
  const page = await ctx.newPage();
  const errors = watchErrors(page);
  const s = await apiLogin(ctx.request, 'crc1', 3, 'site');
  await openLoggedIn(page, s, 'site', '/project/sickLoop?proId=1');
  await expect(page.getByTestId('subject-list-page')).toBeVisible();
  await page.getByTestId('subject-add').click();
  await page.getByTestId('subject-save').click();
  await expect(page.locator('.ant-form-item-explain-error').first()).toBeVisible();
  await page.waitForTimeout(300);
  expect(errors).toEqual([]);
  await page.keyboard.press('Escape');

  // a subject to open, made through the API
  const sites = await ctx.request.post('/api/pro/site/list', {
    headers: { token: s.token, proId: '1', proType: 'PRO' },
  });
  const siteList = (
    (await sites.json()) as {
      data: { id: number; siteNo: string }[] | { content: { id: number; siteNo: string }[] };
    }
  ).data;
  const site = (Array.isArray(siteList) ? siteList : siteList.content).find((x) => x.siteNo === '01')!;
  const add = await ctx.request.post('/api/project/managePts/add', {
    headers: { token: s.token, proId: '1', proType: 'PRO' },
    form: { siteId: site.id, firstVisitDate: new Date().toISOString().slice(0, 10) },
  });
  const subject = ((await add.json()) as { data: { ptsId: number } }).data;
  await page.goto(`/project/ptsDetail?proId=1&ptsId=${subject.ptsId}&activeKey=pts360`);
  await expect(page.getByTestId('subject-detail-page')).toBeVisible();
  await page.getByTestId('add-unscheduled').click();
  await okOf(page).click();
  await expect(page.locator('.ant-modal .ant-form-item-explain-error').first()).toBeVisible();
  await page.waitForTimeout(300);
  expect(errors).toEqual([]);
  await ctx.close();
});

test('centre application with empty required fields: messages, no page error', async ({ browser }) => {
  const ctx = await browser.newContext();
  const page = await ctx.newPage();
  const errors = watchErrors(page);
  const s = await apiLogin(ctx.request, 'admin', 1, 'main');
  await openLoggedIn(page, s, 'main', '/system/centerApply');
  await expect(page.getByTestId('center-apply-page')).toBeVisible();
  await page.getByTestId('center-apply-new').click();
  await okOf(page).click();
  await expect(page.locator('.ant-modal .ant-form-item-explain-error').first()).toBeVisible();
  await page.waitForTimeout(300);
  expect(errors).toEqual([]);
  await ctx.close();
});

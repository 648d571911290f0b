import path from 'node:path';
import sharp from 'sharp';
import { expect, test, type Page } from '@playwright/test';
import {
  ARTIFACTS,
  apiLogin,
  enterDemoProject,
  noKeys,
  openLoggedIn,
  setLanguage,
  shootBoth,
} from './helpers';

/** A small "screenshot" of a list that went wrong (generated; no real data). */
async function screenshotPng(): Promise<Buffer> {
  const rows = Array.from(
    { length: 6 },
    (_, i) =>
      `<rect x="20" y="${90 + i * 34}" width="560" height="26" rx="3" fill="${i % 2 ? '#f5f7fa' : '#fff'}"/><text x="32" y="${108 + i * 34}">H-00${i + 1}</text><text x="160" y="${108 + i * 34}">Visit ${i + 1}</text>`,
  ).join('');
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="600" height="320">
  <rect width="100%" height="100%" fill="#eef1f5"/>
  <rect x="0" y="0" width="600" height="44" fill="#1668dc"/>
  <g font-family="sans-serif" font-size="14" fill="#1a1a1a">
    <text x="20" y="28" fill="#fff" font-size="16">Subject list</text>
    <text x="20" y="74" fill="#cf1322">The list stops scrolling after the sixth row</text>
    ${rows}
  </g>
</svg>`;
  return sharp(Buffer.from(svg)).png().toBuffer();
}

/** The dialog's screenshot (the modal only) into e2e/artifacts. */
async function shootDialog(page: Page, name: string) {
  await page.waitForTimeout(400);
  await page
    .locator('.feedback-dialog .ant-modal-container')
    .screenshot({ path: path.join(ARTIFACTS, `${name}.png`) });
}

test('a coordinator sends feedback with a screenshot from the user menu; the administrator answers it; the coordinator reads the answer in messages', async ({
  page,
  request,
  browser,
}) => {
  // three sessions, two languages, screenshots at two sizes: about a minute when the two cores are shared
  test.setTimeout(240_000);
  const stamp = Date.now();
  const text = `The subject list stops scrolling after the sixth row (${stamp})`;
  const crc = await apiLogin(request, 'crc1', 3, 'site');

  // ── the coordinator, in Chinese, on the subject list of the demo project ──
  await openLoggedIn(page, crc, 'site', '/overview', 'zh_CN');
  await enterDemoProject(page);
  // (the project's entry route redirects to its first page)
  await expect(page).toHaveURL(/\/project\/[^/?]+/);
  const where = new URL(page.url()).pathname;
  await page.goto(`${where}?keyword=H-001`);
  await expect(page.getByTestId('app-shell')).toBeVisible();
  await page.getByTestId('user-dropdown').click();
  await page.getByTestId('user-menu-feedback').click();
  const dialog = page.locator('.feedback-dialog');
  await expect(dialog.getByTestId('feedback-form')).toBeVisible();
  // the page goes with it, without its query
  await expect(dialog.getByTestId('feedback-page-path')).toHaveText(where);
  await dialog.getByTestId('feedback-category-bug').click();
  await dialog.getByTestId('feedback-content').fill(text);
  // a file that is not an image is refused before it is sent
  await dialog
    .locator('input[type=file]')
    .setInputFiles({ name: 'notes.txt', mimeType: 'text/plain', buffer: Buffer.from('hello') });
  await expect(dialog).toContainText('notes.txt 不是 PNG 或 JPG 图片');
  await dialog
    .locator('input[type=file]')
    .setInputFiles({ name: 'subject-list.png', mimeType: 'image/png', buffer: await screenshotPng() });
  await expect(dialog.locator('.ant-upload-list-item')).toContainText('subject-list.png');
  await noKeys(page);
  await shootDialog(page, 'feedback-dialog-zh_CN');
  await dialog.getByTestId('feedback-send').click();
  await expect(page.locator('.ant-message')).toContainText('感谢您的反馈');
  // the dialog now shows "My feedback" with the new one on top, waiting for an answer
  const mine = dialog.getByTestId('feedback-mine');
  await expect(mine).toContainText(text);
  const item = mine.locator('[data-testid^="feedback-mine-"]').filter({ hasText: text });
  await expect(item.getByTestId('feedback-status')).toHaveAttribute('data-status', 'open');
  const feedbackId = Number((await item.getAttribute('data-testid'))!.replace('feedback-mine-', ''));
  expect(feedbackId).toBeGreaterThan(0);
  await page.keyboard.press('Escape');

  // ── the administrator, in English, at /system/feedback ──
  const admin = await apiLogin(request, 'admin', 1, 'main');
  const adminCtx = await browser.newContext({
    baseURL: test.info().project.use.baseURL,
    viewport: { width: 1440, height: 900 },
  });
  const ap = await adminCtx.newPage();
  await openLoggedIn(ap, admin, 'main', '/system/feedback', 'en_US');
  const table = ap.getByTestId('feedback-table');
  await expect(table).toBeVisible();
  await ap.getByTestId('feedback-filter-keyword').locator('input').fill(String(stamp));
  await ap.getByTestId('feedback-filter-keyword').locator('input').press('Enter');
  await expect(table.locator('tbody tr[data-row-key]')).toHaveCount(1);
  const row = table.locator(`tr[data-row-key="${feedbackId}"]`);
  await expect(row).toContainText('Amy Coordinator');
  await expect(row).toContainText('Bug');
  await expect(row).toContainText(where);
  await expect(row.getByTestId('feedback-status')).toHaveText('Open');
  // the rest of the list back for the screenshot
  await ap.getByTestId('feedback-filter-keyword').locator('input').fill('');
  await ap.getByTestId('feedback-filter-keyword').locator('input').press('Enter');
  await expect(table.locator(`tr[data-row-key="${feedbackId}"]`)).toBeVisible();
  await noKeys(ap);
  await shootBoth(ap, 'feedback-list-en_US');

  await ap.getByTestId(`feedback-open-${feedbackId}`).click();
  const drawer = ap.locator('.feedback-drawer');
  await expect(drawer.getByTestId('feedback-detail-content')).toHaveText(text);
  // the screenshot loads (it needs the administrator's session)
  const img = drawer
    .locator(`[data-testid="feedback-screenshot-${feedbackId}"]`)
    .locator('xpath=self::img | .//img')
    .first();
  await expect(img).toBeVisible();
  await expect.poll(() => img.evaluate((el) => (el as HTMLImageElement).naturalWidth)).toBe(600);
  await drawer
    .getByTestId('feedback-reply-text')
    .fill('Thank you. Fixed in the next release: the list scrolls again.');
  await drawer.getByTestId('feedback-submit-answer').click();
  await expect(ap.locator('.ant-message')).toContainText('Answer sent to Amy Coordinator');
  await expect(drawer.getByTestId('feedback-reply-answer')).toContainText('the list scrolls again');
  await expect(drawer.getByTestId('feedback-status').first()).toHaveText('Answered');
  await shootBoth(ap, 'feedback-detail-en_US');
  await drawer.getByRole('button', { name: 'Close', exact: true }).first().click();
  await expect(table.locator(`tr[data-row-key="${feedbackId}"]`).getByTestId('feedback-status')).toHaveText(
    'Answered',
  );
  await setLanguage(ap, 'zh_CN');
  await expect(table.locator(`tr[data-row-key="${feedbackId}"]`).getByTestId('feedback-status')).toHaveText(
    '已回复',
  );
  await noKeys(ap);
  await shootBoth(ap, 'feedback-list-zh_CN');
  await ap.getByTestId(`feedback-open-${feedbackId}`).click();
  await expect(ap.locator('.feedback-drawer').getByTestId('feedback-reply-answer')).toBeVisible();
  await shootBoth(ap, 'feedback-detail-zh_CN');
  await adminCtx.close();

  // ── the coordinator reads the answer in the message centre (badge), and in "My feedback", in English ──
  await page.goto('/overview');
  await setLanguage(page, 'en_US');
  await expect(page.getByTestId('message-badge').locator('.ant-badge-count')).toBeVisible();
  await page.goto('/messages');
  await page.getByTestId('messages-filter-kind').click();
  await page
    .locator('.ant-select-item-option')
    .filter({ hasText: /^Feedback$/ })
    .click();
  const title = `Your feedback #${feedbackId} was answered`;
  await page.getByRole('button', { name: title }).click();
  const content = page.locator('.message-drawer').getByTestId('message-content');
  await expect(content).toContainText('Answer: Thank you. Fixed in the next release');
  await expect(content).toContainText(text.slice(0, 60));
  await shootBoth(page, 'feedback-message-en_US');
  await page.locator('.message-drawer').getByRole('button', { name: 'Close' }).click();
  await page.getByTestId('user-dropdown').click();
  await page.getByTestId('user-menu-feedback').click();
  await page.getByTestId('feedback-tab-mine').click();
  const answered = dialog.locator(`[data-testid="feedback-mine-${feedbackId}"]`);
  await expect(answered.getByTestId('feedback-status')).toHaveText('Answered');
  await expect(answered.getByTestId('feedback-reply-answer')).toContainText('System Admin');
  await noKeys(page);
  await shootDialog(page, 'feedback-dialog-mine-en_US');
  await dialog.getByTestId('feedback-tab-send').click();
  await shootDialog(page, 'feedback-dialog-en_US');
});

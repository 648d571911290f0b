import { expect, test, type Browser, type Locator, type Page } from '@playwright/test';
import path from 'node:path';
import { ARTIFACTS, apiLogin, openLoggedIn, untranslatedKeys, visibleText, type ApiSession } from './helpers';

/**
 * Integrity of what is entered, as a coordinator meets it: a future birth date is refused next to the field; the
 * subject header's form progress follows every save; changing the sex clears the saved pregnancy answer only
 * after the user has seen it listed and given a reason, and its history says it was cleared by a display
 * condition; an out-of-range systolic pressure is refused with its range and never changed (no clamping), a heart
 * rate outside its soft range is kept with a warning; a measurement time without its time is refused; the form
 * designer does not let unsaved work go without asking.
 */
test.describe.configure({ mode: 'serial', timeout: 180_000 });

const STAMP = Date.now().toString(36).slice(-6).toUpperCase();
const NO = `INT-${STAMP}`;
let detailUrl = '';
const SIZES = [
  { width: 1440, height: 900 },
  { width: 1280, height: 720 },
] as const;

async function shots(page: Page, name: string): Promise<void> {
  for (const s of SIZES) {
    await page.setViewportSize(s);
    await page.waitForTimeout(300);
    await page.screenshot({ path: path.join(ARTIFACTS, `${name}-${s.width}.png`) });
  }
  await page.setViewportSize(SIZES[0]);
}

async function openAs(browser: Browser, account: string, type: number, url: string, lang: 'en_US' | 'zh_CN' = 'en_US'): Promise<Page> {
  const ctx = await browser.newContext({ viewport: SIZES[0] });
  const page = await ctx.newPage();
  const s = await apiLogin(ctx.request, account, type, type === 3 ? 'site' : 'main');
  await openLoggedIn(page, s, type === 3 ? 'site' : 'main', url.includes('proId=') ? url : `${url}${url.includes('?') ? '&' : '?'}proId=1`, lang);
  return page;
}

/** The input of a control whose test id may sit on the input or on its wrapper. */
const inputOf = (page: Page, id: string): Locator => page.locator(`input[data-testid="${id}"], [data-testid="${id}"] input`).first();

async function typeInto(page: Page, id: string, value: string): Promise<void> {
  const input = inputOf(page, id);
  await input.click();
  await input.fill(value);
  await input.press('Enter');
}

const daysAgo = (n: number) => new Date(Date.now() - n * 86_400_000).toISOString().slice(0, 10);

test('coordinator: future birth date refused, progress follows saves, a cleared value is listed and explained', async ({ browser }) => {
  const page = await openAs(browser, 'crc1', 3, '/project/sickLoop');
  await expect(page.getByTestId('subject-list-page')).toBeVisible();
  await page.getByTestId('subject-add').click();
  await page.getByTestId('subject-no').fill(NO);
  await typeInto(page, 'subject-first-visit', daysAgo(12));
  await page.getByTestId('subject-save').click();
  await page.getByTestId(`subject-link-${NO}`).click();
  await expect(page.getByTestId('subject-header')).toContainText(NO);
  detailUrl = new URL(page.url()).pathname + new URL(page.url()).search;
  await expect(page.getByTestId('subject-form-progress')).toContainText('0/15');

  await page.getByTestId('form-V1-DM').click();
  await expect(page.getByTestId('crf-title')).toContainText('Demographics');
  // D: a birth date in the future is refused next to the field, before anything is sent
  await typeInto(page, 'crf-input-BRTHDTC', '2030-01-01');
  await expect(page.getByTestId('crf-item-BRTHDTC')).toContainText('in the future');
  await page.getByTestId('crf-save-draft').click();
  await expect(page.getByTestId('crf-error')).toBeVisible();
  await expect(page.getByTestId('crf-status')).toContainText('Not started');
  await typeInto(page, 'crf-input-BRTHDTC', '1985-03-04');
  await expect(page.getByTestId('crf-item-BRTHDTC')).not.toContainText('future');
  await page.getByTestId('crf-input-SEX').getByText('Female').click();
  await page.getByTestId('crf-input-PREG').getByText('Yes').click();
  await page.getByTestId('crf-save').click();
  await expect(page.getByTestId('crf-status')).toContainText('Completed');
  // F: the header's progress follows the save without a reload
  await expect(page.getByTestId('subject-form-progress')).toContainText('1/15');

  // C: the sex changes to male; the saved pregnancy answer will be cleared: listed, with a reason of its own
  await page.getByTestId('crf-input-SEX').getByText('Male', { exact: true }).click();
  await expect(page.getByTestId('crf-item-PREG')).toHaveCount(0);
  await page.getByTestId('crf-save').click();
  const dialog = page.getByTestId('reason-dialog');
  await expect(dialog).toContainText('Sex');
  await expect(page.getByTestId('reason-cleared')).toContainText('Pregnant');
  await expect(page.getByTestId('reason-cleared')).toContainText('cleared');
  await expect(page.getByTestId('reason-ok')).toBeDisabled();
  await page.getByTestId('reason-SEX').fill('sex entered wrongly');
  await expect(page.getByTestId('reason-ok')).toBeDisabled();
  await page.getByTestId('reason-PREG').fill('not applicable to a male subject');
  await shots(page, 'ecrf-cleared-reasons-en');
  await page.getByTestId('reason-ok').click();
  await expect(page.getByTestId('reason-dialog')).toHaveCount(0);
  await expect(page.getByTestId('crf-dirty')).toHaveCount(0);
  // showing the item again (not saved) reveals its history: cleared by the display condition, with the reason
  await page.getByTestId('crf-input-SEX').getByText('Female').click();
  await page.getByTestId('history-PREG').click();
  const history = page.getByTestId('history-table-PREG');
  await expect(history).toContainText('Cleared: hidden by a display condition');
  await expect(history).toContainText('not applicable to a male subject');
  await expect(history).not.toContainText('hidden by display condition');
  await shots(page, 'ecrf-cleared-history-en');
  await page.keyboard.press('Escape');
  await page.context().close();
});

test('coordinator: an out-of-range value is refused as typed, a soft range warns, a datetime needs its time', async ({ browser }) => {
  const page = await openAs(browser, 'crc1', 3, detailUrl);
  await expect(page.getByTestId('subject-form-progress')).toContainText('1/15');
  await page.getByTestId('form-V1-VS').click();
  await expect(page.getByTestId('crf-title')).toContainText('Vital signs');
  // the blood pressure table's text cell in English
  await expect(page.getByTestId('crf-cell-bp-0-0')).toHaveText('Seated, after 5 minutes at rest (mmHg)');
  // D: the datetime says what it wants
  await expect(inputOf(page, 'crf-input-VSDTC')).toHaveAttribute('placeholder', 'Choose date and time');
  // B: 400 stays 400 on blur (no clamping to 300) and is refused with the range
  const sys = inputOf(page, 'crf-input-SYSBP');
  await sys.fill('400');
  await sys.blur();
  await expect(sys).toHaveValue('400');
  await expect(page.getByTestId('crf-item-SYSBP')).toContainText('Outside the allowed range 40–300 mmHg');
  await inputOf(page, 'crf-input-DIABP').fill('80');
  // a soft range: 190 bpm is kept, with a warning, and may be saved
  await inputOf(page, 'crf-input-HR').fill('190');
  await inputOf(page, 'crf-input-HR').blur();
  await expect(page.getByTestId('crf-warning-HR')).toContainText('expected range 40–180 bpm');
  await expect(inputOf(page, 'crf-input-HR')).toHaveValue('190');
  // D: a date without its time is refused with a message
  await typeInto(page, 'crf-input-VSDTC', daysAgo(12));
  await page.getByTestId('crf-save').click();
  await expect(page.getByTestId('crf-item-VSDTC')).toContainText('The time is missing');
  await expect(page.getByTestId('crf-status')).toContainText('Not started');
  await shots(page, 'ecrf-vitals-refused-en');
  await sys.fill('120');
  await sys.blur();
  await expect(page.getByTestId('crf-item-SYSBP')).not.toContainText('Outside');
  await typeInto(page, 'crf-input-VSDTC-time', '09:30');
  await expect(inputOf(page, 'crf-input-VSDTC-time')).toHaveValue('09:30');
  await page.getByTestId('crf-save').click();
  await expect(page.getByTestId('crf-status')).toContainText('Completed');
  await expect(sys).toHaveValue('120');
  await expect(inputOf(page, 'crf-input-HR')).toHaveValue('190');
  await expect(page.getByTestId('crf-warning-HR')).toBeVisible();
  // F: V1 is done now; the header says so without a reload
  await expect(page.getByTestId('subject-form-progress')).toContainText('2/15');
  await page.getByTestId('history-HR').click();
  await expect(page.getByTestId('history-table-HR').getByTestId('history-quality')).toBeVisible();
  await page.keyboard.press('Escape');
  await page.context().close();

  // the same screens in Chinese
  const zh = await openAs(browser, 'crc1', 3, detailUrl, 'zh_CN');
  await zh.getByTestId('form-V2-VS').click();
  await expect(zh.getByTestId('crf-cell-bp-0-0')).toHaveText('坐位静息 5 分钟后测量（mmHg）');
  await expect(inputOf(zh, 'crf-input-VSDTC')).toHaveAttribute('placeholder', '请选择日期和时间');
  await inputOf(zh, 'crf-input-SYSBP').fill('400');
  await inputOf(zh, 'crf-input-HR').fill('30');
  await inputOf(zh, 'crf-input-HR').blur();
  await expect(zh.getByTestId('crf-item-SYSBP')).toContainText('超出允许范围 40–300 mmHg');
  await expect(zh.getByTestId('crf-warning-HR')).toContainText('超出预期范围');
  await typeInto(zh, 'crf-input-VSDTC', daysAgo(1));
  await zh.getByTestId('crf-save-draft').click();
  await expect(zh.getByTestId('crf-item-VSDTC')).toContainText('缺少时间');
  expect(untranslatedKeys(await visibleText(zh))).toEqual([]);
  await shots(zh, 'ecrf-vitals-refused-zh');
  await zh.context().close();

  const zh2 = await openAs(browser, 'crc1', 3, detailUrl, 'zh_CN');
  await zh2.getByTestId('form-V1-DM').click();
  await zh2.getByTestId('crf-input-SEX').getByText('女').click();
  await zh2.getByTestId('crf-input-PREG').getByText('否').click();
  await zh2.getByTestId('crf-save').click();
  await zh2.getByTestId('reason-SEX').fill('核对原始记录');
  await zh2.getByTestId('reason-ok').click();
  await expect(zh2.getByTestId('crf-dirty')).toHaveCount(0);
  await zh2.getByTestId('crf-input-SEX').getByText('男').click();
  await zh2.getByTestId('crf-save').click();
  await expect(zh2.getByTestId('reason-cleared')).toContainText('是否妊娠');
  expect(untranslatedKeys(await visibleText(zh2))).toEqual([]);
  await shots(zh2, 'ecrf-cleared-reasons-zh');
  await zh2.context().close();
});

test('designer: unsaved work is not lost by leaving; soft range and date checks in the property panel', async ({ browser }) => {
  const ctx = await browser.newContext({ viewport: SIZES[0] });
  const page = await ctx.newPage();
  const login = await apiLogin(ctx.request, 'dm', 1, 'main');
  const s: ApiSession = { ...login, user: { ...login.user, projectType: 'DEV' } };
  const add = await ctx.request.post('/api/crf/version/add', { headers: { token: s.token, proId: '1', proType: 'DEV' }, form: { name: `INT ${STAMP}` } });
  const version = ((await add.json()) as { data: { id: number } }).data;
  await openLoggedIn(page, s, 'main', `/project/microCrfConfig?proId=1&versionId=${version.id}`, 'en_US');
  await expect(page.getByTestId('form-designer')).toBeVisible();
  await page.getByTestId('form-name').fill('Integrity');
  await page.getByTestId('form-code').fill(`INT${STAMP}`);
  await page.getByTestId('palette-number').click();
  await page.locator('[data-testid="canvas-item"][data-type="number"] .fd-item-label').first().click();
  await expect(page.getByTestId('prop-softRange')).toBeVisible();
  await inputOf(page, 'prop-min').fill('40');
  await inputOf(page, 'prop-max').fill('180');
  await page.getByTestId('prop-softRange').click();
  await expect(page.getByTestId('designer-dirty')).toBeVisible();
  await shots(page, 'designer-soft-range-en');
  await page.getByTestId('palette-date').click();
  await page.locator('[data-testid="canvas-item"][data-type="date"] .fd-item-label').first().click();
  await expect(page.getByTestId('prop-allowFuture')).not.toBeChecked();
  await expect(page.getByTestId('prop-partialDate')).toBeVisible();
  await shots(page, 'designer-date-checks-en');

  // E: the back link asks; Stay keeps the work
  await page.getByTestId('designer-back').click();
  await expect(page.locator('.ant-modal-confirm')).toContainText('Leave without saving?');
  await shots(page, 'designer-leave-en');
  await page.getByTestId('designer-leave-cancel').click();
  await expect(page.getByTestId('form-designer')).toBeVisible();
  await expect(page.getByTestId('form-name')).toHaveValue('Integrity');
  // saving makes leaving free (the new form's id in the URL is not taken for leaving)
  await page.getByTestId('designer-save').click();
  await expect(page.getByTestId('designer-dirty')).toHaveCount(0);
  await expect(page).toHaveURL(/formId=\d+/);
  await expect(page.locator('.ant-modal-confirm')).toHaveCount(0);
  await page.getByTestId('form-name').fill('Integrity 2');
  await page.getByTestId('designer-back').click();
  await page.getByTestId('designer-leave-ok').click();
  await expect(page).toHaveURL(/\/project\/design/);
  await ctx.close();

  const zh = await browser.newContext({ viewport: SIZES[0] });
  const p = await zh.newPage();
  await openLoggedIn(p, s, 'main', `/project/microCrfConfig?proId=1&versionId=${version.id}`, 'zh_CN');
  await p.getByTestId('form-name').fill('完整性');
  await p.getByTestId('palette-date').click();
  await p.locator('[data-testid="canvas-item"][data-type="date"] .fd-item-label').first().click();
  expect(untranslatedKeys(await visibleText(p))).toEqual([]);
  await shots(p, 'designer-date-checks-zh');
  await p.getByTestId('designer-back').click();
  await expect(p.locator('.ant-modal-confirm')).toContainText('不保存就离开');
  await shots(p, 'designer-leave-zh');
  await p.getByTestId('designer-leave-cancel').click();
  // closing or reloading the tab gets the browser's own prompt
  const prompt = new Promise<string>((resolve) => p.once('dialog', (d) => resolve(d.type())));
  await p.close({ runBeforeUnload: true });
  expect(await prompt).toBe('beforeunload');
  await zh.close();
});

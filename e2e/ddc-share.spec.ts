import path from 'node:path';
import {
  expect as baseExpect,
  test,
  type APIRequestContext,
  type Browser,
  type Locator,
  type Page,
} from '@playwright/test';
import { ARTIFACTS, apiLogin, noKeys, openLoggedIn } from './helpers';

/**
 * Shared forms (issue 15 item 6): a data manager shares a subject's questionnaire-like form (Demographics) from the
 * eCRF; the participant fills it on a 390×844 phone without logging in, in Chinese and English, once; the site
 * sees the answers on the subject's visit pending review and accepts them; the link shows as used on /DDC/share.
 */
test.describe.configure({ mode: 'serial', timeout: 420_000 });
// three browsers, a phone and two languages on two shared cores: pages can take a while to come
const expect = baseExpect.configure({ timeout: 45_000 });

const STAMP = Date.now().toString(36).slice(-6).toUpperCase();
const NO = `DDC-${STAMP}`;
const PHONE = { width: 390, height: 844 };
const DESKTOP = { width: 1440, height: 900 };

const inputOf = (page: Page, id: string): Locator =>
  page.locator(`input[data-testid="${id}"], [data-testid="${id}"] input`).first();
async function typeInto(page: Page, id: string, value: string): Promise<void> {
  const input = inputOf(page, id);
  await input.click();
  await input.fill(value);
  await input.press('Enter');
}
const shot = (page: Page, name: string, fullPage = false) =>
  page.screenshot({ path: path.join(ARTIFACTS, `${name}.png`), fullPage });

async function openAs(
  browser: Browser,
  account: string,
  type: number,
  url: string,
  lang: 'en_US' | 'zh_CN',
): Promise<Page> {
  const ctx = await browser.newContext({ viewport: DESKTOP });
  const page = await ctx.newPage();
  const s = await apiLogin(ctx.request, account, type, type === 3 ? 'site' : 'main');
  await openLoggedIn(page, s, type === 3 ? 'site' : 'main', url, lang);
  return page;
}

async function setPageLanguage(page: Page, lang: 'zh_CN' | 'en_US'): Promise<void> {
  await page.evaluate((l) => localStorage.setItem('esource.language', JSON.stringify(l)), lang);
  await page.reload();
}

/** A subject of site 01 added by its coordinator, with the ids of its screening visit's Demographics form. */
async function addSubject(request: APIRequestContext) {
  const crc = await apiLogin(request, 'crc1', 3, 'site');
  const headers = { token: crc.token, proId: '1', proType: 'PRO' };
  const sites = (await (await request.post('/api/pro/site/list', { headers })).json()) as {
    data: { id: number; siteNo: string }[];
  };
  const siteId = sites.data.find((s) => s.siteNo === '01')!.id;
  const first = new Date(Date.now() - 2 * 86_400_000).toISOString().slice(0, 10);
  const add = (await (
    await request.post('/api/project/managePts/add', {
      headers,
      form: { siteId, firstVisitDate: first, ptsNo: NO },
    })
  ).json()) as { data: { ptsId: number } };
  const ptsId = add.data.ptsId;
  const sched = (await (await request.get(`/api/project/pts/visits?ptsId=${ptsId}`, { headers })).json()) as {
    data: { visitId: number; code: string; forms: { formId: number; code: string }[] }[];
  };
  const v1 = sched.data.find((v) => v.code === 'V1')!;
  return { ptsId, v1: v1.visitId, dmForm: v1.forms.find((f) => f.code === 'DM')!.formId };
}

let shareUrl = '';
let subject: Awaited<ReturnType<typeof addSubject>>;

test('a data manager shares a questionnaire form, it is filled on a 390×844 viewport without logging in, and the site sees the answers pending review', async ({
  browser,
  request,
}) => {
  subject = await addSubject(request);

  // ── the data manager shares the form from the subject's eCRF ──
  const dm = await openAs(
    browser,
    'dm',
    1,
    `/project/SickFile?proId=1&ptsId=${subject.ptsId}&ptsNo=${NO}&activeKey=pts360&visitId=${subject.v1}&formId=${subject.dmForm}`,
    'en_US',
  );
  await expect(dm.getByTestId('crf-title')).toContainText('Demographics');
  await dm.getByTestId('crf-share').click();
  const dialog = dm.locator('.ant-modal').filter({ has: dm.getByTestId('share-form') });
  await expect(dialog.getByTestId('share-target')).toContainText('Demographics');
  await dialog.getByTestId('share-note').fill(`Handed over at the clinic ${STAMP}`);
  await noKeys(dm);
  await dialog.getByTestId('share-create').click();
  const url = dm.getByTestId('share-url');
  await expect(url).toContainText('/s/');
  shareUrl = (await url.innerText()).trim();
  expect(shareUrl).toMatch(/\/s\/[A-Za-z0-9_-]{32}$/);
  await dm.waitForTimeout(400);
  await dm
    .locator('.ant-modal-container')
    .filter({ has: dm.getByTestId('share-result') })
    .screenshot({ path: path.join(ARTIFACTS, 'ddc-share-dialog-en_US.png') });
  await dm.getByTestId('share-done').click();

  // ── the participant, on a phone, without an account ──
  const phoneCtx = await browser.newContext({
    viewport: PHONE,
    hasTouch: true,
    isMobile: true,
    deviceScaleFactor: 2,
  });
  const phone = await phoneCtx.newPage();
  const code = new URL(shareUrl).pathname;
  await phone.goto(code);
  await expect(phone.getByTestId('shared-form-title')).toHaveText('人口学资料');
  await expect(phone).toHaveURL(new RegExp(`${code}$`));
  // only what the micro CRF settings show: the masked number, never the subject number in full
  await expect(phone.getByTestId('shared-facts')).not.toContainText(NO);
  await expect(phone.getByTestId('shared-facts')).toContainText(NO.slice(-2));
  await noKeys(phone);
  await shot(phone, 'ddc-shared-form-zh_CN-390');
  // nothing is sent while required answers are missing
  await phone.getByTestId('shared-submit').click();
  await expect(phone.getByTestId('shared-error')).toContainText('请检查标出的答案');
  await expect(phone.getByTestId('crf-item-BRTHDTC')).toContainText('必填');
  // the participant switches to English
  await phone.getByTestId('lang-en_US').click();
  await expect(phone.getByTestId('shared-form-title')).toHaveText('Demographics');
  await typeInto(phone, 'crf-input-BRTHDTC', '1975-03-04');
  // (answering clears the "check the marked answers" notice)
  await expect(phone.getByTestId('shared-error')).toHaveCount(0);
  await phone.getByTestId('crf-item-SEX').getByText('Female', { exact: true }).click();
  // the pregnancy question appears with its condition, and is required
  await expect(phone.getByTestId('crf-item-PREG')).toBeVisible();
  await phone.getByTestId('crf-item-PREG').getByText('No', { exact: true }).click();
  await phone.getByTestId('crf-item-ETHNIC').locator('.ant-select').click();
  await phone
    .locator('.ant-select-dropdown:not(.ant-select-dropdown-hidden) .ant-select-item-option')
    .filter({ hasText: 'Han' })
    .click();
  await noKeys(phone);
  await shot(phone, 'ddc-shared-form-en_US-390');
  await shot(phone, 'ddc-shared-form-en_US-390-full', true);
  await phone.getByTestId('shared-submit').click();
  await phone.locator('.ant-modal-confirm').getByRole('button', { name: 'Submit' }).click();
  await expect(phone.getByTestId('shared-done')).toBeVisible();
  await shot(phone, 'ddc-shared-done-en_US-390');
  // once: the same link again is refused with a clear message, in the participant's language
  await phone.reload();
  await expect(phone.getByTestId('shared-refused-message')).toContainText('already been used');
  await shot(phone, 'ddc-shared-used-en_US-390');
  await phone.getByTestId('lang-zh_CN').click();
  await expect(phone.getByTestId('shared-refused-message')).toContainText('此链接已使用过');
  await shot(phone, 'ddc-shared-used-zh_CN-390');
  await phoneCtx.close();

  // ── the site sees the answers pending review on the subject's visit and form, and accepts them ──
  const site = await openAs(
    browser,
    'crc1',
    3,
    `/project/ptsDetail?proId=1&ptsId=${subject.ptsId}&ptsNo=${NO}&activeKey=pts360`,
    'en_US',
  );
  await expect(site.getByTestId('visit-pending-V1')).toBeVisible();
  await expect(site.getByTestId('form-pending-V1-DM')).toContainText('Participant');
  await site.getByTestId('form-V1-DM').click();
  const bar = site.getByTestId('crf-pending-review');
  await expect(bar).toContainText('Filled in by the participant');
  await expect(inputOf(site, 'crf-input-BRTHDTC')).toHaveValue('1975-03-04');
  // each answer says where it came from
  await expect(site.getByTestId('crf-participant-BRTHDTC')).toContainText('Participant (shared link)');
  await noKeys(site);
  await shot(site, 'ddc-pending-review-en_US-1440');
  await site.getByTestId('crf-accept-review').click();
  await expect(site.locator('.ant-message')).toContainText('Answers accepted');
  await expect(bar).toHaveCount(0);
  await site.keyboard.press('Escape');
  await expect(site.getByTestId('form-pending-V1-DM')).toHaveCount(0);
  await expect(site.getByTestId('form-status-V1-DM')).toContainText('Completed');

  // ── /DDC/share: the link is used and its answers accepted ──
  await dm.goto('/DDC/share');
  await expect(dm.getByTestId('ddc-share-page')).toBeVisible();
  await dm.getByTestId('ddc-filter-keyword').locator('input').fill(NO);
  await dm.getByTestId('ddc-filter-keyword').locator('input').press('Enter');
  const row = dm.locator('.ant-table-row').filter({ hasText: NO });
  await expect(row).toHaveCount(1);
  await expect(row).toContainText('Used');
  await expect(row).toContainText('Accepted');
  await noKeys(dm);
  await shot(dm, 'ddc-share-list-en_US-1440');
  await setPageLanguage(dm, 'zh_CN');
  await dm.getByTestId('ddc-filter-keyword').locator('input').fill(NO);
  await dm.getByTestId('ddc-filter-keyword').locator('input').press('Enter');
  await expect(dm.locator('.ant-table-row').filter({ hasText: NO })).toContainText('已使用');
  await noKeys(dm);
  await shot(dm, 'ddc-share-list-zh_CN-1440');
  await dm.setViewportSize(PHONE);
  await dm.waitForTimeout(300);
  await shot(dm, 'ddc-share-list-zh_CN-390');
  await dm.setViewportSize(DESKTOP);
  await dm.context().close();
  await site.context().close();
});

test('the data manager creates a link from /DDC/share, copies it again and revokes it; the revoked link is refused', async ({
  browser,
}) => {
  const dm = await openAs(
    browser,
    'dm',
    1,
    `/project/SickFile?proId=1&ptsId=${subject.ptsId}&ptsNo=${NO}&activeKey=pts360`,
    'en_US',
  );
  await expect(dm.getByTestId('visit-V1')).toBeVisible();
  await dm.goto('/DDC/share');
  await dm.getByTestId('ddc-new').click();
  const dialog = dm.locator('.ant-modal').filter({ has: dm.getByTestId('share-form') });
  await dialog.getByTestId('share-subject').click();
  await dm.keyboard.type(NO);
  await dm
    .locator('.ant-select-dropdown:not(.ant-select-dropdown-hidden) .ant-select-item-option')
    .filter({ hasText: NO })
    .first()
    .click();
  await dialog.getByTestId('share-visit').click();
  await dm
    .locator('.ant-select-dropdown:not(.ant-select-dropdown-hidden) .ant-select-item-option')
    .filter({ hasText: 'V1' })
    .first()
    .click();
  await dialog.getByTestId('share-form-select').click();
  // the completed Demographics form cannot be chosen; vital signs can
  await expect(
    dm.locator('.ant-select-dropdown:not(.ant-select-dropdown-hidden) .ant-select-item-option-disabled'),
  ).toContainText('Demographics');
  await dm
    .locator('.ant-select-dropdown:not(.ant-select-dropdown-hidden) .ant-select-item-option')
    .filter({ hasText: 'Vital signs' })
    .click();
  await noKeys(dm);
  await dm.waitForTimeout(300);
  await dm
    .locator('.ant-modal-container')
    .filter({ has: dm.getByTestId('share-form') })
    .screenshot({ path: path.join(ARTIFACTS, 'ddc-share-new-en_US.png') });
  await dialog.getByTestId('share-create').click();
  const url = (await dm.getByTestId('share-url').innerText()).trim();
  await dm.getByTestId('share-done').click();
  const row = dm.locator('.ant-table-row').filter({ hasText: 'Vital signs' }).filter({ hasText: NO });
  await expect(row).toContainText('Active');
  // the link can be shown again (with its QR code) while it is active
  const id = (await row.getAttribute('data-row-key'))!;
  await dm.getByTestId(`share-show-${id}`).click();
  await expect(dm.getByTestId('share-url')).toHaveText(url);
  await dm.keyboard.press('Escape');
  await dm.getByTestId(`share-revoke-${id}`).click();
  await dm.getByTestId('share-revoke-reason').fill('Wrong visit');
  await dm.getByTestId('share-revoke-ok').click();
  await expect(dm.getByTestId(`share-status-${id}`)).toHaveText('Revoked');
  await expect(dm.getByTestId(`share-revoke-${id}`)).toHaveCount(0);

  const phoneCtx = await browser.newContext({ viewport: PHONE });
  const phone = await phoneCtx.newPage();
  await phone.goto(new URL(url).pathname);
  await expect(phone.getByTestId('shared-refused-message')).toContainText('此链接已被研究团队撤回');
  await shot(phone, 'ddc-shared-revoked-zh_CN-390');
  await phoneCtx.close();

  // the settings pages (what shared forms show, which forms may be shared)
  await dm.goto('/project/microCrfConfig');
  await expect(dm.getByTestId('micro-crf-config-page')).toBeVisible();
  await expect(dm.getByTestId('crf-config-preview')).toContainText('0****12');
  await noKeys(dm);
  await shot(dm, 'ddc-micro-crf-config-en_US-1440');
  await dm.goto('/project/microDCConfig');
  await expect(dm.getByTestId('micro-dc-config-page')).toBeVisible();
  await noKeys(dm);
  await shot(dm, 'ddc-micro-dc-config-en_US-1440');
  await setPageLanguage(dm, 'zh_CN');
  await expect(dm.getByTestId('micro-dc-config-page')).toContainText('数据采集设置');
  await noKeys(dm);
  await shot(dm, 'ddc-micro-dc-config-zh_CN-1440');
  await dm.goto('/project/microCrfConfig');
  await expect(dm.getByTestId('micro-crf-config-page')).toContainText('分享表单显示设置');
  await shot(dm, 'ddc-micro-crf-config-zh_CN-1440');
  await dm.context().close();
});

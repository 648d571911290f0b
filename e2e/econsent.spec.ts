import path from 'node:path';
import { expect, test, type Browser, type Page } from '@playwright/test';
import type { EcParticipantPage } from '@esource/shared';
import { ARTIFACTS, apiLogin, noKeys, openLoggedIn, setLanguage, shootBoth, type Variant } from './helpers';

/**
 * E-consent participants (issue 15 item 7): the data manager connects the project environment to the e-consent system
 * (the development list) from the subject list's "Import from e-consent" drawer; a site coordinator lists the
 * participants of her site (names shown to her, not to the data manager), adds a consented one as a subject, finds it
 * in the subject list with status Informed Consent, and sees that it cannot be added twice nor a participant without
 * signed consent.
 */
async function open(
  browser: Browser,
  account: string,
  type: number,
  variant: Variant,
  url: string,
  lang: 'en_US' | 'zh_CN' = 'en_US',
) {
  const ctx = await browser.newContext();
  const page = await ctx.newPage();
  const s = await apiLogin(ctx.request, account, type, variant);
  await openLoggedIn(page, s, variant, `${url}?proId=1`, lang);
  // the first load of a new context may be slow when the machine is busy
  await expect(page.getByTestId('project-label')).toContainText('DEMO-001', { timeout: 60_000 });
  return { page, token: s.token };
}

async function shot(page: Page, name: string) {
  await page.waitForTimeout(400);
  await page.screenshot({ path: path.join(ARTIFACTS, `${name}.png`) });
}

const row = (page: Page, text: string) =>
  page.getByTestId('ec-table').locator('tr.ant-table-row').filter({ hasText: text });

test('the data manager connects the e-consent system; a site coordinator adds a consented participant as a subject, once', async ({
  browser,
}) => {
  test.setTimeout(480_000);

  // ── the data manager: no connection yet → set up the development list ──
  const dm = await open(browser, 'dm', 1, 'main', '/project/centerPtsList');
  await dm.page.getByTestId('subject-econsent').click();
  await expect(dm.page.getByTestId('ec-drawer')).toBeVisible();
  const notConfigured = dm.page.getByTestId('ec-not-configured');
  const table = dm.page.getByTestId('ec-table');
  await expect(notConfigured.or(table)).toBeVisible();
  if (await notConfigured.isVisible()) {
    await shot(dm.page, 'econsent-not-configured-en');
    await dm.page.getByTestId('ec-setup').click();
    await expect(dm.page.getByTestId('ec-config-modal')).toBeVisible();
    await expect(dm.page.getByTestId('ec-config-name')).toHaveValue('E-consent system');
    await shot(dm.page, 'econsent-config-en');
    await dm.page
      .locator('.ant-modal')
      .filter({ has: dm.page.getByTestId('ec-config-modal') })
      .locator('.ant-btn-primary')
      .click();
    await expect(dm.page.getByTestId('ec-config-modal')).toHaveCount(0);
  }
  await expect(dm.page.getByTestId('ec-provider')).toContainText('Development list');
  // the data manager does not see identifiers: initials and birth years only
  await expect(dm.page.getByTestId('ec-drawer')).toContainText(
    'Names and full birth dates are shown only to roles that may see subject identifiers',
  );
  await expect(table.locator('tr.ant-table-row').first()).toBeVisible();
  await noKeys(dm.page);
  await dm.page.context().close();

  // ── the site coordinator of site 01 ──
  const crc = await open(browser, 'crc1', 3, 'site', '/project/sickLoop');
  const page = crc.page;
  // a consented participant of her site not added yet (the journeys share the database: find our own row)
  const res = await page.request.post('/api/cloud/project/managePts/ec/participant/query', {
    headers: { token: crc.token, proId: '1', proType: 'PRO', language: 'en_US' },
    form: { consented: 'true', added: 'false', pageSize: 50 },
  });
  const list = ((await res.json()) as { data: EcParticipantPage }).data;
  const target = list.content.find((p) => p.refusal === null && p.subject === null)!;
  expect(target, 'an addable participant').toBeTruthy();

  await page.getByTestId('subject-econsent').click();
  await expect(page.getByTestId('ec-provider')).toBeVisible();
  // her own site only, names shown to her
  await expect(page.getByTestId('ec-drawer')).not.toContainText('Names and full birth dates are shown only');
  await expect(page.getByTestId('ec-table').locator('tr.ant-table-row').first()).toBeVisible();
  await shootBoth(page, 'econsent-drawer-en');

  // a participant without signed consent says why it cannot be added (the "not yet added" filter stays on)
  await page.getByTestId('ec-filter-status').click();
  await page
    .locator('.ant-select-dropdown:not(.ant-select-dropdown-hidden) .ant-select-item-option')
    .filter({ hasText: 'Invited, not signed' })
    .click();
  const pending = page.getByTestId('ec-table').locator('tr.ant-table-row').first();
  await expect(pending).toContainText('no signed consent in the e-consent system');
  await expect(pending.locator('input[type="checkbox"]')).toBeDisabled();
  await page.getByTestId('ec-filter-status').locator('.ant-select-clear').click({ force: true });

  // add the chosen one
  await page.getByTestId('ec-search').locator('input').fill(target.screeningNo);
  await page.getByTestId('ec-search').locator('input').press('Enter');
  await expect(row(page, target.screeningNo)).toHaveCount(1);
  await row(page, target.screeningNo).locator('input[type="checkbox"]').check();
  await expect(page.getByTestId('ec-add')).toContainText('Add 1 as a subject');
  await page.getByTestId('ec-add').click();
  await expect(page.locator('.ant-message')).toContainText(`${target.screeningNo} →`);
  const msg = (await page.locator('.ant-message').innerText()).trim();
  const ptsNo = /→ (\S+)/.exec(msg)![1]!;
  expect(ptsNo).toMatch(/^01-\d{3}$/);

  // the "not yet added" filter hides it now; without it the row shows its subject and cannot be chosen again
  await expect(row(page, target.screeningNo)).toHaveCount(0);
  await page.getByTestId('ec-filter-not-added').click();
  await expect(page.getByTestId(`ec-subject-${target.screeningNo}`)).toHaveText(ptsNo);
  await expect(row(page, target.screeningNo).locator('input[type="checkbox"]')).toBeDisabled();
  await noKeys(page);

  // the subject list has it, with status Informed Consent and the consent date as first visit
  await page.keyboard.press('Escape');
  await expect(page.getByTestId('ec-table')).toHaveCount(0);
  await page.getByTestId('subject-search').locator('input').fill(ptsNo);
  await page.getByTestId('subject-search').locator('input').press('Enter');
  const subjectRow = page.getByTestId('subject-table').locator('tr.ant-table-row').filter({ hasText: ptsNo });
  await expect(subjectRow).toContainText('Informed Consent');
  await expect(subjectRow).toContainText(target.consentDate!);

  // in Chinese, and on a phone
  await setLanguage(page, 'zh_CN');
  await page.getByTestId('subject-econsent').click();
  await expect(page.getByTestId('ec-drawer')).toContainText('电子知情同意系统中的参与者');
  await expect(page.getByTestId('ec-table').locator('tr.ant-table-row').first()).toBeVisible();
  await noKeys(page);
  await shot(page, 'econsent-drawer-zh');
  await page.setViewportSize({ width: 390, height: 844 });
  await page.waitForTimeout(400);
  await shot(page, 'econsent-drawer-390');
  await page.context().close();
});

test('a monitor, who may not add subjects, has no e-consent import', async ({ browser }) => {
  const cra = await open(browser, 'cra', 2, 'main', '/project/craPtsList');
  await expect(cra.page.getByTestId('subject-table')).toBeVisible();
  await expect(cra.page.getByTestId('subject-econsent')).toHaveCount(0);
  const res = await cra.page.request.post('/api/cloud/project/managePts/ec/participant/query', {
    headers: { token: cra.token, proId: '1', proType: 'PRO', language: 'en_US' },
    form: { pageSize: 50 },
  });
  expect(res.status()).toBe(403);
  await cra.page.context().close();
});

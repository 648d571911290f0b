import { expect, test, type Browser, type Page } from '@playwright/test';
import path from 'node:path';
import {
  ARTIFACTS,
  apiLogin,
  openLoggedIn,
  setLanguage,
  uiLogin,
  untranslatedKeys,
  visibleText,
} from './helpers';

/**
 * Study build journeys (issue 4 items 1, 2, 4, 5): a data manager creates a project, adds two sites, invites a
 * site coordinator limited to one site in UAT; the coordinator sees only that site; closing the project hides
 * the edit buttons and the server refuses a write sent by hand.
 */
test.describe.configure({ mode: 'serial', timeout: 180_000 });

const STAMP = Date.now().toString(36).slice(-6).toUpperCase();
const NO = `E2E-${STAMP}`;
const NAME = `E2E study ${STAMP}`;

async function pick(page: Page, testId: string, text: string, search = true): Promise<void> {
  await page.getByTestId(testId).click();
  if (search) await page.keyboard.type(text);
  await page
    .locator('.ant-select-dropdown:not(.ant-select-dropdown-hidden) .ant-select-item-option')
    .filter({ hasText: text })
    .first()
    .click();
}

async function switchEnv(page: Page, env: 'DEV' | 'UAT' | 'PRO'): Promise<void> {
  const current = page.getByTestId('env-switch');
  if ((await current.innerText()).includes(env)) return;
  const onOverview = /\/overview/.test(page.url());
  await current.click();
  await page.getByTestId(`env-${env}`).click();
  await expect(page.getByTestId('env-switch')).toContainText(env);
  // on the overview the switch stays there; inside a project it re-enters the project in the new environment
  // (or goes home where the user is no member there)
  if (onOverview) await expect(page).toHaveURL(/\/overview/);
  // on the overview the switch reloads the page (spec §4)
  await page.waitForTimeout(1500);
  await page.waitForLoadState('load');
  await expect(page.getByTestId('app-shell')).toBeVisible();
}

async function enterProject(page: Page, no: string): Promise<void> {
  await page.goto('/overview');
  await page.getByTestId('project-card').filter({ hasText: no }).first().click();
  await expect(page.getByTestId('project-label')).toContainText(no);
}

async function shot(page: Page, name: string): Promise<void> {
  await page.waitForTimeout(300);
  await page.screenshot({ path: path.join(ARTIFACTS, name), fullPage: true });
}

async function dialogOk(page: Page, testId: string): Promise<void> {
  await page
    .locator('.ant-modal')
    .filter({ has: page.getByTestId(testId) })
    .locator('.ant-modal-footer .ant-btn-primary')
    .click();
}

async function dialogCancel(page: Page, testId: string): Promise<void> {
  await page
    .locator('.ant-modal')
    .filter({ has: page.getByTestId(testId) })
    .locator('.ant-modal-footer .ant-btn')
    .first()
    .click();
  await expect(page.getByTestId(testId)).toHaveCount(0);
}

async function addSite(page: Page, org: string, no: string): Promise<void> {
  await page.getByTestId('site-add').click();
  await pick(page, 'site-org', org);
  await page.getByTestId('site-no').fill(no);
  await dialogOk(page, 'site-dialog');
  await expect(page.getByTestId('site-dialog')).toHaveCount(0);
  await expect(page.getByTestId('sites-table')).toContainText(no);
}

/** The <input> of an antd input that carries the test id itself or wraps it. */
async function inputOf(page: Page, testId: string) {
  const el = page.getByTestId(testId).first();
  return (await el.evaluate((e) => e.tagName)) === 'INPUT' ? el : el.locator('input').first();
}

async function newPage(browser: Browser): Promise<Page> {
  const ctx = await browser.newContext({ viewport: { width: 1440, height: 900 } });
  return ctx.newPage();
}

test('data manager creates a project (server field errors on the fields), then edits it', async ({
  page,
  request,
}) => {
  const s = await apiLogin(request, 'dm', 1, 'main');
  await openLoggedIn(page, s, 'main', '/overview');
  await switchEnv(page, 'DEV');
  await enterProject(page, 'DEMO-001');
  await page.getByTestId('menu-projectManage').click();
  await expect(page.getByTestId('project-manage-page')).toBeVisible();
  await expect(page.getByTestId('project-table')).toContainText('DEMO-001');
  await expect(page.getByTestId('open-project-card')).toContainText('DEMO-001');

  // a number that exists: the server's DUPLICATE shows on the number field
  await page.getByTestId('project-create').click();
  await page.getByTestId('project-no').fill('DEMO-001');
  await page.getByTestId('project-name').fill(NAME);
  await dialogOk(page, 'project-dialog');
  await expect(page.getByTestId('project-dialog').locator('.ant-form-item-explain-error')).toContainText(
    'DEMO-001',
  );
  // the number field takes at most 20 characters: what was typed stays, and the limit is named
  await page.getByTestId('project-no').fill('X'.repeat(25));
  await expect(page.getByTestId('project-no')).toHaveValue('X'.repeat(25));
  await expect(page.getByTestId('project-dialog')).toContainText('The project number has at most 20 characters');

  await page.getByTestId('project-no').fill(NO);
  await page.getByTestId('project-scene').getByText('End-to-end (E2E)').click();
  await dialogOk(page, 'project-dialog');
  await expect(page.getByTestId('project-created')).toBeVisible();
  await page.getByTestId('project-created-enter').click();
  await expect(page.getByTestId('project-label')).toContainText(NO);
  await expect(page).toHaveURL(/\/project\/ProjectManage/);
  await expect(page.getByTestId('open-project-card')).toContainText(NAME);
  await expect(page.getByTestId('open-project-card')).toContainText('End-to-end (E2E)');

  // edit the open project
  await page.getByTestId('project-edit').click();
  await page.getByTestId('project-name').fill(`${NAME} (edited)`);
  await dialogOk(page, 'project-dialog');
  await expect(page.getByTestId('open-project-card')).toContainText(`${NAME} (edited)`);

  // copy it, open the copy and delete it (no subject data yet)
  await page.getByTestId('project-copy').click();
  await page.getByTestId('copy-no').fill(`${NO}-C`);
  await dialogOk(page, 'copy-dialog');
  await expect(page.getByTestId('copy-dialog')).toHaveCount(0);
  await expect(page.getByTestId('project-table')).toContainText(`${NO}-C`);
  await page.getByTestId(`enter-${NO}-C`).click();
  await expect(page.getByTestId('project-label')).toContainText(`${NO}-C`);
  await page.getByTestId('project-delete').click();
  await page.getByTestId('delete-confirm-no').fill('wrong');
  await dialogOk(page, 'delete-dialog');
  await expect(page.getByTestId('delete-dialog').locator('.ant-form-item-explain-error')).toContainText(
    'does not match',
  );
  await page.getByTestId('delete-confirm-no').fill(`${NO}-C`);
  await dialogOk(page, 'delete-dialog');
  await expect(page).toHaveURL(/\/overview/);
  await expect(page.getByTestId('project-card').filter({ hasText: `${NO}-C` })).toHaveCount(0);
  await enterProject(page, NO);
  await page.goto('/project/ProjectManage');

  // search and a filter that matches nothing
  const search = await inputOf(page, 'project-search');
  await search.fill(NO);
  await search.press('Enter');
  await expect(page.getByTestId('project-table').locator('tbody tr.ant-table-row')).toHaveCount(1);
  await pick(page, 'filter-status', 'Closed', false);
  await expect(page.getByTestId('project-table')).toContainText('No project matches');
  expect(untranslatedKeys(await visibleText(page))).toEqual([]);
});

test('someone else changes the project while the dialog is open: their change is named and can be reloaded', async ({
  page,
  request,
}) => {
  const s = await apiLogin(request, 'dm', 1, 'main');
  await openLoggedIn(page, s, 'main', '/overview');
  await switchEnv(page, 'DEV');
  await enterProject(page, NO);
  await page.goto('/project/ProjectManage');
  await page.getByTestId('project-edit').click();
  await expect(page.getByTestId('project-dialog')).toBeVisible();

  // the same change sent from elsewhere, with the version the dialog also holds
  const token = await page.evaluate(
    () => (JSON.parse(localStorage.getItem('esource.session') ?? '{}') as { token: string }).token,
  );
  const list = await request.post('/api/pro/info/page', {
    form: { pageNumber: 1, pageSize: 50, keyword: NO },
    headers: { token, proType: 'DEV' },
  });
  const id = ((await list.json()) as { data: { content: { id: number; no: string }[] } }).data.content.find(
    (p) => p.no === NO,
  )!.id;
  const headers = { token, proId: String(id), proType: 'DEV' };
  const got = await request.post('/api/pro/info/get', { headers });
  const version = ((await got.json()) as { data: { version: number } }).data.version;
  const changed = await request.post('/api/pro/info/update', {
    form: { id, version, configFiveFunction: '01111' },
    headers,
  });
  expect(changed.status()).toBe(200);

  // the five functions are check boxes (configFiveFunction, one 0/1 character each): switch SDV/SDR off
  const fn = (k: string) => page.getByTestId('project-five').locator('label').filter({ has: page.getByTestId(`project-fn-${k}`) }).locator('input');
  await fn('verification').uncheck();
  await dialogOk(page, 'project-dialog');
  await expect(page.getByTestId('project-stale')).toContainText('Dana Manager');
  await page.getByTestId('project-reload').click();
  await expect(page.getByTestId('project-stale')).toHaveCount(0);
  // their change (queries off) is what the dialog shows now
  await expect(fn('queries')).not.toBeChecked();
  await expect(fn('verification')).toBeChecked();
  await fn('verification').uncheck();
  await dialogOk(page, 'project-dialog');
  await expect(page.getByTestId('project-dialog')).toHaveCount(0);
  await expect(page.getByTestId('project-function-queries')).toHaveAttribute('data-on', 'false');
  await expect(page.getByTestId('project-function-verification')).toHaveAttribute('data-on', 'false');
  await expect(page.getByTestId('project-function-safety')).toHaveAttribute('data-on', 'true');
});

test('two sites in DEV; in UAT two sites and crc1 invited for one of them; DEV explains the DM-only rule', async ({
  page,
  request,
}) => {
  const s = await apiLogin(request, 'dm', 1, 'main');
  await openLoggedIn(page, s, 'main', '/overview');
  await switchEnv(page, 'DEV');
  await enterProject(page, NO);
  await page.goto('/project/centerList');
  await expect(page.getByTestId('sites-page')).toBeVisible();
  await addSite(page, 'Demo City Hospital', 'S01');
  await addSite(page, 'Demo University Hospital', 'S02');
  await expect(page.getByTestId('sites-table').locator('tbody tr.ant-table-row')).toHaveCount(2);
  // a site number already used: DUPLICATE on the field
  await page.getByTestId('site-add').click();
  await pick(page, 'site-org', 'eSource Central');
  await page.getByTestId('site-no').fill('S01');
  await dialogOk(page, 'site-dialog');
  await expect(page.getByTestId('site-dialog').locator('.ant-form-item-explain-error')).toContainText(
    'already used',
  );
  await dialogCancel(page, 'site-dialog');

  // DEV: only data-manager roles, and the dialog says why
  await page.goto('/project/user-manage');
  await page.getByTestId('member-add').click();
  await expect(page.getByTestId('dev-dm-note')).toContainText('data-manager');
  await page.getByTestId('member-role').click();
  const roles = page.locator('.ant-select-dropdown:not(.ant-select-dropdown-hidden) .ant-select-item-option');
  await expect(roles.first()).toBeVisible();
  expect(await roles.allInnerTexts()).toEqual([expect.stringContaining('DM')]);
  await page.keyboard.press('Escape');
  await dialogCancel(page, 'member-dialog');

  // UAT has its own sites
  await switchEnv(page, 'UAT');
  await enterProject(page, NO);
  await page.goto('/project/centerList');
  await expect(page.getByTestId('sites-env')).toHaveText('UAT');
  await expect(page.getByTestId('sites-table').locator('tbody tr.ant-table-row')).toHaveCount(0);
  await addSite(page, 'Demo City Hospital', 'U01');
  await addSite(page, 'Demo University Hospital', 'U02');

  await page.goto('/project/user-manage');
  await expect(page.getByTestId('team-page')).toBeVisible();
  await page.getByTestId('member-invite').click();
  await page.getByTestId('member-account').fill('crc1');
  // the data ranges as the server explains them (/sys/range/listRange)
  await expect(page.getByTestId('member-dialog')).toContainText('Only the sites named in the membership');
  await pick(page, 'member-role', 'CRC', false);
  await pick(page, 'member-sites', 'U01', false);
  await page.locator('.ant-modal-title').click(); // closes the dropdown, not the dialog
  await dialogOk(page, 'member-dialog');
  await expect(page.getByTestId('member-dialog')).toHaveCount(0);
  const row = page.getByTestId('team-table').locator('tr.ant-table-row', { hasText: 'crc1' });
  await expect(row).toContainText('U01');
  await expect(row).not.toContainText('U02');
  await shot(page, 'project-team-en.png');

  // a message to the chosen members
  await page
    .getByTestId('team-table')
    .locator('tr.ant-table-row', { hasText: 'crc1' })
    .locator('.ant-checkbox-input')
    .check();
  await page.getByTestId('member-message').click();
  await page.getByTestId('message-title').fill('Welcome to the study');
  await page.getByTestId('message-content').fill('Your site is U01.');
  await dialogOk(page, 'message-dialog');
  await expect(page.getByTestId('message-dialog')).toHaveCount(0);
  await expect(page.getByText('Message sent to 1 members')).toBeVisible();

  // the principal investigator is chosen from the team
  await page.goto('/project/centerList');
  await page.getByTestId('site-edit-U01').click();
  await pick(page, 'site-pi', 'Amy Coordinator', false);
  await dialogOk(page, 'site-dialog');
  await expect(page.getByTestId('site-dialog')).toHaveCount(0);
  await expect(page.getByTestId('sites-table').locator('tr.ant-table-row', { hasText: 'U01' })).toContainText(
    'Amy Coordinator',
  );
  await shot(page, 'project-sites-en.png');
  await page.goto('/project/user-manage');

  // the site filter finds crc1 at U01 and not at U02
  await pick(page, 'filter-site', 'U02', false);
  await expect(page.getByTestId('team-table')).not.toContainText('crc1');
  await page.getByTestId('filter-site').hover();
  await page.getByTestId('filter-site').locator('.ant-select-clear').click();

  // Excel export with the filters
  const download = page.waitForEvent('download');
  await page.getByTestId('member-export').click();
  expect((await download).suggestedFilename()).toMatch(/team-UAT\.xlsx$/);
  expect(untranslatedKeys(await visibleText(page))).toEqual([]);
});

test('crc1 logs in on the site login, enters the project and sees only their site', async ({ browser }) => {
  const page = await newPage(browser);
  await uiLogin(page, 'crc1', 'site');
  await switchEnv(page, 'UAT');
  await enterProject(page, NO);
  await page.goto('/project/centerList');
  await expect(page.getByTestId('sites-page')).toBeVisible();
  const rows = page.getByTestId('sites-table').locator('tbody tr.ant-table-row');
  await expect(rows).toHaveCount(1);
  await expect(rows.first()).toContainText('U01');
  await expect(page.getByTestId('site-add')).toHaveCount(0);
  await page.context().close();
});

test('closing the project hides the edit buttons; a write sent by hand is refused with 403', async ({
  page,
  request,
}) => {
  const s = await apiLogin(request, 'dm', 1, 'main');
  await openLoggedIn(page, s, 'main', '/overview');
  await switchEnv(page, 'UAT');
  await enterProject(page, NO);
  await page.goto('/project/ProjectManage');
  await expect(page.getByTestId('project-edit')).toBeVisible();
  await page.getByTestId('project-close').click();
  // the reason is required
  await dialogOk(page, 'status-dialog');
  await expect(page.getByTestId('status-dialog').locator('.ant-form-item-explain-error')).toContainText(
    'reason',
  );
  await page.getByTestId('status-reason').fill('Study completed (e2e)');
  await dialogOk(page, 'status-dialog');
  await expect(page.getByTestId('open-project-status')).toHaveText('Closed');
  await expect(page.getByTestId('closed-notice')).toBeVisible();
  await expect(page.getByTestId('project-edit')).toHaveCount(0);
  await expect(page.getByTestId('project-copy')).toHaveCount(0);
  await expect(page.getByTestId('project-delete')).toHaveCount(0);
  await expect(page.getByTestId('project-status')).toBeVisible(); // project:info:status stays (spec §4)
  await expect(page.getByTestId('project-closed')).toBeVisible();
  await shot(page, 'project-manage-closed-en.png');

  await page.goto('/project/centerList');
  await expect(page.getByTestId('sites-table')).toContainText('U01');
  await expect(page.getByTestId('site-add')).toHaveCount(0);
  await expect(page.getByTestId('site-edit-U01')).toHaveCount(0);
  await page.goto('/project/user-manage');
  await expect(page.getByTestId('team-table')).toContainText('crc1');
  await expect(page.getByTestId('member-invite')).toHaveCount(0);
  await expect(page.getByTestId('member-edit-crc1')).toHaveCount(0);
  await expect(page.getByTestId('member-export')).toBeVisible(); // export stays

  // the same write the hidden button would have sent
  const token = await page.evaluate(
    () => (JSON.parse(localStorage.getItem('esource.session') ?? '{}') as { token: string }).token,
  );
  const info = await request.post('/api/pro/info/page', {
    form: { pageNumber: 1, pageSize: 50, keyword: NO },
    headers: { token, proType: 'UAT' },
  });
  const id = ((await info.json()) as { data: { content: { id: number }[] } }).data.content[0]!.id;
  const res = await page.request.post('/api/pro/site/add', {
    form: { orgId: 1, siteNo: 'X99' },
    headers: { token, proId: String(id), proType: 'UAT' },
  });
  expect(res.status()).toBe(403);
  const upd = await page.request.post('/api/pro/info/update', {
    form: { id, version: 1, name: 'hacked' },
    headers: { token, proId: String(id), proType: 'UAT' },
  });
  expect(upd.status()).toBe(403);
});

test('visit plan: the demo project’s published v1.0 visits, read-only; a new version in DEV can be edited', async ({
  page,
  request,
}) => {
  const s = await apiLogin(request, 'dm', 1, 'main');
  await openLoggedIn(page, s, 'main', '/overview');
  await switchEnv(page, 'UAT');
  await enterProject(page, 'DEMO-001');
  // the new route is in the menu, under the project settings
  await page.getByTestId('side-menu').getByText('Settings', { exact: true }).click();
  await page.getByTestId('menu-design').click();
  await expect(page.getByTestId('design-page')).toBeVisible();
  await expect(page.getByTestId('design-env-notice')).toBeVisible();
  await expect(page.getByTestId('version-v1.0')).toContainText('Published');
  const table = page.getByTestId('visits-table');
  for (const code of ['V1', 'V2', 'V3', 'UNS']) await expect(table).toContainText(code);
  await expect(table.locator('tr.ant-table-row', { hasText: 'V3' })).toContainText('−3 / +7');
  await expect(table.locator('tr.ant-table-row', { hasText: 'UNS' })).toContainText('Unscheduled');
  for (const code of ['V1', 'V2', 'V3']) await expect(page.getByTestId(`timeline-${code}`)).toHaveCount(1);
  await expect(page.getByTestId('timeline-UNS')).toHaveCount(0);
  await expect(page.getByTestId('design-readonly')).toBeVisible();
  await expect(page.getByTestId('visit-add')).toHaveCount(0);
  await expect(page.getByTestId('version-new')).toHaveCount(0);
  await page.getByRole('tab', { name: /Forms/ }).click();
  await expect(page.getByTestId('forms-table')).toContainText('VS');
  await expect(page.getByTestId('form-open-DM')).toHaveAttribute(
    'href',
    /\/project\/microCrfConfig\?versionId=\d+&formId=\d+/,
  );
  await shot(page, 'project-design-forms-en.png');

  // DEV: a new version is a copy of v1.0 and can be changed; v1.0 stays locked
  await switchEnv(page, 'DEV');
  await enterProject(page, 'DEMO-001');
  await page.goto('/project/design');
  await page.getByTestId('version-new').click();
  await page.getByTestId('version-name').fill(`v-${STAMP}`);
  await dialogOk(page, 'new-version-dialog');
  await expect(page.getByTestId('version-detail')).toContainText(`v-${STAMP}`);
  await expect(page.getByTestId('version-detail')).toContainText('Unpublished');
  await expect(page.getByTestId('visits-table')).toContainText('V3');
  await page.getByTestId('visit-add').click();
  await page.getByTestId('visit-code').fill('V4');
  await page.getByTestId('visit-name').fill('Week 8');
  await (await inputOf(page, 'visit-day')).fill('56');
  await (await inputOf(page, 'visit-before')).fill('7');
  await (await inputOf(page, 'visit-after')).fill('7');
  await pick(page, 'visit-forms', 'VS', false);
  await page.locator('.ant-modal-title').click(); // closes the dropdown, not the dialog
  await dialogOk(page, 'visit-dialog');
  await expect(page.getByTestId('visit-dialog')).toHaveCount(0);
  await expect(page.getByTestId('visits-table').locator('tr.ant-table-row', { hasText: 'V4' })).toContainText(
    '−7 / +7',
  );
  await expect(page.getByTestId('timeline-V4')).toHaveCount(1);
  // a stage of the new version
  await page.getByTestId('stage-add').click();
  await page.getByTestId('stage-name').fill('Extension');
  await dialogOk(page, 'stage-dialog');
  await expect(page.getByTestId('stage-Extension')).toBeVisible();
  await shot(page, 'project-design-en.png');
  // publish it to UAT: from then on it is read-only
  await page.getByTestId('version-publish').click();
  await expect(page.getByTestId('publish-dialog')).toContainText('UAT');
  await dialogOk(page, 'publish-dialog');
  await expect(page.getByTestId('version-detail')).toContainText('Published');
  await expect(page.getByTestId('version-detail')).toContainText('UAT');
  await expect(page.getByTestId('visit-add')).toHaveCount(0);
  await expect(page.getByTestId('design-readonly')).toContainText('published');
  // export the design as one file and import it back: a new unpublished version with the same visits
  const download = page.waitForEvent('download');
  await page.getByTestId('design-export').click();
  const file = await (await download).path();
  await page.getByTestId('design-import-file').setInputFiles(file);
  await expect(page.getByTestId('version-detail')).toContainText('Unpublished');
  await expect(page.getByTestId('visits-table').locator('tr.ant-table-row', { hasText: 'V4' })).toContainText(
    '−7 / +7',
  );
  await expect(page.getByTestId('stage-Extension')).toBeVisible();
  // the same design as a CDISC ODM 1.3.2 study definition
  const odmDownload = page.waitForEvent('download');
  await page.getByTestId('design-export-more').click();
  await page.getByTestId('design-export-odm').click();
  expect((await odmDownload).suggestedFilename()).toMatch(/\.odm\.xml$/);
  await expect(page.getByTestId('version-detail')).toContainText('Unpublished');
  // the published v1.0 is still read-only
  await page.getByTestId('version-v1.0').click();
  await expect(page.getByTestId('design-readonly')).toContainText('published');
  await expect(page.getByTestId('visit-add')).toHaveCount(0);
  expect(untranslatedKeys(await visibleText(page))).toEqual([]);
  // another system's ODM export (REDCap layout, with its vendor extensions), imported into a project of its own (the
  // demo project's newest DEV version stays the demo design for the screens below; this run's project is closed by
  // now): a new version, and what the design could not hold listed, filtered by reason
  const odmNo = `ODM-${STAMP}`;
  const created = await request.post('/api/pro/info/add', {
    headers: { token: s.token },
    form: { no: odmNo, name: `ODM import ${STAMP}`, scene: 1 },
  });
  expect(created.ok(), await created.text()).toBe(true);
  await enterProject(page, odmNo);
  await page.goto('/project/design');
  await expect(page.getByTestId('design-page')).toBeVisible();
  await page
    .getByTestId('design-import-file')
    .setInputFiles(path.resolve(import.meta.dirname, '../packages/interop/src/odm/fixtures/redcap-style-odm.xml'));
  const unmapped = page.getByTestId('odm-unmapped');
  await expect(unmapped).toContainText('redcap:Variable');
  await page.getByTestId('odm-unmapped-reason').click();
  await page.locator('.ant-select-item-option', { hasText: 'Vendor attribute' }).click();
  await expect(unmapped.locator('tr.ant-table-row').first()).toContainText('vendor attribute');
  await expect(unmapped.locator('tr.ant-table-row', { hasText: 'clinical data' })).toHaveCount(0);
  await shot(page, 'project-design-odm-unmapped-en.png');
  expect(untranslatedKeys(await visibleText(page))).toEqual([]);
  await page.getByTestId('odm-unmapped-close').click();
  await expect(unmapped).toHaveCount(0);
  await expect(page.getByTestId('version-detail')).toContainText('Unpublished');
});

test('screens in Chinese', async ({ page, request }) => {
  const s = await apiLogin(request, 'dm', 1, 'main');
  await openLoggedIn(page, s, 'main', '/overview', 'zh_CN');
  await switchEnv(page, 'DEV');
  await enterProject(page, 'DEMO-001');
  await page.goto('/project/ProjectManage');
  await expect(page.getByTestId('project-manage-page')).toContainText('项目编号');
  await shot(page, 'project-manage-zh.png');
  await page.getByTestId('project-create').click();
  await expect(page.getByTestId('project-dialog')).toContainText('远程监查');
  await shot(page, 'project-create-zh.png');
  await dialogCancel(page, 'project-dialog');
  await page.goto('/project/centerList');
  await expect(page.getByTestId('sites-page')).toContainText('研究中心');
  await shot(page, 'project-sites-zh.png');
  await page.goto('/project/user-manage');
  await expect(page.getByTestId('team-page')).toContainText('团队成员');
  await page.getByTestId('member-add').click();
  await expect(page.getByTestId('dev-dm-note')).toContainText('数据管理员');
  await shot(page, 'project-member-add-zh.png');
  await dialogCancel(page, 'member-dialog');
  await page.goto('/project/design');
  await expect(page.getByTestId('visits-table')).toContainText('V2');
  await shot(page, 'project-design-zh.png');
  expect(untranslatedKeys(await visibleText(page))).toEqual([]);
  await setLanguage(page, 'en_US');
  await expect(page.getByTestId('design-page')).toContainText('Visit plan');
  await page.goto('/project/ProjectManage');
  await shot(page, 'project-manage-en.png');
});

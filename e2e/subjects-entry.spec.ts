import { expect, test, type Browser, type Locator, type Page } from '@playwright/test';
import path from 'node:path';
import { ARTIFACTS, apiLogin, DEMO_PASSWORD, openLoggedIn, untranslatedKeys, visibleText, type Variant } from './helpers';

/**
 * Issue 5 journeys: a site coordinator enrols a subject, fills the demographics form (a display condition
 * reveals the pregnancy item), saves, changes a saved value with a reason and sees its history; the other
 * site's coordinator cannot see the subject; the monitor sees it with masked identifiers; two sessions edit the
 * same form and the second save is refused without losing its input; delete to the recycle bin and restore;
 * the investigator certifies the form and it becomes read-only.
 */
test.describe.configure({ mode: 'serial', timeout: 180_000 });

const STAMP = Date.now().toString(36).slice(-6).toUpperCase();
const NO = `E2E-${STAMP}`;
const MR = `MR${STAMP}`;
const ID_CARD = '11010519491231002X';
let detailUrl = '';

const users: Record<string, { account: string; type: number; variant: Variant; list: string }> = {
  crc1: { account: 'crc1', type: 3, variant: 'site', list: '/project/sickLoop' },
  crc2: { account: 'crc2', type: 3, variant: 'site', list: '/project/sickLoop' },
  pi: { account: 'pi', type: 3, variant: 'site', list: '/project/sickLoop' },
  cra: { account: 'cra', type: 2, variant: 'main', list: '/project/craPtsList' },
};

async function open(
  browser: Browser,
  who: keyof typeof users,
  url: string,
  lang: 'en_US' | 'zh_CN' = 'en_US',
): Promise<Page> {
  const u = users[who]!;
  const ctx = await browser.newContext();
  const page = await ctx.newPage();
  const s = await apiLogin(ctx.request, u.account, u.type, u.variant);
  await openLoggedIn(
    page,
    s,
    u.variant,
    url.includes('proId=') ? url : `${url}${url.includes('?') ? '&' : '?'}proId=1`,
    lang,
  );
  await expect(page.getByTestId('project-label')).toContainText('DEMO-001');
  return page;
}

async function shot(page: Page, name: string): Promise<void> {
  await page.waitForTimeout(400);
  await page.screenshot({ path: path.join(ARTIFACTS, name), fullPage: true });
}

/** The input of a date picker whose test id may sit on the input or its wrapper. */
const dateInput = (page: Page, id: string): Locator =>
  page.locator(`input[data-testid="${id}"], [data-testid="${id}"] input`).first();

async function typeDate(page: Page, id: string, value: string): Promise<void> {
  const input = dateInput(page, id);
  await input.click();
  await input.fill(value);
  await input.press('Enter');
  await expect(input).toHaveValue(value);
}

async function pickOption(page: Page, testId: string, text: string): Promise<void> {
  await page.getByTestId(testId).click();
  await page
    .locator('.ant-select-dropdown:not(.ant-select-dropdown-hidden) .ant-select-item-option')
    .filter({ hasText: text })
    .first()
    .click();
}

async function openDm(page: Page): Promise<void> {
  await page.getByTestId('form-V1-DM').click();
  await expect(page.getByTestId('crf-entry')).toBeVisible();
  await expect(page.getByTestId('crf-title')).toContainText('Demographics');
}

const daysAgo = (n: number) => new Date(Date.now() - n * 86_400_000).toISOString().slice(0, 10);

test('crc1 enrols a subject, fills V1 / DM with a display condition, changes a value with a reason and sees its history', async ({
  browser,
}) => {
  const page = await open(browser, 'crc1', '/project/sickLoop');
  // display conditions are interpreted, never eval'd: the CSP (no 'unsafe-eval') refuses nothing on this form
  const refused: string[] = [];
  page.on('console', (m) => {
    if (/Refused to|Content Security Policy/i.test(m.text())) refused.push(m.text());
  });
  await expect(page.getByTestId('subject-list-page')).toBeVisible();
  await page.getByTestId('subject-add').click();
  // crc1 has one site: it is chosen already
  await expect(page.getByTestId('subject-form')).toContainText('01');
  await page.getByTestId('subject-no').fill(NO);
  // 12 days ago: V1 (day 0, no window) is overdue, V2 (day 14 ± 3) is in its window
  await typeDate(page, 'subject-first-visit', daysAgo(12));
  await page.getByTestId('subject-medicalRecordId').fill(MR);
  // a bad ID card is refused in the form
  await page.getByTestId('subject-idCard').fill('110105194912310021');
  await page.getByTestId('subject-save').click();
  await expect(page.getByTestId('subject-form')).toContainText('ID number format is not correct');
  await page.getByTestId('subject-idCard').fill(ID_CARD);
  await page.getByTestId('subject-save').click();
  await expect(page.getByTestId(`subject-link-${NO}`)).toBeVisible();
  await expect(page.getByTestId(`subject-ids-${NO}`)).toContainText(MR);
  await expect(page.getByTestId('subject-table')).toContainText('Screening');
  await shot(page, 'subjects-list-en.png');

  await page.getByTestId(`subject-link-${NO}`).click();
  await expect(page.getByTestId('subject-detail-page')).toBeVisible();
  await expect(page).toHaveURL(/\/project\/ptsDetail\?.*ptsId=\d+.*activeKey=pts360/);
  detailUrl = new URL(page.url()).pathname + new URL(page.url()).search;
  await expect(page.getByTestId('subject-header')).toContainText(NO);
  await expect(page.getByTestId('subject-header')).toContainText(ID_CARD);
  await expect(page.getByTestId('visit-V1')).toBeVisible();
  await expect(page.getByTestId('form-status-V1-DM')).toContainText('Not started');
  await expect(page.getByTestId('detail-status')).toBeVisible();
  // a new subject is at its first visit with nothing done yet
  await expect(page.getByTestId('subject-current-visit')).toContainText('Screening');
  await expect(page.getByTestId('subject-form-progress')).toContainText('0/15');
  await shot(page, 'subjects-detail-en.png');

  await openDm(page);
  await typeDate(page, 'crf-input-BRTHDTC', '1980-05-06');
  await expect(page.getByTestId('crf-item-PREG')).toHaveCount(0);
  await page.getByTestId('crf-input-SEX').getByText('Female').click();
  // the display condition SEX == "2" reveals the pregnancy item
  await expect(page.getByTestId('crf-item-PREG')).toBeVisible();
  // Save checks required items first: the pregnancy item is required once shown
  await page.getByTestId('crf-save').click();
  await expect(page.getByTestId('crf-item-PREG')).toContainText('required', { ignoreCase: true });
  await page.getByTestId('crf-input-PREG').getByText('No').click();
  await page.getByTestId('crf-save').click();
  await expect(page.getByTestId('crf-status')).toContainText('Completed');
  expect(refused).toEqual([]);
  await shot(page, 'subjects-form-en.png');

  // changing a saved value asks for a reason for that item
  await typeDate(page, 'crf-input-BRTHDTC', '1981-05-06');
  await page.getByTestId('crf-save').click();
  await expect(page.getByTestId('reason-BRTHDTC')).toBeVisible();
  await expect(page.getByTestId('reason-ok')).toBeDisabled();
  await page.getByTestId('reason-BRTHDTC').fill('transcription error');
  await page.getByTestId('reason-ok').click();
  await expect(page.getByTestId('reason-BRTHDTC')).toHaveCount(0);
  await expect(page.getByTestId('crf-dirty')).toHaveCount(0);
  await page.getByTestId('history-BRTHDTC').click();
  const history = page.getByTestId('history-table-BRTHDTC');
  await expect(history).toContainText('1980-05-06');
  await expect(history).toContainText('1981-05-06');
  await expect(history).toContainText('transcription error');
  await expect(history).toContainText('Manual');
  await shot(page, 'subjects-form-history-en.png');
  // the completed form counts in the subject's progress, on the detail page and in the list
  await page.goto(detailUrl);
  await expect(page.getByTestId('subject-form-progress')).toContainText('1/15');
  await page.goto('/project/sickLoop');
  await expect(page.getByTestId(`subject-progress-${NO}`)).toContainText('1/15');
  await page.context().close();
});

test('crc2 (site 02) does not see the subject; the monitor sees it with masked identifiers', async ({
  browser,
}) => {
  const crc2 = await open(browser, 'crc2', '/project/sickLoop');
  await crc2.getByTestId('subject-search').locator('input').fill(NO);
  await crc2.getByTestId('subject-search').locator('input').press('Enter');
  await expect(crc2.getByTestId('subject-table')).toContainText('No subject matches');
  await expect(crc2.getByTestId(`subject-link-${NO}`)).toHaveCount(0);
  await crc2.goto(`${detailUrl}&proId=1`);
  await expect(crc2.getByTestId('subject-unavailable')).toBeVisible();
  await expect(crc2.getByTestId('subject-header')).toHaveCount(0);
  await crc2.context().close();

  const cra = await open(browser, 'cra', '/project/craPtsList');
  await cra.getByTestId('subject-search').locator('input').fill(NO);
  await cra.getByTestId('subject-search').locator('input').press('Enter');
  const ids = cra.getByTestId(`subject-ids-${NO}`);
  await expect(ids).toContainText('*');
  await expect(ids).not.toContainText(MR);
  await expect(ids).not.toContainText(ID_CARD);
  await expect(cra.getByTestId('identifiers-masked').first()).toBeVisible();
  // no write actions for a monitor
  await expect(cra.getByTestId('subject-add')).toHaveCount(0);
  await expect(cra.getByTestId(`subject-actions-${NO}`)).toHaveCount(0);
  await shot(cra, 'subjects-list-monitor-en.png');
  await cra.context().close();
});

test('two sessions edit the same form: the second save is refused with who changed what, and nothing is lost', async ({
  browser,
}) => {
  const a = await open(browser, 'crc1', detailUrl);
  const b = await open(browser, 'crc1', detailUrl);
  await openDm(a);
  await openDm(b);
  await pickOption(a, 'crf-input-ETHNIC', 'Han');
  await a.getByTestId('crf-save').click();
  await expect(a.getByTestId('crf-dirty')).toHaveCount(0);
  await expect(a.getByText('Form saved')).toBeVisible();

  await pickOption(b, 'crf-input-ETHNIC', 'Other');
  await b.getByTestId('crf-save').click();
  await expect(b.getByTestId('crf-stale')).toBeVisible();
  await expect(b.getByTestId('crf-stale-message')).toContainText('ETHNIC');
  // B's input is still on screen
  await expect(b.getByTestId('crf-input-ETHNIC')).toContainText('Other');
  await shot(b, 'subjects-form-stale-en.png');
  await b.getByTestId('crf-reload').click();
  await expect(b.getByTestId('crf-kept')).toContainText('Ethnicity');
  await expect(b.getByTestId('crf-input-ETHNIC')).toContainText('Other');
  // A's value is now the saved one: changing it needs a reason
  await b.getByTestId('crf-save').click();
  await b.getByTestId('reason-ETHNIC').fill('confirmed with the patient');
  await b.getByTestId('reason-ok').click();
  await expect(b.getByTestId('crf-stale')).toHaveCount(0);
  await expect(b.getByTestId('crf-dirty')).toHaveCount(0);
  await b.getByTestId('history-ETHNIC').click();
  await expect(b.getByTestId('history-table-ETHNIC')).toContainText('Han');
  await expect(b.getByTestId('history-table-ETHNIC')).toContainText('Other');
  await a.context().close();
  await b.context().close();
});

test('the subject is deleted to the recycle bin and restored', async ({ browser }) => {
  const page = await open(browser, 'crc1', '/project/sickLoop');
  await page.getByTestId(`subject-actions-${NO}`).click();
  await page
    .locator('.ant-dropdown:not(.ant-dropdown-hidden) .ant-dropdown-menu-item')
    .filter({ hasText: 'Delete' })
    .click();
  await page.getByTestId('subject-delete-ok').click();
  await expect(page.locator('.ant-modal')).toContainText('Please give a reason');
  await page.getByTestId('subject-delete-input').fill('enrolled twice by mistake');
  await page.getByTestId('subject-delete-ok').click();
  await expect(page.getByTestId(`subject-link-${NO}`)).toHaveCount(0);

  await page.goto('/project/failedPtsList');
  await expect(page.getByTestId('recycle-table')).toContainText(NO);
  await expect(page.getByTestId('recycle-table')).toContainText('enrolled twice by mistake');
  await shot(page, 'subjects-recycle-en.png');
  await page.getByTestId(`subject-restore-${NO}`).click();
  await page.getByTestId('subject-restore-input').fill('not a duplicate after all');
  await page.getByTestId('subject-restore-ok').click();
  await expect(page.getByTestId(`subject-restore-${NO}`)).toHaveCount(0);

  await page.goto('/project/sickLoop');
  await expect(page.getByTestId(`subject-link-${NO}`)).toBeVisible();
  // status menu: only the allowed targets, a reason for screening failed
  await page.getByTestId(`subject-actions-${NO}`).click();
  await page
    .locator('.ant-dropdown:not(.ant-dropdown-hidden) .ant-dropdown-menu-item')
    .filter({ hasText: 'Change status' })
    .click();
  const targets = page.getByTestId('status-targets');
  await expect(targets.locator('label')).toHaveText(['Enrolled', 'Screening Failed', 'Quit']);
  await targets.getByText('Enrolled').click();
  await expect(page.getByTestId('status-reason')).toHaveCount(0);
  await page.getByTestId('status-save').click();
  await expect(page.getByTestId('subject-table')).toContainText('Enrolled');
  await page.context().close();
});

test('pi certifies the form and it becomes read-only', async ({ browser }) => {
  const page = await open(browser, 'pi', detailUrl);
  // an investigator changes no subject
  await expect(page.getByTestId('subject-header')).toBeVisible();
  await expect(page.getByTestId('detail-status')).toHaveCount(0);
  await expect(page.getByTestId('detail-edit')).toHaveCount(0);
  await openDm(page);
  await expect(page.getByTestId('crf-status')).toContainText('Completed');
  // a PI may certify but not enter data
  await expect(page.getByTestId('crf-save')).toHaveCount(0);
  // certifying is an electronic signature: the meaning and the signer are shown, the password is asked again
  await page.getByTestId('crf-certify').click();
  const sign = page.locator('.signature-dialog .ant-modal');
  await expect(sign.getByTestId('signature-meaning')).toContainText('I am the investigator of this study');
  await expect(sign.getByTestId('signature-signer')).toHaveText('Dr. Ivy Investigator (pi)');
  await sign.getByTestId('signature-ok').click();
  await expect(sign).toContainText('Please enter your password to sign.');
  await sign.getByTestId('signature-password').fill('Not-my-password1!');
  await sign.getByTestId('signature-ok').click();
  await expect(sign.getByTestId('signature-error')).toContainText('Wrong password; 4 attempts left before the account is locked');
  await expect(page.getByTestId('crf-status')).toContainText('Completed');
  await shot(page, 'subjects-form-signature-en.png');
  await sign.getByTestId('signature-password').fill(DEMO_PASSWORD);
  await sign.getByTestId('signature-ok').click();
  await expect(sign).toHaveCount(0);
  await expect(page.getByTestId('crf-status')).toContainText('Certified');
  await expect(page.getByTestId('crf-certified')).toBeVisible();
  await expect(page.getByTestId('crf-input-SEX').locator('input').first()).toBeDisabled();
  await expect(dateInput(page, 'crf-input-BRTHDTC')).toHaveAttribute('readonly', /.*/);
  await expect(page.getByTestId('crf-uncertify')).toBeVisible();
  await shot(page, 'subjects-form-certified-en.png');
  await page.context().close();

  // the coordinator now sees it certified and read-only too
  const crc = await open(browser, 'crc1', detailUrl);
  await expect(crc.getByTestId('form-status-V1-DM')).toContainText('Certified');
  await openDm(crc);
  await expect(crc.getByTestId('crf-certified')).toBeVisible();
  await expect(crc.getByTestId('crf-save')).toHaveCount(0);
  await expect(crc.getByTestId('crf-save-draft')).toHaveCount(0);
  await crc.context().close();
});

test('a cycle form: add another repeat, delete a repeat with a reason; a table form', async ({ browser }) => {
  const page = await open(browser, 'crc1', detailUrl);
  await page.getByTestId('form-V2-AE').click();
  await expect(page.getByTestId('crf-title')).toContainText('Adverse events');
  await page.getByTestId('crf-input-AETERM').fill('Headache');
  await typeDate(page, 'crf-input-AESTDTC', daysAgo(1));
  await page.getByTestId('crf-save').click();
  await expect(page.getByTestId('crf-status')).toContainText('Completed');
  await page.getByTestId('crf-add-repeat').click();
  await expect(page).toHaveURL(/repeatNo=2/);
  await expect(page.getByTestId('crf-status')).toContainText('Not started');
  await page.getByTestId('crf-input-AETERM').fill('Nausea');
  await page.getByTestId('crf-save-draft').click();
  await expect(page.getByTestId('crf-status')).toContainText('Draft');
  await page.keyboard.press('Escape');
  await expect(page.getByTestId('form-V2-AE-1')).toBeVisible();
  await expect(page.getByTestId('form-status-V2-AE-2')).toContainText('Draft');
  await page.getByTestId('form-V2-AE-2').click();
  await page.getByTestId('crf-delete-repeat').click();
  await page.getByTestId('delete-repeat-input').fill('entered twice');
  await page.getByTestId('delete-repeat-ok').click();
  await expect(page.getByTestId('crf-entry')).toHaveCount(0);
  await expect(page.getByTestId('form-V2-AE-2')).toHaveCount(0);
  await expect(page.getByTestId('form-status-V2-AE-1')).toContainText('Completed');

  await page.getByTestId('form-V1-VS').click();
  await expect(page.getByTestId('crf-title')).toContainText('Vital signs');
  await page.getByTestId('crf-save').click();
  await expect(page.getByTestId('crf-error')).toBeVisible();
  await expect(page.getByTestId('crf-item-SYSBP')).toContainText('required', { ignoreCase: true });
  await shot(page, 'subjects-form-table-en.png');
  await page.context().close();
});

test('pi certifies a whole visit from the subject page: the completed forms, not the others', async ({ browser }) => {
  const page = await open(browser, 'pi', detailUrl);
  // V2 has AE #1 completed and vital signs not started
  await expect(page.getByTestId('form-status-V2-AE-1')).toContainText('Completed');
  await page.getByTestId('certify-visit-V2').click();
  await expect(page.getByTestId('certify-visit-forms')).toContainText('Adverse events #1');
  await expect(page.locator('.ant-modal')).toContainText('Not completed yet, so not certified: Vital signs');
  await expect(page.getByTestId('signature-meaning')).toContainText('I approve them as accurate and complete');
  await page.getByTestId('signature-password').fill(DEMO_PASSWORD);
  await shot(page, 'subjects-certify-visit-en.png');
  await page.getByTestId('certify-visit-ok').click();
  await expect(page.getByTestId('form-status-V2-AE-1')).toContainText('Certified');
  await expect(page.getByTestId('form-status-V2-VS')).toContainText('Not started');
  await expect(page.getByTestId('certify-visit-V2')).toHaveCount(0);
  await page.context().close();

  // a coordinator has no such button
  const crc = await open(browser, 'crc1', detailUrl);
  await expect(crc.getByTestId('visit-V2')).toBeVisible();
  await expect(crc.getByTestId('certify-visit-V2')).toHaveCount(0);
  await crc.context().close();
});

test('screens in Chinese, timeline, task list and calendar', async ({ browser }) => {
  const page = await open(browser, 'crc1', '/project/sickLoop', 'zh_CN');
  await expect(page.getByTestId(`subject-link-${NO}`)).toBeVisible();
  await expect(page.getByTestId('subject-table')).toContainText('已入组');
  expect(untranslatedKeys(await visibleText(page))).toEqual([]);
  await shot(page, 'subjects-list-zh.png');
  await page.getByTestId(`subject-link-${NO}`).click();
  await expect(page.getByTestId('visit-V1')).toBeVisible();
  expect(untranslatedKeys(await visibleText(page))).toEqual([]);
  await shot(page, 'subjects-detail-zh.png');
  await openDmZh(page);
  expect(untranslatedKeys(await visibleText(page))).toEqual([]);
  await shot(page, 'subjects-form-zh.png');
  await page.context().close();

  // timeline, tasks and calendar need the visit plan permissions: the data manager has them
  const dm = await browser.newContext();
  const p = await dm.newPage();
  const s = await apiLogin(dm.request, 'dm', 1, 'main');
  const ptsId = new URLSearchParams(detailUrl.split('?')[1]).get('ptsId');
  await openLoggedIn(p, s, 'main', `/project/visitTimeline?ptsId=${ptsId}&proId=1`, 'en_US');
  await expect(p.getByTestId('timeline')).toBeVisible();
  await expect(p.getByTestId('timeline-V1')).toContainText('Overdue');
  await expect(p.getByTestId('timeline-V2')).toContainText('In window');
  await shot(p, 'subjects-timeline-en.png');
  await p.goto('/project/visitTimeline/taskList');
  await expect(p.getByTestId('task-table')).toContainText(NO);
  // this subject's tasks only, then only its overdue ones (V1), by the list's own filters
  await p.getByTestId('task-search').locator('input').fill(NO);
  await p.getByTestId('task-search').locator('input').press('Enter');
  const taskRows = p.getByTestId('task-table').locator('tbody tr.ant-table-row');
  await expect(taskRows.first()).toContainText(NO);
  expect((await taskRows.allInnerTexts()).every((r) => r.includes(NO))).toBe(true);
  await p.getByTestId('task-state').click();
  await p.locator('.ant-select-item-option', { hasText: 'Overdue' }).click();
  await expect(taskRows).toHaveCount(1);
  await expect(taskRows.first()).toContainText('V1');
  await shot(p, 'subjects-tasks-en.png');
  await p.goto('/project/calendar');
  await expect(p.getByTestId('calendar-page')).toContainText(new RegExp(`${NO} V[123]`));
  await shot(p, 'subjects-calendar-en.png');
  await dm.close();
});

async function openDmZh(page: Page): Promise<void> {
  await page.getByTestId('form-V1-DM').click();
  await expect(page.getByTestId('crf-entry')).toBeVisible();
  await expect(page.getByTestId('crf-title')).toContainText('人口学资料');
}

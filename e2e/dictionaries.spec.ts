import { expect, test, type Page } from '@playwright/test';
import { apiLogin, noKeys, openLoggedIn, setLanguage, shootBoth } from './helpers';

/**
 * Issue 13 item 5 journey (dictionaries): the administrator opens the dictionaries from the system menu, tries the
 * coding search on the seeded diagnoses (pinyin initials find 高血压 by its synonym), imports a file with a duplicate
 * code (refused, every problem listed, nothing imported), fixes it and imports it (the new version becomes active),
 * searches its terms by pinyin, and switches back to the demo version. Both languages, screenshots of each screen.
 */
test.describe.configure({ mode: 'serial', timeout: 180_000 });

const csv = (rows: string[][]) =>
  Buffer.from(
    rows.map((r) => r.map((c) => (/[",\n]/.test(c) ? `"${c.replace(/"/g, '""')}"` : c)).join(',')).join('\n'),
    'utf8',
  );
const HEAD = ['code', 'term_zh', 'term_en', 'synonyms'];
const GOOD = [
  HEAD,
  ['I10', '原发性高血压', 'Essential (primary) hypertension', '高血压;HTN'],
  ['E11.9', '2型糖尿病', 'Type 2 diabetes mellitus without complications', '糖尿病;T2DM'],
  ['D70.9', '中性粒细胞减少症', 'Neutropenia, unspecified', '粒细胞减少'],
  ['D69.6', '血小板减少症', 'Thrombocytopenia, unspecified', '血小板减少'],
];

async function chooseFile(page: Page, name: string, rows: string[][]) {
  await page
    .locator('.ant-modal input[type=file]')
    .setInputFiles({ name, mimeType: 'text/csv', buffer: csv(rows) });
}

test('an administrator tries the coding search, imports a version (a bad file first), searches it and switches back', async ({
  page,
  request,
}) => {
  const version = `E2E-${Date.now().toString(36)}`;
  const admin = await apiLogin(request, 'admin', 1, 'main');
  await openLoggedIn(page, admin, 'main', '/system/userSys');
  await page.getByTestId('menu-dictionaries').click();
  await expect(page.getByTestId('page-area')).toHaveAttribute('data-route', 'dictionaries');
  await expect(page.getByTestId('dictionaries-page')).toBeVisible();

  // the seeded diagnoses: demo-1 is active
  await page.getByTestId('dict-tab-diagnosis').click();
  await expect(page.getByTestId('dict-active-demo-1')).toBeVisible();
  await expect(page.getByTestId('dict-terms-table')).toContainText('Essential (primary) hypertension');

  // the coding search: pinyin initials of a synonym
  await page.getByTestId('dict-try').click();
  await page.keyboard.type('gxy');
  const option = page.getByTestId('dictionary-option-I10');
  await expect(option).toBeVisible();
  await expect(option).toContainText('synonym: 高血压');
  await shootBoth(page, 'dictionaries-search-en_US');
  await option.click();
  await expect(page.getByTestId('dict-try-chosen')).toHaveText(
    'Chosen: I10 Essential (primary) hypertension',
  );
  await noKeys(page);
  await shootBoth(page, 'dictionaries-en_US');

  // a file with a duplicate code and a row without terms: refused, every problem listed
  await page.getByTestId('dict-import').click();
  await page.getByTestId('dict-import-submit').click();
  await expect(page.getByText('Give the version label')).toBeVisible();
  await expect(page.getByText('Choose an .xlsx or .csv file')).toBeVisible();
  await page.getByTestId('dict-import-version').fill(version);
  await chooseFile(page, 'diagnoses.csv', [
    ...GOOD,
    ['I10', '高血压病', 'Hypertension', ''],
    ['R50.9', '', '', ''],
  ]);
  await page.getByTestId('dict-import-submit').click();
  const problems = page.getByTestId('dict-import-problems');
  await expect(problems).toBeVisible();
  await expect(problems).toContainText('Nothing was imported');
  await expect(problems).toContainText("the code 'I10' is also in row 2");
  await expect(problems).toContainText('the Chinese and the English term are both empty');
  await noKeys(page);
  await shootBoth(page, 'dictionaries-import-problems-en_US');

  // the corrected file: imported, and active at once
  await chooseFile(page, 'diagnoses.csv', GOOD);
  await page.getByTestId('dict-import-submit').click();
  await expect(page.getByText(`Version ${version} imported with 4 terms; it is now active`)).toBeVisible();
  await expect(page.getByTestId(`dict-active-${version}`)).toBeVisible();
  await expect(page.getByTestId('dict-active-demo-1')).toHaveCount(0);
  await expect(page.getByTestId('dict-terms')).toContainText(`Terms of version ${version}`);
  await expect(page.getByTestId('dict-terms')).toContainText('4 terms');

  // its terms, found by the pinyin initials of 血小板减少症
  await page.getByTestId('dict-terms-search').locator('input').fill('xxb');
  await page.getByTestId('dict-terms-search').locator('input').press('Enter');
  await expect(page.getByTestId('dict-terms-table').locator('tbody tr.ant-table-row')).toHaveCount(1);
  await expect(page.getByTestId('dict-terms-table')).toContainText('D69.6');
  await page.getByTestId('dict-terms-search').locator('input').fill('zzzz');
  await page.getByTestId('dict-terms-search').locator('input').press('Enter');
  await expect(page.getByText('No term matches the search.')).toBeVisible();

  // back to the demo version: the coding search follows
  await page.getByTestId('dict-activate-demo-1').click();
  await page.getByTestId('dict-activate-ok').click();
  await expect(page.getByText('Version demo-1 is now the active diagnosis dictionary')).toBeVisible();
  await expect(page.getByTestId('dict-active-demo-1')).toBeVisible();
  await expect(page.getByTestId(`dict-active-${version}`)).toHaveCount(0);

  // in Chinese (once the confirmation has closed)
  await expect(page.locator('.ant-popover:not(.ant-popover-hidden)')).toHaveCount(0);
  await setLanguage(page, 'zh_CN');
  await expect(page.getByTestId('dict-tab-diagnosis')).toHaveText('诊断');
  await expect(page.getByTestId('dict-active-demo-1')).toHaveText('启用中');
  await page.getByTestId('dict-try').click();
  await page.keyboard.type('xxbjs');
  await expect(page.getByTestId('dictionary-option-D69.6')).toContainText('血小板减少症');
  await shootBoth(page, 'dictionaries-search-zh_CN');
  await page.keyboard.press('Escape');
  await noKeys(page);
  await shootBoth(page, 'dictionaries-zh_CN');
  await page.getByTestId('dict-import').click();
  await page.getByTestId('dict-import-version').fill(`${version}-zh`);
  await chooseFile(page, '诊断.csv', [
    ['编码', '中文名称', '剂量'],
    ['A01', '霍乱', ''],
  ]);
  await page.getByTestId('dict-import-submit').click();
  await expect(page.getByTestId('dict-import-failure')).toContainText('未知的列“剂量”');
  await expect(page.getByTestId('dict-import-failure')).toContainText('缺少“英文名称”列');
  await noKeys(page);
  await shootBoth(page, 'dictionaries-import-problems-zh_CN');
});

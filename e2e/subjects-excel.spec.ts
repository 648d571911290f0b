import { expect, test, type Browser, type Page } from '@playwright/test';
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import ExcelJS from 'exceljs';
import { ARTIFACTS, apiLogin, openLoggedIn, untranslatedKeys, visibleText } from './helpers';

/**
 * Issue 5 subject Excel journey: the site coordinator downloads the import template, uploads a file with one bad
 * row (the dialog lists it and nothing is created), fixes it (the subjects appear with their current visit and
 * form progress), then exports the filtered list and the file's rows match the screen. The same in Chinese.
 */
test.describe.configure({ mode: 'serial', timeout: 180_000 });

const STAMP = Date.now().toString(36).slice(-5).toUpperCase();
const NO1 = `XL${STAMP}-1`;
const NO2 = `XL${STAMP}-2`;
const daysAgo = (n: number) => new Date(Date.now() - n * 86_400_000).toISOString().slice(0, 10);

async function open(browser: Browser, lang: 'en_US' | 'zh_CN'): Promise<Page> {
  const ctx = await browser.newContext({ acceptDownloads: true });
  const page = await ctx.newPage();
  const s = await apiLogin(ctx.request, 'crc1', 3, 'site');
  await openLoggedIn(page, s, 'site', '/project/sickLoop?proId=1', lang);
  await expect(page.getByTestId('project-label')).toContainText('DEMO-001');
  await expect(page.getByTestId('subject-list-page')).toBeVisible();
  return page;
}

async function shot(page: Page, name: string): Promise<void> {
  await page.waitForTimeout(400);
  await page.screenshot({ path: path.join(ARTIFACTS, name), fullPage: true });
}

async function readXlsx(file: string): Promise<ExcelJS.Workbook> {
  const wb = new ExcelJS.Workbook();
  await wb.xlsx.load((await readFile(file)) as unknown as Parameters<typeof wb.xlsx.load>[0]);
  return wb;
}

function rowsOf(ws: ExcelJS.Worksheet): string[][] {
  const out: string[][] = [];
  ws.eachRow((row) => {
    out.push(
      (row.values as unknown[])
        .slice(1)
        .map((v) =>
          v === null || v === undefined
            ? ''
            : v instanceof Date
              ? v.toISOString()
              : typeof v === 'string'
                ? v
                : JSON.stringify(v),
        ),
    );
  });
  return out;
}

/** An .xlsx with the template's header row and the given rows, saved under the artifacts folder. */
async function sheet(name: string, header: string[], rows: (string | Date)[][]): Promise<string> {
  const wb = new ExcelJS.Workbook();
  const ws = wb.addWorksheet('Subjects');
  ws.addRow(header);
  for (const r of rows) ws.addRow(r);
  const file = path.join(ARTIFACTS, name);
  await writeFile(file, Buffer.from(await wb.xlsx.writeBuffer()));
  return file;
}

async function upload(page: Page, file: string): Promise<void> {
  await page.locator('.ant-modal input[type=file]').setInputFiles(file);
  await page.getByTestId('subject-import-submit').click();
}

let header: string[] = [];

test('crc1 imports subjects from Excel: a bad row is listed and nothing is created; fixed, they appear; the export matches', async ({
  browser,
}) => {
  const page = await open(browser, 'en_US');
  await expect(page.getByTestId('subject-table')).toContainText('Current visit');
  await expect(page.getByTestId('subject-table')).toContainText('Form progress');

  // the template, downloaded from the dialog
  await page.getByTestId('subject-import').click();
  const dl = page.waitForEvent('download');
  await page.getByTestId('subject-import-template').click();
  const template = await dl;
  expect(template.suggestedFilename()).toBe('subject-import-template.xlsx');
  const tpl = await readXlsx(await template.path());
  header = rowsOf(tpl.worksheets[0]!)[0]!;
  expect(header.slice(0, 3)).toEqual(['Subject no.', '*Site no.', '*First visit date']);

  // one bad row (site 02 is not crc1's, and the date is not a date): the dialog lists it, nothing is created
  const bad = await sheet(`subjects-bad-${STAMP}.xlsx`, header, [
    [NO1, '01', daysAgo(3), 'AB', `MR${STAMP}`],
    [NO2, '02', '2026/13/01', 'CD'],
  ]);
  await upload(page, bad);
  const problems = page.getByTestId('subject-import-problems');
  await expect(problems).toBeVisible();
  await expect(problems).toContainText('Nothing was imported');
  await expect(problems).toContainText("you may not enrol subjects at site '02'");
  await expect(problems).toContainText('must be a real date from 1900-01-01 to 2100-12-31 (YYYY-MM-DD)');
  await expect(problems).toContainText('Site no.');
  await expect(problems.locator('tbody tr').filter({ hasText: '3' })).toHaveCount(2);
  await expect(problems).not.toContainText('row 2');
  await shot(page, 'subjects-import-errors-en.png');
  expect(untranslatedKeys(await visibleText(page))).toEqual([]);

  // nothing of the file was created
  await page.getByRole('button', { name: 'Cancel' }).click();
  await page.getByTestId('subject-search').locator('input').fill(`XL${STAMP}`);
  await page.getByTestId('subject-search').locator('input').press('Enter');
  await expect(page.getByTestId('subject-table')).toContainText('No subject matches these filters');

  // fixed (a real date cell for the second row): both subjects appear with current visit and progress
  await page.getByTestId('subject-import').click();
  const good = await sheet(`subjects-good-${STAMP}.xlsx`, header, [
    [NO1, '01', daysAgo(3), 'AB', `MR${STAMP}`],
    [NO2, '01', new Date(`${daysAgo(2)}T00:00:00Z`), 'CD', '', '', '', '', '7'],
  ]);
  await upload(page, good);
  await expect(page.locator('.ant-message')).toContainText('2 subject(s) imported');
  await expect(page.getByTestId(`subject-link-${NO1}`)).toBeVisible();
  await expect(page.getByTestId(`subject-link-${NO2}`)).toBeVisible();
  await expect(page.getByTestId('subject-table')).toContainText('Informed Consent');
  await expect(page.getByTestId(`subject-visit-${NO1}`)).not.toBeEmpty();
  await expect(page.getByTestId(`subject-progress-${NO1}`)).toBeVisible();
  await shot(page, 'subjects-list-excel-en.png');

  // export with the current filter: the file's rows are the list's
  const ex = page.waitForEvent('download');
  await page.getByTestId('subject-export').click();
  const exported = await ex;
  expect(exported.suggestedFilename()).toMatch(/^subjects-\d{8}-\d{4}\.xlsx$/);
  const rows = rowsOf((await readXlsx(await exported.path())).worksheets[0]!);
  expect(rows[0]!.slice(0, 4)).toEqual(['Subject no.', 'Site no.', 'Site', 'Status']);
  expect(rows.slice(1).map((r) => r[0])).toEqual([NO1, NO2]);
  expect(rows[1]![9] ?? '').toBe('');
  expect(rows[1]![1]).toBe('01');
  expect(rows[1]![6]).toBe(`MR${STAMP}`);
  expect(rows[2]![3]).toBe('Informed Consent');
  const shownVisit = (await page.getByTestId(`subject-visit-${NO1}`).innerText()).trim();
  expect(rows[1]![10] || '—').toBe(shownVisit);

  // the visit filter: subjects whose current visit is the chosen planned visit; the export follows it
  await page.getByTestId('filter-visit').click();
  await page
    .locator('.ant-select-dropdown:not(.ant-select-dropdown-hidden) .ant-select-item-option')
    .filter({ hasText: shownVisit })
    .first()
    .click();
  await expect(page.getByTestId(`subject-link-${NO1}`)).toBeVisible();
  const ex2 = page.waitForEvent('download');
  await page.getByTestId('subject-export').click();
  const rows2 = rowsOf((await readXlsx(await (await ex2).path())).worksheets[0]!);
  expect(rows2.slice(1).every((r) => r[10] === shownVisit)).toBe(true);
  expect(rows2.slice(1).map((r) => r[0])).toContain(NO1);
});

test('the same in Chinese: list columns and the dialog listing a bad row', async ({ browser }) => {
  const page = await open(browser, 'zh_CN');
  await expect(page.getByTestId('subject-table')).toContainText('当前访视');
  await expect(page.getByTestId('subject-table')).toContainText('表单进度');
  await page.getByTestId('subject-search').locator('input').fill(`XL${STAMP}`);
  await page.getByTestId('subject-search').locator('input').press('Enter');
  await expect(page.getByTestId(`subject-link-${NO1}`)).toBeVisible();
  await shot(page, 'subjects-list-excel-zh.png');

  await page.getByTestId('subject-import').click();
  // a number that now exists, and a row without a site
  const bad = await sheet(`subjects-bad-zh-${STAMP}.xlsx`, header, [
    [NO1, '01', daysAgo(1)],
    ['', '', daysAgo(1), 'EF'],
  ]);
  await upload(page, bad);
  const problems = page.getByTestId('subject-import-problems');
  await expect(problems).toContainText('未导入任何数据');
  await expect(problems).toContainText(`受试者编号“${NO1}”已存在`);
  await expect(problems).toContainText('中心编号');
  await shot(page, 'subjects-import-errors-zh.png');
  expect(untranslatedKeys(await visibleText(page))).toEqual([]);
});

import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { expect, test, type APIRequestContext, type Page } from '@playwright/test';
import { apiLogin, ARTIFACTS, noKeys, openLoggedIn, setLanguage, type ApiSession } from './helpers';

/**
 * Issue 14 item 6 journey (casebook print, spec §7 /print/getByItext): a site coordinator's subject with demographics
 * (one value corrected with a reason) and vital signs; from the subject page the coordinator prints the filled
 * casebook in Chinese with the item history, watches the job finish, downloads the PDF, then a blank one in English;
 * both are listed on "My generated files" and download from there. Page 1 and 2 of each PDF are rendered with
 * pdftoppm into e2e/artifacts (casebook-zh-*.png, casebook-en-*.png) to be looked at; their text is checked with
 * pdftotext.
 */
test.describe.configure({ mode: 'serial', timeout: 180_000 });

const headersOf = (s: ApiSession) => ({ token: s.token, proId: '1', proType: s.user.projectType });
let crc: ApiSession;
let ptsId = 0;
let ptsNo = '';

async function subjectWithData(request: APIRequestContext, s: ApiSession) {
  const h = headersOf(s);
  const sites = (await (await request.post('/api/pro/site/list', { headers: h })).json()) as {
    data: { id: number; siteNo: string }[];
  };
  const siteId = sites.data.find((x) => x.siteNo === '01')!.id;
  const add = (await (
    await request.post('/api/project/managePts/add', {
      headers: h,
      form: { siteId, firstVisitDate: '2026-08-01', initials: 'LMX' },
    })
  ).json()) as {
    data: { ptsId: number; ptsNo: string };
  };
  const id = add.data.ptsId;
  const sched = (await (await request.get(`/api/project/pts/visits?ptsId=${id}`, { headers: h })).json()) as {
    data: { visitId: number; code: string; forms: { formId: number; code: string }[] }[];
  };
  const v1 = sched.data.find((v) => v.code === 'V1')!;
  const formOf = (code: string) => v1.forms.find((f) => f.code === code)!.formId;
  const save = async (code: string, body: Record<string, unknown>) => {
    const r = await request.post('/api/crf/form/item/result/saveBatch', {
      headers: h,
      data: { ptsId: id, visitId: v1.visitId, formId: formOf(code), ...body },
    });
    expect(r.ok(), await r.text()).toBe(true);
  };
  await save('DM', {
    entryMode: 2,
    items: [
      { variable: 'BRTHDTC', value: '1975-03-12' },
      { variable: 'SEX', value: '1' },
      { variable: 'ETHNIC', value: 'HAN' },
    ],
  });
  await save('DM', {
    entryMode: 2,
    version: 1,
    items: [{ variable: 'BRTHDTC', value: '1975-03-21', reason: '核对身份证后更正' }],
  });
  await save('VS', {
    entryMode: 2,
    items: [
      { variable: 'VSDTC', value: '2026-08-01 10:15' },
      { variable: 'SYSBP', value: 136 },
      { variable: 'DIABP', value: 88 },
      { variable: 'HR', value: 76 },
      { variable: 'WEIGHT', value: 63.5 },
    ],
  });
  return { id, no: add.data.ptsNo };
}

/** Renders pages 1–2 of a PDF to PNG (60 dpi) into the artifacts; returns the PDF's text. */
function renderPdf(file: string, name: string): string {
  execFileSync('pdftoppm', ['-png', '-r', '60', '-f', '1', '-l', '2', file, path.join(ARTIFACTS, name)]);
  return execFileSync('pdftotext', ['-layout', '-enc', 'UTF-8', file, '-'], { encoding: 'utf8' });
}

/** Prints from the subject page with the dialog's options and downloads the result; returns the PDF's text. */
async function printFromSubjectPage(
  page: Page,
  lang: 'zh_CN' | 'en_US',
  opts: { blank?: boolean; history?: boolean },
): Promise<string> {
  await page.getByTestId('casebook-print').click();
  await expect(page.getByTestId('casebook-options')).toBeVisible();
  if (opts.blank)
    await page
      .getByTestId('casebook-mode')
      .getByText(lang === 'zh_CN' ? '空白 CRF' : 'Blank CRF')
      .click();
  if (opts.history) await page.getByTestId('casebook-history').check();
  await page
    .getByTestId('casebook-language')
    .getByText(lang === 'zh_CN' ? '简体中文' : 'English')
    .click();
  await noKeys(page);
  await page.screenshot({ path: path.join(ARTIFACTS, `casebook-dialog-${lang}.png`) });
  await page.getByTestId('casebook-start').click();
  await expect(page.getByTestId('casebook-download')).toBeVisible({ timeout: 60_000 });
  await page.screenshot({ path: path.join(ARTIFACTS, `casebook-ready-${lang}.png`) });
  const [download] = await Promise.all([
    page.waitForEvent('download'),
    page.getByTestId('casebook-download').click(),
  ]);
  const file = path.join(ARTIFACTS, `casebook-${lang}.pdf`);
  await download.saveAs(file);
  expect(download.suggestedFilename()).toMatch(
    new RegExp(`casebook-${opts.blank ? 'blank' : 'filled'}-${lang === 'zh_CN' ? 'zh' : 'en'}\\.pdf$`),
  );
  expect(readFileSync(file).subarray(0, 5).toString()).toBe('%PDF-');
  await page.getByTestId('casebook-close').click();
  return renderPdf(file, `casebook-${lang === 'zh_CN' ? 'zh' : 'en'}`);
}

test.beforeAll(async ({ request }) => {
  crc = await apiLogin(request, 'crc1', 3, 'site');
  const s = await subjectWithData(request, crc);
  ptsId = s.id;
  ptsNo = s.no;
});

test('prints the filled casebook in Chinese with the item history and downloads it', async ({ page }) => {
  await openLoggedIn(
    page,
    crc,
    'site',
    `/project/ptsDetail?ptsId=${ptsId}&activeKey=pts360&proId=1`,
    'zh_CN',
  );
  await expect(page.getByTestId('subject-detail-page')).toBeVisible();
  await expect(page.getByTestId('casebook-print')).toHaveText(/打印病例报告表/);
  const text = await printFromSubjectPage(page, 'zh_CN', { history: true });
  expect(text).toContain(ptsNo);
  for (const s of [
    '病例报告表（已填写）',
    '出生日期',
    '1975-03-21',
    '男',
    '汉族',
    '收缩压',
    '136 mmHg',
    '63.5 kg',
    '数据修改历史',
    '1975-03-12 → 1975-03-21',
    '核对身份证后更正',
    '第 1 页',
  ])
    expect(text, s).toContain(s);
});

test('prints a blank casebook in English', async ({ page }) => {
  await openLoggedIn(
    page,
    crc,
    'site',
    `/project/ptsDetail?ptsId=${ptsId}&activeKey=pts360&proId=1`,
    'en_US',
  );
  await expect(page.getByTestId('casebook-print')).toHaveText(/Print casebook/);
  const text = await printFromSubjectPage(page, 'en_US', { blank: true });
  for (const s of ['Blank casebook (CRF)', 'Date of birth', 'Male', 'Systolic', 'Unit: mmHg', 'Page 1 of'])
    expect(text, s).toContain(s);
  expect(text).not.toContain('1975-03-21');
});

test('lists both files on "My generated files" and downloads from there', async ({ page }) => {
  await openLoggedIn(page, crc, 'site', '/project/exportFiles?proId=1', 'en_US');
  await expect(page.getByTestId('export-files-page')).toBeVisible();
  // (newest first; this run's subject only, whatever earlier runs left on the same server)
  const rows = page
    .getByTestId('export-files')
    .locator('tbody tr.ant-table-row')
    .filter({ hasText: `${ptsNo}-casebook` });
  await expect(rows).toHaveCount(2);
  await expect(rows.first()).toContainText('casebook-blank-en.pdf');
  await expect(rows.nth(1)).toContainText('casebook-filled-zh.pdf');
  await expect(rows.first()).toContainText('Ready');
  await noKeys(page);
  await page.screenshot({ path: path.join(ARTIFACTS, 'casebook-files-en.png') });
  const [download] = await Promise.all([
    page.waitForEvent('download'),
    rows
      .nth(1)
      .getByRole('button', { name: /Download/ })
      .click(),
  ]);
  expect(download.suggestedFilename()).toMatch(/casebook-filled-zh\.pdf$/);
  await setLanguage(page, 'zh_CN');
  await expect(page.getByTestId('export-files')).toContainText('已生成');
  await noKeys(page);
  await page.screenshot({ path: path.join(ARTIFACTS, 'casebook-files-zh.png') });
});

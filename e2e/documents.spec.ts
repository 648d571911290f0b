import { expect, test, type Page } from '@playwright/test';
import { apiLogin, enterDemoProject, noKeys, openLoggedIn, pickSubject, setLanguage, shootBoth, type ApiSession } from './helpers';
import { dischargePdf, labReportPng } from './doc-fixtures';

/**
 * Issue 12 journey: a site coordinator uploads a lab report photo and a PDF for a subject, watches the automatic
 * de-identification, reviews the proposed boxes, adds one and submits both; a reviewer passes one and fails the
 * other with a reason; a monitor sees only the de-identified copy and cannot fetch the original over the API.
 * The files go through the real OCR engine, so the walk has a long budget.
 */
test.describe.configure({ mode: 'serial', timeout: 300_000 });

const SUBJECT = 'H-002';
let crc: ApiSession;

async function openProject(page: Page, s: ApiSession, variant: 'main' | 'site', path: string) {
  await openLoggedIn(page, s, variant);
  await enterDemoProject(page);
  await page.goto(path);
}

/**
 * Afterwards the coordinator's de-identification and PDF progress items are marked read, as a user closing the panel
 * would: later journeys of crc1 expect an empty progress panel (its notice would cover their buttons).
 */
test.afterAll(async ({ request }) => {
  if (!crc) return;
  const headers = { token: crc.token, proId: '1', proType: crc.user.projectType };
  for (const type of [1, 2]) {
    const list = (await (await request.post('/api/proProgressDisplay/list', { data: { type }, headers })).json()) as { data: { id: number }[] };
    if (list.data.length) await request.post('/api/proProgressDisplay/updateIsReadByIdList', { form: { idList: list.data.map((i) => i.id).join(',') }, headers });
  }
});

/** The list row of a file by its name. */
const row = (page: Page, name: string) => page.getByTestId('file-table').locator('tr', { hasText: name });

test('a site coordinator uploads a photo and a PDF, reviews the boxes, adds one and submits both', async ({ page, request }) => {
  crc = await apiLogin(request, 'crc1', 3, 'site');
  await openProject(page, crc, 'site', '/project/sourceFile');
  await expect(page.getByTestId('source-files-page')).toBeVisible();

  // the upload dialog checks before sending: a text file renamed .png is refused by content on the server,
  // an unsupported name right here
  await page.getByTestId('upload-open').click();
  await pickSubject(page, 'upload-subject', SUBJECT);
  await page.getByTestId('upload-doctype').click();
  await page.locator('.ant-select-dropdown:not(.ant-select-dropdown-hidden) .ant-select-item-option').filter({ hasText: 'Test' }).first().click();
  const input = page.getByTestId('upload-dialog').locator('input[type=file]');
  await input.setInputFiles([{ name: 'notes.txt', mimeType: 'text/plain', buffer: Buffer.from('hello') }]);
  await expect(page.getByTestId('upload-problems')).toContainText('notes.txt: only PNG, JPG and PDF files can be uploaded');
  await expect(page.getByTestId('upload-ok')).toBeDisabled();
  await page.getByTestId('upload-dialog').locator('.ant-upload-list-item').first().hover();
  await page.getByTestId('upload-dialog').locator('.ant-upload-list-item button').first().click();
  await input.setInputFiles([
    { name: 'fake.png', mimeType: 'image/png', buffer: Buffer.from('MZ this is not an image at all') },
  ]);
  await page.getByTestId('upload-ok').click();
  await expect(page.getByTestId('upload-error')).toContainText('fake.png');
  await page.getByTestId('upload-dialog').locator('.ant-upload-list-item').first().hover();
  await page.getByTestId('upload-dialog').locator('.ant-upload-list-item button').first().click();

  await input.setInputFiles([
    { name: 'lab-report.png', mimeType: 'image/png', buffer: await labReportPng() },
    { name: 'discharge.pdf', mimeType: 'application/pdf', buffer: await dischargePdf() },
  ]);
  await expect(page.getByTestId('upload-problems')).toHaveCount(0);
  await page.getByTestId('upload-ok').click();
  await expect(page.getByTestId('upload-dialog')).toBeHidden();

  // progress: the rows show automatic de-identification, then waiting submit (the list polls by itself)
  await expect(row(page, 'lab-report.png')).toBeVisible();
  await expect(row(page, 'lab-report.png').getByTestId('file-status')).toHaveText('Waiting submit', { timeout: 180_000 });
  await expect(row(page, 'discharge.pdf').getByTestId('file-status')).toHaveText('Waiting submit', { timeout: 180_000 });
  await noKeys(page);
  await shootBoth(page, 'documents-list');

  // review the photo: the proposed boxes are there; draw one more over the department, save, submit
  await row(page, 'lab-report.png').getByRole('link', { name: 'lab-report.png' }).last().click();
  await expect(page.getByTestId('deid-review')).toBeVisible();
  await expect(page.getByTestId('page-image')).toBeVisible();
  const canvas = page.getByTestId('box-canvas');
  const auto = await canvas.locator('.doc-box').count();
  expect(auto, 'the name, ID number and phone are boxed').toBeGreaterThanOrEqual(3);
  const b = (await canvas.boundingBox())!;
  await page.mouse.move(b.x + b.width * 0.6, b.y + b.height * 0.33);
  await page.mouse.down();
  await page.mouse.move(b.x + b.width * 0.75, b.y + b.height * 0.36, { steps: 5 });
  await page.mouse.move(b.x + b.width * 0.9, b.y + b.height * 0.4, { steps: 5 });
  await page.mouse.up();
  await expect(canvas.locator('.doc-box')).toHaveCount(auto + 1);
  await expect(page.getByTestId('review-save')).toBeEnabled();
  await shootBoth(page, 'documents-review');
  await page.getByTestId('review-save').click();
  await expect(page.getByText(`the de-identified copy now hides ${auto + 1} areas`)).toBeVisible();
  // the copy the monitor will see
  await page.getByTestId('view-switch').getByText('De-identified copy').click();
  await expect(page.getByTestId('page-image')).toBeVisible();
  await shootBoth(page, 'documents-redacted');
  await page.getByTestId('review-submit').click();
  await page.locator('.ant-popconfirm').getByRole('button', { name: 'OK' }).click();
  await expect(page.getByTestId('file-status')).toHaveText('Waiting audit');

  // OCR association: the lab results read on the photo, proposed as eCRF values (or listed as unmatched)
  await page.getByRole('tab', { name: 'eCRF values' }).click();
  await page.getByTestId('assoc-run').click();
  await expect(page.getByTestId('assoc-summary')).toBeVisible();
  await shootBoth(page, 'documents-ocr-association');

  // the PDF: two pages, submitted from the list
  await page.goto('/project/sourceFile');
  await row(page, 'discharge.pdf').getByRole('link', { name: 'discharge.pdf' }).last().click();
  await expect(page.getByTestId('page-thumbs')).toBeVisible();
  await page.getByTestId('page-1').click();
  await expect(page.getByText('Page 2 of 2')).toBeVisible();
  await shootBoth(page, 'documents-review-pdf');
  await page.getByTestId('review-submit').click();
  await page.locator('.ant-popconfirm').getByRole('button', { name: 'OK' }).click();
  await expect(page.getByTestId('file-status')).toHaveText('Waiting audit');

  // the subject's documents tab: both files, and their de-identified pages combined into one PDF
  await page.goto('/project/sourceFile');
  await row(page, 'discharge.pdf').getByTestId(/^file-subject-/).click();
  await expect(page.getByTestId('subject-documents')).toBeVisible();
  await expect(page.getByTestId('pdf-synthesis')).toContainText('2 de-identified files to combine');
  await page.getByTestId('pdf-start').click();
  await expect(page.getByTestId('pdf-download')).toContainText('Download PDF (3 pages)', { timeout: 60_000 });
  const download = page.waitForEvent('download');
  await page.getByTestId('pdf-download').click();
  expect((await download).suggestedFilename()).toBe(`${SUBJECT}-source-documents.pdf`);
  await shootBoth(page, 'documents-subject-tab');

  await setLanguage(page, 'zh_CN');
  await expect(page.getByTestId('pdf-synthesis')).toContainText('合成 PDF');
  await noKeys(page);
  await shootBoth(page, 'documents-subject-tab-zh');
  await page.goto('/project/sourceFile');
  await row(page, 'discharge.pdf').getByRole('link', { name: 'discharge.pdf' }).last().click();
  await expect(page.getByTestId('deid-review')).toBeVisible();
  await expect(page.getByTestId('file-status')).toHaveText('待审核');
  await noKeys(page);
  await shootBoth(page, 'documents-review-pdf-zh');
});

test('a reviewer passes the photo and fails the PDF with a reason; the site sees the reason', async ({ page, request }) => {
  const dm = await apiLogin(request, 'dm', 1, 'main');
  await openProject(page, dm, 'main', '/project/message');
  await expect(page.getByTestId('deid-messages')).toBeVisible();
  await expect(page.getByTestId('menu-deidMessage')).toBeVisible();
  await expect(row(page, 'lab-report.png').getByTestId('file-status')).toHaveText('Waiting audit');
  await shootBoth(page, 'documents-messages');

  // the data manager may not see identifiers: the review shows the de-identified copy only, no text, no editing
  await row(page, 'lab-report.png').getByRole('link', { name: 'lab-report.png' }).last().click();
  await expect(page.getByTestId('deid-review')).toBeVisible();
  await expect(page.getByText('De-identified copy (your role does not see originals)')).toBeVisible();
  await expect(page.getByTestId('view-switch')).toHaveCount(0);
  await expect(page.getByTestId('review-save')).toHaveCount(0);
  await page.getByTestId('review-pass').click();
  await page.locator('.ant-popconfirm').getByRole('button', { name: 'OK' }).click();
  await expect(page.getByTestId('file-status')).toHaveText('Audit passed');

  await page.goto('/project/message');
  await row(page, 'discharge.pdf').getByTestId(/^file-fail-/).click();
  await page.getByTestId('fail-ok').click();
  await expect(page.getByTestId('fail-error')).toHaveText('Enter the reason the audit failed.');
  await page.getByTestId('fail-reason').fill('The phone number on line 3 is still readable on page 1');
  await page.getByTestId('fail-ok').click();
  await expect(row(page, 'discharge.pdf').getByTestId('file-status')).toHaveText('Audit failed');
  await page.getByTestId('tab-processed').click();
  await expect(row(page, 'lab-report.png').getByTestId('file-status')).toHaveText('Audit passed');
  await noKeys(page);

  // the site coordinator reads the reason on the file
  const site = await page.context().browser()!.newContext({ baseURL: test.info().project.use.baseURL! });
  const p2 = await site.newPage();
  await openProject(p2, crc, 'site', '/project/sourceFile');
  await row(p2, 'discharge.pdf').getByRole('link', { name: 'discharge.pdf' }).last().click();
  await expect(p2.getByTestId('review-failed-reason')).toContainText('The phone number on line 3 is still readable');
  await expect(p2.getByTestId('review-save')).toBeVisible();
  await site.close();
});

test('a monitor sees only the de-identified copy and cannot fetch the original over the API', async ({ page, request }) => {
  const cra = await apiLogin(request, 'cra', 2, 'main');
  await openProject(page, cra, 'main', '/project/sourceFile');
  await expect(row(page, 'lab-report.png')).toBeVisible();
  const href = await row(page, 'lab-report.png').getByRole('link', { name: 'lab-report.png' }).last().getAttribute('href');
  const id = Number(/id=(\d+)/.exec(href ?? '')?.[1]);
  expect(id).toBeGreaterThan(0);
  await page.goto(href!);
  await expect(page.getByText('De-identified copy (your role does not see originals)')).toBeVisible();
  await expect(page.getByTestId('page-image')).toBeVisible();
  await shootBoth(page, 'documents-monitor');

  const headers = { token: cra.token, proId: '1', proType: cra.user.projectType };
  const original = await request.get(`/api/source/file/read?id=${id}&copy=original`, { headers });
  expect(original.status()).toBe(403);
  const originalPage = await request.get(`/api/source/file/pageImage?id=${id}&page=0&copy=original`, { headers });
  expect(originalPage.status()).toBe(403);
  const copy = await request.get(`/api/source/file/read?id=${id}`, { headers });
  expect(copy.status()).toBe(200);
  expect(copy.headers()['content-type']).toBe('image/jpeg');
  const detail = (await (await request.get(`/api/source/file/detail?id=${id}`, { headers })).json()) as { data: { lines: unknown[]; canOriginal: boolean } };
  expect(detail.data.canOriginal).toBe(false);
  expect(detail.data.lines).toEqual([]);
});

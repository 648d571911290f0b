import { expect, test, type APIRequestContext } from '@playwright/test';
import { apiLogin, noKeys, openLoggedIn, setLanguage, shootBoth, type ApiSession } from './helpers';

/**
 * Issue 13 journey (queries, SDV): a monitor verifies a saved form against its source and raises a query on one item;
 * the site coordinator finds it in the query list, answers and corrects the value with a reason in the same step; the
 * monitor finds the changed item listed again for SDV, verifies it again, and closes the query. An out-of-range heart
 * rate saved by the site raises an automatic query.
 */
test.describe.configure({ mode: 'serial', timeout: 180_000 });

const headersOf = (s: ApiSession) => ({ token: s.token, proId: '1', proType: s.user.projectType });

async function subjectWithVitals(request: APIRequestContext, crc: ApiSession) {
  const h = headersOf(crc);
  const sites = (await (await request.post('/api/pro/site/list', { headers: h })).json()) as { data: { id: number; siteNo: string }[] };
  const siteId = sites.data.find((x) => x.siteNo === '01')!.id;
  const add = (await (await request.post('/api/project/managePts/add', { headers: h, form: { siteId, firstVisitDate: new Date(Date.now() - 3 * 86_400_000).toISOString().slice(0, 10) } })).json()) as { data: { ptsId: number; ptsNo: string } };
  const { ptsId } = add.data;
  const sched = (await (await request.get(`/api/project/pts/visits?ptsId=${ptsId}`, { headers: h })).json()) as { data: { visitId: number; code: string; forms: { formId: number; code: string }[] }[] };
  const v1 = sched.data.find((v) => v.code === 'V1')!;
  const formId = v1.forms.find((f) => f.code === 'VS')!.formId;
  const items = [
    { variable: 'VSDTC', value: `${new Date(Date.now() - 3 * 86_400_000).toISOString().slice(0, 10)} 09:30` },
    { variable: 'SYSBP', value: 128 },
    { variable: 'DIABP', value: 82 },
    { variable: 'HR', value: 72 },
  ];
  const saved = await request.post('/api/crf/form/item/result/saveBatch', { headers: h, data: { ptsId, visitId: v1.visitId, formId, entryMode: 2, items } });
  expect(saved.ok(), await saved.text()).toBe(true);
  return { ptsId, ptsNo: add.data.ptsNo, visitId: v1.visitId, formId };
}

test('a monitor verifies a form and raises a query; the site corrects the value; the monitor re-verifies and closes it', async ({ page, request, browser }) => {
  const crc = await apiLogin(request, 'crc1', 3, 'site');
  const s = await subjectWithVitals(request, crc);
  const cra = await apiLogin(request, 'cra', 2, 'main');
  await openLoggedIn(page, cra, 'main', `/project/SickFile?ptsNo=${encodeURIComponent(s.ptsNo)}&ptsId=${s.ptsId}&activeKey=pts360&proId=1`);
  // a visit's completed forms can be verified at once from its card; here the monitor opens the form to compare
  await expect(page.getByTestId('sdv-visit-V1')).toBeVisible();
  await page.getByTestId('form-V1-VS').click();
  await expect(page.getByTestId('crf-entry')).toBeVisible();

  // the monitor verifies the form against its source (SDV of every item), then raises a query on the systolic pressure
  await expect(page.getByTestId('sdv-count')).toHaveText('0/4 items');
  await page.getByTestId('sdv-all').click();
  await expect(page.getByTestId('sdv-count')).toHaveText('4/4 items');
  await expect(page.getByTestId('sdv-done-SYSBP')).toBeVisible();
  await page.getByTestId('raise-query-SYSBP').click();
  await page.getByTestId('raise-ok').click();
  await expect(page.getByText('Write the question.')).toBeVisible();
  await page.getByTestId('raise-text').fill('The source document says 138 mmHg, please check.');
  await page.getByTestId('raise-ok').click();
  await expect(page.getByTestId('item-query-SYSBP')).toBeVisible();
  // and one on the form as a whole
  await page.getByTestId('form-query-raise').click();
  await page.getByTestId('raise-text').fill('Please attach the nurse measurement sheet of this visit.');
  await page.getByTestId('raise-ok').click();
  await expect(page.getByTestId('form-query-open')).toBeVisible();
  await noKeys(page);
  await shootBoth(page, 'queries-form-marker');

  // the site coordinator finds it in the query list and answers with the corrected value
  const ctx = await browser.newContext({ viewport: { width: 1440, height: 900 } });
  const site = await ctx.newPage();
  await openLoggedIn(site, crc, 'site', '/project/doubtList?proId=1');
  await expect(site.getByTestId('query-list-page')).toBeVisible();
  // (rows of this subject: a retry of this journey leaves its earlier subject's query behind)
  const row = site.getByTestId('query-table').locator('tr', { hasText: 'The source document says 138 mmHg' }).filter({ hasText: s.ptsNo });
  await expect(row).toHaveCount(1);
  await noKeys(site);
  await shootBoth(site, 'queries-list-site');
  await row.getByText('The source document says 138 mmHg').click();
  const drawer = site.getByTestId('query-drawer');
  await expect(drawer.getByTestId('query-value')).toHaveText('128');
  await drawer.getByTestId('query-submit').click();
  await expect(drawer.getByTestId('query-error')).toContainText('Write the answer.');
  await drawer.getByTestId('query-text').fill('Transcription error: the source says 138. Corrected.');
  await drawer.getByTestId('query-change-value').click();
  const input = drawer.getByTestId('query-new-value').locator('input');
  await input.fill('138');
  await drawer.getByTestId('query-submit').click();
  await expect(drawer.getByTestId('query-error')).toContainText('Give the reason for changing the value.');
  await drawer.getByTestId('query-reason').fill('Transcription error');
  await drawer.getByTestId('query-submit').click();
  await expect(drawer.getByTestId('query-thread')).toContainText('Value changed from 128 to 138');
  await expect(drawer.getByTestId('query-value')).toHaveText('138');
  await expect(drawer.getByTestId('query-status')).toHaveText('Replied');
  await noKeys(site);
  await shootBoth(site, 'queries-drawer-site');
  await drawer.getByRole('button', { name: 'Close' }).click();
  await expect(drawer).toBeHidden();
  await setLanguage(site, 'zh_CN');
  await site.getByTestId('query-tab-2').click();
  await row.getByText('The source document says 138 mmHg').click();
  await expect(drawer.getByTestId('query-status')).toHaveText('已回复');
  await expect(drawer.getByTestId('query-thread')).toContainText('数值由 128 改为 138');
  await noKeys(site);
  await shootBoth(site, 'queries-drawer-site-zh');
  await ctx.close();

  // the monitor finds the form again under SDV: the changed value lost its mark; verifies it again
  await page.goto('/project/verification');
  await page.getByTestId('verify-ptsno').locator('input').fill(s.ptsNo);
  await page.getByTestId('verify-ptsno').locator('input').press('Enter');
  // (other journeys leave completed vital signs too: the row of this subject, once the filtered list has arrived)
  const toVerify = page.getByTestId('verification-table').locator('tr', { hasText: 'Vital signs' }).filter({ hasText: s.ptsNo });
  await expect(toVerify).toContainText('3/4 items');
  await expect(toVerify).toContainText('1 changed since SDV');
  await noKeys(page);
  await shootBoth(page, 'verification-list');
  await toVerify.getByRole('link', { name: 'Open form' }).click();
  await expect(page.getByTestId('crf-entry')).toBeVisible();
  await expect(page.getByTestId('sdv-lost-SYSBP')).toBeVisible();
  await shootBoth(page, 'verification-form-lost');
  await page.getByTestId('sdv-SYSBP').click();
  await expect(page.getByTestId('sdv-done-SYSBP')).toBeVisible();
  await expect(page.getByTestId('sdv-count')).toHaveText('4/4 items');

  // the monitor sees the answer under "Replied" and closes the query
  await page.goto('/project/doubtList');
  await page.getByTestId('query-tab-2').click();
  const replied = page.getByTestId('query-table').locator('tr', { hasText: 'The source document says 138 mmHg' }).filter({ hasText: s.ptsNo });
  await expect(replied).toContainText('Transcription error');
  await replied.getByText('The source document says 138 mmHg').click();
  await page.getByTestId('query-drawer').getByTestId('query-action-close').click();
  await page.getByTestId('query-drawer').getByTestId('query-text').fill('Verified against the source.');
  await page.getByTestId('query-drawer').getByTestId('query-submit').click();
  await expect(page.getByTestId('query-drawer').getByTestId('query-status')).toHaveText('Closed');
  await noKeys(page);
});

test('a heart rate saved outside its expected range raises an automatic query', async ({ page, request }) => {
  const crc = await apiLogin(request, 'crc1', 3, 'site');
  const s = await subjectWithVitals(request, crc);
  const h = headersOf(crc);
  const form = (await (await request.get(`/api/crf/form/item/result/list?ptsId=${s.ptsId}&visitId=${s.visitId}&formId=${s.formId}`, { headers: h })).json()) as { data: { instance: { version: number } } };
  const saved = await request.post('/api/crf/form/item/result/saveBatch', {
    headers: h,
    data: { ptsId: s.ptsId, visitId: s.visitId, formId: s.formId, entryMode: 2, version: form.data.instance.version, items: [{ variable: 'HR', value: 195, reason: 'Re-measured after exercise' }] },
  });
  expect(saved.ok(), await saved.text()).toBe(true);
  const dm = await apiLogin(request, 'dm', 1, 'main');
  await openLoggedIn(page, dm, 'main', '/project/doubtList?proId=1');
  await page.getByTestId('query-filter-ptsno').locator('input').fill(s.ptsNo);
  await page.getByTestId('query-filter-ptsno').locator('input').press('Enter');
  const row = page.getByTestId('query-table').locator('tr', { hasText: 'The value 195 is outside the expected range 40–180 bpm' });
  await expect(row).toHaveCount(1);
  await expect(row).toContainText('Automatic');
  await noKeys(page);
  await shootBoth(page, 'queries-list-auto');
});

import { expect, test, type APIRequestContext } from '@playwright/test';
import { apiLogin, noKeys, openLoggedIn, setLanguage, shootBoth, type ApiSession } from './helpers';

/**
 * Issue 13 items 1 and 2: query counts on the subject list and on a subject's visit cards, each a link to the query
 * list filtered to that subject (and visit); and a subject's own risk level, set on its page, shown as a tag there and
 * in the SDV list, and listed in the risk drawer.
 */
test.describe.configure({ mode: 'serial', timeout: 180_000 });

const headersOf = (s: ApiSession) => ({ token: s.token, proId: '1', proType: s.user.projectType });
const day = (n: number) => new Date(Date.now() - n * 86_400_000).toISOString().slice(0, 10);

/** A site A subject with the screening vital signs saved (completed). */
async function subjectWithVitals(request: APIRequestContext, crc: ApiSession) {
  const h = headersOf(crc);
  const sites = (await (await request.post('/api/pro/site/list', { headers: h })).json()) as {
    data: { id: number; siteNo: string }[];
  };
  const siteId = sites.data.find((x) => x.siteNo === '01')!.id;
  const add = (await (
    await request.post('/api/project/managePts/add', { headers: h, form: { siteId, firstVisitDate: day(3) } })
  ).json()) as { data: { ptsId: number; ptsNo: string } };
  const { ptsId, ptsNo } = add.data;
  const sched = (await (
    await request.get(`/api/project/pts/visits?ptsId=${ptsId}`, { headers: h })
  ).json()) as { data: { visitId: number; code: string; forms: { formId: number; code: string }[] }[] };
  const v1 = sched.data.find((v) => v.code === 'V1')!;
  const formId = v1.forms.find((f) => f.code === 'VS')!.formId;
  const items = [
    { variable: 'VSDTC', value: `${day(3)} 09:30` },
    { variable: 'SYSBP', value: 128 },
    { variable: 'DIABP', value: 82 },
    { variable: 'HR', value: 72 },
  ];
  const saved = await request.post('/api/crf/form/item/result/saveBatch', {
    headers: h,
    data: { ptsId, visitId: v1.visitId, formId, entryMode: 2, items },
  });
  expect(saved.ok(), await saved.text()).toBe(true);
  return { ptsId, ptsNo, visitId: v1.visitId, formId };
}

test('the counts on the visit card and the subject list lead to the query list filtered to them', async ({
  page,
  request,
}) => {
  const crc = await apiLogin(request, 'crc1', 3, 'site');
  const s = await subjectWithVitals(request, crc);
  const cra = await apiLogin(request, 'cra', 2, 'main');
  // a query on the diastolic pressure, answered by the site: one replied
  const raised = await request.post('/api/crf/query/add', {
    headers: headersOf(cra),
    data: {
      ptsId: s.ptsId,
      visitId: s.visitId,
      formId: s.formId,
      variable: 'DIABP',
      text: 'Diastolic pressure: please check against the nurse sheet.',
    },
  });
  expect(raised.ok(), await raised.text()).toBe(true);
  const q = ((await raised.json()) as { data: { id: number; version: number } }).data;
  const replied = await request.post('/api/crf/query/update', {
    headers: headersOf(crc),
    data: { id: q.id, version: q.version, action: 'reply', text: 'Checked: 82 as in the source.' },
  });
  expect(replied.ok(), await replied.text()).toBe(true);

  // the monitor opens the subject: the screening visit card shows the replied query; raises one on the form's systolic pressure
  await openLoggedIn(
    page,
    cra,
    'main',
    `/project/SickFile?ptsNo=${encodeURIComponent(s.ptsNo)}&ptsId=${s.ptsId}&activeKey=pts360&proId=1`,
  );
  await expect(page.getByTestId('visit-queries-V1-replied')).toHaveText('1 replied');
  await expect(page.getByTestId('visit-queries-V1-open')).toHaveCount(0);
  await expect(page.getByTestId('visit-queries-V2')).toHaveCount(0);
  await page.getByTestId('form-V1-VS').click();
  await expect(page.getByTestId('crf-entry')).toBeVisible();
  await page.getByTestId('raise-query-SYSBP').click();
  await page.getByTestId('raise-text').fill('The source document says 138 mmHg, please check.');
  await page.getByTestId('raise-ok').click();
  await expect(page.getByTestId('item-query-SYSBP')).toBeVisible();
  await page.locator('.ant-drawer-close').first().click();
  await expect(page.getByTestId('crf-entry')).toBeHidden();
  // the card counts it at once
  await expect(page.getByTestId('visit-queries-V1-open')).toHaveText('1 open');
  await expect(page.getByTestId('visit-queries-V1-replied')).toHaveText('1 replied');
  await noKeys(page);
  await shootBoth(page, 'query-counts-visit');
  await setLanguage(page, 'zh_CN');
  await expect(page.getByTestId('visit-queries-V1-open')).toHaveText('1 质疑中');
  await noKeys(page);
  await shootBoth(page, 'query-counts-visit-zh');
  await setLanguage(page, 'en_US');

  // the visit's replied count → the replied tab, this subject's screening visit only
  await page.getByTestId('visit-queries-V1-replied').click();
  await expect(page).toHaveURL(
    /\/project\/doubtList\?status=2&ptsId=\d+&ptsNo=[^&]+&visitId=\d+&unscheduledId=0&visit=/,
  );
  await expect(page.getByTestId('query-filter-subject')).toContainText(`Visit ${s.ptsNo} · V1 Screening`);
  await expect(page.getByRole('tab', { selected: true })).toContainText('Replied');
  const rows = page.getByTestId('query-table').locator('tbody tr.ant-table-row');
  await expect(rows).toHaveCount(1);
  await expect(rows.first()).toContainText('Diastolic pressure: please check');
  await noKeys(page);
  await shootBoth(page, 'query-counts-list-visit');

  // the subject list: the subject's counts, each a link
  await page.goto('/project/craPtsList');
  await page.getByTestId('subject-search').locator('input').fill(s.ptsNo);
  await page.getByTestId('subject-search').locator('input').press('Enter');
  await expect(page.getByTestId(`subject-queries-${s.ptsNo}-open`)).toHaveText('1 open');
  await expect(page.getByTestId(`subject-queries-${s.ptsNo}-replied`)).toHaveText('1 replied');
  await noKeys(page);
  await shootBoth(page, 'query-counts-subjects');
  await setLanguage(page, 'zh_CN');
  await expect(page.getByTestId(`subject-queries-${s.ptsNo}-replied`)).toHaveText('1 已回复');
  await noKeys(page);
  await shootBoth(page, 'query-counts-subjects-zh');
  await setLanguage(page, 'en_US');

  await page.getByTestId(`subject-queries-${s.ptsNo}-open`).click();
  await expect(page).toHaveURL(/\/project\/doubtList\?status=1&ptsId=\d+&ptsNo=/);
  await expect(page.getByTestId('query-filter-subject')).toHaveText(`Subject ${s.ptsNo}`);
  await expect(page.getByRole('tab', { selected: true })).toContainText('Querying');
  await expect(rows).toHaveCount(1);
  await expect(rows.first()).toContainText('The source document says 138 mmHg');
  await expect(rows.first()).toContainText(s.ptsNo);
  await noKeys(page);
  await shootBoth(page, 'query-counts-list-subject');
  await setLanguage(page, 'zh_CN');
  await expect(page.getByTestId('query-filter-subject')).toHaveText(`受试者 ${s.ptsNo}`);
  await noKeys(page);
  await shootBoth(page, 'query-counts-list-subject-zh');
  await setLanguage(page, 'en_US');
  // closing the filter tag shows every open query again
  await page.getByTestId('query-filter-subject').locator('.ant-tag-close-icon').click();
  await expect(page.getByTestId('query-filter-subject')).toHaveCount(0);
  await expect(page).not.toHaveURL(/ptsId=/);
  await expect(
    page
      .getByTestId('query-table')
      .locator('tbody tr.ant-table-row', { hasText: 'The source document says 138 mmHg' })
      .first(),
  ).toBeVisible();
});

test("a subject's own risk level: set on its page, shown there and in the SDV list, listed in the risk drawer", async ({
  page,
  request,
}) => {
  const crc = await apiLogin(request, 'crc1', 3, 'site');
  const s = await subjectWithVitals(request, crc);
  const dm = await apiLogin(request, 'dm', 1, 'main');
  await openLoggedIn(
    page,
    dm,
    'main',
    `/project/SickFile?ptsNo=${encodeURIComponent(s.ptsNo)}&ptsId=${s.ptsId}&activeKey=pts360&proId=1`,
  );
  const tag = page.getByTestId('subject-risk');
  await expect(tag).toHaveAttribute('data-own', '0');
  await expect(tag).toContainText('(site)');
  // (the dialog covers the language switch: looked at in Chinese first, then set in English)
  await setLanguage(page, 'zh_CN');
  await page.getByTestId('detail-risk').click();
  await expect(page.getByTestId('subject-risk-0')).toContainText('沿用中心');
  await page.getByTestId('subject-risk-2').click();
  await noKeys(page);
  await shootBoth(page, 'subject-risk-dialog-zh');
  await page.getByRole('dialog').getByRole('button', { name: '取 消' }).click();
  await setLanguage(page, 'en_US');
  await page.getByTestId('detail-risk').click();
  await expect(page.getByTestId('subject-risk-ok')).toBeDisabled();
  await page.getByTestId('subject-risk-1').click();
  await page.getByTestId('subject-risk-reason').fill('Many protocol deviations at the screening visit');
  await noKeys(page);
  await shootBoth(page, 'subject-risk-dialog');
  await page.getByTestId('subject-risk-ok').click();
  await expect(tag).toHaveText('Risk: High (subject)');
  await expect(tag).toHaveAttribute('data-own', '1');
  await noKeys(page);
  await shootBoth(page, 'subject-risk-header');

  // the SDV list: every form of the subject needs SDV, its tag says the level is the subject's
  await page.goto('/project/verification');
  await page.getByTestId('verify-ptsno').locator('input').fill(s.ptsNo);
  await page.getByTestId('verify-ptsno').locator('input').press('Enter');
  const row = page
    .getByTestId('verification-table')
    .locator('tbody tr.ant-table-row', { hasText: 'Vital signs' });
  await expect(row).toHaveCount(1);
  await expect(row).toContainText('High (subject)');
  await expect(row).toContainText('Yes');
  await noKeys(page);
  await shootBoth(page, 'subject-risk-verification');

  // the risk drawer lists it; back to the site's level from there
  await setLanguage(page, 'zh_CN');
  await page.getByTestId('risk-open').click();
  await page.getByTestId('risk-subjects-tab').click();
  await expect(page.getByTestId('risk-subjects-tab')).toContainText('单独设置的受试者');
  await expect(page.getByTestId('risk-subjects')).toContainText(s.ptsNo);
  await noKeys(page);
  await shootBoth(page, 'subject-risk-drawer-zh');
  await page.getByTestId('risk-drawer').locator('.ant-drawer-close').click();
  await expect(page.getByTestId('risk-drawer')).toBeHidden();
  await setLanguage(page, 'en_US');
  await page.getByTestId('risk-open').click();
  await page.getByTestId('risk-subjects-tab').click();
  await expect(page.getByTestId('risk-subjects')).toContainText(s.ptsNo);
  await noKeys(page);
  await shootBoth(page, 'subject-risk-drawer');
  await page.getByTestId(`risk-subject-${s.ptsNo}`).click();
  await page.getByTestId('subject-risk-0').click();
  await page.getByTestId('subject-risk-ok').click();
  await expect(page.getByTestId('risk-subjects')).not.toContainText(s.ptsNo);
});

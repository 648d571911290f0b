import { expect, test } from '@playwright/test';
import path from 'node:path';
import { apiLogin, ARTIFACTS, openLoggedIn } from './helpers';

test('a running job appears in the progress panel; closing it marks the items read', async ({
  page,
  request,
}) => {
  const s = await apiLogin(request, 'crc1', 3, 'site');
  const headers = { token: s.token, proId: '1', proType: 'PRO' };
  // start from an empty panel: mark what earlier journeys left for this user (uploads, extractions) as read
  for (const type of [1, 2]) {
    const before = (await (await request.post('/api/proProgressDisplay/list', { data: { type }, headers })).json()) as { data: { id: number }[] };
    if (before.data.length > 0)
      await request.post('/api/proProgressDisplay/updateIsReadByIdList', { form: { idList: before.data.map((i) => i.id).join(',') }, headers });
  }
  // a real job on the server's queue, reporting done/total to a progress item (type 2: subject extraction)
  const started = await request.post('/api/test/jobs/start', {
    form: { type: 2, steps: 40, stepMs: 400, label: 'Extraction S-001', ptsNo: 'S-001', ptsId: 1 },
    headers,
  });
  expect(started.status(), await started.text()).toBe(200);

  await openLoggedIn(page, s, 'site', '/project/sickLoop?proId=1');
  const group = page.getByTestId('progress-group-2');
  await expect(group).toBeVisible({ timeout: 15_000 });
  await expect(group).toHaveAttribute('data-state', 'processing');
  const row = group.getByTestId('progress-row').first();
  await expect(row).toContainText('Extraction S-001');
  await expect(row).toContainText(/\d+\/40/);
  const view = row.getByTestId('progress-view');
  await expect(view).toHaveAttribute(
    'href',
    /\/project\/ptsDetail\?ptsNo=S-001&ptsId=1&designVersionId=.*activeKey=pts360|\/project\/ptsDetail\?ptsNo=S-001&ptsId=1&activeKey=pts360/,
  );
  await page.screenshot({ path: path.join(ARTIFACTS, 'progress-panel-en_US.png') });

  // collapsible
  await group.getByTestId('progress-toggle').click();
  await expect(row).toBeHidden();
  await group.getByTestId('progress-toggle').click();
  await expect(row).toBeVisible();

  const read = page.waitForRequest((r) => r.url().endsWith('/api/proProgressDisplay/updateIsReadByIdList'));
  await group.getByTestId('progress-close-2').click();
  await read;
  await expect(page.getByTestId('progress-panel')).toHaveCount(0);
  // the server no longer lists them, and the panel stays closed on the next polls
  const list = await request.post('/api/proProgressDisplay/list', { data: { type: 2 }, headers });
  expect(((await list.json()) as { data: unknown[] }).data).toEqual([]);
  await page.waitForTimeout(5_500);
  await expect(page.getByTestId('progress-panel')).toHaveCount(0);
});

test('groups: all success, all error', async ({ page, request }) => {
  const s = await apiLogin(request, 'dm', 1, 'main');
  const headers = { token: s.token, proId: '1', proType: 'PRO' };
  // start from an empty panel: mark what earlier journeys left as read
  const before = (await (
    await request.post('/api/proProgressDisplay/list', { data: { type: 3 }, headers })
  ).json()) as { data: { id: number }[] };
  if (before.data.length > 0)
    await request.post('/api/proProgressDisplay/updateIsReadByIdList', {
      form: { idList: before.data.map((i) => i.id).join(',') },
      headers,
    });
  // centre users poll EDC sync (type 3)
  await request.post('/api/test/jobs/start', {
    form: { type: 3, steps: 1, stepMs: 0, label: 'EDC sync ok' },
    headers,
  });
  await openLoggedIn(page, s, 'main', '/project/ProjectManage?proId=1');
  const group = page.getByTestId('progress-group-3');
  await expect(group).toHaveAttribute('data-state', 'allSuccess', { timeout: 15_000 });
  await group.getByTestId('progress-close-3').click();
  await expect(group).toHaveCount(0);
  await request.post('/api/test/jobs/start', {
    form: { type: 3, steps: 1, stepMs: 0, fail: 'true', label: 'EDC sync failing' },
    headers,
  });
  await expect(page.getByTestId('progress-group-3')).toHaveAttribute('data-state', 'allError', {
    timeout: 15_000,
  });
});

test('site users poll the ISF not-uploaded count every 3 s; centre users do not', async ({ page, request }) => {
  const s = await apiLogin(request, 'crc1', 3, 'site');
  const polls: number[] = [];
  page.on('request', (r) => {
    if (r.url().includes('/api/rf/file/getUnUploadNum')) polls.push(Date.now());
  });
  await openLoggedIn(page, s, 'site', '/project/sickLoop?proId=1');
  await expect(page.getByTestId('app-shell')).toBeVisible();
  await expect.poll(() => polls.length, { timeout: 12_000 }).toBeGreaterThanOrEqual(3);
  const gaps = polls.slice(1).map((t, i) => t - polls[i]!);
  for (const g of gaps) expect(g).toBeGreaterThan(2_500);

  const dm = await apiLogin(request, 'dm', 1, 'main');
  const page2 = await page.context().newPage();
  let centrePolls = 0;
  page2.on('request', (r) => {
    if (r.url().includes('/api/rf/file/getUnUploadNum')) centrePolls++;
  });
  await openLoggedIn(page2, dm, 'main', '/project/ProjectManage?proId=1');
  await expect(page2.getByTestId('app-shell')).toBeVisible();
  await page2.waitForTimeout(4_000);
  expect(centrePolls).toBe(0);
});

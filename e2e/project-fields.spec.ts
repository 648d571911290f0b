import path from 'node:path';
import sharp from 'sharp';
import { expect, test, type Page } from '@playwright/test';
import { ARTIFACTS, apiLogin, noKeys, openLoggedIn, setLanguage } from './helpers';

/**
 * The project fields that switch features (issue 15 item 10): a data manager edits scene, the five functions and
 * upload confirmation of a project of their own; the menus follow (EDC only in E2E, a switched-off function's menu
 * gone); the entry link is renewed and enters the project. Then upload confirmation on the demo study: an upload waits
 * for the coordinator's confirmation before de-identification.
 */
async function menuIds(page: Page): Promise<string[]> {
  const menu = page.getByTestId('side-menu');
  await expect(menu).toBeVisible();
  const closed = menu.locator('.ant-menu-submenu:not(.ant-menu-submenu-open) > .ant-menu-submenu-title');
  while ((await closed.count()) > 0) await closed.first().click();
  return menu
    .locator('[data-testid^="menu-"]')
    .evaluateAll((els) => els.map((e) => e.getAttribute('data-testid')!.slice(5)));
}

async function shot(page: Page, name: string) {
  await page.waitForTimeout(400);
  await page.screenshot({ path: path.join(ARTIFACTS, `${name}.png`) });
}

test('a data manager switches scene, functions and upload confirmation of a project; menus follow; the entry link is renewed', async ({
  page,
  request,
}) => {
  test.setTimeout(240_000);
  const stamp = Date.now() % 1e8;
  const NO = `PF-${stamp}`;
  const dm = await apiLogin(request, 'dm', 1, 'main');
  const add = await request.post('/api/pro/info/add', {
    headers: { token: dm.token, proType: 'PRO' },
    form: { no: NO, name: 'Project fields study', scene: 1 },
  });
  const created = ((await add.json()) as { data: { id: number } }).data;

  await openLoggedIn(page, dm, 'main', `/project/ProjectManage?proId=${created.id}`);
  await expect(page.getByTestId('project-label')).toContainText(NO, { timeout: 60_000 });
  await expect(page.getByTestId('project-scene-value')).toHaveText('Remote monitoring');
  for (const k of ['queries', 'verification', 'safety', 'isf', 'casebook'])
    await expect(page.getByTestId(`project-function-${k}`)).toHaveAttribute('data-on', 'true');
  let menu = await menuIds(page);
  // remote monitoring: no EDC pipeline
  expect(menu).not.toContain('edcReportDetail');
  expect(menu).toContain('doubtList');
  expect(menu).toContain('researchFile');

  // edit: E2E, queries and the ISF off, uploads confirmed first
  await page.getByTestId('project-edit').click();
  await page.getByTestId('project-scene').getByText('End-to-end (E2E)').click();
  await page.getByTestId('project-fn-queries').click();
  await page.getByTestId('project-fn-isf').click();
  await page.getByTestId('project-file-confirm').click();
  await shot(page, 'project-fields-dialog-en');
  await page
    .locator('.ant-modal')
    .filter({ has: page.getByTestId('project-dialog') })
    .locator('.ant-btn-primary')
    .click();
  await expect(page.getByTestId('project-dialog')).toHaveCount(0);
  await expect(page.getByTestId('project-scene-value')).toHaveText('End-to-end (E2E)');
  await expect(page.getByTestId('project-function-queries')).toHaveAttribute('data-on', 'false');
  await expect(page.getByTestId('project-function-isf')).toHaveAttribute('data-on', 'false');
  await expect(page.getByTestId('project-function-verification')).toHaveAttribute('data-on', 'true');
  await expect(page.getByTestId('project-file-confirm-value')).toHaveText('Yes');
  await page.reload();
  await expect(page.getByTestId('project-fields')).toBeVisible();
  menu = await menuIds(page);
  expect(menu).toContain('edcReportDetail');
  expect(menu).not.toContain('doubtList');
  expect(menu).not.toContain('researchFile');
  expect(menu).toContain('verification');
  await noKeys(page);
  await shot(page, 'project-fields-card-en');

  // the entry link: renewed, the new one enters the project
  const before = await page.getByTestId('project-entry-link').innerText();
  await page.getByTestId('project-uuid-renew').click();
  await page.locator('.ant-popconfirm .ant-btn-primary').click();
  await expect(page.getByTestId('project-entry-link')).not.toHaveText(before);
  const link = (await page.getByTestId('project-entry-link').innerText()).trim();
  expect(link).toMatch(/\/project\/ProjectManage\?uuid=[0-9a-f-]{36}$/);

  await setLanguage(page, 'zh_CN');
  await expect(page.getByTestId('project-scene-value')).toHaveText('端到端（E2E）');
  await noKeys(page);
  await shot(page, 'project-fields-card-zh');
  await page.setViewportSize({ width: 390, height: 844 });
  // on a phone the side menu is folded away first
  await page.getByTestId('menu-collapse').click();
  await shot(page, 'project-fields-card-390');
  await page.getByTestId('menu-collapse').click();
  await page.setViewportSize({ width: 1440, height: 900 });

  // leave the project, then come back through the renewed link
  await page.goto('/overview');
  await page.goto(new URL(link).pathname + new URL(link).search);
  await expect(page.getByTestId('project-label')).toContainText(NO);
});

/** A small lab-report image (generated; no real data). */
async function labPng(): Promise<Buffer> {
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="480" height="200"><rect width="100%" height="100%" fill="#fff"/>
  <g font-family="sans-serif" font-size="16" fill="#111"><text x="20" y="40">Glucose 5.6 mmol/L</text><text x="20" y="80">HbA1c 6.1 %</text></g></svg>`;
  return sharp(Buffer.from(svg)).png().toBuffer();
}

test('with upload confirmation on, a coordinator confirms an upload before it is de-identified, or discards it with a reason', async ({
  page,
  request,
}) => {
  test.setTimeout(240_000);
  const dm = await apiLogin(request, 'dm', 1, 'main');
  const crc = await apiLogin(request, 'crc1', 3, 'site');
  const H = { proId: '1', proType: 'PRO', language: 'en_US' };
  const get = async () =>
    (
      (await (await request.post('/api/pro/info/get', { headers: { ...H, token: dm.token } })).json()) as {
        data: { version: number };
      }
    ).data;
  const set = async (v: number) =>
    request.post('/api/pro/info/update', {
      headers: { ...H, token: dm.token },
      form: { id: 1, version: (await get()).version, fileConfirmConfig: v },
    });
  // a subject of our own at site 01
  const sites = (
    (await (await request.post('/api/pro/site/list', { headers: { ...H, token: crc.token } })).json()) as {
      data: { id: number; siteNo: string }[];
    }
  ).data;
  const subj = await request.post('/api/project/managePts/add', {
    headers: { ...H, token: crc.token },
    form: { siteId: sites.find((s) => s.siteNo === '01')!.id, firstVisitDate: '2026-11-01' },
  });
  const { ptsId, ptsNo } = ((await subj.json()) as { data: { ptsId: number; ptsNo: string } }).data;
  expect((await set(1)).status()).toBe(200);
  try {
    for (const name of ['keep.png', 'wrong.png']) {
      const up = await request.post('/api/source/file/uploadImgNew', {
        headers: { ...H, token: crc.token },
        multipart: {
          ptsId: String(ptsId),
          docType: '3',
          files: { name, mimeType: 'image/png', buffer: await labPng() },
        },
      });
      expect(up.status()).toBe(200);
    }
    await openLoggedIn(page, crc, 'site', '/project/message?proId=1');
    await expect(page.getByTestId('project-label')).toContainText('DEMO-001', { timeout: 60_000 });
    const rows = page.getByTestId('file-table').locator('tr.ant-table-row').filter({ hasText: ptsNo });
    await expect(rows).toHaveCount(2);
    await expect(rows.first()).toContainText('Waiting import (to confirm)');
    await shot(page, 'file-confirm-pending-en');

    const wrong = rows.filter({ hasText: 'wrong.png' });
    await wrong.getByRole('button', { name: 'Discard' }).click();
    await page.getByTestId('fail-reason').fill('Uploaded to the wrong subject');
    await page.getByTestId('fail-ok').click();
    await expect(rows.filter({ hasText: 'wrong.png' })).toHaveCount(0);

    const keep = rows.filter({ hasText: 'keep.png' });
    await keep.getByRole('button', { name: 'Confirm' }).click();
    await page.locator('.ant-popconfirm .ant-btn-primary').click();
    await expect(page.locator('.ant-message')).toContainText(
      'Confirmed; automatic de-identification started.',
    );
    // de-identified, it comes back to the pending messages waiting for submission
    await expect(async () => {
      await page
        .getByTestId('deid-messages')
        .getByRole('button', { name: 'Refresh', exact: true })
        .first()
        .click();
      await expect(keep).toContainText('Waiting submit', { timeout: 3000 });
    }).toPass({ timeout: 90_000 });
    // the discarded one is among the invalid messages, with its reason kept
    await page.getByTestId('tab-invalid').click();
    const invalid = page.getByTestId('file-table').locator('tr.ant-table-row').filter({ hasText: ptsNo });
    await expect(invalid.filter({ hasText: 'wrong.png' })).toContainText('Default (discarded)');
    await noKeys(page);
  } finally {
    await set(0);
  }
});

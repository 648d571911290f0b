import { expect, test, type APIRequestContext, type Page } from '@playwright/test';
import path from 'node:path';
import {
  ARTIFACTS,
  apiLogin,
  enterDemoProject,
  openLoggedIn,
  untranslatedKeys,
  visibleText,
} from './helpers';

/**
 * A monitor's project audit log offers the events and people of this project's trail (not the system's, which a
 * project role cannot read) and filters by them; the sites page shows each site's visit schedule.
 */
test.describe.configure({ mode: 'serial', timeout: 120_000 });

type Lang = 'en_US' | 'zh_CN';

async function shot(page: Page, name: string): Promise<void> {
  await page.waitForTimeout(300);
  await page.screenshot({ path: path.join(ARTIFACTS, name) });
}

const openDropdown = (page: Page) => page.locator('.ant-select-dropdown:not(.ant-select-dropdown-hidden)');

test.beforeAll(async ({ request }) => {
  // a project event in PRO by the data manager: exporting the design is audited and changes nothing
  const dm = await apiLogin(request, 'dm', 1, 'main');
  const res = await request.get('/api/project/info/export', {
    headers: { token: dm.token, proId: '1', proType: 'PRO' },
  });
  expect(res.status()).toBe(200);
});

const EXPORTED: Record<Lang, string> = { en_US: 'Design exported', zh_CN: '导出项目设计' };

for (const lang of ['en_US', 'zh_CN'] as const) {
  test(`a monitor filters the project audit log by event and user (${lang})`, async ({ page, request }) => {
    const s = await apiLogin(request, 'cra', 2, 'main');
    await openLoggedIn(page, s, 'main', '/overview', lang);
    await enterDemoProject(page);
    await page.goto('/project/auditLogs');
    const view = page.getByTestId('project-audit-logs');
    await expect(view.getByTestId('audit-table')).toBeVisible({ timeout: 30_000 });

    // the event filter is there and offers this trail's events, translated
    await view.getByTestId('audit-event').click();
    const option = openDropdown(page).locator('.ant-select-item-option').filter({ hasText: EXPORTED[lang] });
    await expect(option).toBeVisible();
    await shot(page, `project-audit-events-${lang}.png`);
    await option.click();

    // so is the user filter, with the people of this trail
    await view.getByTestId('audit-user').click();
    const dana = openDropdown(page).locator('.ant-select-item-option').filter({ hasText: 'Dana Manager' });
    await expect(dana).toBeVisible();
    await dana.click();

    await view.getByTestId('audit-search').click();
    const rows = view.getByTestId('audit-table').locator('tbody tr.ant-table-row');
    await expect(rows.first()).toContainText(EXPORTED[lang]);
    const n = await rows.count();
    for (let i = 0; i < n; i++) {
      await expect(rows.nth(i)).toContainText(EXPORTED[lang]);
      await expect(rows.nth(i)).toContainText('Dana Manager');
    }
    await expect(page.locator('.ant-notification')).toHaveCount(0);
    await shot(page, `project-audit-filtered-${lang}.png`);
    expect(untranslatedKeys(await visibleText(page))).toEqual([]);
  });
}

const SCHEDULE: Record<Lang, { button: string; unscheduled: string; window: string }> = {
  en_US: { button: 'Visit schedule', unscheduled: 'Unscheduled', window: '−3 / +7 days' },
  zh_CN: { button: '访视计划', unscheduled: '计划外', window: '−3 / +7 天' },
};

for (const lang of ['en_US', 'zh_CN'] as const) {
  test(`the sites page shows a site's visit schedule (${lang})`, async ({ page, request }) => {
    const s = await apiLogin(request, 'dm', 1, 'main');
    await openLoggedIn(page, s, 'main', '/overview', lang);
    await enterDemoProject(page);
    await page.goto('/project/centerList');
    const table = page.getByTestId('sites-table');
    await expect(table).toContainText('01', { timeout: 30_000 });
    await expect(page.getByTestId('site-schedule-01')).toContainText(SCHEDULE[lang].button);
    await shot(page, `sites-${lang}.png`);
    await page.getByTestId('site-schedule-01').click();

    const drawer = page.getByTestId('site-schedule');
    await expect(drawer.getByTestId('site-schedule-version')).toContainText('v1.0');
    const visits = drawer.getByTestId('site-schedule-table');
    for (const code of ['V1', 'V2', 'V3']) await expect(visits).toContainText(code);
    const v3 = visits.locator('tr').filter({ hasText: 'V3' });
    await expect(v3).toContainText('28');
    await expect(v3).toContainText(SCHEDULE[lang].window);
    await expect(visits.locator('tr').filter({ hasText: 'UNS' })).toContainText(SCHEDULE[lang].unscheduled);
    await expect(page.locator('.ant-notification')).toHaveCount(0);
    await shot(page, `site-schedule-${lang}.png`);
    expect(untranslatedKeys(await visibleText(page))).toEqual([]);

    // no version published to this environment: said so, not an empty table
    const site = (await (
      await request.get('/api/pro/site/schedule/get', {
        headers: {
          token: s.token,
          proId: '1',
          proType: 'PRO',
          proSiteId: await siteIdOf(request, s.token, '01'),
        },
      })
    ).json()) as { data: { site: unknown } };
    await page.route('**/api/pro/site/schedule/get', (r) =>
      r.fulfill({
        json: {
          code: 200,
          status: '1',
          data: { site: site.data.site, version: null, visits: [], stages: [], forms: [] },
        },
      }),
    );
    // the drawer's own close button: Escape reaches the drawer only once it has taken the focus, which under load
    // it had not yet (the drawer stayed open)
    await page.locator('.ant-drawer-open .ant-drawer-close').click();
    await expect(drawer).toBeHidden();
    await page.getByTestId('site-schedule-01').click();
    await expect(page.getByTestId('site-schedule-empty')).toBeVisible();
    await shot(page, `site-schedule-empty-${lang}.png`);
    expect(untranslatedKeys(await visibleText(page))).toEqual([]);

    // the server fails: an error with a retry
    await page.unroute('**/api/pro/site/schedule/get');
    await page.route('**/api/pro/site/schedule/get', (r) =>
      r.fulfill({
        status: 500,
        json: { code: 500, status: '0', errorCode: 'INTERNAL', message: 'Internal error' },
      }),
    );
    // the drawer's own close button: Escape reaches the drawer only once it has taken the focus, which under load
    // it had not yet (the drawer stayed open)
    await page.locator('.ant-drawer-open .ant-drawer-close').click();
    await expect(drawer).toBeHidden();
    await page.getByTestId('site-schedule-02').click();
    await expect(page.getByTestId('site-schedule-error')).toBeVisible();
    await shot(page, `site-schedule-error-${lang}.png`);
  });
}

async function siteIdOf(request: APIRequestContext, token: string, siteNo: string): Promise<string> {
  const res = await request.post('/api/pro/site/list', { headers: { token, proId: '1', proType: 'PRO' } });
  const body = (await res.json()) as { data: { id: number; siteNo: string }[] };
  return String(body.data.find((x) => x.siteNo === siteNo)!.id);
}

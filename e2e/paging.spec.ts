import { expect, test, type Page, type Request } from '@playwright/test';
import { apiLogin, openLoggedIn } from './helpers';

/**
 * The pager of the server-paged lists: page 2 stays page 2 (a table's sort handler used to send every page click
 * back to page 1 on the subject and user lists), a new page size starts at page 1, and so does a new sort. The
 * server's real answer is passed through with a larger total so that there are pages to move between, whatever the
 * demo data holds.
 */
const TOTAL = 130;

function pageNumberOf(req: Request): number | null {
  const fromUrl = new URL(req.url()).searchParams.get('pageNumber');
  if (fromUrl) return Number(fromUrl);
  const body = req.postData() ?? '';
  const m = /pageNumber"?\s*[:=]\s*"?(\d+)/.exec(body);
  return m ? Number(m[1]) : null;
}

async function widen(page: Page, api: string, seen: number[]): Promise<void> {
  await page.route(`**/api${api}*`, async (route) => {
    const n = pageNumberOf(route.request());
    if (n !== null) seen.push(n);
    try {
      const res = await route.fetch();
      const json = (await res.json()) as { data?: { totalCount?: number; total?: number } };
      if (json.data) {
        json.data.totalCount = TOTAL;
        if ('total' in json.data) json.data.total = TOTAL;
      }
      await route.fulfill({ response: res, json });
    } catch {
      // the page moved on (a newer request, the test's end) while this one was in flight
    }
  });
}

async function checkPager(page: Page, tableId: string, seen: number[], inUrl: boolean): Promise<void> {
  const table = page.getByTestId(tableId);
  await expect(table.locator('tbody tr.ant-table-row').first()).toBeVisible({ timeout: 30_000 });
  // the list's one pager (antd renders it beside the table element that carries the test id)
  const pager = page.locator('.ant-pagination');
  await expect(pager).toHaveCount(1);
  await expect(pager.locator('.ant-pagination-item-3')).toBeVisible();
  await pager.locator('.ant-pagination-item-2').click();
  await expect(pager.locator('.ant-pagination-item-active')).toHaveText('2');
  if (inUrl) await expect(page).toHaveURL(/pageNumber=2/);
  await expect.poll(() => seen.at(-1)).toBe(2);
  // and on to page 3 with the next arrow
  await pager.locator('.ant-pagination-next').click();
  await expect(pager.locator('.ant-pagination-item-active')).toHaveText('3');
  await expect.poll(() => seen.at(-1)).toBe(3);
  // a new page size starts at page 1
  await pager.locator('.ant-pagination-options .ant-select').click();
  await page.locator('.ant-select-item-option', { hasText: '100' }).click();
  await expect(pager.locator('.ant-pagination-item-active')).toHaveText('1');
  await expect.poll(() => seen.at(-1)).toBe(1);
  await pager.locator('.ant-pagination-item-2').click();
  await expect(pager.locator('.ant-pagination-item-active')).toHaveText('2');
  // a new sort starts at page 1 (where the list sorts)
  const sortable = table.locator('thead th.ant-table-column-has-sorters');
  if ((await sortable.count()) > 0) {
    await sortable.first().click();
    await expect(pager.locator('.ant-pagination-item-active')).toHaveText('1');
  }
}

/** `inUrl`: the list keeps its page in the URL's pageNumber (spec §2) */
const LISTS: {
  name: string;
  account: string;
  path: string;
  api: string;
  table: string;
  inUrl: boolean;
}[] = [
  {
    name: 'subject list',
    account: 'dm',
    path: '/project/centerPtsList?proId=1',
    api: '/project/manage/centerPtsPageQuery',
    table: 'subject-table',
    inUrl: true,
  },
  {
    name: 'user list',
    account: 'admin',
    path: '/system/userSys',
    api: '/auth/user/list',
    table: 'users-table',
    inUrl: true,
  },
  {
    name: 'team members',
    account: 'dm',
    path: '/project/user-manage?proId=1',
    api: '/pro/user/page',
    table: 'team-table',
    inUrl: true,
  },
  {
    name: 'roles',
    account: 'admin',
    path: '/system/roleSys',
    api: '/sys/role/page',
    table: 'roles-table',
    inUrl: false,
  },
  {
    name: 'organisations',
    account: 'admin',
    path: '/system/org',
    api: '/org/info/page',
    table: 'orgs-table',
    inUrl: false,
  },
  {
    name: 'audit trail',
    account: 'admin',
    path: '/system/auditTrack',
    api: '/audit/log/v1/listByPage',
    table: 'audit-table',
    inUrl: false,
  },
];

for (const l of LISTS) {
  test(`${l.name}: page 2 stays page 2; a new page size or sort starts at page 1`, async ({
    page,
    request,
  }) => {
    const s = await apiLogin(request, l.account, 1, 'main');
    const seen: number[] = [];
    await widen(page, l.api, seen);
    await openLoggedIn(page, s, 'main', l.path);
    await checkPager(page, l.table, seen, l.inUrl);
  });
}

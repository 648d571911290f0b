import { expect, test, type Locator, type Page } from '@playwright/test';
import path from 'node:path';
import { ARTIFACTS, apiLogin, enterDemoProject, openLoggedIn, setLanguage, type ApiSession } from './helpers';

/**
 * What a new user found (layout and form polish): list tables whose fixed action column covered other columns,
 * a long unbroken project name squeezing the project table, text fields that silently stopped at their limit,
 * a doubled "please enter the account", a delete offered for a role users hold, visits without English names.
 * Measured at 1280×720 and 1440×900 in both languages.
 */
test.describe.configure({ mode: 'serial', timeout: 240_000 });

const STAMP = Date.now().toString(36).slice(-6);
const LONG_NAME = `LONG${STAMP}${'X'.repeat(100 - 4 - STAMP.length)}`;
const VIEWPORTS = [
  { width: 1280, height: 720 },
  { width: 1440, height: 900 },
] as const;
const LANGS = ['en_US', 'zh_CN'] as const;

async function shot(page: Page, name: string): Promise<void> {
  await page.waitForTimeout(300);
  await page.screenshot({ path: path.join(ARTIFACTS, name) });
}

/**
 * Layout problems of an antd table: a header narrower than `minWidth`, a cell whose content runs out of it
 * (overflow visible, so it paints over its neighbour), and — scrolled fully right — a column the fixed right
 * column covers.
 */
async function tableProblems(table: Locator, minWidth = 48): Promise<string[]> {
  return table.evaluate(async (root, min) => {
    const out: string[] = [];
    const heads = Array.from(root.querySelectorAll<HTMLElement>('thead th.ant-table-cell')).filter(
      (th) => !th.classList.contains('ant-table-selection-column') && th.getBoundingClientRect().width > 0,
    );
    for (const th of heads) {
      const w = th.getBoundingClientRect().width;
      if (w < min) out.push(`column "${th.textContent}" is ${Math.round(w)} px wide`);
    }
    for (const td of Array.from(root.querySelectorAll<HTMLElement>('tbody tr.ant-table-row td.ant-table-cell')).slice(0, 200)) {
      const style = getComputedStyle(td);
      if (style.overflowX !== 'visible') continue;
      if (td.scrollWidth > td.clientWidth + 1)
        out.push(
          `cell "${(td.textContent ?? '').slice(0, 30)}" overflows by ${td.scrollWidth - td.clientWidth} px`,
        );
    }
    const scroller = root.querySelector<HTMLElement>('.ant-table-content, .ant-table-body');
    if (scroller) {
      scroller.scrollLeft = scroller.scrollWidth;
      await new Promise((r) => setTimeout(r, 100));
      const fixed = heads.find((th) => th.classList.contains('ant-table-cell-fix-right'));
      const before = fixed ? heads[heads.indexOf(fixed) - 1] : undefined;
      if (
        fixed &&
        before &&
        before.getBoundingClientRect().right > fixed.getBoundingClientRect().left + 1
      )
        out.push(`the fixed column covers "${before.textContent}" when scrolled right`);
      scroller.scrollLeft = 0;
    }
    return out;
  }, minWidth);
}

/** Opens `url` as the session's user in `lang` (several users in one page: no init script that seeds once). */
async function open(page: Page, s: ApiSession, url: string, lang: (typeof LANGS)[number]): Promise<void> {
  await page.goto('/privacy');
  await page.evaluate(
    ([session, language]) => {
      localStorage.setItem('esource.session', session);
      localStorage.setItem('esource.language', language);
    },
    [
      JSON.stringify({
        token: s.token,
        user: s.user,
        loginType: s.user.loginType,
        variant: 'main',
        env: s.user.projectType,
        project: null,
        moduleNo: 1,
      }),
      JSON.stringify(lang),
    ] as const,
  );
  await page.goto(url);
}

test('subject and user lists: the fixed action column covers nothing, at 1280 and 1440, in both languages', async ({
  page,
  request,
}) => {
  const admin = await apiLogin(request, 'admin', 1, 'main');
  const dm = await apiLogin(request, 'dm', 1, 'main');
  // a subject with every identifier filled (the widest row the list has)
  const crc = await apiLogin(request, 'crc1', 3, 'site');
  const h = { token: crc.token, proId: '1', proType: 'PRO' };
  const sites = (await (await request.post('/api/pro/site/list', { headers: h })).json()) as {
    data: { id: number; siteNo: string }[];
  };
  const add = await request.post('/api/project/managePts/add', {
    headers: h,
    form: {
      siteId: sites.data.find((x) => x.siteNo === '01')!.id,
      firstVisitDate: new Date().toISOString().slice(0, 10),
      medicalRecordId: `MR${STAMP}${'7'.repeat(30)}`,
      idCard: '11010519491231002X',
    },
  });
  expect(add.status()).toBe(200);
  for (const lang of LANGS) {
    for (const vp of VIEWPORTS) {
      await page.setViewportSize(vp);
      await open(page, dm, '/project/centerPtsList?proId=1', lang);
      const subjects = page.getByTestId('subject-table');
      await expect(subjects.locator('tbody tr.ant-table-row').first()).toBeVisible({ timeout: 30_000 });
      expect(await tableProblems(subjects), `subjects ${lang} ${vp.width}`).toEqual([]);
      await shot(page, `layout-subjects-${lang}-${vp.width}.png`);

      await open(page, admin, '/system/userSys', lang);
      const users = page.getByTestId('users-table');
      await expect(users.locator('tbody tr.ant-table-row').first()).toBeVisible({ timeout: 30_000 });
      expect(await tableProblems(users), `users ${lang} ${vp.width}`).toEqual([]);
      await shot(page, `layout-users-${lang}-${vp.width}.png`);
    }
  }
});

test('a 100-character name without spaces: the project table stays readable and the buttons do not cover it', async ({
  page,
  request,
}) => {
  const dm = await apiLogin(request, 'dm', 1, 'main');
  const res = await request.post('/api/pro/info/add', {
    headers: { token: dm.token, proType: 'DEV' },
    form: { no: `L-${STAMP}`, name: LONG_NAME, scene: 1 },
  });
  const body = (await res.json()) as { status: string; data: { id: number }; message?: string };
  expect(body.status, body.message).toBe('1');
  for (const lang of LANGS) {
    for (const vp of VIEWPORTS) {
      await page.setViewportSize(vp);
      await open(page, dm, `/project/ProjectManage?proId=${body.data.id}`, lang);
      const table = page.getByTestId('project-table');
      await expect(table.getByTestId(`project-name-L-${STAMP}`)).toBeVisible({ timeout: 30_000 });
      expect(await tableProblems(table, 90), `projects ${lang} ${vp.width}`).toEqual([]);
      // the name ends in an ellipsis inside its column
      const name = await table.getByTestId(`project-name-L-${STAMP}`).boundingBox();
      const cell = await table
        .locator('td', { has: page.getByTestId(`project-name-L-${STAMP}`) })
        .boundingBox();
      expect(name!.x + name!.width).toBeLessThanOrEqual(cell!.x + cell!.width + 1);
      expect(cell!.width).toBeGreaterThan(150);
      // the open project's name and its buttons do not overlap
      const title = await page.getByTestId('open-project-name').boundingBox();
      const card = await page.getByTestId('open-project-card').boundingBox();
      expect(title!.x + title!.width).toBeLessThanOrEqual(card!.x + card!.width);
      for (const b of await page.getByTestId('open-project-actions').locator('button').all()) {
        const box = (await b.boundingBox())!;
        const overlaps =
          box.x < title!.x + title!.width &&
          title!.x < box.x + box.width &&
          box.y < title!.y + title!.height &&
          title!.y < box.y + box.height;
        expect(overlaps, `button ${await b.textContent()} overlaps the name`).toBe(false);
        expect(box.x + box.width).toBeLessThanOrEqual(card!.x + card!.width);
      }
      await shot(page, `layout-long-project-${lang}-${vp.width}.png`);

      await open(page, dm, '/overview', lang);
      const cardName = page.getByTestId('project-card-name').filter({ hasText: `LONG${STAMP}` });
      await expect(cardName).toBeVisible({ timeout: 30_000 });
      const nb = (await cardName.boundingBox())!;
      const cb = (await page.getByTestId('project-card').filter({ has: cardName }).boundingBox())!;
      expect(nb.x + nb.width).toBeLessThanOrEqual(cb.x + cb.width);
      if (vp.width === 1280) await shot(page, `layout-overview-long-${lang}.png`);
    }
  }
});

test('text limits: the counter shows the limit and an over-long value is refused with it; one "please enter the account"', async ({
  page,
  request,
}) => {
  const admin = await apiLogin(request, 'admin', 1, 'main');
  for (const lang of LANGS) {
    await page.setViewportSize({ width: 1280, height: 720 });
    await open(page, admin, '/system/userSys', lang);
    await page.getByTestId('users-add').click();
    const form = page.getByTestId('user-form');
    await expect(form).toBeVisible();
    await page.locator('.ant-modal-footer .ant-btn-primary').last().click();
    const accountItem = form.locator('.ant-form-item').filter({ has: page.getByTestId('user-account') });
    const required = lang === 'en_US' ? 'Please enter the account' : '请输入账号';
    await expect(accountItem.locator('.ant-form-item-explain')).toContainText(required);
    await expect(accountItem.locator('.ant-form-item-explain-error')).toHaveCount(1);

    // typing past the limit is not cut: the counter says 60 / 50 and the message names 50
    await page.getByTestId('user-name').fill('N'.repeat(60));
    const nameItem = form.locator('.ant-form-item').filter({ has: page.getByTestId('user-name') });
    await expect(page.getByTestId('user-name')).toHaveValue('N'.repeat(60));
    await expect(nameItem.locator('.ant-input-show-count-suffix, .ant-input-data-count')).toContainText(
      '60 / 50',
    );
    await expect(nameItem.locator('.ant-form-item-explain')).toContainText(
      lang === 'en_US' ? 'At most 50 characters (60 entered)' : '最多 50 个字符（已输入 60 个）',
    );
    await shot(page, `limits-user-form-${lang}.png`);
    await page.keyboard.press('Escape');
  }

  // the project form: 101 characters are refused naming 100
  const dm = await apiLogin(request, 'dm', 1, 'main');
  await open(page, dm, '/project/ProjectManage?proId=1', 'en_US');
  await page.getByTestId('project-create').click();
  await page.getByTestId('project-name').fill('P'.repeat(101));
  await expect(page.getByTestId('project-name')).toHaveValue('P'.repeat(101));
  const item = page.locator('.ant-form-item').filter({ has: page.getByTestId('project-name') });
  await expect(item).toContainText('101 / 100');
  await expect(item.locator('.ant-form-item-explain')).toContainText('100');
  await shot(page, 'limits-project-form-en_US.png');
});

test('a role users hold cannot be deleted: the button is disabled and says why', async ({
  page,
  request,
}) => {
  const admin = await apiLogin(request, 'admin', 1, 'main');
  for (const lang of LANGS) {
    await open(page, admin, '/system/roleSys', lang);
    const row = page
      .getByTestId('roles-table')
      .locator('tbody tr.ant-table-row')
      .filter({ hasText: 'ADMIN' })
      .first();
    await expect(row).toBeVisible({ timeout: 30_000 });
    const del = row.getByTestId('role-delete');
    await expect(del).toBeDisabled();
    await del.hover({ force: true });
    await expect(page.locator('.ant-tooltip:visible')).toContainText(
      lang === 'en_US' ? 'In use by' : '位用户使用',
    );
    await shot(page, `roles-in-use-${lang}.png`);
  }
});

test('on a 390 px phone the header fits (icons, environment code, project number) and the side menu starts folded', async ({
  page,
  request,
}) => {
  const s = await apiLogin(request, 'dm', 1, 'main');
  await openLoggedIn(page, s, 'main', '/overview', 'en_US');
  await enterDemoProject(page);
  for (const lang of LANGS) {
    // the language switched in the page (a second openLoggedIn would keep the first language)
    await setLanguage(page, lang);
    await expect(page.getByTestId('language-switch')).toHaveAttribute('aria-label', lang === 'en_US' ? 'English' : '简体中文');
    await expect(page.getByTestId('side-menu')).toHaveAttribute('data-collapsed', 'false');
    await page.setViewportSize({ width: 390, height: 844 });
    await expect(page.getByTestId('side-menu')).toHaveAttribute('data-collapsed', 'true');
    const header = page.locator('.esource-header');
    // nothing of the header runs past the screen's edge; the user menu and the language stay reachable
    expect(await header.evaluate((h) => h.scrollWidth)).toBeLessThanOrEqual(390);
    for (const id of ['user-dropdown', 'language-switch', 'env-switch', 'message-badge']) {
      const box = await page.getByTestId(id).boundingBox();
      expect(box && box.x + box.width, id).toBeLessThanOrEqual(390);
    }
    // the environment's code alone (zh "正式环境 PRO" gives way to "PRO")
    await expect(page.getByTestId('env-switch')).toHaveText(/^PRO\s*$/, { useInnerText: true });
    await shot(page, `header-390-${lang}.png`);
    // back on a wide screen: the words and the unfolded menu return
    await page.setViewportSize({ width: 1440, height: 900 });
    await expect(page.getByTestId('side-menu')).toHaveAttribute('data-collapsed', 'false');
    await expect(page.getByTestId('env-switch')).toHaveText(lang === 'en_US' ? /^PRO\s*$/ : /^正式环境 PRO\s*$/, { useInnerText: true });
  }
});

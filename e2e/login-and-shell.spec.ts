import { expect, test } from '@playwright/test';
import { enterDemoProject, LOGIN_PATH, setLanguage, uiLogin, type Variant } from './helpers';

interface Case {
  account: string;
  variant: Variant;
  loginType: number;
  product: string;
  productName: string;
  tabs: string[];
  menus: string[];
  notMenus: string[];
}

const CASES: Case[] = [
  {
    account: 'admin',
    variant: 'main',
    loginType: 1,
    product: 'centre',
    productName: 'eSource Centre',
    tabs: ['1', '2', '6', '9'],
    menus: [],
    notMenus: [],
  },
  {
    account: 'dm',
    variant: 'main',
    loginType: 1,
    product: 'centre',
    productName: 'eSource Centre',
    tabs: ['1'],
    menus: [
      'projectManage',
      'centerPtsList',
      'centerList',
      'visitTimeline',
      'doubtList',
      'reports',
      'userManage',
    ],
    notMenus: ['craPtsList', 'sickLoop', 'auditLogs'],
  },
  {
    account: 'cra',
    variant: 'main',
    loginType: 2,
    product: 'monitor',
    productName: 'eSource Monitor',
    tabs: ['1'],
    menus: ['craPtsList', 'auditLogs', 'verification', 'doubtList'],
    notMenus: ['centerPtsList', 'sickLoop', 'failedPtsList'],
  },
  {
    account: 'crc1',
    variant: 'site',
    loginType: 3,
    product: 'site',
    productName: 'eSource Site',
    tabs: ['1'],
    menus: ['sickLoop', 'sourceFile', 'uploadTuomin', 'researchFile'],
    notMenus: ['centerPtsList', 'craPtsList', 'auditLogs', 'reports'],
  },
  {
    account: 'ae',
    variant: 'ae',
    loginType: 4,
    product: 'ae',
    productName: 'eSource AE',
    tabs: ['1'],
    menus: ['clinical', 'ae', 'cm', 'medication'],
    notMenus: ['centerPtsList', 'craPtsList', 'sickLoop', 'sourceFile'],
  },
];

test.describe('login variants and login types', () => {
  for (const c of CASES) {
    test(`${c.account} (type ${c.loginType}) on the ${c.variant} login sees its logo, product, tabs and menus`, async ({
      page,
    }) => {
      await page.goto(LOGIN_PATH[c.variant]);
      await setLanguage(page, 'en_US');
      await expect(page.getByTestId('login-page')).toHaveAttribute('data-variant', c.variant);
      if (c.variant === 'main') {
        await page.getByTestId(`login-type-${c.loginType}`).click();
      } else {
        await expect(page.getByTestId('login-type-1')).toHaveCount(0);
      }
      await expect(page.getByTestId('product-logo').first()).toHaveAttribute('data-product', c.product);
      await expect(page.getByTestId('product-name').first()).toHaveText(c.productName);

      await page.getByTestId('login-account').fill(c.account);
      await page.getByTestId('login-password').fill('Demo@123456');
      await page.getByTestId('login-submit').click();
      await expect(page.getByTestId('app-shell')).toBeVisible();
      await expect(page).toHaveURL(/\/overview$/);
      await expect(page.getByTestId('product-name')).toHaveText(c.productName);
      await expect(page.getByTestId('product-logo')).toHaveAttribute('data-product', c.product);
      for (const no of ['1', '2', '6', '9']) {
        await expect(page.getByTestId(`module-tab-${no}`)).toHaveCount(c.tabs.includes(no) ? 1 : 0);
      }
      // the user dropdown by login type: Associate EDC and Modify Password only for centre users
      await page.getByTestId('user-dropdown').click();
      await expect(page.getByTestId('user-menu-personal')).toBeVisible();
      await expect(page.getByTestId('user-menu-edcLink')).toHaveCount(c.loginType === 1 ? 1 : 0);
      // every login type changes its own password and reads its messages (docs/decisions.md)
      await expect(page.getByTestId('user-menu-password')).toHaveCount(1);
      await expect(page.getByTestId('user-menu-messages')).toHaveCount(1);
      await page.keyboard.press('Escape');
      // search (Cmd+K) only for centre users with project:search:query
      await expect(page.getByTestId('search-button')).toHaveCount(c.loginType === 1 ? 1 : 0);

      if (c.menus.length > 0) {
        await enterDemoProject(page);
        const menu = page.getByTestId('side-menu');
        await expect(menu).toBeVisible();
        // open every submenu so that nested entries are rendered
        const closed = menu.locator(
          '.ant-menu-submenu:not(.ant-menu-submenu-open) > .ant-menu-submenu-title',
        );
        for (let n = await closed.count(); n > 0; n = await closed.count()) {
          await closed.first().click();
          await expect(closed).toHaveCount(n - 1);
        }
        for (const m of c.menus) await expect(page.getByTestId(`menu-${m}`), m).toBeVisible();
        for (const m of c.notMenus) await expect(page.getByTestId(`menu-${m}`), m).toHaveCount(0);
      }
    });
  }

  test('a login type the account does not have is refused with the server message', async ({ page }) => {
    await page.goto('/login');
    await setLanguage(page, 'en_US');
    await page.getByTestId('login-type-1').click();
    await page.getByTestId('login-account').fill('cra');
    await page.getByTestId('login-password').fill('Demo@123456');
    await page.getByTestId('login-submit').click();
    await expect(page.getByTestId('login-error')).toBeVisible();
    await expect(page.getByTestId('app-shell')).toHaveCount(0);
  });

  test('a wrong password is refused', async ({ page }) => {
    await page.goto('/site/login');
    await page.getByTestId('login-account').fill('crc2');
    await page.getByTestId('login-password').fill('wrong-password');
    await page.getByTestId('login-submit').click();
    await expect(page.getByTestId('login-error')).toBeVisible();
  });

  test('module tabs lead to their module; the side menu collapses to 60 px and shows the version', async ({
    page,
  }) => {
    await uiLogin(page, 'admin', 'main', 1);
    await page.getByTestId('module-tab-2').click();
    await expect(page).toHaveURL(/\/system\/userSys$/);
    const sider = page.getByTestId('side-menu');
    await expect(sider).toBeVisible();
    await expect(page.getByTestId('version-label')).toHaveText(/^v\d+\.\d+\.\d+/);
    expect((await sider.boundingBox())?.width).toBe(200);
    await page.getByTestId('menu-collapse').click();
    await expect(sider).toHaveAttribute('data-collapsed', 'true');
    await expect.poll(async () => (await sider.boundingBox())?.width).toBe(60);
    await page.getByTestId('menu-collapse').click();
    await page.getByTestId('module-tab-6').click();
    await expect(page).toHaveURL(/\/system\/auditTrack$/);
    await page.getByTestId('module-tab-9').click();
    await expect(page).toHaveURL(/\/system\/centerApply$/);
    await expect(page.getByTestId('page-area')).toHaveAttribute('data-route', 'centerApply');
    await page.getByTestId('module-tab-1').click();
    await expect(page).toHaveURL(/\/overview$/);
    await expect(page.getByTestId('footer')).toContainText(`© ${new Date().getFullYear()}`);
  });

  test('Center Application is a PRO-only module: switching to UAT hides it', async ({ page }) => {
    await uiLogin(page, 'admin', 'main', 1);
    await expect(page.getByTestId('module-tab-9')).toBeVisible();
    // a switch on the overview reloads the page: wait for that load, or the next click lands on the page going away
    let reloaded = page.waitForEvent('load');
    await page.getByTestId('env-switch').click();
    await page.getByTestId('env-UAT').click();
    await reloaded;
    await expect(page.getByTestId('current-env')).toHaveText('UAT');
    await expect(page.getByTestId('module-tab-9')).toHaveCount(0);
    await expect(page.getByTestId('module-tab-2')).toBeVisible();
    reloaded = page.waitForEvent('load');
    await page.getByTestId('env-switch').click();
    await page.getByTestId('env-PRO').click();
    await reloaded;
    await expect(page.getByTestId('current-env')).toHaveText('PRO');
    await expect(page.getByTestId('module-tab-9')).toBeVisible();
  });
});

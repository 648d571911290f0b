import { expect, test, type Page } from '@playwright/test';
import { enterDemoProject, uiLogin } from './helpers';

/**
 * docs/security.md "HTTP headers and CSP": the served app runs under its Content-Security-Policy without a single
 * violation (no inline script, antd's runtime styles allowed), and Swagger UI at /api/docs too.
 */
function collectViolations(page: Page): string[] {
  const violations: string[] = [];
  page.on('console', (m) => {
    if (/Refused to|Content Security Policy/i.test(m.text())) violations.push(m.text());
  });
  page.on('pageerror', (e) => {
    if (/Content Security Policy|unsafe-eval/i.test(e.message)) violations.push(e.message);
  });
  return violations;
}

test('no CSP violation while logging in and opening screens', async ({ page }) => {
  const violations = collectViolations(page);
  // also the securitypolicyviolation events, which name the directive even when the console is quiet
  await page.addInitScript(() => {
    (window as unknown as { __csp: string[] }).__csp = [];
    document.addEventListener('securitypolicyviolation', (e) => {
      (window as unknown as { __csp: string[] }).__csp.push(`${e.violatedDirective} ${e.blockedURI}`);
    });
  });
  const res = await page.goto('/login');
  const csp = res?.headers()['content-security-policy'] ?? '';
  // no 'unsafe-eval': display conditions are interpreted and zod runs jitless (docs/security.md)
  expect(csp).toContain("script-src 'self';");
  expect(csp).not.toContain('unsafe-eval');
  expect(csp).toContain("frame-ancestors 'self'");
  expect(res?.headers()['x-content-type-options']).toBe('nosniff');

  await uiLogin(page, 'dm', 'main', 1);
  await expect(page.getByTestId('project-card').first()).toBeVisible();
  await enterDemoProject(page);
  const menu = page.getByTestId('side-menu');
  await expect(menu).toBeVisible();
  for (const m of ['centerPtsList', 'centerList', 'userManage']) {
    const item = page.getByTestId(`menu-${m}`);
    if ((await item.count()) === 0) {
      // nested entries render once their submenu is open
      const closed = menu.locator('.ant-menu-submenu:not(.ant-menu-submenu-open) > .ant-menu-submenu-title');
      for (let n = await closed.count(); n > 0 && (await item.count()) === 0; n = await closed.count()) await closed.first().click();
    }
    await item.click();
    await page.waitForLoadState('networkidle');
  }
  await page.getByTestId('user-dropdown').click();
  await page.keyboard.press('Escape');
  const events = await page.evaluate(() => (window as unknown as { __csp: string[] }).__csp);
  expect([...violations, ...events]).toEqual([]);
});

test('Swagger UI at /api/docs runs under its CSP and loads the document with the administrator session', async ({ page }) => {
  const violations = collectViolations(page);
  await uiLogin(page, 'admin', 'main', 1);
  const docs = page.waitForResponse((r) => r.url().endsWith('/api/docs/json'));
  await page.goto('/api/docs');
  const res = await docs;
  expect(res.status()).toBe(200);
  expect(res.request().headers()['token']).toBeTruthy();
  await expect(page.locator('#swagger-ui .information-container')).toContainText('eSource API');
  // the whole document arrived (every route), and the UI renders its operations (it renders tag by tag as the page
  // scrolls, so the first tag's are checked on screen)
  expect(Object.keys(((await res.json()) as { paths: Record<string, unknown> }).paths)).toEqual(expect.arrayContaining(['/api/v1/traces', '/api/crf/prefill/execute']));
  await expect(page.locator('#swagger-ui').getByText('/api/passport/getVersion').first()).toBeVisible();
  expect(violations).toEqual([]);
});

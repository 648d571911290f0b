import { createHash } from 'node:crypto';
import { copyFileSync, mkdirSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { expect, type APIRequestContext, type Page } from '@playwright/test';

export const DEMO_PASSWORD = 'Demo@123456';
export const ARTIFACTS = path.resolve(import.meta.dirname, 'artifacts');
mkdirSync(ARTIFACTS, { recursive: true });

export const sha256 = (s: string) => createHash('sha256').update(s).digest('hex');

export type Variant = 'main' | 'site' | 'ae';
export const LOGIN_PATH: Record<Variant, string> = { main: '/login', site: '/site/login', ae: '/ae/login' };

export interface ApiSession {
  token: string;
  user: { id: number; name: string; loginType: number; projectType: 'DEV' | 'UAT' | 'PRO' };
}

/** Logs in through the API (fast path for journeys that are not about the login page). */
export async function apiLogin(
  request: APIRequestContext,
  account: string,
  loginType: number,
  variant: Variant,
  password = DEMO_PASSWORD,
): Promise<ApiSession> {
  const res = await request.post('/api/passport/login', {
    form: { account, password: sha256(password), loginType, variant },
  });
  const body = (await res.json()) as { status: string; data: ApiSession; message?: string };
  expect(body.status, body.message).toBe('1');
  return body.data;
}

/** Opens the app already logged in, the way the app itself persists a session. */
export async function openLoggedIn(
  page: Page,
  s: ApiSession,
  variant: Variant,
  path = '/overview',
  language: 'zh_CN' | 'en_US' = 'en_US',
): Promise<void> {
  await page.addInitScript(
    ([session, lang, flag]) => {
      if (sessionStorage.getItem(flag)) return;
      sessionStorage.setItem(flag, '1');
      localStorage.setItem('esource.session', session);
      localStorage.setItem('esource.language', lang);
    },
    [
      JSON.stringify({
        token: s.token,
        user: s.user,
        loginType: s.user.loginType,
        variant,
        env: s.user.projectType,
        project: null,
        moduleNo: 1,
      }),
      JSON.stringify(language),
      `e2e-seeded-${s.token}`,
    ] as const,
  );
  await page.goto(path);
}

/** Logs in through the login page of a variant. */
export async function uiLogin(
  page: Page,
  account: string,
  variant: Variant,
  loginType?: number,
  password = DEMO_PASSWORD,
): Promise<void> {
  await page.goto(LOGIN_PATH[variant]);
  if (loginType) await page.getByTestId(`login-type-${loginType}`).click();
  await page.getByTestId('login-account').fill(account);
  await page.getByTestId('login-password').fill(password);
  await page.getByTestId('login-submit').click();
  await expect(page.getByTestId('app-shell')).toBeVisible();
}

export async function setLanguage(page: Page, lang: 'zh_CN' | 'en_US'): Promise<void> {
  await page.getByTestId('language-switch').click();
  await page.getByTestId(`lang-${lang}`).click();
  // in the shell the choice is a dropdown that closes with an animation: wait until no dropdown is open, so that a
  // read of the page that follows does not find both languages' names in it (the login page's toggle has none)
  await expect(page.locator('.ant-dropdown:not(.ant-dropdown-hidden)')).toHaveCount(0);
}

export async function enterDemoProject(page: Page): Promise<void> {
  await page.getByTestId('project-card').first().click();
  await expect(page.getByTestId('project-label')).toContainText('DEMO-001');
}

const LOCALES = path.resolve(import.meta.dirname, '../apps/web/src/locales/en_US');

function keyPaths(o: unknown, prefix = ''): string[] {
  if (Array.isArray(o)) return [];
  if (o && typeof o === 'object')
    return Object.entries(o).flatMap(([k, v]) => keyPaths(v, prefix ? `${prefix}.${k}` : k));
  return [prefix];
}

/** What i18next renders for a missing key: `ns:key` or a dotted key path. Every such key of our locales. */
export const KEY_PATTERNS: string[] = readdirSync(LOCALES).flatMap((f) => {
  const ns = f.replace(/\.json$/, '');
  const keys = keyPaths(JSON.parse(readFileSync(path.join(LOCALES, f), 'utf8')));
  return [...keys.filter((k) => k.includes('.')), ...keys.map((k) => `${ns}:${k}`)];
});

/** Keys that show up untranslated in a text. */
export function untranslatedKeys(text: string): string[] {
  return KEY_PATTERNS.filter((k) => text.includes(k));
}

export async function visibleText(page: Page): Promise<string> {
  return page.evaluate(() => document.body.innerText);
}

/** No translation key shows untranslated on the page (after a short settle). */
export async function noKeys(page: Page): Promise<void> {
  await page.waitForTimeout(300);
  expect(untranslatedKeys(await visibleText(page))).toEqual([]);
}

/** Picks a subject by number in an antd Select (searchable) with the given test id. */
export async function pickSubject(page: Page, testId: string, ptsNo: string): Promise<void> {
  await page.getByTestId(testId).click();
  await page.keyboard.type(ptsNo);
  await page
    .locator('.ant-select-dropdown:not(.ant-select-dropdown-hidden) .ant-select-item-option')
    .filter({ hasText: ptsNo })
    .first()
    .click();
}

/**
 * Screenshots at 1440×900 and 1280×720 into e2e/artifacts (`<name>-<width>.png`; also copied to E2E_SHOTS_DIR when
 * set), then back to 1440×900. E2E_SCREENSHOTS=0 (CI, where nobody looks at them) skips them: two resizes and two
 * software-rendered captures each, over 150 places.
 */
export async function shootBoth(page: Page, name: string): Promise<void> {
  if (process.env.E2E_SCREENSHOTS === '0') return;
  const shots = process.env.E2E_SHOTS_DIR;
  if (shots) mkdirSync(shots, { recursive: true });
  for (const [w, h] of [
    [1440, 900],
    [1280, 720],
  ] as const) {
    await page.setViewportSize({ width: w, height: h });
    const file = path.join(ARTIFACTS, `${name}-${w}.png`);
    await page.screenshot({ path: file });
    if (shots) copyFileSync(file, path.join(shots, `${name}-${w}.png`));
  }
  await page.setViewportSize({ width: 1440, height: 900 });
}

export interface Envelope<T = unknown> {
  status: string;
  message?: string;
  data: T;
}

/**
 * A fresh centre user of a journey's own (so that no other journey changes it), added by the administrator in the
 * first organisation, whose initial password is changed through the API to `password`.
 */
export async function createCentreUser(
  request: APIRequestContext,
  user: { account: string; name: string; phone: string; password: string },
): Promise<{ account: string; id: number; admin: ApiSession }> {
  const admin = await apiLogin(request, 'admin', 1, 'main');
  const orgs = await request.post('/api/org/info/page', {
    headers: { token: admin.token },
    form: { pageNumber: 1, pageSize: 50 },
  });
  const orgId = ((await orgs.json()) as Envelope<{ content: { id: number }[] }>).data.content[0]!.id;
  const res = await request.post('/api/system/user/add', {
    headers: { token: admin.token },
    form: { account: user.account, name: user.name, phone: user.phone, orgId, loginTypes: 1 },
  });
  const added = (await res.json()) as Envelope<{ id: number; initialPassword: string }>;
  expect(added.status, added.message).toBe('1');
  const first = await apiLogin(request, user.account, 1, 'main', added.data.initialPassword);
  const changed = await request.post('/api/user/updatePwd', {
    headers: { token: first.token },
    form: {
      userId: added.data.id,
      oldPwd: sha256(added.data.initialPassword),
      newPwd: sha256(user.password),
    },
  });
  expect(((await changed.json()) as Envelope).status).toBe('1');
  return { account: user.account, id: added.data.id, admin };
}

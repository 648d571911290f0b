import { expect, test, type APIRequestContext, type Page } from '@playwright/test';
import { apiLogin, noKeys, openLoggedIn, setLanguage, shootBoth } from './helpers';

/**
 * Associate EDC (issue 14 item 3; /edc-link): the data manager `dm` (login type 1) opens the user menu → Associate
 * EDC and sees the EDCs of their projects — none at first (the empty state), then the demo project's EDC once one is
 * configured (the demo Rave-style receiver scripts/start.mjs runs on DEMO_EDC_PORT; without E2E_DEMO_EDC_PORT that
 * part is skipped). A wrong password is refused with the EDC's reason and nothing is linked; the right one links the
 * account ("linked as edc-demo", verified); unlinking asks first. Screenshots in en_US and zh_CN (also copied to
 * E2E_SHOTS_DIR when set).
 */
test.describe.configure({ mode: 'serial', timeout: 180_000 });

const EDC_PORT = process.env.E2E_DEMO_EDC_PORT ?? '';
// the demo EDC's study, environment and its one account (apps/server/src/modules/edc/demo-edc.ts DEMO_EDC)
const STUDY = 'DEMO-001';
const TARGET_ENV = 'Prod';
const EDC_USER = 'edc-demo';
const EDC_PASSWORD = 'Demo-EDC-2026';


interface Envelope {
  status: string;
  data: unknown;
  message?: string;
}

async function post(
  request: APIRequestContext,
  token: string,
  url: string,
  data: Record<string, unknown>,
): Promise<Envelope> {
  const r = await request.post(`/api${url}`, {
    headers: { token, proId: '1', proType: 'PRO', language: 'en_US' },
    data,
  });
  return (await r.json()) as Envelope;
}

/** Opens /edc-link the way a user does: the user dropdown → Associate EDC. */
async function openFromMenu(page: Page) {
  await page.getByTestId('user-dropdown').click();
  await page.getByTestId('user-menu-edcLink').click();
  await expect(page).toHaveURL(/\/edc-link$/);
  await expect(page.getByTestId('page-area')).toHaveAttribute('data-route', 'edcLink');
  await expect(page.getByTestId('edc-link-page')).toBeVisible();
  await expect(page.getByTestId('side-menu')).toHaveCount(0);
}

test('Associate EDC: from the user menu, link and unlink your own EDC account', async ({ page }) => {
  const s = await apiLogin(page.request, 'dm', 1, 'main');
  const before = await post(page.request, s.token, '/edc/link/list', {});
  expect(before.status, before.message).toBe('1');
  await openLoggedIn(page, s, 'main', '/overview', 'en_US');
  await openFromMenu(page);
  await noKeys(page);

  if ((before.data as unknown[]).length === 0) {
    await expect(page.getByTestId('edc-link-empty')).toBeVisible();
    await shootBoth(page, 'edc-link-empty-en');
  }
  test.skip(
    !EDC_PORT,
    'E2E_DEMO_EDC_PORT is unset: the demo EDC is not running, so there is no EDC to link to',
  );

  // the demo project's EDC (configured here unless an earlier journey did), with a service account of its own
  const cfg = await post(page.request, s.token, '/edc/config/get', {});
  let configId = (cfg.data as { id: number } | null)?.id;
  if (!configId) {
    const saved = await post(page.request, s.token, '/edc/config/save', {
      kind: 1,
      name: 'Demo EDC',
      baseUrl: `http://127.0.0.1:${EDC_PORT}`,
      studyOid: STUDY,
      targetEnv: TARGET_ENV,
      secret: `${EDC_USER}:${EDC_PASSWORD}`,
    });
    expect(saved.status, saved.message).toBe('1');
    configId = (saved.data as { id: number }).id;
  }
  await page.reload();
  await expect(page.getByTestId('edc-link-table')).toBeVisible();
  const state = page.getByTestId(`edc-link-state-${configId}`);
  // a link left by an earlier run: start from none
  if ((await state.getAttribute('data-linked')) === 'true') {
    await page.getByTestId(`edc-unlink-${configId}`).click();
    await page.getByTestId('edc-unlink-ok').click();
  }
  await expect(state).toHaveAttribute('data-linked', 'false');

  // a wrong password: the EDC's reason, nothing linked
  await page.getByTestId(`edc-link-open-${configId}`).click();
  const form = page.getByTestId(`edc-link-form-${configId}`);
  await form.getByTestId('edc-link-login').fill(EDC_USER);
  await form.getByTestId('edc-link-secret').fill('Wrong-Password-1');
  await form.getByTestId('edc-link-save').click();
  await expect(form.getByTestId('edc-link-error')).toContainText(/RWS00008|Incorrect login/);
  await expect(form.getByTestId('edc-link-secret')).toHaveValue('');
  await expect(state).toHaveAttribute('data-linked', 'false');
  await shootBoth(page, 'edc-link-refused-en');

  // the right one: linked and verified
  await form.getByTestId('edc-link-secret').fill(EDC_PASSWORD);
  await form.getByTestId('edc-link-save').click();
  await expect(form).toBeHidden();
  await expect(state).toHaveAttribute('data-linked', 'true');
  await expect(state).toContainText(`Linked as ${EDC_USER}`);
  await expect(state).toContainText('Verified');
  await expect(page.locator('body')).not.toContainText(EDC_PASSWORD);
  await noKeys(page);
  await shootBoth(page, 'edc-link-linked-en');

  await setLanguage(page, 'zh_CN');
  await expect(page.locator('body')).toContainText('关联 EDC');
  await expect(state).toContainText(`已关联：${EDC_USER}`);
  await noKeys(page);
  await shootBoth(page, 'edc-link-linked-zh');
  await page.getByTestId(`edc-link-open-${configId}`).click();
  await expect(page.getByTestId(`edc-link-form-${configId}`)).toBeVisible();
  await shootBoth(page, 'edc-link-form-zh');
  await page.getByTestId('edc-link-cancel').click();

  // unlink asks first
  await page.getByTestId(`edc-unlink-${configId}`).click();
  await expect(page.locator('.ant-popconfirm')).toContainText('解除');
  await page.getByTestId('edc-unlink-ok').click();
  await expect(state).toHaveAttribute('data-linked', 'false');
  await setLanguage(page, 'en_US');
  await expect(state).toContainText('Not linked');
});

import { expect, test } from '@playwright/test';
import path from 'node:path';
import { apiLogin, ARTIFACTS, DEMO_PASSWORD, sha256, uiLogin } from './helpers';

test('Modify Password shows each validation message and the meter levels, then changes the password', async ({
  page,
  request,
}) => {
  await uiLogin(page, 'dm', 'main', 1);
  await page.getByTestId('language-switch').click();
  await page.getByTestId('lang-en_US').click();
  await page.getByTestId('user-dropdown').click();
  await page.getByTestId('user-menu-password').click();
  const dialog = page.locator('.modify-password-dialog .ant-modal');
  await expect(dialog).toBeVisible();
  await expect(dialog.getByTestId('password-hint')).toHaveText(
    "Please enter at least 8 characters. Please don't use passwords that are easy to guess.",
  );
  const ok = dialog.getByRole('button', { name: 'OK' });
  const pwd = dialog.getByTestId('new-password');
  const confirm = dialog.getByTestId('confirm-password');
  const meter = dialog.getByTestId('password-meter');

  await ok.click();
  await expect(dialog).toContainText('Please enter a new password.');
  await expect(dialog).toContainText('Please confirm the new password.');

  await pwd.fill('ab1');
  await expect(dialog).toContainText('Password strength is not enough.');
  await expect(meter).toHaveAttribute('data-level', '0');
  await expect(meter).toHaveAttribute('data-percent', '0');

  await pwd.fill('abcdefgh');
  await expect(dialog).toContainText(
    'At least 8 digits including numbers, English letters and special symbols.',
  );
  // breaks the rules: the meter says so rather than rating it
  await expect(meter).toHaveAttribute('data-level', 'invalid');
  await expect(dialog.getByTestId('password-level')).toHaveText('Invalid');
  // a space is not an allowed character, however varied the rest
  await pwd.fill('abc 1234!');
  await expect(meter).toHaveAttribute('data-level', 'invalid');
  await expect(dialog.getByTestId('password-level')).toHaveText('Invalid');

  await pwd.fill('abcdefg1!');
  await expect(meter).toHaveAttribute('data-level', '1');
  await expect(meter).toHaveAttribute('data-percent', '33');
  await expect(dialog.getByTestId('password-level')).toHaveText('Low');

  await pwd.fill('abcdef12!');
  await expect(meter).toHaveAttribute('data-level', '2');
  await expect(meter).toHaveAttribute('data-percent', '66');
  await expect(dialog.getByTestId('password-level')).toHaveText('Medium');

  const next = 'Newpass12!@';
  await pwd.fill(next);
  await expect(meter).toHaveAttribute('data-level', '3');
  await expect(meter).toHaveAttribute('data-percent', '99');
  await expect(dialog.getByTestId('password-level')).toHaveText('Strong');

  await confirm.fill('Newpass12!?');
  await expect(dialog).toContainText('The two passwords you entered do not match.');
  await page.screenshot({ path: path.join(ARTIFACTS, 'password-dialog-en_US.png') });

  // the request carries the SHA-256 digests (the current password re-authenticates), never the passwords
  await dialog.getByTestId('current-password').fill(DEMO_PASSWORD);
  const sent = page.waitForRequest((r) => r.url().endsWith('/api/user/updatePwd'));
  await confirm.fill(next);
  await ok.click();
  const body = new URLSearchParams((await sent).postData() ?? '');
  expect(body.get('oldPwd')).toBe(sha256(DEMO_PASSWORD));
  expect(body.get('newPwd')).toBe(sha256(next));
  expect(body.get('newPwd')).not.toContain(next);
  await expect(page.getByText('Password changed successfully.')).toBeVisible();
  await expect(dialog).toBeHidden();

  // the new password works; put the demo password back
  const s = await apiLogin(request, 'dm', 1, 'main', next);
  const back = await request.post('/api/user/updatePwd', {
    form: { oldPwd: sha256(next), newPwd: sha256(DEMO_PASSWORD), userId: s.user.id },
    headers: { token: s.token },
  });
  expect(back.status()).toBe(200);
});

test('the 90-day prompt offers to change the password after login', async ({ page }) => {
  // the demo passwords are fresh; flip the login answer's passwordChangeDue to see the prompt
  await page.route('**/api/passport/login', async (route) => {
    const res = await route.fetch();
    const body = (await res.json()) as { data?: { passwordChangeDue?: boolean } };
    if (body.data) body.data.passwordChangeDue = true;
    await route.fulfill({ response: res, json: body });
  });
  await page.goto('/login');
  await page.getByTestId('lang-en_US').click();
  await page.getByTestId('login-account').fill('admin');
  await page.getByTestId('login-password').fill(DEMO_PASSWORD);
  await page.getByTestId('login-submit').click();
  const prompt = page.locator('.password-due-prompt .ant-modal');
  await expect(prompt).toContainText('The password has not been changed for 90 days.');
  await prompt.getByRole('button', { name: 'Change now' }).click();
  await expect(page.locator('.modify-password-dialog .ant-modal')).toBeVisible();
  await page.locator('.modify-password-dialog .ant-modal').getByRole('button', { name: 'Cancel' }).click();
  // once per login: a reload does not ask again
  await page.reload();
  await expect(page.getByTestId('app-shell')).toBeVisible();
  await page.waitForTimeout(500);
  await expect(page.locator('.password-due-prompt .ant-modal')).toHaveCount(0);
});

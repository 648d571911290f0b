import { expect, test, type APIRequestContext } from '@playwright/test';
import sharp from 'sharp';
import {
  apiLogin,
  createCentreUser,
  type Envelope,
  noKeys,
  openLoggedIn,
  setLanguage,
  shootBoth,
} from './helpers';

/**
 * Personal settings (issue 15 item 1; /user-info): a user of their own (created here by the administrator, so that no
 * other journey changes it) opens Personal Settings from the user menu, edits name and e-mail, changes the phone with
 * the code the development SMS outbox kept (read the way the administrators' SMS Outbox page reads it), sees the new
 * number masked, uploads an avatar (shown in the page and the header), and changes the password from the page (the
 * Modify Password dialog). The administrator's SMS Outbox page shows the message. Screenshots in en_US and zh_CN
 * (also copied to E2E_SHOTS_DIR when set).
 */
test.describe.configure({ mode: 'serial', timeout: 180_000 });

const PASSWORD = 'Profile#Pass2031';

/** A fresh centre user with a password of its own (the initial one changed through the API). */
const createUser = async (request: APIRequestContext, n: number) =>
  createCentreUser(request, {
    account: `e2e.profile.${n}`,
    name: 'Pat Profile',
    phone: `136${String(n).padStart(8, '0')}`,
    password: PASSWORD,
  });

/** The code in the newest outbox message to a number, as the SMS Outbox page lists it (administrators). */
async function outboxCode(request: APIRequestContext, adminToken: string, phone: string): Promise<string> {
  const r = await request.get('/api/system/sms/outbox', {
    headers: { token: adminToken },
    params: { phone, pageSize: 50 },
  });
  const body = (await r.json()) as Envelope<{ content: { phone: string; body: string }[] }>;
  expect(body.status, body.message).toBe('1');
  const msg = body.data.content.find((m) => m.phone === phone);
  const code = /\b(\d{6})\b/.exec(msg?.body ?? '')?.[1];
  expect(code, `a code to ${phone} in the outbox`).toBeTruthy();
  return code!;
}

test('Personal Settings: edit, change the phone with a code from the outbox, upload an avatar, change the password', async ({
  page,
}) => {
  const n = Date.now() % 100_000_000;
  const { account, admin } = await createUser(page.request, n);
  const me = await apiLogin(page.request, account, 1, 'main', PASSWORD);
  await openLoggedIn(page, me, 'main', '/overview', 'en_US');
  await page.getByTestId('user-dropdown').click();
  await page.getByTestId('user-menu-personal').click();
  await expect(page).toHaveURL(/\/user-info$/);
  const pageArea = page.getByTestId('user-info-page');
  await expect(pageArea).toBeVisible();
  await expect(page.getByTestId('profile-name')).toHaveText('Pat Profile');
  await expect(page.getByTestId('profile-phone')).toHaveText(
    `136****${String(n).padStart(8, '0').slice(-4)}`,
  );
  await noKeys(page);

  // name and e-mail
  await page.getByTestId('profile-info-edit').click();
  await page.getByTestId('profile-info-mail').fill('not-an-address');
  await page.getByTestId('profile-info-save').click();
  await expect(page.getByText('Please enter a valid e-mail address')).toBeVisible();
  await page.getByTestId('profile-info-name').fill('Pat Q. Profile');
  await page.getByTestId('profile-info-mail').fill('pat.profile@hospital.example');
  await page.getByTestId('profile-info-save').click();
  await expect(page.getByTestId('profile-field-mail')).toHaveText('pat.profile@hospital.example');
  await expect(page.getByTestId('profile-name')).toHaveText('Pat Q. Profile');

  // the phone: a code to the new number, read from the development outbox
  const newPhone = `137${String(n).padStart(8, '0')}`;
  await page.getByTestId('profile-phone-change').click();
  const dialog = page.getByTestId('phone-change-form');
  await expect(dialog).toBeVisible();
  await page.getByTestId('phone-change-phone').fill('12345');
  await page.getByTestId('phone-change-send').click();
  await expect(dialog).toContainText('Please enter an 11-digit mainland-China mobile number');
  await page.getByTestId('phone-change-phone').fill(newPhone);
  await page.getByTestId('phone-change-send').click();
  await expect(page.getByTestId('phone-change-sent')).toContainText(`137****${newPhone.slice(-4)}`);
  await expect(page.getByTestId('phone-change-send')).toBeDisabled();
  await expect(page.getByTestId('phone-change-send')).toContainText(/Resend in \d+ s/);
  const code = await outboxCode(page.request, admin.token, newPhone);
  // a wrong code first: refused on the code field with the attempts left
  await page.getByTestId('phone-change-code').fill(code === '000000' ? '111111' : '000000');
  await page.getByTestId('phone-change-ok').click();
  await expect(dialog.locator('.ant-form-item-explain-error')).toHaveText(
    'The verification code is wrong (4 attempts left)',
  );
  await page.waitForTimeout(500); // (the message slides in)
  await shootBoth(page, 'profile-phone-dialog-en');
  await page.getByTestId('phone-change-code').fill(code);
  await page.getByTestId('phone-change-ok').click();
  await expect(dialog).toBeHidden();
  await expect(page.getByTestId('profile-phone')).toHaveText(`137****${newPhone.slice(-4)}`);

  // the avatar: a photo, re-encoded by the server and shown here and in the header
  const photo = await sharp({ create: { width: 640, height: 480, channels: 3, background: '#2f6fd6' } })
    .composite([
      {
        input: Buffer.from(
          '<svg width="640" height="480"><circle cx="320" cy="200" r="110" fill="#f5d0a9"/><rect x="170" y="330" width="300" height="200" rx="120" fill="#f5d0a9"/></svg>',
        ),
      },
    ])
    .jpeg()
    .toBuffer();
  await page
    .locator('[data-testid="profile-avatar"] input[type=file]')
    .setInputFiles({ name: 'me.jpg', mimeType: 'image/jpeg', buffer: photo });
  await expect(page.getByTestId('profile-avatar-image')).toHaveAttribute(
    'data-src',
    /^\/api\/user\/avatar\?key=[0-9a-f]{64}$/,
  );
  const src = await page.getByTestId('profile-avatar-image').getAttribute('data-src');
  await expect(page.getByTestId('user-dropdown').locator('img')).toHaveAttribute('src', src!);
  // a file that is not an image is refused by the server with its reason (the browser's type check let it through)
  await page
    .locator('[data-testid="profile-avatar"] input[type=file]')
    .setInputFiles({ name: 'fake.png', mimeType: 'image/png', buffer: Buffer.from('this is not a picture') });
  await expect(
    page.getByText('The avatar must be a PNG or JPG image: the content is not a PNG or JPG image'),
  ).toBeVisible();
  await page.mouse.move(0, 0);
  await expect(page.getByText('The avatar must be a PNG or JPG image')).toBeHidden({ timeout: 10_000 });
  await shootBoth(page, 'profile-en');

  // the password, through the Modify Password dialog
  await page.getByTestId('profile-password-change').click();
  const pwd = page.locator('.modify-password-dialog .ant-modal');
  await expect(pwd).toBeVisible();
  await pwd.getByTestId('current-password').fill(PASSWORD);
  await pwd.getByTestId('new-password').fill('Profile#Pass2032');
  await pwd.getByTestId('confirm-password').fill('Profile#Pass2032');
  await pwd.getByRole('button', { name: 'OK' }).click();
  await expect(page.getByText('Password changed successfully.')).toBeVisible();
  await expect(pwd).toBeHidden();
  await apiLogin(page.request, account, 1, 'main', 'Profile#Pass2032');
  await expect(page.getByText('Password changed successfully.')).toBeHidden({ timeout: 10_000 });

  // the same page in Chinese
  await setLanguage(page, 'zh_CN');
  await expect(page.getByTestId('profile-security')).toContainText('账号安全');
  await noKeys(page);
  await shootBoth(page, 'profile-zh');
});

test('SMS Outbox: the administrator reads the development messages, newest first, filtered by number', async ({
  page,
}) => {
  const admin = await apiLogin(page.request, 'admin', 1, 'main');
  await openLoggedIn(page, admin, 'main', '/system/smsOutbox', 'en_US');
  await expect(page.getByTestId('sms-outbox-page')).toBeVisible();
  await expect(page.getByTestId('side-menu')).toContainText('SMS Outbox');
  const first = page.locator('[data-testid^="sms-body-"]').first();
  await expect(first).toContainText('Your verification code is');
  const phone = await first.getAttribute('data-phone');
  await page.getByTestId('sms-outbox-phone').locator('input').fill(phone!);
  await page.getByTestId('sms-outbox-phone').locator('input').press('Enter');
  await expect(page.locator('[data-testid^="sms-body-"]').first()).toHaveAttribute('data-phone', phone!);
  await noKeys(page);
  await shootBoth(page, 'sms-outbox-en');
  await page.getByTestId('sms-outbox-phone').locator('input').fill('19999999999');
  await page.getByTestId('sms-outbox-phone').locator('input').press('Enter');
  await expect(page.getByText('No messages to this number')).toBeVisible();
  await setLanguage(page, 'zh_CN');
  await page.getByTestId('sms-outbox-phone').locator('input').fill('');
  await page.getByTestId('sms-outbox-phone').locator('input').press('Enter');
  await expect(page.locator('[data-testid^="sms-body-"]').first()).toBeVisible();
  await noKeys(page);
  await shootBoth(page, 'sms-outbox-zh');
});

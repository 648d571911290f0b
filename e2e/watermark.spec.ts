import { expect, test } from '@playwright/test';
import { apiLogin, openLoggedIn } from './helpers';

test('the watermark shows the user and comes back within a second when removed or altered', async ({
  page,
  request,
}) => {
  const s = await apiLogin(request, 'crc1', 3, 'site');
  await openLoggedIn(page, s, 'site', '/overview');
  const mark = page.getByTestId('watermark');
  await expect(mark).toHaveCount(1);
  const bg = await mark.evaluate((el) => decodeURIComponent(getComputedStyle(el).backgroundImage));
  expect(bg).toContain('Amy Coordinator 138****0004');
  expect(bg).toContain('Demo City Hospital');
  expect(bg).toContain('width="300"');
  expect(bg).toContain('height="200"');
  expect(await mark.evaluate((el) => getComputedStyle(el).backgroundSize)).toBe('300px 200px');

  await mark.evaluate((el) => el.remove());
  const t0 = Date.now();
  await expect(page.getByTestId('watermark')).toHaveCount(1, { timeout: 1000 });
  expect(Date.now() - t0).toBeLessThan(1000);

  await page.getByTestId('watermark').evaluate((el) => {
    (el as HTMLElement).style.display = 'none';
  });
  await expect
    .poll(() => page.getByTestId('watermark').evaluate((el) => getComputedStyle(el).display), {
      timeout: 1000,
    })
    .toBe('block');

  await page.getByTestId('watermark').evaluate((el) => {
    (el as HTMLElement).style.opacity = '0';
  });
  await expect
    .poll(() => page.getByTestId('watermark').evaluate((el) => getComputedStyle(el).opacity), {
      timeout: 1000,
    })
    .toBe('1');
});

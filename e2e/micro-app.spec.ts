import { expect, test } from '@playwright/test';

/**
 * A small host page in the spirit of qiankun: it fetches the app's HTML entry, loads its module script with
 * __POWERED_BY_QIANKUN__ set, takes the lifecycles from window['esource-web'] and mounts the app into its own
 * container under a base path.
 */
const HOST = `<!doctype html><html><head><meta charset="utf-8"><title>Host shell</title></head>
<body>
  <header id="host-header" style="height:40px;background:#222;color:#fff">Host shell</header>
  <button id="unmount">unmount</button>
  <div id="slot" style="height:800px"></div>
  <script type="module">
    window.__POWERED_BY_QIANKUN__ = true;
    const html = await (await fetch('/')).text();
    const doc = new DOMParser().parseFromString(html, 'text/html');
    for (const link of doc.querySelectorAll('link[rel=stylesheet]')) document.head.appendChild(link.cloneNode());
    const entry = doc.querySelector('script[type=module][src]').getAttribute('src');
    await import(entry);
    const app = window['esource-web'];
    await app.bootstrap();
    await app.mount({ container: document.getElementById('slot'), basePath: '/host/esource', storagePrefix: 'host-esource', language: 'en_US' });
    window.__mounted = true;
    document.getElementById('unmount').onclick = async () => { await app.unmount({ container: document.getElementById('slot') }); window.__unmounted = true; };
  </script>
</body></html>`;

test('the app mounts as a micro-app inside a host page under a base path, and unmounts cleanly', async ({
  page,
}) => {
  await page.route('**/host/**', (route) =>
    route.fulfill({ status: 200, contentType: 'text/html', body: HOST }),
  );
  await page.goto('/host/esource/login');
  await page.waitForFunction(() => (window as unknown as { __mounted?: boolean }).__mounted === true);
  const slot = page.locator('#slot');
  await expect(slot.getByTestId('login-page')).toBeVisible();
  await expect(slot.getByTestId('login-submit')).toHaveText('Log in');
  await expect(page.locator('#host-header')).toHaveText('Host shell');

  // log in inside the host: the app routes under the base path
  await slot.getByTestId('login-type-1').click();
  await slot.getByTestId('login-account').fill('dm');
  await slot.getByTestId('login-password').fill('Demo@123456');
  await slot.getByTestId('login-submit').click();
  await expect(slot.getByTestId('app-shell')).toBeVisible({ timeout: 30_000 });
  await expect(page).toHaveURL(/\/host\/esource\/overview$/);
  expect(await page.evaluate(() => localStorage.getItem('host-esource.session'))).toContain('"token"');

  await page.click('#unmount');
  await page.waitForFunction(() => (window as unknown as { __unmounted?: boolean }).__unmounted === true);
  await expect(slot).toBeEmpty();
  await expect(page.locator('#host-header')).toHaveText('Host shell');
});

import { expect, test } from '@playwright/test';
import { apiLogin, openLoggedIn } from './helpers';

test('browser spans of a logged-in user are exported as OTLP/HTTP JSON to /api/v1/traces with the session token', async ({ page, request }) => {
  const env = await request.get('/api/v1/traces/env');
  test.skip(env.status() === 404, 'the server has no /api/v1/traces/env yet');
  const s = await apiLogin(request, 'dm', 1, 'main');
  const exported = page.waitForRequest((r) => r.url().endsWith('/api/v1/traces') && r.method() === 'POST', {
    timeout: 20_000,
  });
  await openLoggedIn(page, s, 'main', '/overview');
  await expect(page.getByTestId('app-shell')).toBeVisible();
  await page.getByTestId('project-card').first().click();
  const req = await exported;
  expect(req.headers()['content-type']).toBe('application/json');
  // the server takes traces from a session only: the export carries the session's token
  expect(req.headers()['token']).toBe(s.token);
  const body = req.postDataJSON() as {
    resourceSpans: {
      resource: { attributes: { key: string }[] };
      scopeSpans: { spans: { name: string }[] }[];
    }[];
  };
  const spans = body.resourceSpans.flatMap((r) => r.scopeSpans.flatMap((x) => x.spans));
  expect(spans.length).toBeGreaterThan(0);
  expect(spans.length).toBeLessThanOrEqual(10); // batch size 10
  expect(body.resourceSpans[0]!.resource.attributes.map((a) => a.key)).toContain('service.name');
  const res = await req.response();
  expect(res?.status()).toBe(200);
});

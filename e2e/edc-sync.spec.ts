import { expect, test, type APIRequestContext, type Browser, type Page } from '@playwright/test';
import { apiLogin, noKeys, openLoggedIn, shootBoth } from './helpers';

/**
 * Issue 14 journeys (EDC sync, kind 1): the data manager opens /project/edcReportDetail, configures a Rave-style
 * ODM web service (the demo receiver scripts/start.mjs runs on DEMO_EDC_PORT), tests it, reads its item list,
 * auto-maps the demo study and checks the mapping is complete, starts a study sync and watches the run, the progress
 * panel (type 3), the sites and the runs update (the lists poll every 3 s); one record is refused by the EDC with its
 * own reason, shown on the subject's forms; the value is corrected and the subject synced again; the EDC log
 * (/project/dataReport) shows both attempts of that record, and an entry opens with its changes (our items' labels
 * in the reader's language) and the record's own exchange (its part of the post, the EDC's refusal of it).
 *
 * The receiver: E2E_DEMO_EDC_PORT (the server's DEMO_EDC_PORT; without it the journey is skipped), E2E_DEMO_EDC_STUDY,
 * E2E_DEMO_EDC_ENV, E2E_DEMO_EDC_SECRET (defaults: the demo EDC's). The demo EDC takes body weight in whole kg only,
 * so the subject made here (weight 72.5) has its vital signs refused with the EDC's reason; the weight is corrected
 * to 72 and the subject synced again: the EDC log shows the refused and the accepted attempt.
 */
test.describe.configure({ mode: 'serial', timeout: 300_000 });

const EDC_PORT = process.env.E2E_DEMO_EDC_PORT ?? '';
// the demo EDC's study, environment and account (apps/server/src/modules/edc/demo-edc.ts DEMO_EDC)
const STUDY = process.env.E2E_DEMO_EDC_STUDY ?? 'DEMO-001';
const TARGET_ENV = process.env.E2E_DEMO_EDC_ENV ?? 'Prod';
const SECRET = process.env.E2E_DEMO_EDC_SECRET ?? 'edc-demo:Demo-EDC-2026';
/** where the screenshots of both pages are also copied (looked at by whoever runs the journey) */

async function open(browser: Browser, url: string, lang: 'en_US' | 'zh_CN' = 'en_US'): Promise<Page> {
  const ctx = await browser.newContext({ acceptDownloads: true });
  const page = await ctx.newPage();
  const s = await apiLogin(ctx.request, 'dm', 1, 'main');
  await openLoggedIn(page, s, 'main', `${url}${url.includes('?') ? '&' : '?'}proId=1`, lang);
  await expect(page.getByTestId('project-label')).toContainText('DEMO-001');
  return page;
}


/** Picks an option of an antd Select by its test id and the option's text. */
async function pick(page: Page, testId: string, text: string | RegExp) {
  await page.getByTestId(testId).click();
  await page
    .locator('.ant-select-dropdown:not(.ant-select-dropdown-hidden) .ant-select-item-option')
    .filter({ hasText: text })
    .first()
    .click();
}

interface MadeSubject {
  ptsId: number;
  ptsNo: string;
  visitId: number;
  vsFormId: number;
}

/** crc1's API calls: the data of an envelope, or the test fails with the server's message. */
async function coordinator(request: APIRequestContext) {
  const s = await apiLogin(request, 'crc1', 3, 'site');
  const headers = { token: s.token, proId: '1', proType: s.user.projectType };
  const data = async <T>(r: Awaited<ReturnType<APIRequestContext['post']>>) => {
    const b = (await r.json()) as { status: string; data: T; message?: string };
    expect(b.status, b.message).toBe('1');
    return b.data;
  };
  return { headers, data };
}

/** A new subject at site 01 (as its coordinator) with its screening demographics and vital signs completed. */
async function subjectWithCompletedForms(request: APIRequestContext): Promise<MadeSubject> {
  const { headers, data } = await coordinator(request);
  const sites = await data<{ id: number; siteNo: string }[]>(
    await request.post('/api/pro/site/list', { headers }),
  );
  const added = await data<{ ptsId: number; ptsNo: string }>(
    await request.post('/api/project/managePts/add', {
      headers,
      form: {
        siteId: sites.find((x) => x.siteNo === '01')!.id,
        firstVisitDate: '2026-08-01',
        initials: 'EDC',
      },
    }),
  );
  const visits = await data<{ visitId: number; code: string; forms: { formId: number; code: string }[] }[]>(
    await request.get(`/api/project/pts/visits?ptsId=${added.ptsId}`, { headers }),
  );
  const v1 = visits.find((v) => v.code === 'V1')!;
  const formId = (code: string) => v1.forms.find((f) => f.code === code)!.formId;
  const save = async (code: string, items: { variable: string; value: unknown }[]) =>
    data(
      await request.post('/api/crf/form/item/result/saveBatch', {
        headers,
        data: { ptsId: added.ptsId, visitId: v1.visitId, formId: formId(code), entryMode: 2, items },
      }),
    );
  await save('DM', [
    { variable: 'BRTHDTC', value: '1975-03-12' },
    { variable: 'SEX', value: '1' },
    { variable: 'ETHNIC', value: 'HAN' },
  ]);
  // the demo EDC takes whole kg only: 72.5 is refused there
  await save('VS', [
    { variable: 'VSDTC', value: '2026-08-01 10:15' },
    { variable: 'SYSBP', value: 136 },
    { variable: 'DIABP', value: 88 },
    { variable: 'HR', value: 76 },
    { variable: 'WEIGHT', value: 72.5 },
  ]);
  return { ptsId: added.ptsId, ptsNo: added.ptsNo, visitId: v1.visitId, vsFormId: formId('VS') };
}

/** The coordinator corrects the weight to whole kg (a change of completed data, with its reason). */
async function correctWeight(request: APIRequestContext, m: MadeSubject) {
  const { headers, data } = await coordinator(request);
  const key = { ptsId: m.ptsId, visitId: m.visitId, formId: m.vsFormId };
  const view = await data<{ instance: { version: number } }>(
    await request.get(
      `/api/crf/form/item/result/list?${new URLSearchParams(Object.entries(key).map(([k, v]) => [k, String(v)]))}`,
      { headers },
    ),
  );
  await data(
    await request.post('/api/crf/form/item/result/saveBatch', {
      headers,
      data: {
        ...key,
        entryMode: 2,
        version: view.instance.version,
        items: [{ variable: 'WEIGHT', value: 72, reason: 'The EDC takes whole kg: rounded as measured' }],
      },
    }),
  );
}

test('the EDC pages open in both languages, every string translated', async ({ browser }) => {
  for (const lang of ['en_US', 'zh_CN'] as const) {
    const page = await open(browser, '/project/edcReportDetail', lang);
    await expect(page.getByTestId('edc-config-card')).toBeVisible();
    await noKeys(page);
    await shootBoth(page, `edc-detail-${lang}`);
    await page.goto('/project/dataReport?tab=edcLog&proId=1');
    await expect(page.getByTestId('edc-log')).toBeVisible();
    await noKeys(page);
    await shootBoth(page, `data-report-edclog-${lang}`);
    await page.getByTestId('data-report-tab-audit').click();
    await expect(page.getByTestId('data-report-audit')).toBeVisible();
    await noKeys(page);
    await page.context().close();
  }
});

test.describe('the data manager syncs the demo study to a kind-1 EDC', () => {
  test.skip(
    !EDC_PORT,
    'E2E_DEMO_EDC_PORT is unset: the demo Rave-style receiver (scripts/start.mjs, DEMO_EDC_PORT) is not running, so the EDC sync journey cannot run',
  );

  let made: MadeSubject;

  test.beforeAll(async ({ request }) => {
    made = await subjectWithCompletedForms(request);
  });

  test('configure, read the item list, auto-map: the mapping is complete', async ({ browser }) => {
    const page = await open(browser, '/project/edcReportDetail');
    const configure = page.getByTestId('edc-configure');
    const settings = page.getByTestId('edc-settings');
    await expect(configure.or(settings)).toBeVisible();
    if (await configure.isVisible()) await configure.click();
    else await settings.click();
    const drawer = page.getByTestId('edc-config-drawer');
    await expect(drawer).toBeVisible();
    await pick(page, 'edc-config-kind', /Rave/);
    await drawer.getByTestId('edc-config-name').fill('Demo Rave');
    await drawer.getByTestId('edc-config-url').fill(`http://127.0.0.1:${EDC_PORT}`);
    await drawer.getByTestId('edc-config-study').fill(STUDY);
    await drawer.getByTestId('edc-config-env').fill(TARGET_ENV);
    // a secret in the wrong form is refused on its field before anything is sent
    await drawer.getByTestId('edc-config-secret').fill('no-colon');
    await drawer.getByTestId('edc-config-save').click();
    await expect(drawer.locator('.ant-form-item-explain-error')).toContainText('user:password');
    await drawer.getByTestId('edc-config-secret').fill(SECRET);
    await drawer.getByTestId('edc-config-save').click();
    await expect(drawer.getByTestId('edc-config-saved')).toBeVisible();
    // the secret is never shown again: the field is empty and says so
    await expect(drawer.getByTestId('edc-config-secret')).toHaveValue('');
    await expect(drawer.getByTestId('edc-config-secret')).toHaveAttribute('placeholder', /unchanged/);
    await drawer.getByTestId('edc-config-test').click();
    await expect(drawer.getByTestId('edc-test-result')).toHaveAttribute('data-ok', 'true');
    await noKeys(page);
    await shootBoth(page, 'edc-config-drawer');
    await page.keyboard.press('Escape');
    await expect(page.getByTestId('edc-config-name-view')).toHaveText('Demo Rave');

    await page.getByTestId('edc-tab-mapping').click();
    await page.getByTestId('edc-read-items').click();
    await expect(page.getByTestId('edc-items-info')).toBeVisible({ timeout: 30_000 });
    await page.getByTestId('edc-auto-map').click();
    // auto-map saves its proposals; anything left to fix would be listed by the server
    const ready = page.getByTestId('edc-mapping-ready');
    await expect(ready.or(page.getByTestId('edc-mapping-problems'))).toBeVisible();
    await expect
      .poll(
        async () =>
          (await ready.isVisible()) || (await page.getByTestId('edc-mapping-problems-item').allInnerTexts()),
        { message: 'mapping problems after auto-map' },
      )
      .toBe(true);
    await expect(page.getByTestId('edc-map-form-VS')).toContainText('VS');
    const save = page.getByTestId('edc-mapping-save');
    await expect(save).toBeDisabled();
    await noKeys(page);
    await shootBoth(page, 'edc-mapping');
    // an edit is unsaved until saved, and leaving the page asks first; discarded, nothing is left to save
    const vs = page.getByTestId('edc-map-form-VS');
    await vs.hover();
    await vs.locator('.ant-select-clear').click();
    await expect(page.getByTestId('edc-mapping-unsaved')).toBeVisible();
    await expect(save).toBeEnabled();
    await page
      .getByRole('link', { name: /eSource/ })
      .first()
      .click();
    await page.getByRole('button', { name: 'Keep editing' }).click();
    await expect(page.getByTestId('edc-report-detail')).toBeVisible();
    await page.getByTestId('edc-mapping-discard').click();
    await expect(save).toBeDisabled();
    await expect(page.getByTestId('edc-mapping-ready')).toBeVisible();
    await page.context().close();
  });

  test('study sync: the run, the progress panel, the sites and the runs update; the weight is refused with the EDC’s reason', async ({
    browser,
  }) => {
    const page = await open(browser, '/project/edcReportDetail?tab=sites');
    await expect(page.getByTestId('edc-sites-table')).toBeVisible();
    await page.getByTestId('edc-sync-study').click();
    await page.getByTestId('edc-sync-confirm').click();
    const banner = page.getByTestId('edc-run-banner');
    await expect(banner).toBeVisible();
    // a centre user's progress panel shows the sync (progress type 3)
    await expect(page.getByTestId('progress-group-3')).toBeVisible({ timeout: 15_000 });
    await expect(banner).toHaveAttribute('data-status', /^[23]$/, { timeout: 180_000 });
    // the demo EDC refuses the vital signs (weight 72.5): the run ends with failures
    await expect(banner).toHaveAttribute('data-status', '3');
    const runId = Number((await banner.textContent())?.match(/#(\d+)/)?.[1]);
    expect(runId).toBeGreaterThan(0);
    await expect(page.getByTestId('edc-study-bar-synced')).not.toHaveAttribute('data-count', '0');
    await expect(page.getByTestId('edc-study-bar-failed')).not.toHaveAttribute('data-count', '0');
    await noKeys(page);
    await shootBoth(page, 'edc-sites-after-sync');

    await page.getByTestId('edc-tab-runs').click();
    const runs = page.getByTestId('edc-runs-table');
    await expect(runs.getByTestId(`edc-run-status-${runId}`)).toHaveAttribute('data-status', '3');
    await expect(runs.getByTestId(`edc-run-failed-${runId}`)).not.toHaveAttribute('data-count', '0');
    await shootBoth(page, 'edc-runs');

    // the subject's vital signs show the EDC's own reason
    await page.getByTestId('edc-tab-subjects').click();
    await pick(page, 'edc-subjects-status', /Sync failed/);
    const row = page
      .getByTestId('edc-subjects-table')
      .locator('tbody tr.ant-table-row')
      .filter({ hasText: made.ptsNo });
    await expect(row).toBeVisible();
    await row.locator('.ant-table-row-expand-icon').click();
    const forms = page.getByTestId(`edc-subject-forms-${made.ptsId}`);
    const failed = forms.locator('tr').filter({ has: page.locator('[data-status="3"]') });
    await expect(failed).toHaveCount(1);
    await expect(failed.locator('[data-testid^="edc-form-reason-"]')).toContainText(/WEIGHT|72\.5|integer/i);
    await noKeys(page);
    await shootBoth(page, 'edc-subjects-failed');

    // the weight corrected at the site, the subject is synced again: now accepted
    await correctWeight(page.request, made);
    await page.getByTestId(`edc-sync-subject-${made.ptsId}`).click();
    await page.getByTestId('edc-sync-confirm').click();
    await expect(banner).toHaveAttribute('data-status', '2', { timeout: 180_000 });
    await expect(forms.locator('[data-status="3"]')).toHaveCount(0);
    await page.context().close();
  });

  test('the EDC log shows both attempts of the refused record, with the exchange', async ({ browser }) => {
    const page = await open(browser, '/project/dataReport?tab=edcLog');
    await page.getByTestId('edc-log-ptsno').locator('input').fill(made.ptsNo);
    await page.getByTestId('edc-log-ptsno').locator('input').press('Enter');
    const rows = page.getByTestId('edc-log-table').locator('tbody tr.ant-table-row');
    const vs = rows.filter({ hasText: /Vital signs|生命体征/ });
    await expect(vs).toHaveCount(2);
    // newest first: accepted after the correction, refused before it
    await expect(vs.nth(0).locator('[data-testid^="edc-log-result-"]')).toHaveAttribute('data-status', '2');
    await expect(vs.nth(1).locator('[data-testid^="edc-log-result-"]')).toHaveAttribute('data-status', '3');
    await noKeys(page);
    await shootBoth(page, 'edc-log');
    await vs.nth(1).locator('[data-testid^="edc-log-open-"]').click();
    const drawer = page.getByTestId('edc-log-drawer');
    await expect(drawer.getByTestId('edc-log-reason')).toBeVisible();
    await expect(drawer.getByTestId('edc-log-changes')).toContainText('72.5');
    // our item's label in the reader's language (this page is in English)
    await expect(drawer.getByTestId('edc-log-changes')).toContainText('Weight');
    // the refused record's own exchange: its part of the post (not the demographics sent with it) and the refusal
    await expect(drawer.getByTestId('edc-log-request')).toContainText('ClinicalData');
    await expect(drawer.getByTestId('edc-log-request')).toContainText('Value="72.5"');
    await expect(drawer.getByTestId('edc-log-request')).not.toContainText('F.DM');
    await expect(drawer.getByTestId('edc-log-response')).toContainText('IsTransactionSuccessful="0"');
    await noKeys(page);
    await shootBoth(page, 'edc-log-detail');
    await page.keyboard.press('Escape');
    // the accepted attempt: the values as the EDC now has them (the weight in whole kg)
    await vs.nth(0).locator('[data-testid^="edc-log-open-"]').click();
    await expect(drawer.getByTestId('edc-log-changes')).toContainText('I.VS.WEIGHT');
    await expect(drawer.getByTestId('edc-log-changes')).not.toContainText('72.5');
    await expect(drawer.getByTestId('edc-log-response')).toContainText('IsTransactionSuccessful="1"');
    await page.context().close();
  });

  test('after the syncs, both pages in both languages', async ({ browser }) => {
    for (const lang of ['zh_CN', 'en_US'] as const) {
      const page = await open(browser, '/project/edcReportDetail?tab=sites', lang);
      await expect(page.getByTestId('edc-sites-table')).toBeVisible();
      await noKeys(page);
      await shootBoth(page, `edc-synced-sites-${lang}`);
      await page.getByTestId('edc-tab-subjects').click();
      await page.getByTestId('edc-subjects-ptsno').locator('input').fill(made.ptsNo);
      await page.getByTestId('edc-subjects-ptsno').locator('input').press('Enter');
      await page.getByTestId('edc-subjects-table').locator('.ant-table-row-expand-icon').first().click();
      await expect(page.getByTestId(`edc-subject-forms-${made.ptsId}`)).toBeVisible();
      await noKeys(page);
      await shootBoth(page, `edc-synced-subjects-${lang}`);
      await page.getByTestId('edc-tab-mapping').click();
      await expect(page.getByTestId('edc-mapping-ready')).toBeVisible();
      await noKeys(page);
      await shootBoth(page, `edc-synced-mapping-${lang}`);
      await page.getByTestId('edc-tab-runs').click();
      await expect(
        page.getByTestId('edc-runs-table').locator('tbody tr.ant-table-row').first(),
      ).toBeVisible();
      await shootBoth(page, `edc-synced-runs-${lang}`);
      await page.goto('/project/dataReport?tab=edcLog&proId=1');
      await expect(page.getByTestId('edc-log-table').locator('tbody tr.ant-table-row').first()).toBeVisible();
      await noKeys(page);
      await shootBoth(page, `edc-synced-log-${lang}`);
      await page.context().close();
    }
  });
});

import { expect, test, type APIRequestContext, type Browser, type Page } from '@playwright/test';
import { apiLogin, noKeys, openLoggedIn, pickSubject, shootBoth, type ApiSession, type Variant } from './helpers';

/**
 * Issue 11 journey: a value changes at the hospital after it was pre-filled. H-001's haemoglobin is extracted from
 * the demo hospital and filled into the week-4 lab form (through the API); then the haemoglobin Observation is
 * changed AT THE HOSPITAL (GET from the demo FHIR server over HTTP, PUT back with a new value) and H-001 is extracted
 * again. In the browser: the source data page shows the record 'changed · v2' with its versions (old → new); the
 * sync change list shows old → new; the traceability report flags the HGB row as changed at the hospital since it
 * was filled; the pre-fill panel offers the new value as a conflict with the filled one (nothing overwritten); the
 * Decisions tab lists the earlier decisions. Both languages shot.
 */
test.describe.configure({ mode: 'serial', timeout: 240_000 });

const users: Record<string, { account: string; type: number; variant: Variant }> = {
  dm: { account: 'dm', type: 1, variant: 'main' },
  crc1: { account: 'crc1', type: 3, variant: 'site' },
};
const LOINC = 'http://loinc.org';
/** the new haemoglobin at the hospital, g/dL (the form takes g/L: 11.5 g/dL → 115 g/L) */
const NEW_HGB = 11.5;
let ptsId = 0;
let v3 = 0;
let lb = 0;
let recordId = 0;
let oldSource = 0;
let filledValue = '';
/** the old value as the screens show it (rounded) */
const oldShown = () => String(Math.round(oldSource * 100) / 100);

interface Candidate {
  variable: string;
  state: string;
  candidateValue: unknown;
  currentValue: unknown;
  source: { id: number; version: number; valueNum: number | null } | null;
}

function api(request: APIRequestContext, s: ApiSession) {
  const headers = { token: s.token, proId: '1', proType: s.user.projectType, language: 'en_US' };
  const body = async <T>(path: string, r: Awaited<ReturnType<APIRequestContext['post']>>) => {
    const b = (await r.json()) as { status: string; data: T; message?: string };
    expect(b.status, `${path}: ${b.message ?? ''}`).toBe('1');
    return b.data;
  };
  return {
    post: async <T>(path: string, form: Record<string, string | number>) =>
      body<T>(path, await request.post(`/api${path}`, { headers, form })),
    json: async <T>(path: string, data: object) =>
      body<T>(path, await request.post(`/api${path}`, { headers, data })),
    get: async <T>(path: string) => body<T>(path, await request.get(`/api${path}`, { headers })),
  };
}
type Api = ReturnType<typeof api>;

async function open(
  browser: Browser,
  who: keyof typeof users,
  url: string,
  lang: 'en_US' | 'zh_CN' = 'en_US',
): Promise<Page> {
  const u = users[who]!;
  const ctx = await browser.newContext();
  const page = await ctx.newPage();
  const s = await apiLogin(ctx.request, u.account, u.type, u.variant);
  if (s.user.projectType !== 'PRO') {
    // the data manager reads the reports of the environment the site works in
    const r = await ctx.request.post('/api/passport/envTypeSwitch', {
      headers: { token: s.token },
      form: { proType: 'PRO' },
    });
    expect(r.status()).toBe(200);
    s.user.projectType = 'PRO';
  }
  // the user has closed the progress notice of earlier extractions: open, it covers the rows' links on the right
  const headers = { token: s.token, proId: '1', proType: 'PRO' };
  for (const type of [1, 2]) {
    const items = (await (await ctx.request.post('/api/proProgressDisplay/list', { data: { type }, headers })).json()) as { data?: { id: number }[] };
    if (items.data?.length) await ctx.request.post('/api/proProgressDisplay/updateIsReadByIdList', { form: { idList: items.data.map((i) => i.id).join(',') }, headers });
  }
  await openLoggedIn(page, s, u.variant, `${url}${url.includes('?') ? '&' : '?'}proId=1`, lang);
  await expect(page.getByTestId('project-label')).toContainText('DEMO-001');
  return page;
}


/** Runs an extraction of H-001 and waits until that task (not an earlier one) is done. */
async function extract(crc: Api): Promise<void> {
  const before =
    (await crc.post<{ task: { id: number } | null }>('/project/manage/queryProcessBar', { ptsId })).task
      ?.id ?? 0;
  await crc.post('/project/managePts/addPtsTask', { ptsId });
  await expect
    .poll(
      async () => {
        const t = (
          await crc.post<{ task: { id: number; status: number } | null }>('/project/manage/queryProcessBar', {
            ptsId,
          })
        ).task;
        return t && t.id !== before ? t.status : -1;
      },
      { timeout: 90_000, intervals: [1000] },
    )
    .toBe(2);
}

const lbKey = () => ({ ptsId, visitId: v3, formId: lb, unscheduledId: 0, repeatNo: 1 });
async function hgbCandidate(crc: Api): Promise<{ hgb: Candidate; version: number | undefined }> {
  const r = await crc.post<{ instance: { version: number } | null; candidates: Candidate[] }>(
    '/crf/prefill/execute',
    lbKey(),
  );
  const hgb = r.candidates.find((c) => c.variable === 'HGB');
  expect(hgb, 'a haemoglobin candidate for H-001 week 4').toBeTruthy();
  return { hgb: hgb!, version: r.instance?.version };
}

/** The demo hospital of the e2e server (its own port, playwright.config.ts), else the seeded connection's address. */
async function demoHospital(dm: Api): Promise<string> {
  if (process.env.E2E_DEMO_FHIR_PORT) return `http://127.0.0.1:${process.env.E2E_DEMO_FHIR_PORT}`;
  const list = await dm.post<{ name: string; config: { baseUrl?: string } }[]>(
    '/project/source/connection/list',
    {},
  );
  return list.find((c) => c.name === 'Demo hospital (FHIR R4)')!.config.baseUrl!;
}

test.beforeAll(async ({ request }) => {
  const crc = api(request, await apiLogin(request, 'crc1', 3, 'site'));
  const dm = api(request, await apiLogin(request, 'dm', 1, 'main'));
  const list = await crc.post<{ content: { ptsId: number; ptsNo: string }[] }>('/project/manage/ptsList', {
    keyword: 'H-001',
    pageNumber: 1,
    pageSize: 50,
  });
  ptsId = list.content.find((s) => s.ptsNo === 'H-001')!.ptsId;
  const visits = await crc.get<
    { visitId: number; code: string; forms: { formId: number; code: string }[] }[]
  >(`/project/pts/visits?ptsId=${ptsId}`);
  const week4 = visits.find((v) => v.code === 'V3')!;
  v3 = week4.visitId;
  lb = week4.forms.find((f) => f.code === 'LB')!.formId;
  // a haemoglobin rule on the lab form (the demo seeds one; an earlier journey may have replaced it)
  const fields = await dm.post<{ items: { variable: string; rule: { id: number } | null }[] }>(
    '/crf/config/listField',
    { formId: lb },
  );
  if (!fields.items.find((f) => f.variable === 'HGB')?.rule) {
    await dm.json('/crf/config/mapping/save', {
      formId: lb,
      variable: 'HGB',
      method: 'code',
      codes: [{ system: LOINC, code: '718-7' }],
      unit: 'g/L',
      selection: 'last',
      windowOnly: false,
    });
  }
});

test('H-001 haemoglobin is pre-filled, then changed at the hospital and extracted again', async ({
  request,
}) => {
  const crc = api(request, await apiLogin(request, 'crc1', 3, 'site'));
  const dm = api(request, await apiLogin(request, 'dm', 1, 'main'));
  await extract(crc);
  // the coordinator accepts the hospital's haemoglobin (an automatic run may already have filled it: then it is the same)
  const first = await hgbCandidate(crc);
  expect(['new', 'same']).toContain(first.hgb.state);
  const src = first.hgb.source!;
  recordId = src.id;
  oldSource = src.valueNum!;
  filledValue = String(first.hgb.candidateValue);
  await crc.json('/crf/prefill/visit/confirm', {
    ...lbKey(),
    ...(first.version ? { version: first.version } : {}),
    decisions: [{ variable: 'HGB', sourceRecordId: src.id, sourceVersion: src.version, decision: 'new' }],
  });
  expect((await hgbCandidate(crc)).hgb.state).toBe('same');

  // AT THE HOSPITAL: the Observation behind the value gets a new value (GET, PUT back over HTTP)
  const rec = await crc.get<{ externalId: string; version: number }>(
    `/crf/prefill/source/record?id=${recordId}`,
  );
  const ref = rec.externalId.split('#')[0]!;
  expect(ref).toMatch(/^Observation\//);
  const fhir = await demoHospital(dm);
  const got = await request.get(`${fhir}/${ref}`);
  expect(got.status()).toBe(200);
  const obs = (await got.json()) as {
    resourceType: string;
    id: string;
    valueQuantity: { value: number; unit?: string };
  };
  expect(obs.valueQuantity.value).toBe(oldSource);
  obs.valueQuantity.value = NEW_HGB;
  const put = await request.put(`${fhir}/${ref}`, {
    data: obs,
    headers: { 'content-type': 'application/fhir+json' },
  });
  expect(put.status(), await put.text()).toBe(200);
  expect(((await (await request.get(`${fhir}/${ref}`)).json()) as typeof obs).valueQuantity.value).toBe(
    NEW_HGB,
  );

  // extracted again: the record is at version 2; the filled value is not overwritten, the new one waits as a conflict
  await extract(crc);
  expect(
    (await crc.get<{ latestVersion: number }>(`/crf/prefill/source/record?id=${recordId}`)).latestVersion,
  ).toBe(2);
  const after = await hgbCandidate(crc);
  expect(after.hgb.state).toBe('conflict');
  expect(String(after.hgb.currentValue)).toBe(filledValue);
  expect(after.hgb.candidateValue).toBe(115);
});

test('the coordinator finds the change: source data, traceability, decisions, pre-fill panel; the data manager the sync change list', async ({
  browser,
}) => {
  // the source data page: the record 'changed · v2', its versions old → new
  const page = await open(browser, 'crc1', `/project/sourceData?ptsId=${ptsId}`);
  await expect(page.getByTestId('source-timeline')).toBeVisible();
  await page.getByTestId('source-filter-text').locator('input').fill('718-7');
  await page.getByTestId('source-filter-text').locator('input').press('Enter');
  // the filtered list, not the whole one still on screen: clicking a row of the list the filter is replacing can land
  // on the loading skeleton instead (the journey failed so under CI's load)
  await expect(page.locator('.source-record').filter({ hasNotText: '718-7' })).toHaveCount(0);
  await expect(page.getByTestId(`record-changed-${recordId}`)).toHaveText('changed · v2');
  await page.getByTestId(`record-open-${recordId}`).click();
  const drawer = page.getByTestId('record-drawer');
  await expect(drawer.getByTestId('record-value')).toContainText(String(NEW_HGB));
  await drawer.getByRole('tab', { name: /Versions/ }).click();
  const versions = drawer.getByTestId('record-versions');
  await expect(versions.locator('tbody tr')).toHaveCount(2);
  await expect(versions.locator('tbody tr').nth(0)).toContainText('v1');
  await expect(versions.locator('tbody tr').nth(0)).toContainText(oldShown());
  await expect(versions.locator('tbody tr').nth(1)).toContainText('v2');
  await expect(versions.locator('tbody tr').nth(1)).toContainText(String(NEW_HGB));
  await noKeys(page);
  await shootBoth(page, 'source-change-record-en');
  await page.keyboard.press('Escape');

  // the traceability report flags the filled value as changed at the hospital since
  await page.goto('/project/icrc-source');
  await pickSubject(page, 'trace-filter-subject', 'H-001');
  // (H-001 may hold haemoglobin in more than one form by now, filled by other journeys: this is the row of the value
  // this journey filled)
  const traced = page.locator('tr', { has: page.getByTestId('trace-value-HGB').filter({ hasText: new RegExp(`^${filledValue}$`) }) });
  await expect(traced).toHaveCount(1, { timeout: 30_000 });
  await expect(traced.getByTestId('trace-changed-HGB')).toHaveText('Changed');
  await traced.getByTestId('trace-changed-HGB').hover();
  await expect(page.getByRole('tooltip')).toContainText(
    'The hospital changed this record since the value was filled (now version 2)',
  );

  // the Decisions tab lists the earlier decisions, under the same subject filter
  await page.getByTestId('trace-tab-decisions').click();
  await expect(page).toHaveURL(/tab=decisions/);
  const log = page.getByTestId('decisions-table');
  const accepted = log.locator('tbody tr').filter({ hasText: 'HGB' }).filter({ hasText: 'Accepted' }).first();
  await expect(accepted).toContainText('Amy Coordinator');
  await expect(accepted).toContainText('H-001');
  await expect(accepted).toContainText(filledValue);
  await expect(log).not.toContainText('H-002');
  await noKeys(page);
  await shootBoth(page, 'source-change-decisions-en');
  // the source record behind a decision opens (the version decided on: v1)
  await accepted.locator('[data-testid^="log-open-"]').click();
  await expect(page.getByTestId('source-record-code')).toContainText('718-7');
  await expect(page.getByTestId('source-record-value')).toContainText(oldShown());
  await page.keyboard.press('Escape');

  // the pre-fill panel: the new value against the filled one, a conflict
  await page.goto(`/project/ptsDetail?ptsId=${ptsId}&activeKey=pts360`);
  await page.getByTestId('form-V3-LB').click();
  await expect(page.getByTestId('crf-entry')).toBeVisible();
  await page.getByTestId('prefill-toggle').click();
  await expect(page.getByTestId('prefill-panel')).toBeVisible();
  await expect(page.getByTestId('prefill-state-HGB')).toHaveText('Conflict');
  await expect(page.getByTestId('prefill-candidate-HGB')).toContainText('115');
  await expect(page.getByTestId('prefill-current-HGB')).toContainText(filledValue);
  await shootBoth(page, 'source-change-prefill-en');
  await page.context().close();

  // the data manager's sync change list: old → new (the coordinator's role has no change reports)
  const dm = await open(browser, 'dm', '/project/reports?tab=syncChange');
  const sync = dm.getByTestId('sync-change-report');
  await sync.getByPlaceholder('Subject no.').fill('H-001', { timeout: 15_000 });
  await sync.getByPlaceholder('Subject no.').press('Enter');
  const row = dm.getByTestId('sync-change-table').locator('tbody tr').filter({ hasText: '718-7' }).first();
  await expect(row).toContainText('H-001');
  await expect(row).toContainText(oldShown());
  await expect(row).toContainText(`→ ${NEW_HGB}`);
  await expect(row).toContainText('v1 → v2');
  // the list settled (no refetch overlay) before it is shot
  await expect(dm.getByTestId('sync-change-report').locator('.ant-spin-blur')).toHaveCount(0);
  await shootBoth(dm, 'source-change-sync-en');

  await dm.context().close();

  // the same in Chinese
  const zh = await open(browser, 'crc1', `/project/sourceData?ptsId=${ptsId}`, 'zh_CN');
  await zh.getByTestId('source-filter-text').locator('input').fill('718-7');
  await zh.getByTestId('source-filter-text').locator('input').press('Enter');
  await expect(zh.locator('.source-record').filter({ hasNotText: '718-7' })).toHaveCount(0);
  await expect(zh.getByTestId(`record-changed-${recordId}`)).toBeVisible();
  await zh.getByTestId(`record-open-${recordId}`).click();
  await zh.getByTestId('record-drawer').getByRole('tab', { name: /版本/ }).click();
  await expect(zh.getByTestId('record-versions').locator('tbody tr')).toHaveCount(2);
  await noKeys(zh);
  await shootBoth(zh, 'source-change-record-zh');
  await zh.keyboard.press('Escape');
  await zh.goto('/project/icrc-source?tab=decisions');
  await pickSubject(zh, 'trace-filter-subject', 'H-001');
  await expect(
    zh
      .getByTestId('decisions-table')
      .locator('tbody tr')
      .filter({ hasText: 'HGB' })
      .filter({ hasText: '已采纳' })
      .first(),
  ).toBeVisible();
  await noKeys(zh);
  await shootBoth(zh, 'source-change-decisions-zh');
  await zh.context().close();
});

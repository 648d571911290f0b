import net from 'node:net';
import { expect, test, type APIRequestContext, type Browser, type Page } from '@playwright/test';
import { apiLogin, noKeys, openLoggedIn, shootBoth, type ApiSession, type Variant } from './helpers';

/**
 * Issue 13 journeys (safety review): the hospital's lab, ADT and pharmacy systems send demo subject H-003's abnormal
 * results, a new diagnosis and an order over MLLP (HL7 v2), which generates its candidates in the background; the adverse-event reviewer (login type 4, /ae/login) sees only the safety review, opens
 * an AE candidate found in the hospital data, reads what was found and its source records, judges it yes with a
 * grade, relatedness, action and outcome and a term coded from the diagnosis dictionary, and sees where it was
 * written; a second attempt from a stale screen is refused naming the reviewer; the judgement is changed with a
 * reason; the AE page lists it; the medication overview and a subject's medication timeline show the CMs.
 */
test.describe.configure({ mode: 'serial', timeout: 240_000 });

const users: Record<string, { account: string; type: number; variant: Variant }> = {
  dm: { account: 'dm', type: 1, variant: 'main' },
  crc1: { account: 'crc1', type: 3, variant: 'site' },
  ae: { account: 'ae', type: 4, variant: 'ae' },
};
let ptsId = 0;

function api(request: APIRequestContext, s: ApiSession) {
  const headers = { token: s.token, proId: '1', proType: s.user.projectType, language: 'en_US' };
  const check = async <T,>(r: Awaited<ReturnType<APIRequestContext['post']>>, path: string) => {
    const b = (await r.json()) as { status: string; data: T; message?: string };
    expect(b.status, `${path}: ${b.message ?? ''}`).toBe('1');
    return b.data;
  };
  return {
    post: async <T,>(path: string, form: Record<string, string | number>) => check<T>(await request.post(`/api${path}`, { headers, form }), path),
    json: async <T,>(path: string, data: object) => check<T>(await request.post(`/api${path}`, { headers, data }), path),
    get: async <T,>(path: string) => check<T>(await request.get(`/api${path}`, { headers }), path),
    raw: (path: string, data: object) => request.post(`/api${path}`, { headers, data }),
  };
}

async function open(browser: Browser, who: keyof typeof users, url: string, lang: 'en_US' | 'zh_CN' = 'en_US'): Promise<Page> {
  const u = users[who]!;
  const ctx = await browser.newContext({ acceptDownloads: true });
  const page = await ctx.newPage();
  const s = await apiLogin(ctx.request, u.account, u.type, u.variant);
  await openLoggedIn(page, s, u.variant, `${url}${url.includes('?') ? '&' : '?'}proId=1`, lang);
  await expect(page.getByTestId('project-label')).toContainText('DEMO-001');
  return page;
}

const MLLP_PORT = Number(process.env.E2E_MLLP_PORT ?? 0);
const STAMP = Date.now().toString(36).slice(-5).toUpperCase();
const APP = `SAFE${STAMP}`;
const FACILITY = 'SAFEHOSP';

/** Sends one MLLP frame and returns the ACK's MSA-1 code. */
async function sendMllp(text: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const sock = net.connect(MLLP_PORT, '127.0.0.1');
    const chunks: Buffer[] = [];
    const timer = setTimeout(() => {
      sock.destroy();
      reject(new Error('no ACK within 15 s'));
    }, 15_000);
    sock.on('connect', () => sock.write(Buffer.concat([Buffer.from([0x0b]), Buffer.from(text, 'utf8'), Buffer.from([0x1c, 0x0d])])));
    sock.on('data', (c) => {
      chunks.push(c);
      const all = Buffer.concat(chunks);
      const end = all.indexOf(Buffer.from([0x1c, 0x0d]));
      if (end < 0) return;
      clearTimeout(timer);
      sock.end();
      const msa = all.subarray(all.indexOf(0x0b) + 1, end).toString('utf8').split(/\r\n|\r|\n/).find((l) => l.startsWith('MSA')) ?? '';
      resolve(msa.split('|')[1] ?? '');
    });
    sock.on('error', (e) => {
      clearTimeout(timer);
      reject(e);
    });
  });
}

/** H-003's hospital messages: liver and blood results out of range, a new diagnosis, a medication order. */
function messages(mrn: string, day: string): string[] {
  const ymd = day.replaceAll('-', '');
  const msh = (type: string, n: number) => `MSH|^~\\&|${APP}|${FACILITY}|ESOURCE|ES|${ymd}0900||${type}|${APP}-${n}|P|2.5.1\r`;
  const pid = `PID|1||${mrn}^^^${FACILITY}^MR||Toy^Alexis||19800101|F\r`;
  return [
    msh('ORU^R01^ORU_R01', 1) +
      pid +
      `OBR|1||${APP}-1|24325-3^Hepatic function panel^LN\r` +
      `OBX|1|NM|1742-6^ALT^LN||186|U/L^U/L^UCUM|0-40|H|||F|||${ymd}0800\r` +
      `OBX|2|NM|718-7^Hemoglobin^LN||7.4|g/dL^g/dL^UCUM|12-16|L|||F|||${ymd}0800\r`,
    msh('ADT^A08^ADT_A01', 2) + `EVN|A08|${ymd}0900\r` + pid + `PV1|1|O\r` + `DG1|1||J20.9^Acute bronchitis, unspecified^I10||${ymd}|F\r`,
    msh('RDE^O11^RDE_O11', 3) +
      pid +
      `ORC|NW|${APP}-ORD|||||||${ymd}0900\r` +
      `RXE|^^^${ymd}|308182^Amoxicillin 250 MG Oral Capsule^RXNORM|500||mg^mg^UCUM\r` +
      `RXR|PO^Oral^HL70162\r`,
  ];
}

test.beforeAll(async ({ request }) => {
  const crc = api(request, await apiLogin(request, 'crc1', 3, 'site'));
  const dm = api(request, await apiLogin(request, 'dm', 1, 'main'));
  const list = await crc.post<{ content: { ptsId: number; ptsNo: string; siteId: number; medicalRecordId: string; firstVisitDate: string }[] }>('/project/manage/ptsList', { keyword: 'H-003', pageNumber: 1, pageSize: 50 });
  const subject = list.content.find((s) => s.ptsNo === 'H-003')!;
  ptsId = subject.ptsId;
  await dm.json('/project/source/connection/add', { siteId: subject.siteId, kind: 'hl7v2', name: `Safety lab ${STAMP}`, config: { sendingApp: APP, sendingFacility: FACILITY, identifierSystems: [{ system: FACILITY, type: 'medicalRecordId' }] } });
  const day = new Date(Date.now() - 2 * 86_400_000).toISOString().slice(0, 10);
  for (const m of messages(subject.medicalRecordId, day)) expect(await sendMllp(m)).toBe('AA');
  // the candidates are generated in the background a moment after the messages
  const ae = api(request, await apiLogin(request, 'ae', 4, 'ae'));
  await expect
    .poll(async () => (await ae.json<{ totalCount: number }>('/selection/list', { state: 'all', ptsId, pageSize: 50 })).totalCount, { timeout: 30_000, intervals: [1000] })
    .toBeGreaterThanOrEqual(3);
});

test('AE reviewer: only the safety review, judge an AE with a coded term, stale refused, changed with a reason', async ({ browser, request }) => {
  const page = await open(browser, 'ae', '/project/clinical/2');
  // the adverse-event product shows only its part: the safety menu, no subject lists, no queries
  const menu = page.getByTestId('side-menu');
  const closed = menu.locator('.ant-menu-submenu:not(.ant-menu-submenu-open) > .ant-menu-submenu-title');
  while ((await closed.count()) > 0) await closed.first().click();
  await expect(menu.getByTestId('menu-clinical')).toBeVisible();
  await expect(menu.getByTestId('menu-ae')).toBeVisible();
  await expect(menu.getByTestId('menu-doubtList')).toHaveCount(0);
  await expect(menu.getByTestId('menu-verification')).toHaveCount(0);
  await expect(page.getByTestId('clinical-to-judge')).toBeVisible();
  await page.getByTestId('candidate-filter-ptsno').locator('input').fill('H-003');
  await page.getByTestId('candidate-filter-ptsno').locator('input').press('Enter');
  await page.getByTestId('candidate-tab-ae').click();
  const rows = page.getByTestId('clinical-to-judge-table').locator('tbody tr.ant-table-row');
  await expect(rows.first()).toBeVisible();
  await noKeys(page);
  await shootBoth(page, 'safety-to-judge');

  // open the first AE candidate: what was found and its sources
  await rows.first().locator('[data-testid^="candidate-judge-"]').click();
  const drawer = page.getByTestId('judge-drawer');
  await expect(drawer.getByTestId('judge-found')).toBeVisible();
  await expect(drawer.getByTestId('judge-sources').locator('tbody tr.ant-table-row').first()).toBeVisible();
  await drawer.getByTestId('judge-yes').click();
  await expect(drawer.getByTestId('judge-term')).not.toHaveValue('');
  // the required fields are named when missing
  await drawer.getByTestId('judge-submit').click();
  await expect(drawer.locator('.ant-form-item-explain-error').first()).toBeVisible();
  // code the term from the diagnosis dictionary (pinyin initials of 肝功能异常 / a code prefix both find terms)
  await drawer.getByTestId('judge-term').fill('Liver function test abnormal');
  const picker = drawer.locator('.ant-form-item').filter({ hasText: /diagnosis dictionary/i }).locator('.ant-select');
  await picker.click();
  await page.keyboard.type('R');
  const option = page.locator('.ant-select-dropdown:not(.ant-select-dropdown-hidden) .ant-select-item-option').first();
  await expect(option).toBeVisible({ timeout: 15_000 });
  await option.click();
  const onset = await drawer.getByTestId('judge-onset').inputValue();
  if (!onset) await drawer.getByTestId('judge-onset').fill('2026-10-01');
  await drawer.getByTestId('judge-grade').getByText('2', { exact: true }).click();
  await drawer.getByTestId('judge-serious').getByText('No', { exact: true }).click();
  for (const [id, text] of [['judge-relatedness', 'Possibly related'], ['judge-action', 'Dose not changed'], ['judge-outcome', 'Recovering/resolving']] as const) {
    await drawer.getByTestId(id).click();
    await page.locator('.ant-select-dropdown:not(.ant-select-dropdown-hidden) .ant-select-item-option').filter({ hasText: text }).first().click();
  }
  await shootBoth(page, 'safety-judge-drawer');
  await drawer.getByTestId('judge-submit').click();
  await expect(drawer.getByTestId('judge-written-link')).toBeVisible();
  await expect(drawer).toContainText('Adverse events');

  // a stale screen: another tab still at the old version is refused, naming who judged
  const ae = api(request, await apiLogin(request, 'ae', 4, 'ae'));
  const judged = await ae.json<{ content: { id: number; version: number; term: string }[] }>('/selection/list', { state: 'yes', category: 'ae', ptsId, pageSize: 50 });
  const c = judged.content[0]!;
  const stale = await ae.raw('/selection/judge', { id: c.id, version: c.version - 1, decision: 'no' });
  const sb = (await stale.json()) as { errorCode: string; message: string };
  expect(sb.errorCode).toBe('JUDGE_STALE');
  expect(sb.message).toContain('Eve Safety');

  // change the judgement: the reason is asked for
  await drawer.getByTestId('judge-grade').getByText('3', { exact: true }).click();
  await drawer.getByTestId('judge-submit').click();
  await expect(drawer.locator('.ant-form-item-explain-error').filter({ hasText: /reason/i })).toBeVisible();
  await drawer.getByTestId('judge-reason').fill('Worst value confirmed with the site');
  await drawer.getByTestId('judge-submit').click();
  await expect(drawer.getByText('Worst value confirmed with the site')).toBeVisible();
  await page.keyboard.press('Escape');

  // the AE page lists it with its grade
  await page.goto('/project/ae/6?proId=1');
  await expect(page.getByTestId('safety-ae')).toBeVisible();
  await page.getByTestId('candidate-filter-ptsno').locator('input').fill('H-003');
  await page.getByTestId('candidate-filter-ptsno').locator('input').press('Enter');
  await expect(page.getByTestId('safety-ae-table').locator('tbody tr.ant-table-row').first()).toContainText('G3');
  await noKeys(page);
  await shootBoth(page, 'safety-ae-page');
});

test('data manager: medication overview and a subject timeline; the site coordinator has no access', async ({ browser }) => {
  const page = await open(browser, 'dm', '/project/medication');
  await expect(page.getByTestId('medication-page')).toBeVisible();
  await page.getByTestId('medication-filter-ptsno').locator('input').fill('H-003');
  await page.getByTestId('medication-filter-ptsno').locator('input').press('Enter');
  const link = page.getByTestId(`medication-open-${ptsId}`);
  if (await link.isVisible().catch(() => false)) {
    await shootBoth(page, 'safety-medication');
    await link.click();
    await expect(page.getByTestId('medication-detail-page')).toBeVisible();
    await expect(page.getByTestId('medication-timeline')).toBeVisible();
    await noKeys(page);
    await shootBoth(page, 'safety-medication-detail');
  } else {
    // the subject's hospital data holds no medication in the window: the empty state says why
    await expect(page.getByTestId('medication-table')).toContainText(/No (subject|candidate)/);
  }
  await page.goto('/project/clinical/3?proId=1');
  await expect(page.getByTestId('clinical-judged')).toBeVisible();
  await expect(page.getByTestId('clinical-judged-table').locator('tbody tr.ant-table-row').first()).toBeVisible();
  await shootBoth(page, 'safety-judged');

  // the same in Chinese: every text translated
  const zh = await open(browser, 'dm', '/project/clinical/3', 'zh_CN');
  await expect(zh.getByTestId('clinical-judged-table').locator('tbody tr.ant-table-row').first()).toBeVisible();
  await zh.getByTestId('clinical-judged-table').locator('[data-testid^="candidate-judge-"]').first().click();
  await expect(zh.getByTestId('judge-found')).toBeVisible();
  await noKeys(zh);
  await shootBoth(zh, 'safety-judged-drawer-zh');

  const crc = await open(browser, 'crc1', '/project/clinical/2');
  await expect(crc.getByTestId('clinical-to-judge')).toHaveCount(0);
});

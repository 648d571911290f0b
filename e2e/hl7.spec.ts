import net from 'node:net';
import { expect, test, type APIRequestContext, type Browser, type Page } from '@playwright/test';
import { apiLogin, noKeys, openLoggedIn, shootBoth, type ApiSession, type Variant } from './helpers';

/**
 * Issue 11 HL7 v2 journey over a real MLLP socket (the e2e server runs the listener on E2E_MLLP_PORT): a lab sends an
 * ORU^R01 from an application no connection knows yet — answered AE and kept as a dead letter with no project; the
 * system administrator sees it with its translated reason and opens its raw text; the data manager adds the missing
 * HL7 v2 connection in the connections screen; the administrator replays the message, which is stored and moves into
 * the project; the data manager finds it there (replayed, with its records) next to a live message of the same lab
 * (stored, AA); the monitor reads the project list without any replay action and cannot open the system list.
 */
test.describe.configure({ mode: 'serial', timeout: 240_000 });

const MLLP_PORT = Number(process.env.E2E_MLLP_PORT ?? 0);
const STAMP = Date.now().toString(36).slice(-5).toUpperCase();
const APP = `E2ELAB${STAMP}`;
const FACILITY = 'E2EHOSP';
const LATE = `LATE${STAMP}`;
const LIVE = `LIVE${STAMP}`;
const BROKEN = `BOM${STAMP}`;
const CONN_NAME = `E2E lab ${STAMP}`;

const USERS: Record<string, { account: string; type: number; variant: Variant }> = {
  admin: { account: 'admin', type: 1, variant: 'main' },
  dm: { account: 'dm', type: 1, variant: 'main' },
  cra: { account: 'cra', type: 2, variant: 'main' },
};

/** An ORU^R01 with one hemoglobin result, segments ended with CR as the standard says. */
function oru(app: string, control: string, mrn: string): string {
  return (
    `MSH|^~\\&|${app}|${FACILITY}|ESOURCE|ES|20260102030405||ORU^R01^ORU_R01|${control}|P|2.5.1\r` +
    `PID|1||${mrn}^^^${FACILITY}^MR||Doe^Jane||19800101|F\r` +
    `OBR|1||${control}|718-7^Hemoglobin^LN\r` +
    `OBX|1|NM|718-7^Hemoglobin [Mass/volume] in Blood^LN||13.2|g/dL^g/dL^UCUM|12-16|N|||F|||20260102030000\r`
  );
}

/** Sends one MLLP frame (0x0B … 0x1C 0x0D) over a new socket and returns the ACK's MSA-1 code. */
async function sendMllp(bytes: Buffer): Promise<string> {
  return new Promise((resolve, reject) => {
    const sock = net.connect(MLLP_PORT, '127.0.0.1');
    const chunks: Buffer[] = [];
    const timer = setTimeout(() => {
      sock.destroy();
      reject(new Error('no ACK within 15 s'));
    }, 15_000);
    sock.on('connect', () => sock.write(Buffer.concat([Buffer.from([0x0b]), bytes, Buffer.from([0x1c, 0x0d])])));
    sock.on('data', (c) => {
      chunks.push(c);
      const all = Buffer.concat(chunks);
      const end = all.indexOf(Buffer.from([0x1c, 0x0d]));
      if (end < 0) return;
      clearTimeout(timer);
      sock.end();
      const ack = all.subarray(all.indexOf(0x0b) + 1, end).toString('utf8');
      const msa = ack.split(/\r\n|\r|\n/).find((l) => l.startsWith('MSA')) ?? '';
      resolve(msa.split('|')[1] ?? '');
    });
    sock.on('error', (e) => {
      clearTimeout(timer);
      reject(e);
    });
  });
}

/** Logs in through the API in the PRO environment (MSH-11 'P' routes to PRO). */
async function login(request: APIRequestContext, who: keyof typeof USERS): Promise<ApiSession> {
  const u = USERS[who]!;
  const s = await apiLogin(request, u.account, u.type, u.variant);
  if (s.user.projectType !== 'PRO') {
    const r = await request.post('/api/passport/envTypeSwitch', { headers: { token: s.token }, form: { proType: 'PRO' } });
    expect(r.status()).toBe(200);
    s.user.projectType = 'PRO';
  }
  return s;
}

async function open(browser: Browser, who: keyof typeof USERS, url: string, lang: 'en_US' | 'zh_CN' = 'en_US'): Promise<Page> {
  const ctx = await browser.newContext();
  const page = await ctx.newPage();
  const s = await login(ctx.request, who);
  await openLoggedIn(page, s, USERS[who]!.variant, url, lang);
  await expect(page.getByTestId('app-shell')).toBeVisible();
  return page;
}

/** The row of a control id in the list (filtered by it). */
async function rowOf(page: Page, controlId: string) {
  await page.getByTestId('hl7-filter-control').locator('input').fill(controlId);
  await page.getByTestId('hl7-filter-control').locator('input').press('Enter');
  const row = page.getByTestId('hl7-table').locator('tr.ant-table-row').filter({ hasText: controlId });
  await expect(row).toHaveCount(1);
  return row;
}

test.beforeAll(() => {
  test.skip(!MLLP_PORT, 'the e2e server runs no MLLP listener (E2E_MLLP_PORT unset)');
});

test('an unknown sender is answered AE and kept; a malformed message AR — the administrator sees why and the raw text', async ({ browser }) => {
  expect(await sendMllp(Buffer.from(oru(APP, LATE, `MRN-${STAMP}`)))).toBe('AE');
  // a byte-order mark, CR LF segment ends and no MSH: unreadable, rejected, still kept
  const broken = Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(`PID|1||X-${BROKEN}\r\nOBX|1|ST|${BROKEN}\r\n`)]);
  expect(await sendMllp(broken)).toBe('AR');

  const page = await open(browser, 'admin', '/system/hl7Messages');
  await expect(page.getByTestId('hl7-page')).toBeVisible();
  await expect(page.getByTestId('page-header')).toContainText('Unrouted HL7');
  // both dead letters are counted at the top
  await expect
    .poll(async () => Number((await page.getByTestId('hl7-dead-count').locator('.ant-statistic-content-value').innerText()).replace(/\D/g, '')))
    .toBeGreaterThanOrEqual(2);

  const row = await rowOf(page, LATE);
  await expect(row.getByTestId('hl7-status')).toHaveText('Dead letter');
  await expect(row).toContainText(`${APP} / ${FACILITY}`);
  await expect(row).toContainText('ORU^R01');
  await expect(row).toContainText('AE');
  await expect(row.getByTestId('hl7-reason')).toContainText('UNKNOWN_SENDER');
  await expect(row.getByTestId('hl7-reason')).toContainText('No enabled HL7 v2 connection matches');
  // the raw text as received: four segments, the header first
  await row.getByRole('button', { name: /\d{4}-\d\d-\d\d/ }).click();
  const drawer = page.getByTestId('hl7-drawer');
  await expect(drawer.getByTestId('hl7-segment')).toHaveCount(4);
  await expect(drawer.getByTestId('hl7-segment').first()).toHaveText(`1MSH|^~\\&|${APP}|${FACILITY}|ESOURCE|ES|20260102030405||ORU^R01^ORU_R01|${LATE}|P|2.5.1`);
  await expect(drawer.getByTestId('hl7-flags')).toContainText('Segment ends: CR');
  await expect(drawer.getByTestId('hl7-flags')).toContainText('Decoded exactly');
  await expect(drawer.getByTestId('hl7-replay')).toBeVisible();
  await noKeys(page);
  await shootBoth(page, 'hl7-system-detail-en');
  await drawer.getByRole('button', { name: 'Close' }).click();

  // the header-less message: no sender, no type, rejected with its reason; its flags say how it came
  await page.getByTestId('hl7-filter-control').locator('input').fill('');
  await page.getByTestId('hl7-filter-control').locator('input').press('Enter');
  await page.getByTestId('hl7-dead-count').click();
  const noMsh = page.getByTestId('hl7-table').locator('tr.ant-table-row').filter({ hasText: 'NO_MSH' }).first();
  await expect(noMsh).toContainText('AR');
  await expect(noMsh).toContainText('does not start with an MSH');
  await noMsh.getByRole('button', { name: /\d{4}-\d\d-\d\d/ }).click();
  await expect(drawer.getByTestId('hl7-flags')).toContainText('Byte-order mark');
  await expect(drawer.getByTestId('hl7-flags')).toContainText('Segment ends: CR LF');
  await expect(drawer.getByTestId('hl7-segment').first()).toHaveText(`1PID|1||X-${BROKEN}`);
  await drawer.getByRole('button', { name: 'Close' }).click();
  await shootBoth(page, 'hl7-system-list-en');

  // the same screens in Chinese
  const zh = await open(browser, 'admin', '/system/hl7Messages', 'zh_CN');
  await expect(zh.getByTestId('page-header')).toContainText('未归属 HL7 消息');
  const zhRow = await rowOf(zh, LATE);
  await expect(zhRow.getByTestId('hl7-status')).toHaveText('死信');
  await expect(zhRow.getByTestId('hl7-reason')).toContainText('没有与发送应用/机构匹配');
  await noKeys(zh);
  await shootBoth(zh, 'hl7-system-list-zh');
  await zhRow.getByRole('button', { name: /\d{4}-\d\d-\d\d/ }).click();
  await expect(zh.getByTestId('hl7-flags')).toContainText('段结束符：CR');
  await shootBoth(zh, 'hl7-system-detail-zh');
  await zh.context().close();
  await page.context().close();
});

test('the data manager adds the missing connection; the administrator replays the dead letter and it is stored in the project', async ({ browser }) => {
  const dm = await open(browser, 'dm', '/project/sourceConnections?proId=1');
  await expect(dm.getByTestId('project-label')).toContainText('DEMO-001');
  await dm.getByTestId('connection-add').click();
  const form = dm.getByTestId('connection-drawer');
  await form.getByTestId('connection-site').click();
  await dm.locator('.ant-select-item-option').filter({ hasText: /^01 / }).first().click();
  await form.getByTestId('connection-kind').click();
  await dm.locator('.ant-select-item-option').filter({ hasText: 'HL7 v2 (MLLP)' }).click();
  await form.getByTestId('connection-name').locator('input').or(form.locator('input[data-testid="connection-name"]')).first().fill(CONN_NAME);
  await form.getByTestId('connection-sending-app').fill(APP);
  await form.getByTestId('connection-sending-facility').fill(FACILITY);
  await form.getByTestId('connection-save').click();
  await expect(dm.getByTestId('connections-table')).toContainText(CONN_NAME);

  // the project list does not hold the dead letter: it has no project yet
  await dm.goto('/project/hl7Messages');
  await expect(dm.getByTestId('hl7-page')).toBeVisible();
  await dm.getByTestId('hl7-filter-control').locator('input').fill(LATE);
  await dm.getByTestId('hl7-filter-control').locator('input').press('Enter');
  await expect(dm.getByTestId('hl7-table')).toContainText('No message matches these filters.');

  const admin = await open(browser, 'admin', '/system/hl7Messages');
  const row = await rowOf(admin, LATE);
  await row.getByTestId(/^hl7-replay-\d+$/).click();
  const drawer = admin.getByTestId('hl7-drawer');
  await drawer.getByTestId('hl7-replay').click();
  await expect(admin.locator('.ant-popover')).toContainText('Replay this dead letter?');
  await admin.locator('.ant-popover').getByRole('button', { name: 'Replay' }).click();
  const result = drawer.getByTestId('hl7-replay-result');
  await expect(result).toContainText(`Stored through connection ${CONN_NAME}`);
  await expect(result).toContainText('now belongs to that connection');
  await expect(drawer.getByTestId('hl7-facts').getByTestId('hl7-status')).toHaveText('Replayed');
  await expect(drawer.getByTestId('hl7-replay')).toHaveCount(0);
  // the message left the system scope: the drawer keeps its raw text, and nothing reports an error
  await expect(drawer.getByTestId('hl7-segment')).toHaveCount(4);
  await expect(admin.locator('.ant-notification-notice-error')).toHaveCount(0);
  await shootBoth(admin, 'hl7-replayed-en');
  await drawer.getByRole('button', { name: 'Close' }).click();
  // it left the system list
  await expect(admin.getByTestId('hl7-table')).toContainText('No message matches these filters.');
  await admin.context().close();

  // a live message of the same lab now routes straight to the project: AA
  expect(await sendMllp(Buffer.from(oru(APP, LIVE, `MRN-${STAMP}`)))).toBe('AA');

  await dm.reload();
  await expect(dm.getByTestId('hl7-page')).toBeVisible();
  const replayed = await rowOf(dm, LATE);
  await expect(replayed.getByTestId('hl7-status')).toHaveText('Replayed');
  await expect(replayed).toContainText(CONN_NAME);
  await expect(replayed).toContainText('AA');
  await dm.getByTestId('hl7-filter-control').locator('input').fill('');
  await dm.getByTestId('hl7-filter-control').locator('input').press('Enter');
  await dm.getByTestId('hl7-filter-type').locator('input').fill('oru^r01');
  await dm.getByTestId('hl7-filter-type').locator('input').press('Enter');
  const live = dm.getByTestId('hl7-table').locator('tr.ant-table-row').filter({ hasText: LIVE });
  await expect(live.getByTestId('hl7-status')).toHaveText('Stored');
  await expect(live).toContainText('AA');
  await expect(dm.getByTestId('hl7-read-only')).toHaveCount(0);
  await noKeys(dm);
  await shootBoth(dm, 'hl7-project-dm-en');
  await live.getByRole('button', { name: /\d{4}-\d\d-\d\d/ }).click();
  await expect(dm.getByTestId('hl7-drawer').getByTestId('hl7-segment')).toHaveCount(4);
  await expect(dm.getByTestId('hl7-drawer').getByTestId('hl7-facts')).toContainText(CONN_NAME);
  await shootBoth(dm, 'hl7-project-detail-en');
  await dm.context().close();
});

test('the monitor reads the project list without replay and cannot open the system list', async ({ browser }) => {
  const page = await open(browser, 'cra', '/project/hl7Messages?proId=1', 'zh_CN');
  await expect(page.getByTestId('project-label')).toContainText('DEMO-001');
  await expect(page.getByTestId('hl7-page')).toBeVisible();
  await expect(page.getByTestId('hl7-read-only')).toBeVisible();
  const row = await rowOf(page, LATE);
  await expect(row.getByTestId('hl7-status')).toHaveText('已重放');
  await expect(page.locator('[data-testid^="hl7-replay"]')).toHaveCount(0);
  await noKeys(page);
  await shootBoth(page, 'hl7-project-cra-zh');
  await row.getByRole('button', { name: /\d{4}-\d\d-\d\d/ }).click();
  await expect(page.getByTestId('hl7-drawer').getByTestId('hl7-segment')).toHaveCount(4);
  await expect(page.getByTestId('hl7-replay')).toHaveCount(0);
  await shootBoth(page, 'hl7-project-detail-zh');

  await page.goto('/system/hl7Messages');
  await expect(page.getByTestId('hl7-page')).toHaveCount(0);
  await page.context().close();
});

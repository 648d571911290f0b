/**
 * E-consent participants (issue 15 item 7; spec §7 /cloud/project/managePts/ec/participant/query and add/pts) over
 * real HTTP: the connection per project environment (development provider, the HTTP adapter against a local server,
 * the token encrypted and never returned), the list scoped to the caller's sites with filters, paging and identifiers
 * masked by permission, adding consented participants as subjects through the subject rule (numbering, status,
 * first-visit date, audit) — and every refusal: no connection, switched off, another site's, another project's or an
 * unknown participant, already added (also by parallel requests), not consented, a site the project lacks, no
 * permission, a stale configuration, the e-consent system down or answering nonsense.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { and, eq, inArray } from 'drizzle-orm';
import type {
  EcAddResult,
  EcConfigView,
  EcParticipant,
  EcParticipantPage,
  SubjectRow,
} from '@esource/shared';
import { auditEvents, ecConfigs, ecSubjectLinks, sites, subjects } from '../src/db/schema';
import { DEV_PER_SITE, devParticipants } from '../src/modules/econsent/ec-provider';
import { decryptSecret } from '../src/modules/sources/secret-box';
import { startTestServer, type TestServer } from './harness';

let s: TestServer;
const tok: Record<string, string> = {};
const H = { proId: 1, proType: 'PRO', language: 'en_US' };
const ZH = { ...H, language: 'zh_CN' };
let siteCodes: string[] = [];
let siteA = 0;
let siteB = 0;
let list: EcParticipant[] = [];

// the HTTP adapter's target: answers what `answer` says
let answer: { status: number; body: string; token?: string } = { status: 200, body: '{"participants":[]}' };
let seenAuth: string | undefined;
const target = http.createServer((req, res) => {
  seenAuth = req.headers.authorization;
  if (answer.token && req.headers.authorization !== `Bearer ${answer.token}`) {
    res.writeHead(401).end('{"error":"bad token"}');
    return;
  }
  if (!req.url?.startsWith('/ec/participants?studyCode=STUDY-7')) {
    res.writeHead(404).end();
    return;
  }
  res.writeHead(answer.status, { 'content-type': 'application/json' }).end(answer.body);
});
let targetUrl = '';

const query = (
  token: string,
  form: Record<string, string | number | boolean> = {},
  headers: Record<string, string | number> = H,
) =>
  s.api.post<EcParticipantPage>('/cloud/project/managePts/ec/participant/query', {
    token,
    headers,
    form: { pageNumber: 1, pageSize: 50, ...form },
  });
const add = (token: string, participantIds: string[], headers: Record<string, string | number> = H) =>
  s.api.post<EcAddResult>('/cloud/project/managePts/add/pts', { token, headers, json: { participantIds } });
const saveConfig = (token: string, json: Record<string, unknown>) =>
  s.api.post<EcConfigView>('/project/ec/config/save', { token, headers: H, json });
const getConfig = async () =>
  (await s.api.post<EcConfigView | null>('/project/ec/config/get', { token: tok.dm, headers: H })).body.data;

const consentedAt = (code: string) => list.filter((p) => p.siteCode === code && p.status === 'consented');

beforeAll(async () => {
  s = await startTestServer();
  for (const a of ['dm', 'crc1', 'crc2', 'cra', 'pi']) tok[a] = await s.api.login(a);
  const rows = await s.database.db
    .select()
    .from(sites)
    .where(and(eq(sites.projectId, 1), eq(sites.env, 'PRO')));
  siteCodes = rows.map((r) => r.siteNo);
  siteA = rows.find((r) => r.siteNo === '01')!.id;
  siteB = rows.find((r) => r.siteNo === '02')!.id;
  list = devParticipants(1, 'PRO', siteCodes);
  await new Promise<void>((r) => target.listen(0, '127.0.0.1', r));
  targetUrl = `http://127.0.0.1:${(target.address() as AddressInfo).port}/ec`;
});
afterAll(async () => {
  await s?.stop();
  await new Promise((r) => target.close(r));
});

describe('e-consent connection', () => {
  it('refuses the list while no e-consent system is connected, in the caller language', async () => {
    const r = await query(tok.dm!);
    expect(r.status).toBe(409);
    expect(r.body.errorCode).toBe('EC_NOT_CONFIGURED');
    expect(r.body.message).toBe('No e-consent system is connected to this project environment yet');
    const zh = await query(tok.dm!, {}, ZH);
    expect(zh.body.message).toBe('本项目环境尚未连接电子知情同意系统');
  });

  it('is configured by whoever configures the hospital connections, audited, stale writes refused', async () => {
    expect((await saveConfig(tok.crc1!, { kind: 'dev', name: 'Ethics register' })).status).toBe(403);
    expect((await s.api.post('/project/ec/config/get', { token: tok.crc1, headers: H })).status).toBe(403);
    const bad = await saveConfig(tok.dm!, { kind: 'http', name: 'x' });
    expect(bad.status).toBe(400);
    expect(bad.body.detail!.map((d) => d.field).sort()).toEqual(['baseUrl', 'studyCode']);
    const r = await saveConfig(tok.dm!, { kind: 'dev', name: 'Ethics register (development)' });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    expect(r.body.data).toMatchObject({
      kind: 'dev',
      name: 'Ethics register (development)',
      version: 1,
      enabled: true,
      hasSecret: false,
    });
    const stale = await saveConfig(tok.dm!, { kind: 'dev', name: 'again' });
    expect(stale.status).toBe(409);
    expect(stale.body.errorCode).toBe('STALE_WRITE');
    const [a] = await s.database.db
      .select()
      .from(auditEvents)
      .where(eq(auditEvents.action, 'ec.config.create'));
    expect(a).toBeTruthy();
    const t = await s.api.post<{ ok: boolean; participants: number; message: string }>(
      '/project/ec/config/test',
      { token: tok.dm, headers: H },
    );
    expect(t.body.data).toMatchObject({ ok: true, participants: siteCodes.length * DEV_PER_SITE + 1 });
  });
});

describe('the participant list', () => {
  it("lists every participant of a caller's sites, a site the project lacks only to callers of every site; identifiers by permission", async () => {
    const dm = await query(tok.dm!, { pageSize: 200 });
    expect(dm.status, JSON.stringify(dm.body)).toBe(200);
    expect(dm.body.data.totalCount).toBe(list.length);
    expect(dm.body.data.provider).toEqual({ kind: 'dev', name: 'Ethics register (development)' });
    // the data manager does not see identifiers: no name, birth year only
    expect(dm.body.data.identifiersMasked).toBe(true);
    expect(
      dm.body.data.content.every(
        (p) => p.name === null && (p.birthDate === null || /^\d{4}$/.test(p.birthDate)),
      ),
    ).toBe(true);
    const unknown = dm.body.data.content.find((p) => p.siteCode === '99')!;
    expect(unknown).toMatchObject({
      siteId: null,
      subject: null,
      refusal: 'site 99 is not a site of this project in this environment',
    });

    const crc = await query(tok.crc1!, { pageSize: 200 });
    expect(crc.body.data.totalCount).toBe(DEV_PER_SITE);
    expect(crc.body.data.content.every((p) => p.siteId === siteA)).toBe(true);
    expect(crc.body.data.identifiersMasked).toBe(false);
    const named = crc.body.data.content.find((p) => p.name)!;
    expect(named.birthDate).toMatch(/^\d{4}-\d{2}-\d{2}$/);
    // another site's filter finds nothing for a site coordinator of site 01
    expect((await query(tok.crc1!, { siteId: siteB })).body.data.totalCount).toBe(0);
  });

  it('filters by site, status, consent and text, pages by 50/100/200 and says why a row cannot be added', async () => {
    const consented = await query(tok.dm!, { consented: 'true', pageSize: 200 });
    expect(consented.body.data.content.every((p) => p.status === 'consented' && p.consentDate)).toBe(true);
    // consented, but at a site the project lacks: the only one that cannot be added
    expect(consented.body.data.content.filter((p) => p.refusal !== null).map((p) => p.siteCode)).toEqual([
      '99',
    ]);
    const pending = await query(tok.dm!, { status: 'pending', siteId: siteA });
    expect(pending.body.data.content.map((p) => p.refusal)).toEqual(
      pending.body.data.content.map(() => 'no signed consent in the e-consent system'),
    );
    const withdrawn = await query(
      tok.dm!,
      { status: 'withdrawn', siteId: siteA },
      { ...H, language: 'zh_CN' },
    );
    expect(withdrawn.body.data.content[0]!.refusal).toBe('知情同意已撤回');
    const byText = await query(tok.dm!, { keyword: 's01-00' });
    expect(byText.body.data.content.map((p) => p.screeningNo)).toEqual([
      'S01-001',
      'S01-002',
      'S01-003',
      'S01-004',
      'S01-005',
      'S01-006',
      'S01-007',
      'S01-008',
      'S01-009',
    ]);
    const bad = await query(tok.dm!, { pageSize: 20 });
    expect(bad.status).toBe(400);
    expect(bad.body.detail![0]!.field).toBe('pageSize');
    expect((await query(tok.dm!, { status: 'signed' })).status).toBe(400);
  });

  it('is refused to roles that may not add subjects', async () => {
    const r = await query(tok.cra!);
    expect(r.status).toBe(403);
    expect((await add(tok.cra!, [consentedAt('01')[0]!.id])).status).toBe(403);
    expect((await query(tok.pi!)).status).toBe(403);
  });
});

describe('adding participants as subjects', () => {
  it('adds a consented participant through the subject rule: number, status informed consent, consent date, audit', async () => {
    const p = consentedAt('01')[0]!;
    const r = await add(tok.crc1!, [p.id]);
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    const a = r.body.data.added[0]!;
    expect(a).toMatchObject({
      participantId: p.id,
      screeningNo: p.screeningNo,
      siteId: siteA,
      consentDate: p.consentDate,
    });
    expect(a.ptsNo).toMatch(/^01-\d{3}$/);
    const subj = await s.api.post<SubjectRow>('/project/manage/read', {
      token: tok.crc1,
      headers: H,
      form: { ptsId: a.ptsId },
    });
    expect(subj.body.data).toMatchObject({
      ptsNo: a.ptsNo,
      status: 7,
      firstVisitDate: p.consentDate,
      initials: p.initials,
      siteId: siteA,
    });
    const events = await s.database.db
      .select()
      .from(auditEvents)
      .where(and(eq(auditEvents.entity, 'subject'), eq(auditEvents.entityId, String(a.ptsId))));
    expect(events.map((e) => e.action)).toEqual(expect.arrayContaining(['subject.add', 'subject.ecAdd']));
    const ec = events.find((e) => e.action === 'subject.ecAdd')!;
    const nv: unknown = typeof ec.newValue === 'string' ? JSON.parse(ec.newValue) : ec.newValue;
    expect(nv).toMatchObject({
      participantId: p.id,
      screeningNo: p.screeningNo,
      consentDate: p.consentDate,
      provider: 'dev',
    });
    // never the name or birth date
    expect(JSON.stringify(ec.newValue)).not.toContain(p.birthDate!);
    if (p.name) expect(JSON.stringify(events)).not.toContain(p.name);
    // the list marks it
    const row = (await query(tok.crc1!, { keyword: p.screeningNo })).body.data.content[0]!;
    expect(row.subject).toEqual({ ptsId: a.ptsId, ptsNo: a.ptsNo });
    expect((await query(tok.crc1!, { added: 'true' })).body.data.content.map((x) => x.participantId)).toEqual(
      [p.id],
    );
  });

  it('refuses a participant already added, naming its subject', async () => {
    const p = consentedAt('01')[0]!;
    const [link] = await s.database.db
      .select()
      .from(ecSubjectLinks)
      .where(eq(ecSubjectLinks.participantId, p.id));
    const [subj] = await s.database.db.select().from(subjects).where(eq(subjects.id, link!.subjectId));
    const r = await add(tok.dm!, [p.id]);
    expect(r.status).toBe(409);
    expect(r.body.errorCode).toBe('EC_ALREADY_ADDED');
    expect(r.body.message).toBe(
      `Participant ${p.screeningNo} has already been added as subject ${subj!.ptsNo}`,
    );
  });

  it("refuses another site's, another project's and unknown participants as not found, and duplicates in a request", async () => {
    const other = await add(tok.crc1!, [consentedAt('02')[0]!.id]);
    expect(other.status).toBe(404);
    expect(other.body.errorCode).toBe('EC_PARTICIPANT_NOT_FOUND');
    const otherProject = devParticipants(2, 'PRO', siteCodes).find((p) => p.status === 'consented')!;
    const r = await add(tok.dm!, [otherProject.id]);
    expect(r.status).toBe(404);
    expect(r.body.message).toBe(`The e-consent system lists no participant ${otherProject.id} at your sites`);
    // another environment's participant is another project environment's register too
    const uat = devParticipants(1, 'UAT', siteCodes).find((p) => p.status === 'consented')!;
    expect((await add(tok.dm!, [uat.id])).status).toBe(404);
    expect((await add(tok.dm!, ['ec-nothing'])).status).toBe(404);
    const dup = await add(tok.dm!, [consentedAt('02')[1]!.id, consentedAt('02')[1]!.id]);
    expect(dup.status).toBe(400);
    expect((await add(tok.dm!, [])).status).toBe(400);
  });

  it('refuses participants without consent and at a site the project lacks; all or nothing', async () => {
    const pending = list.find((p) => p.siteCode === '01' && p.status === 'pending')!;
    const r = await add(tok.crc1!, [pending.id]);
    expect(r.status).toBe(409);
    expect(r.body.errorCode).toBe('EC_NOT_ADDABLE');
    expect(r.body.message).toBe(
      `Participant ${pending.screeningNo} cannot be added: no signed consent in the e-consent system`,
    );
    const withdrawn = list.find((p) => p.siteCode === '01' && p.status === 'withdrawn')!;
    expect((await add(tok.crc1!, [withdrawn.id])).body.message).toContain('consent withdrawn');
    const unknown = list.find((p) => p.siteCode === '99')!;
    const u = await add(tok.dm!, [unknown.id]);
    expect(u.status).toBe(409);
    expect(u.body.message).toContain('site 99 is not a site of this project');
    // a good one with a refused one: neither is added
    const good = consentedAt('01')[1]!;
    expect((await add(tok.crc1!, [good.id, pending.id])).status).toBe(409);
    expect(
      await s.database.db.select().from(ecSubjectLinks).where(eq(ecSubjectLinks.participantId, good.id)),
    ).toHaveLength(0);
  });

  it('adds several at once, each numbered by its site, and parallel adds of one participant create one subject', async () => {
    const a2 = consentedAt('01')[1]!;
    const b1 = consentedAt('02')[0]!;
    const r = await add(tok.dm!, [a2.id, b1.id]);
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    expect(r.body.data.added.map((x) => x.ptsNo.slice(0, 3))).toEqual(['01-', '02-']);
    const c = consentedAt('02')[1]!;
    const results = await Promise.all([1, 2, 3, 4, 5].map(() => add(tok.dm!, [c.id])));
    expect(results.filter((x) => x.status === 200)).toHaveLength(1);
    expect(
      results.filter((x) => x.status === 409).every((x) => x.body.errorCode === 'EC_ALREADY_ADDED'),
    ).toBe(true);
    expect(results.filter((x) => x.status === 409)).toHaveLength(4);
    expect(
      await s.database.db.select().from(ecSubjectLinks).where(eq(ecSubjectLinks.participantId, c.id)),
    ).toHaveLength(1);
    const made = await s.database.db
      .select()
      .from(ecSubjectLinks)
      .where(inArray(ecSubjectLinks.participantId, [a2.id, b1.id, c.id]));
    expect(made).toHaveLength(3);
  });
});

describe('the HTTP adapter', () => {
  const participants = [
    {
      id: 'P-1001',
      screeningNo: 'SCR-1001',
      name: '李娜',
      sex: 'F',
      birthDate: '1971-02-03',
      consentDate: '2025-07-01',
      consentVersion: 'V3.0',
      siteCode: '01',
      status: 'consented',
    },
    { id: 'P-1002', screeningNo: 'SCR-1002', initials: 'WQ', siteCode: '02', status: 'pending' },
  ];

  it('reads the register with the encrypted token, which is never returned', async () => {
    const version = (await getConfig())!.version;
    answer = { status: 200, body: JSON.stringify({ participants }), token: 'secret-token-123456' };
    const r = await saveConfig(tok.dm!, {
      kind: 'http',
      name: 'Hospital ethics system',
      baseUrl: targetUrl,
      studyCode: 'STUDY-7',
      secret: 'secret-token-123456',
      timeoutMs: 3000,
      version,
    });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    expect(r.body.data.hasSecret).toBe(true);
    expect(JSON.stringify(r.body)).not.toContain('secret-token');
    const [row] = await s.database.db.select().from(ecConfigs).where(eq(ecConfigs.projectId, 1));
    expect(row!.secretEnc).not.toContain('secret-token');
    expect(decryptSecret(row!.secretEnc)).toBe('secret-token-123456');
    const audit = await s.database.db
      .select()
      .from(auditEvents)
      .where(eq(auditEvents.action, 'ec.config.update'));
    expect(JSON.stringify(audit)).not.toContain('secret-token');
    const q = await query(tok.crc1!);
    expect(q.status, JSON.stringify(q.body)).toBe(200);
    expect(seenAuth).toBe('Bearer secret-token-123456');
    expect(q.body.data.content).toEqual([
      expect.objectContaining({
        participantId: 'P-1001',
        name: '李娜',
        initials: 'LN',
        consentDate: '2025-07-01',
        siteId: siteA,
        refusal: null,
      }),
    ]);
    const added = await add(tok.crc1!, ['P-1001']);
    expect(added.status).toBe(200);
    const subj = await s.api.post<SubjectRow>('/project/manage/read', {
      token: tok.crc1,
      headers: H,
      form: { ptsId: added.body.data.added[0]!.ptsId },
    });
    expect(subj.body.data).toMatchObject({ initials: 'LN', firstVisitDate: '2025-07-01', status: 7 });
  });

  it('a refused token, an error status and an unreadable answer are clear, translated errors', async () => {
    answer = { status: 200, body: JSON.stringify({ participants }), token: 'another-token' };
    const refused = await query(tok.dm!);
    expect(refused.status).toBe(502);
    expect(refused.body.errorCode).toBe('EC_PROVIDER_UNAVAILABLE');
    expect(refused.body.message).toBe(
      'The e-consent system could not be used: it refused the credentials (HTTP 401)',
    );
    answer = { status: 503, body: 'down for maintenance' };
    expect((await query(tok.dm!)).body.message).toBe(
      'The e-consent system could not be used: it answered HTTP 503',
    );
    answer = {
      status: 200,
      body: JSON.stringify({
        participants: [{ id: 'X', siteCode: '01', status: 'maybe', screeningNo: 'S' }],
      }),
    };
    const format = await query(tok.dm!, {}, ZH);
    expect(format.status).toBe(502);
    expect(format.body.message).toBe('电子知情同意系统不可用：应答无法读取（participants[0].status）');
    answer = { status: 200, body: '<html>' };
    expect((await query(tok.dm!)).body.message).toContain('its answer could not be read (not JSON)');
    const t = await s.api.post<{ ok: boolean; message: string }>('/project/ec/config/test', {
      token: tok.dm,
      headers: H,
    });
    expect(t.body.data).toMatchObject({
      ok: false,
      message: 'Not connected: its answer could not be read (not JSON)',
    });
  });

  it('a system that cannot be reached is a clear error, and a connection switched off refuses', async () => {
    const closed = http.createServer();
    await new Promise<void>((r) => closed.listen(0, '127.0.0.1', r));
    const port = (closed.address() as AddressInfo).port;
    await new Promise((r) => closed.close(r));
    let version = (await getConfig())!.version;
    // a new address without a token: the saved token does not go to another target
    const moved = await saveConfig(tok.dm!, {
      kind: 'http',
      name: 'Hospital ethics system',
      baseUrl: `http://127.0.0.1:${port}/ec`,
      studyCode: 'STUDY-7',
      timeoutMs: 2000,
      version,
    });
    expect(moved.body.data.hasSecret).toBe(false);
    const down = await query(tok.crc1!);
    expect(down.status).toBe(502);
    expect(down.body.message).toBe(
      'The e-consent system could not be used: it could not be reached (ECONNREFUSED)',
    );
    expect((await add(tok.crc1!, ['P-1001'])).status).toBe(502);
    version = moved.body.data.version;
    const off = await saveConfig(tok.dm!, {
      kind: 'dev',
      name: 'Ethics register (development)',
      enabled: false,
      version,
    });
    expect(off.status).toBe(200);
    const r = await query(tok.crc1!);
    expect(r.status).toBe(409);
    expect(r.body.errorCode).toBe('EC_DISABLED');
  });
});

/**
 * Shared forms (issue 15 item 6): links to one form of one subject's visit, filled once by the participant without an
 * account through the eCRF's own save (entry mode 7, source share:<id>), pending the site's review; revocation,
 * expiry, single use under parallel submits, the micro configs, site scope, and an audit row for every step and
 * refusal.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { and, desc, eq, inArray } from 'drizzle-orm';
import { auditEvents, ddcShareLinks, sites } from '../src/db/schema';
import { changesOf } from '../src/modules/audit/audit.service';
import { DEMO_PASSWORD, sha256Hex, startTestServer, type ApiResult, type TestServer } from './harness';

let s: TestServer;
const P = { proId: 1, proType: 'PRO' };
let dm: string;
let crc1: string;
let crc2: string;
let cra: string;
let pi: string;
let siteA = 0;

type Sched = {
  visitId: number;
  code: string;
  forms: { formId: number; code: string; status: number; pendingReview?: boolean }[];
};
type View = {
  instance: {
    id: number;
    status: number;
    version: number;
    pendingReview?: { shareId: number; submittedAt: string } | null;
  } | null;
  values: Record<
    string,
    { value: unknown; entryMode: number; sourceRef: string | null; updatedBy: string | null }
  >;
};
type Row = {
  id: number;
  status: string;
  review: string | null;
  ptsNo: string;
  formCode: string;
  openCount: number;
  instanceId: number | null;
  code?: string;
};
type Key = { ptsId: number; visitId: number; formId: number };

async function newSubject(
  token: string,
  site: number,
): Promise<{ ptsId: number; ptsNo: string; v1: number; dmForm: number; vsForm: number }> {
  const first = new Date(Date.now() - 3 * 86_400_000).toISOString().slice(0, 10);
  const r = await s.api.post<{ ptsId: number; ptsNo: string }>('/project/managePts/add', {
    token,
    headers: P,
    form: { siteId: site, firstVisitDate: first },
  });
  expect(r.status, JSON.stringify(r.body)).toBe(200);
  const sched = await s.api.get<Sched[]>('/project/pts/visits', {
    token,
    headers: P,
    query: { ptsId: r.body.data.ptsId },
  });
  const v1 = sched.body.data.find((v) => v.code === 'V1')!;
  return {
    ptsId: r.body.data.ptsId,
    ptsNo: r.body.data.ptsNo,
    v1: v1.visitId,
    dmForm: v1.forms.find((f) => f.code === 'DM')!.formId,
    vsForm: v1.forms.find((f) => f.code === 'VS')!.formId,
  };
}

const share = (token: string, key: Key, extra: Record<string, unknown> = {}, lang = 'en_US') =>
  s.api.post<Row>('/ddc/share/add', { token, headers: { ...P, language: lang }, json: { ...key, ...extra } });
const open = (code: string, lang = 'en_US') =>
  s.api.post<Record<string, unknown>>('/ddc/public/form', { headers: { language: lang }, json: { code } });
const submit = (code: string, items: { variable: string; value: unknown }[], lang = 'en_US') =>
  s.api.post<{ submittedAt: string }>('/ddc/public/submit', {
    headers: { language: lang },
    json: { code, items },
  });
const view = (token: string, key: Key) =>
  s.api.get<View>('/crf/form/item/result/list', { token, headers: P, query: key });
const audits = async (actions: string[]) =>
  s.database.db
    .select()
    .from(auditEvents)
    .where(inArray(auditEvents.action, actions))
    .orderBy(desc(auditEvents.id));
const ok = <T>(r: ApiResult<T>, status = 200): T => {
  expect(r.status, JSON.stringify(r.body)).toBe(status);
  return r.body.data;
};

const ANSWERS = [
  { variable: 'BRTHDTC', value: '1975-03-04' },
  { variable: 'SEX', value: '1' },
  { variable: 'ETHNIC', value: 'HAN' },
];

beforeAll(async () => {
  s = await startTestServer();
  const [a1, a2, a3, a4, a5] = await Promise.all(
    ['dm', 'crc1', 'crc2', 'cra', 'pi'].map((a) => s.api.login(a)),
  );
  [dm, crc1, crc2, cra, pi] = [a1!, a2!, a3!, a4!, a5!];
  const [a] = await s.database.db
    .select()
    .from(sites)
    .where(and(eq(sites.projectId, 1), eq(sites.env, 'PRO'), eq(sites.siteNo, '01')));
  siteA = a!.id;
});
afterAll(async () => {
  await s?.stop();
});

describe('a shared form from link to review', () => {
  let subj: Awaited<ReturnType<typeof newSubject>>;
  let key: Key;
  let link: Row & { code: string };

  it('a data manager creates a link; only its hash and an encrypted copy are stored', async () => {
    subj = await newSubject(crc1, siteA);
    key = { ptsId: subj.ptsId, visitId: subj.v1, formId: subj.dmForm };
    link = ok(await share(dm, key, { hours: 24, note: 'given to the patient at the desk' })) as Row & {
      code: string;
    };
    expect(link.code).toMatch(/^[A-Za-z0-9_-]{32}$/);
    expect(link).toMatchObject({ status: 'active', review: null, formCode: 'DM', ptsNo: subj.ptsNo });
    const [row] = await s.database.db.select().from(ddcShareLinks).where(eq(ddcShareLinks.id, link.id));
    expect(row!.codeHash).toBe(sha256Hex(link.code));
    expect(row!.codeEnc).not.toContain(link.code);
    expect(JSON.stringify(row)).not.toContain(link.code);
    expect(row!.expiresAt.getTime() - Date.now()).toBeGreaterThan(23.9 * 3_600_000);
    const [a] = await audits(['ddc.add']);
    expect(a).toMatchObject({ entityId: String(link.id), subjectId: subj.ptsId, userName: 'Dana Manager' });
    expect(JSON.stringify(a)).not.toContain(link.code);
  });

  it('the participant opens it without an account: the form, the masked subject number, no identifiers', async () => {
    const v = ok(await open(link.code));
    expect(v).toMatchObject({
      formName: '人口学资料',
      formNameEn: 'Demographics',
      projectName: expect.any(String),
      siteName: null,
      language: 'zh_CN',
    });
    expect(v.subjectNo).not.toBe(subj.ptsNo);
    expect(String(v.subjectNo).slice(-2)).toBe(subj.ptsNo.slice(-2));
    expect(JSON.stringify(v)).not.toMatch(/medicalRecordId|idCard|ptsId/);
    const [a] = await audits(['ddc.open']);
    expect(a).toMatchObject({
      entityId: String(link.id),
      userId: null,
      userName: 'participant',
      subjectId: subj.ptsId,
    });
  });

  it('unknown and malformed codes are refused the same way, translated, and audited', async () => {
    const unknown = await open('A'.repeat(32), 'zh_CN');
    expect(unknown.status).toBe(404);
    expect(unknown.body.errorCode).toBe('SHARE_NOT_FOUND');
    expect(unknown.body.message).toContain('此链接无效');
    const malformed = await open('not-a-code');
    expect(malformed.status).toBe(404);
    expect(malformed.body.message).toContain('This link is not valid');
    expect((await submit('x'.repeat(32), ANSWERS)).body.errorCode).toBe('SHARE_NOT_FOUND');
    const refused = await audits(['ddc.refused']);
    expect(refused.length).toBeGreaterThanOrEqual(3);
    expect(refused[0]).toMatchObject({ projectId: null, entityId: null, userName: 'participant' });
    expect(refused[0]!.newValue).toContain('SHARE_NOT_FOUND');
  });

  it("the form's own rules are checked on the server: a missing required item is refused, nothing is saved, the link stays", async () => {
    const r = await submit(link.code, [
      { variable: 'BRTHDTC', value: '1975-03-04' },
      { variable: 'SEX', value: '2' },
    ]);
    expect(r.status).toBe(400);
    // SEX 2 shows PREG, which is required
    expect(r.body.detail).toEqual([{ field: 'PREG', message: 'required' }]);
    const bad = await submit(link.code, [
      { variable: 'BRTHDTC', value: '2999-01-01' },
      { variable: 'SEX', value: '9' },
    ]);
    expect(bad.status).toBe(400);
    expect(bad.body.detail?.map((d) => d.field)).toEqual(['BRTHDTC', 'SEX']);
    const unknownItem = await submit(link.code, [...ANSWERS, { variable: 'NOPE', value: 'x' }]);
    expect(unknownItem.status).toBe(400);
    expect((await view(crc1, key)).body.data.instance).toBeNull();
    const [row] = await s.database.db.select().from(ddcShareLinks).where(eq(ddcShareLinks.id, link.id));
    expect(row!.status).toBe('active');
    const [a] = await audits(['ddc.refused']);
    expect(a!.newValue).toContain('VALIDATION');
    expect(a!.newValue).toContain('NOPE');
  });

  it('the submit saves through the eCRF with entry mode 7 and the link as source, pending site review', async () => {
    ok(await submit(link.code, ANSWERS));
    const v = ok(await view(crc1, key));
    expect(v.instance).toMatchObject({ status: 2, pendingReview: { shareId: link.id } });
    expect(v.values.BRTHDTC).toMatchObject({
      value: '1975-03-04',
      entryMode: 7,
      sourceRef: `share:${link.id}`,
      updatedBy: null,
    });
    expect(v.values.SEX).toMatchObject({ value: '1', entryMode: 7 });
    const sched = ok(
      await s.api.get<Sched[]>('/project/pts/visits', {
        token: crc1,
        headers: P,
        query: { ptsId: subj.ptsId },
      }),
    );
    const dmForm = sched.find((x) => x.code === 'V1')!.forms.find((f) => f.code === 'DM')!;
    expect(dmForm).toMatchObject({ status: 2, pendingReview: true });
    const hist = ok(
      await s.api.get<
        {
          variable: string;
          entryMode: number;
          userName: string | null;
          reason: string | null;
          sourceRef: string | null;
        }[]
      >('/crf/form/item/result/history', {
        token: crc1,
        headers: P,
        query: { instanceId: v.instance!.id, variable: 'BRTHDTC' },
      }),
    );
    expect(hist).toEqual([
      expect.objectContaining({
        entryMode: 7,
        userName: null,
        sourceRef: `share:${link.id}`,
        reason: `Answered by the participant through shared link #${link.id}`,
      }),
    ]);
    const values = await audits(['crf.value']);
    expect(values[0]).toMatchObject({ userId: null, userName: 'participant', subjectId: subj.ptsId, entity: 'crf_instance' });
    expect(changesOf(values[0]!.changes)).toContainEqual(expect.objectContaining({ field: 'BRTHDTC', newValue: '1975-03-04', entryMode: 7 }));
    const [sub] = await audits(['ddc.submit']);
    expect(sub).toMatchObject({ entityId: String(link.id), newValue: 'used' });
  });

  it('the link is used once: a second submit and a second open are refused, nothing changes', async () => {
    const again = await submit(
      link.code,
      [
        { variable: 'BRTHDTC', value: '1990-01-01' },
        { variable: 'SEX', value: '1' },
      ],
      'zh_CN',
    );
    expect(again.status).toBe(410);
    expect(again.body.errorCode).toBe('SHARE_USED');
    expect(again.body.message).toContain('已使用过');
    expect((await open(link.code)).body.errorCode).toBe('SHARE_USED');
    expect((await view(crc1, key)).body.data.values.BRTHDTC!.value).toBe('1975-03-04');
    const [a] = await audits(['ddc.refused']);
    expect(a!.newValue).toContain('SHARE_USED');
    expect(a!.entityId).toBe(String(link.id));
  });

  it('nobody signs for answers the site has not reviewed', async () => {
    const inst = (await view(crc1, key)).body.data.instance!;
    const r = await s.api.post('/crf/report/check', {
      token: pi,
      headers: { ...P, language: 'en_US' },
      form: { instanceId: inst.id, version: inst.version, password: sha256Hex(DEMO_PASSWORD) },
    });
    expect(r.status).toBe(409);
    expect(r.body.errorCode).toBe('FORM_PENDING_REVIEW');
  });

  it('the site accepts them at the version it saw; a stale accept and a second accept are refused', async () => {
    const inst = (await view(crc1, key)).body.data.instance!;
    const accept = (token: string, version: number) =>
      s.api.post<{ version: number }>('/ddc/share/accept', { token, headers: P, form: { instanceId: inst.id, version } });
    const stale = await accept(crc1, inst.version + 5);
    expect(stale.status).toBe(409);
    expect(stale.body.errorCode).toBe('STALE_WRITE');
    // another site's coordinator does not reach the form
    expect((await accept(crc2, inst.version)).status).toBe(404);
    // the monitor may not change form data
    expect((await accept(cra, inst.version)).status).toBe(403);
    const done = ok(await accept(crc1, inst.version));
    expect(done.version).toBe(inst.version + 1);
    expect((await view(crc1, key)).body.data.instance!.pendingReview).toBeNull();
    const again = await accept(crc1, done.version);
    expect(again.body.errorCode).toBe('SHARE_NO_PENDING_REVIEW');
    const [row] = await s.database.db.select().from(ddcShareLinks).where(eq(ddcShareLinks.id, link.id));
    expect(row).toMatchObject({ status: 'used', review: 'accepted' });
    const [a] = await audits(['ddc.review']);
    expect(a).toMatchObject({ newValue: 'accepted', userName: 'Amy Coordinator' });
    // and now it can be signed
    const signed = await s.api.post('/crf/report/check', {
      token: pi,
      headers: P,
      form: { instanceId: inst.id, version: done.version, password: sha256Hex(DEMO_PASSWORD) },
    });
    expect(signed.status, JSON.stringify(signed.body)).toBe(200);
  });

  it('a completed or certified form cannot be shared again', async () => {
    const r = await share(dm, key);
    expect(r.status).toBe(409);
    expect(r.body.errorCode).toBe('SHARE_NOT_ALLOWED');
    expect(r.body.message).toContain('already completed or certified');
  });
});

describe('correction through the normal entry path ends the review', () => {
  it("a site user's save of the form (with reasons) is the review: 'corrected'", async () => {
    const subj = await newSubject(crc1, siteA);
    const key = { ptsId: subj.ptsId, visitId: subj.v1, formId: subj.dmForm };
    const link = ok(await share(crc1, key)) as Row & { code: string };
    ok(await submit(link.code, ANSWERS));
    const v = ok(await view(crc1, key));
    // a draft does not end it
    const draft = ok(
      await s.api.post<View>('/crf/form/item/result/saveBatch', {
        token: crc1,
        headers: P,
        json: { ...key, version: v.instance!.version, entryMode: 0, items: [] },
      }),
    );
    expect(draft.instance!.pendingReview).toMatchObject({ shareId: link.id });
    const saved = await s.api.post<View>('/crf/form/item/result/saveBatch', {
      token: crc1,
      headers: { ...P, language: 'en_US' },
      json: {
        ...key,
        version: draft.instance!.version,
        entryMode: 2,
        items: [{ variable: 'BRTHDTC', value: '1975-03-05', reason: 'participant typed the wrong day' }],
      },
    });
    expect(saved.status, JSON.stringify(saved.body)).toBe(200);
    expect(saved.body.data.instance!.pendingReview).toBeNull();
    expect(saved.body.data.values.BRTHDTC).toMatchObject({
      value: '1975-03-05',
      entryMode: 2,
      updatedBy: 'Amy Coordinator',
    });
    expect(saved.body.data.values.SEX).toMatchObject({ entryMode: 7 });
    const [row] = await s.database.db.select().from(ddcShareLinks).where(eq(ddcShareLinks.id, link.id));
    expect(row).toMatchObject({ review: 'corrected' });
  });
});

describe('revocation, expiry and parallel submits', () => {
  it('a revoked link is refused with a clear message; revoking twice is refused', async () => {
    const subj = await newSubject(crc1, siteA);
    const key = { ptsId: subj.ptsId, visitId: subj.v1, formId: subj.vsForm };
    const link = ok(await share(dm, key)) as Row & { code: string };
    // another site's coordinator and the monitor cannot revoke it
    expect(
      (await s.api.post('/ddc/share/revoke', { token: crc2, headers: P, form: { id: link.id } })).status,
    ).toBe(404);
    expect(
      (await s.api.post('/ddc/share/revoke', { token: cra, headers: P, form: { id: link.id } })).status,
    ).toBe(403);
    const revoked = ok(
      await s.api.post<Row>('/ddc/share/revoke', {
        token: crc1,
        headers: P,
        form: { id: link.id, reason: 'wrong visit' },
      }),
    );
    expect(revoked.status).toBe('revoked');
    const r = await open(link.code);
    expect(r.status).toBe(410);
    expect(r.body.message).toContain('withdrawn by the study team');
    expect((await submit(link.code, [{ variable: 'VSDTC', value: '2024-01-01T10:00' }])).body.errorCode).toBe(
      'SHARE_REVOKED',
    );
    expect((await view(crc1, key)).body.data.instance).toBeNull();
    const twice = await s.api.post('/ddc/share/revoke', {
      token: crc1,
      headers: { ...P, language: 'en_US' },
      form: { id: link.id },
    });
    expect(twice.status).toBe(409);
    expect(twice.body.message).toBe(
      `Link #${link.id} is revoked: only an active link can be revoked or copied`,
    );
    const [a] = await audits(['ddc.revoke']);
    expect(a).toMatchObject({
      entityId: String(link.id),
      reason: 'wrong visit',
      userName: 'Amy Coordinator',
    });
    // the form can be shared anew
    ok(await share(dm, key));
  });

  it('an expired link is refused and shows as expired; a new link replaces it', async () => {
    const subj = await newSubject(crc1, siteA);
    const key = { ptsId: subj.ptsId, visitId: subj.v1, formId: subj.dmForm };
    const link = ok(await share(dm, key, { hours: 1 })) as Row & { code: string };
    const second = await share(dm, key);
    expect(second.status).toBe(409);
    expect(second.body.errorCode).toBe('SHARE_ACTIVE_EXISTS');
    await s.database.db
      .update(ddcShareLinks)
      .set({ expiresAt: new Date(Date.now() - 60_000) })
      .where(eq(ddcShareLinks.id, link.id));
    const r = await open(link.code);
    expect(r.status).toBe(410);
    expect(r.body.errorCode).toBe('SHARE_EXPIRED');
    expect(r.body.message).toMatch(/expired at \d{4}-\d{2}-\d{2} \d{2}:\d{2} \(Asia\/Shanghai\)/);
    expect((await submit(link.code, ANSWERS)).body.errorCode).toBe('SHARE_EXPIRED');
    const page = ok(
      await s.api.post<{ content: Row[] }>('/ddc/share/page', {
        token: dm,
        headers: P,
        form: { keyword: subj.ptsNo, status: 'expired' },
      }),
    );
    expect(page.content.map((x) => x.id)).toEqual([link.id]);
    expect(
      (await s.api.get('/ddc/share/link', { token: dm, headers: P, query: { id: link.id } })).body.errorCode,
    ).toBe('SHARE_NOT_ACTIVE');
    ok(await share(dm, key));
  });

  it('two parallel submits: one wins, the other is refused, the values are the winner’s', async () => {
    const subj = await newSubject(crc1, siteA);
    const key = { ptsId: subj.ptsId, visitId: subj.v1, formId: subj.dmForm };
    const link = ok(await share(dm, key)) as Row & { code: string };
    const [a, b] = await Promise.all([
      submit(link.code, [
        { variable: 'BRTHDTC', value: '1960-01-01' },
        { variable: 'SEX', value: '1' },
      ]),
      submit(link.code, [
        { variable: 'BRTHDTC', value: '1970-01-01' },
        { variable: 'SEX', value: '1' },
      ]),
    ]);
    expect([a.status, b.status].sort()).toEqual([200, 410]);
    const winner = a.status === 200 ? '1960-01-01' : '1970-01-01';
    expect((await view(crc1, key)).body.data.values.BRTHDTC!.value).toBe(winner);
  });
});

describe('a form completed at the site meanwhile', () => {
  it('closes its link: open and submit are refused, nothing changes, both audited', async () => {
    const subj = await newSubject(crc1, siteA);
    const key = { ptsId: subj.ptsId, visitId: subj.v1, formId: subj.dmForm };
    const link = ok(await share(dm, key)) as Row & { code: string };
    ok(
      await s.api.post('/crf/form/item/result/saveBatch', {
        token: crc1,
        headers: P,
        json: { ...key, entryMode: 2, items: [...ANSWERS] },
      }),
    );
    const opened = await open(link.code);
    expect(opened.status).toBe(409);
    expect(opened.body.errorCode).toBe('SHARE_FORM_CLOSED');
    expect(opened.body.message).toContain('already completed at the study site');
    const sent = await submit(link.code, [
      { variable: 'BRTHDTC', value: '1990-01-01' },
      { variable: 'SEX', value: '1' },
    ]);
    expect(sent.status).toBe(409);
    const v = ok(await view(crc1, key));
    expect(v.values.BRTHDTC).toMatchObject({ value: '1975-03-04', entryMode: 2 });
    expect(v.instance!.pendingReview ?? null).toBeNull();
    const [a] = await audits(['ddc.refused']);
    expect(a!.newValue).toContain('SHARE_FORM_CLOSED');
    expect(a!.field).toBe('submit');
  });
});

describe('who may share, and what', () => {
  let subj: Awaited<ReturnType<typeof newSubject>>;
  beforeAll(async () => {
    subj = await newSubject(crc1, siteA);
  });

  it('refuses without the permission, outside the caller’s sites, and for bad input', async () => {
    const key = { ptsId: subj.ptsId, visitId: subj.v1, formId: subj.dmForm };
    expect((await share(cra, key)).status).toBe(403);
    expect((await share(crc2, key)).status).toBe(404);
    for (const hours of [0, 721, 'x']) {
      const r = await share(dm, key, { hours });
      expect(r.status, String(hours)).toBe(400);
    }
    expect((await share(dm, { ...key, formId: 999_999 })).status).toBe(404);
    expect((await share(dm, { ...key, visitId: 999_999 })).status).toBe(404);
    expect((await share(dm, { ...key, ptsId: 999_999 })).status).toBe(404);
    const long = await share(dm, key, { note: 'x'.repeat(201) });
    expect(long.status).toBe(400);
  });

  it('lists the caller’s sites only, with filters and 50/100/200 pages', async () => {
    const key = { ptsId: subj.ptsId, visitId: subj.v1, formId: subj.vsForm };
    const mine = ok(await share(crc1, key, { note: 'phone of the participant' }));
    const all = ok(
      await s.api.post<{ totalCount: number; content: Row[] }>('/ddc/share/page', {
        token: dm,
        headers: P,
        form: { pageSize: 50 },
      }),
    );
    expect(all.totalCount).toBeGreaterThanOrEqual(5);
    expect(all.content[0]!.id).toBe(mine.id);
    const asc = ok(
      await s.api.post<{ content: Row[] }>('/ddc/share/page', {
        token: dm,
        headers: P,
        form: { sortField: 'createTime', sortOrder: 'asc' },
      }),
    );
    expect(asc.content[0]!.id).toBeLessThan(mine.id);
    const byNote = ok(
      await s.api.post<{ content: Row[] }>('/ddc/share/page', {
        token: dm,
        headers: P,
        form: { keyword: 'phone of the' },
      }),
    );
    expect(byNote.content.map((r) => r.id)).toEqual([mine.id]);
    const mineOnly = ok(
      await s.api.post<{ content: Row[] }>('/ddc/share/page', {
        token: crc1,
        headers: P,
        form: { mine: true },
      }),
    );
    expect(mineOnly.content.every((r) => r.id === mine.id || r.id < mine.id)).toBe(true);
    expect(mineOnly.content.some((r) => r.id === mine.id)).toBe(true);
    const pending = ok(
      await s.api.post<{ content: Row[] }>('/ddc/share/page', {
        token: dm,
        headers: P,
        form: { review: 'pending' },
      }),
    );
    expect(pending.content.every((r) => r.review === 'pending')).toBe(true);
    const used = ok(
      await s.api.post<{ content: Row[] }>('/ddc/share/page', {
        token: dm,
        headers: P,
        form: { status: 'used' },
      }),
    );
    expect(used.content.length).toBeGreaterThan(0);
    expect(used.content.every((r) => r.status === 'used')).toBe(true);
    // site B sees none of site A's links
    const other = ok(
      await s.api.post<{ totalCount: number }>('/ddc/share/page', { token: crc2, headers: P, form: {} }),
    );
    expect(other.totalCount).toBe(0);
    expect(
      (await s.api.post('/ddc/share/page', { token: dm, headers: P, form: { pageSize: 10 } })).status,
    ).toBe(400);
    expect(
      (await s.api.post('/ddc/share/page', { token: dm, headers: P, form: { status: 'lost' } })).status,
    ).toBe(400);
    expect((await s.api.post('/ddc/share/page', { token: cra, headers: P, form: {} })).status).toBe(403);
    // the adverse-event reviewer holds neither the form data nor the form configuration
    const ae = await s.api.login('ae');
    expect((await s.api.post('/ddc/share/page', { token: ae, headers: P, form: {} })).status).toBe(403);
    expect((await s.api.get('/micro/crf/config/get', { token: ae, headers: P })).status).toBe(403);
    expect((await s.api.get('/micro/dc/forms', { token: ae, headers: P })).status).toBe(403);
    // no session: 401 for every staff call
    expect((await s.api.post('/ddc/share/page', { headers: P, form: {} })).status).toBe(401);
    // the code is copied again by those who reach it; the look is audited
    const code = ok(
      await s.api.get<{ code: string }>('/ddc/share/link', { token: dm, headers: P, query: { id: mine.id } }),
    );
    expect(code.code).toBe((mine as Row & { code: string }).code);
    expect(
      (await s.api.get('/ddc/share/link', { token: crc2, headers: P, query: { id: mine.id } })).status,
    ).toBe(404);
    const [a] = await audits(['ddc.copy']);
    expect(a).toMatchObject({ entityId: String(mine.id), userName: 'Dana Manager' });
    expect(JSON.stringify(a)).not.toContain(code.code);
  });
});

describe('micro configs', () => {
  it('read with crf:form:query, saved with crf:form:update at the version read; each change audited', async () => {
    const crf = ok(
      await s.api.get<{ version: number; settings: Record<string, unknown> }>('/micro/crf/config/get', {
        token: crc1,
        headers: P,
      }),
    );
    expect(crf).toMatchObject({
      version: 0,
      settings: { subjectNo: 'masked', showSiteName: false, language: 'zh_CN' },
    });
    const body = {
      ...crf.settings,
      subjectNo: 'hidden',
      showSiteName: true,
      welcomeEn: 'Thank you for taking part.',
      language: 'en_US',
      version: 0,
    };
    expect((await s.api.post('/micro/crf/config/save', { token: crc1, headers: P, json: body })).status).toBe(
      403,
    );
    const saved = ok(
      await s.api.post<{ version: number; updatedByName: string }>('/micro/crf/config/save', {
        token: dm,
        headers: P,
        json: body,
      }),
    );
    expect(saved).toMatchObject({ version: 1, updatedByName: 'Dana Manager' });
    const stale = await s.api.post('/micro/crf/config/save', {
      token: dm,
      headers: P,
      json: { ...body, showProjectName: false },
    });
    expect(stale.status).toBe(409);
    expect(stale.body.errorCode).toBe('STALE_WRITE');
    expect(
      (
        await s.api.post('/micro/crf/config/save', {
          token: dm,
          headers: P,
          json: { ...body, version: 1, subjectNo: 'partly' },
        })
      ).status,
    ).toBe(400);
    const changes = await audits(['microConfig.crf']);
    expect(changes.map((c) => c.field).sort()).toEqual([
      'language',
      'showSiteName',
      'subjectNo',
      'welcomeEn',
    ]);
    // the shared form honours it
    const subj = await newSubject(crc1, siteA);
    const link = ok(await share(dm, { ptsId: subj.ptsId, visitId: subj.v1, formId: subj.dmForm })) as Row & {
      code: string;
    };
    const v = ok(await open(link.code));
    expect(v).toMatchObject({
      subjectNo: null,
      siteName: expect.any(String),
      welcomeEn: 'Thank you for taking part.',
      language: 'en_US',
    });
  });

  it('the data-collection settings decide which forms may be shared and for how long', async () => {
    const forms = ok(
      await s.api.get<{ code: string; hasFile: boolean }[]>('/micro/dc/forms', { token: dm, headers: P }),
    );
    expect(forms.map((f) => f.code)).toEqual(expect.arrayContaining(['DM', 'VS', 'AE']));
    const dc = ok(
      await s.api.get<{ version: number; settings: Record<string, unknown> }>('/micro/dc/config/get', {
        token: dm,
        headers: P,
      }),
    );
    expect(dc).toMatchObject({
      version: 0,
      settings: { enabled: true, forms: 'all', defaultHours: 72, maxHours: 720 },
    });
    const over = await s.api.post('/micro/dc/config/save', {
      token: dm,
      headers: { ...P, language: 'en_US' },
      json: { ...dc.settings, defaultHours: 100, maxHours: 48, version: 0 },
    });
    expect(over.status).toBe(400);
    expect(over.body.message).toContain('default validity cannot be longer');
    const listed = ok(
      await s.api.post<{ settings: Record<string, unknown> }>('/micro/dc/config/save', {
        token: dm,
        headers: P,
        json: {
          ...dc.settings,
          forms: 'listed',
          formCodes: ['VS'],
          defaultHours: 12,
          maxHours: 48,
          version: 0,
        },
      }),
    );
    const subj = await newSubject(crc1, siteA);
    const notListed = await share(dm, { ptsId: subj.ptsId, visitId: subj.v1, formId: subj.dmForm });
    expect(notListed.status).toBe(409);
    expect(notListed.body.message).toContain('do not list this form');
    const tooLong = await share(
      dm,
      { ptsId: subj.ptsId, visitId: subj.v1, formId: subj.vsForm },
      { hours: 72 },
    );
    expect(tooLong.body.message).toContain('(48 hours)');
    const vs = ok(await share(dm, { ptsId: subj.ptsId, visitId: subj.v1, formId: subj.vsForm })) as Row & {
      code: string;
    };
    const [row] = await s.database.db.select().from(ddcShareLinks).where(eq(ddcShareLinks.id, vs.id));
    expect(Math.round((row!.expiresAt.getTime() - Date.now()) / 3_600_000)).toBe(12);
    ok(
      await s.api.post('/micro/dc/config/save', {
        token: dm,
        headers: P,
        json: { ...listed.settings, enabled: false, version: 1 },
      }),
    );
    const off = await share(dm, { ptsId: subj.ptsId, visitId: subj.v1, formId: subj.dmForm });
    expect(off.body.message).toContain('switched off');
    const [a] = await audits(['microConfig.dc']);
    expect(a).toMatchObject({ field: 'enabled', oldValue: 'true', newValue: 'false' });
    // back to the defaults for the rest of the file
    ok(
      await s.api.post('/micro/dc/config/save', {
        token: dm,
        headers: P,
        json: { enabled: true, forms: 'all', formCodes: [], defaultHours: 72, maxHours: 720, version: 2 },
      }),
    );
  });
});

describe('rate limit', () => {
  it('the public calls are limited per address', async () => {
    const codes: number[] = [];
    for (let i = 0; i < 65; i++) codes.push((await open('B'.repeat(32))).status);
    expect(codes).toContain(429);
    const limited = await open('B'.repeat(32), 'en_US');
    expect(limited.body.errorCode).toBe('RATE_LIMITED');
  });
});

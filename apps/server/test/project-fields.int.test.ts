/**
 * The project fields of spec §3 that switch features (issue 15 item 10; docs/decisions.md "Project fields"): scene
 * (1 remote monitoring: no EDC pipeline; 2 E2E), configFiveFunction (queries, SDV/SDR, safety judgement, ISF, casebook),
 * fileConfirmConfig (uploads wait for a site user's confirmation before de-identification) and uuidNo (the entry link,
 * renewed). Each is edited through the project's update (version-checked, audited), cut from the members' permissions
 * (the menus follow pmsInfo) and refused by the server with a message naming the function; background work honours
 * them too (automatic queries, scheduled EDC syncs).
 */
process.env.OCR_ENGINE = 'none';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { and, eq } from 'drizzle-orm';
import { close as closeOcr } from '@esource/ocr';
import type { PmsInfoResponse, ProjectDetail, SourceFileView } from '@esource/shared';
import { auditEvents, edcConfigs, edcSyncRuns, queries, sites, sourceFiles } from '../src/db/schema';
import { startTestServer, waitFor, type TestServer } from './harness';
import { png, upload } from './documents-fixtures';
import { EdcSyncService } from '../src/modules/edc/edc-sync.service';

let s: TestServer;
const H = { proId: 1, proType: 'PRO', language: 'en_US' };
const tok: Record<string, string> = {};
let siteA = 0;

const project = async () =>
  (await s.api.post<ProjectDetail>('/pro/info/get', { token: tok.dm, headers: H })).body.data;
async function setProject(
  fields: Record<string, string | number>,
  headers: Record<string, string | number> = H,
) {
  const p = await project();
  return s.api.post<ProjectDetail>('/pro/info/update', {
    token: tok.dm,
    headers,
    form: { id: 1, version: p.version, ...fields },
  });
}
const pms = async (who: string) =>
  (await s.api.post<PmsInfoResponse>('/auth/user/pmsInfo', { token: tok[who], headers: H, json: {} })).body
    .data.pms;

beforeAll(async () => {
  s = await startTestServer();
  for (const a of ['dm', 'crc1', 'crc2', 'cra', 'pi']) tok[a] = await s.api.login(a);
  const [a] = await s.database.db
    .select()
    .from(sites)
    .where(and(eq(sites.projectId, 1), eq(sites.env, 'PRO'), eq(sites.siteNo, '01')));
  siteA = a!.id;
});
afterAll(async () => {
  await s?.stop();
  await closeOcr();
});

describe('scene', () => {
  it('E2E (the demo study) has the EDC pipeline; remote monitoring has none of it, refused naming the function', async () => {
    expect((await project()).scene).toBe(2);
    expect((await s.api.post('/edc/config/get', { token: tok.dm, headers: H })).status).toBe(200);
    expect(await pms('dm')).toContain('edc:sync:execute');
    const r = await setProject({ scene: 1 });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    const refused = await s.api.post('/edc/config/get', { token: tok.dm, headers: H });
    expect(refused.status).toBe(403);
    expect(refused.body.errorCode).toBe('PROJECT_FEATURE_OFF');
    expect(refused.body.message).toBe(
      'This function is switched off for this project: EDC sync (E2E projects only; this project is a remote-monitoring project)',
    );
    const log = await s.api.post('/edcLog/list', {
      token: tok.dm,
      headers: { ...H, language: 'zh_CN' },
      form: { pageSize: 50 },
    });
    expect(log.status).toBe(403);
    expect(log.body.message).toBe('本项目已关闭此功能：EDC 同步（仅 E2E 项目；本项目为远程监查项目）');
    // the menus follow: no EDC permission in pmsInfo; everything else stays
    const held = await pms('dm');
    expect(held.filter((p) => p.startsWith('edc:') || p.startsWith('prolog:upload-edc-log'))).toEqual([]);
    expect(held).toContain('source:file:audit');
    expect(held).toContain('verification:sdv:check');
    // a role that never had the permission still gets the plain refusal
    const crc = await s.api.post('/edc/config/get', { token: tok.crc1, headers: H });
    expect(crc.body.errorCode).toBe('FORBIDDEN');
    const audit = await s.database.db
      .select()
      .from(auditEvents)
      .where(and(eq(auditEvents.action, 'project.update'), eq(auditEvents.field, 'scene')));
    expect(audit.at(-1)).toMatchObject({ oldValue: '2', newValue: '1' });
  });

  it('a scheduled EDC sync of a remote-monitoring project is not queued', async () => {
    const [cfg] = await s.database.db
      .insert(edcConfigs)
      .values({
        env: 'PRO',
        projectId: 1,
        kind: 1,
        name: 'EDC',
        baseUrl: 'http://127.0.0.1:9/odm',
        studyOid: 'S',
        secretEnc: 'v1:x',
        schedule: 'hourly',
      })
      .returning();
    const sync = new EdcSyncService(s.database.db, () => {
      throw new Error('no adapter');
    });
    expect(await sync.tick('en_US')).toBe(0);
    expect(
      await s.database.db.select().from(edcSyncRuns).where(eq(edcSyncRuns.configId, cfg!.id)),
    ).toHaveLength(0);
    await s.database.db.delete(edcConfigs).where(eq(edcConfigs.id, cfg!.id));
    expect((await setProject({ scene: 2 })).status).toBe(200);
    expect((await s.api.post('/edc/config/get', { token: tok.dm, headers: H })).status).toBe(200);
  });
});

describe('configFiveFunction', () => {
  it('accepts five 0/1 characters only, naming the field', async () => {
    for (const bad of ['12', '111111', 'abc']) {
      const r = await setProject({ configFiveFunction: bad });
      expect(r.status, bad).toBe(400);
      expect(r.body.detail![0]).toMatchObject({
        field: 'configFiveFunction',
        message: 'must be up to five characters, each 0 (off) or 1 (on)',
      });
    }
  });

  it('each character switches one function: refused by the server, cut from pmsInfo, the rest unchanged', async () => {
    const cases: [
      string,
      string,
      () => Promise<{ status: number; body: { errorCode: string; message: string } }>,
      string,
    ][] = [
      [
        '01111',
        'Queries',
        () => s.api.post('/crf/query/list', { token: tok.cra, headers: H, json: { pageSize: 50 } }),
        'doubt:',
      ],
      [
        '10111',
        'SDV/SDR',
        () => s.api.post('/verification/page', { token: tok.cra, headers: H, form: { pageSize: 50 } }),
        'verification:',
      ],
      [
        '11011',
        'AE/CM/PR/MH/HISS judgement and signal report',
        () => s.api.post('/selection/list', { token: tok.pi, headers: H, form: { pageSize: 50 } }),
        'clinical:',
      ],
      [
        '11101',
        'Investigator site file',
        () => s.api.get('/rf/kind/list', { token: tok.crc1, headers: H }),
        'isf:',
      ],
      [
        '11110',
        'Casebook PDF',
        () => s.api.post('/print/getByItext', { token: tok.crc1, headers: H, form: { ptsId: 1 } }),
        'crf:casebook:',
      ],
    ];
    for (const [config, name, call, prefix] of cases) {
      expect((await call()).status, `${config} before`).not.toBe(403);
      expect((await setProject({ configFiveFunction: config })).status).toBe(200);
      const r = await call();
      expect(r.status, config).toBe(403);
      expect(r.body).toMatchObject({
        errorCode: 'PROJECT_FEATURE_OFF',
        message: `This function is switched off for this project: ${name}`,
      });
      for (const who of ['dm', 'crc1', 'cra', 'pi'])
        expect(
          (await pms(who)).filter((p) => p.startsWith(prefix)),
          `${who} ${config}`,
        ).toEqual([]);
      expect(await pms('crc1')).toContain('patient:page:add');
      expect((await setProject({ configFiveFunction: '' })).status).toBe(200);
      expect((await call()).status, `${config} after`).not.toBe(403);
    }
  });

  it('queries switched off: a value outside its range raises no automatic query', async () => {
    const add = await s.api.post<{ ptsId: number }>('/project/managePts/add', {
      token: tok.crc1,
      headers: H,
      form: { siteId: siteA, firstVisitDate: '2026-11-01' },
    });
    const ptsId = add.body.data.ptsId;
    const sched = await s.api.get<
      { visitId: number; code: string; forms: { formId: number; code: string }[] }[]
    >('/project/pts/visits', { token: tok.crc1, headers: H, query: { ptsId } });
    const v1 = sched.body.data.find((v) => v.code === 'V1')!;
    const formId = v1.forms.find((f) => f.code === 'VS')!.formId;
    expect((await setProject({ configFiveFunction: '0' })).status).toBe(200);
    const saved = await s.api.post('/crf/form/item/result/saveBatch', {
      token: tok.crc1,
      headers: H,
      json: {
        ptsId,
        visitId: v1.visitId,
        formId,
        entryMode: 2,
        items: [
          { variable: 'VSDTC', value: '2026-11-02 09:30' },
          { variable: 'SYSBP', value: 128 },
          { variable: 'DIABP', value: 82 },
          { variable: 'HR', value: 190 },
        ],
      },
    });
    expect(saved.status, JSON.stringify(saved.body)).toBe(200);
    expect(await s.database.db.select().from(queries).where(eq(queries.subjectId, ptsId))).toHaveLength(0);
    expect((await setProject({ configFiveFunction: '' })).status).toBe(200);
    // switched on again, the next save of the value raises it
    const version = (saved.body.data as { instance: { version: number } }).instance.version;
    const again = await s.api.post('/crf/form/item/result/saveBatch', {
      token: tok.crc1,
      headers: H,
      json: {
        ptsId,
        visitId: v1.visitId,
        formId,
        entryMode: 2,
        version,
        items: [{ variable: 'HR', value: 191, reason: 'Re-measured' }],
      },
    });
    expect(again.status, JSON.stringify(again.body)).toBe(200);
    expect(await s.database.db.select().from(queries).where(eq(queries.subjectId, ptsId))).toHaveLength(1);
  });
});

describe('fileConfirmConfig', () => {
  let ptsId = 0;
  const list = async () =>
    (
      await s.api.post<{ content: SourceFileView[] }>('/source/file/list', {
        token: tok.crc1,
        headers: H,
        form: { ptsId, pageSize: 200 },
      })
    ).body.data.content;

  beforeAll(async () => {
    const r = await s.api.post<{ ptsId: number }>('/project/managePts/add', {
      token: tok.crc1,
      headers: H,
      form: { siteId: siteA, firstVisitDate: '2026-11-01' },
    });
    ptsId = r.body.data.ptsId;
  });

  it('off (the default): an upload goes straight to automatic de-identification', async () => {
    const r = await upload(s.api, tok.crc1!, H, { ptsId, docType: 3 }, [
      { name: 'a.png', bytes: await png() },
    ]);
    expect(r.body.data.files.map((f) => f.status)).toEqual([0]);
    await waitFor(list, (l) => l.every((f) => f.status !== 0));
  });

  it('on: uploads wait for confirmation (-3, pending messages); confirming starts de-identification, discarding keeps the file', async () => {
    expect((await setProject({ fileConfirmConfig: 1 })).status).toBe(200);
    const r = await upload(s.api, tok.crc1!, H, { ptsId, docType: 3 }, [
      { name: 'b.png', bytes: await png() },
      { name: 'c.png', bytes: await png() },
    ]);
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    const [b, c] = r.body.data.files.sort((x, y) => x.id - y.id);
    expect([b!.status, c!.status]).toEqual([-3, -3]);
    // no job ran: they stay waiting
    await new Promise((res) => setTimeout(res, 500));
    expect((await list()).filter((f) => f.status === -3)).toHaveLength(2);
    const pending = await s.api.post<{ content: SourceFileView[] }>('/source/file/page', {
      token: tok.crc1,
      headers: H,
      form: { tab: 'pending', ptsId, pageSize: 50 },
    });
    expect(
      pending.body.data.content
        .filter((f) => f.status === -3)
        .map((f) => f.id)
        .sort(),
    ).toEqual([b!.id, c!.id].sort());
    // refusals: no permission, another site's file, stale version, a status that is not waiting import
    const confirm = (token: string | undefined, id: number, version: number) =>
      s.api.post('/source/file/confirm', { token, headers: H, form: { id, version } });
    expect((await confirm(tok.cra, b!.id, b!.version)).status).toBe(403);
    expect((await confirm(tok.crc2, b!.id, b!.version)).status).toBe(404);
    const stale = await confirm(tok.crc1, b!.id, b!.version + 1);
    expect(stale.body.errorCode).toBe('STALE_WRITE');
    const done = (await list()).find((f) => f.status === 1)!;
    const wrong = await confirm(tok.crc1, done.id, done.version);
    expect(wrong.status).toBe(409);
    expect(wrong.body.message).toBe(
      "A source file cannot go from 'Waiting submit' to 'Automatic de-identification in progress'",
    );
    // confirm one, discard the other (a reason is required)
    const ok = await s.api.post<SourceFileView>('/source/file/confirm', {
      token: tok.crc1,
      headers: H,
      form: { id: b!.id, version: b!.version },
    });
    expect(ok.status, JSON.stringify(ok.body)).toBe(200);
    expect(ok.body.data.status).toBe(0);
    expect(
      (
        await s.api.post('/source/file/discard', {
          token: tok.crc1,
          headers: H,
          form: { id: c!.id, version: c!.version },
        })
      ).status,
    ).toBe(400);
    const gone = await s.api.post<SourceFileView>('/source/file/discard', {
      token: tok.crc1,
      headers: H,
      form: { id: c!.id, version: c!.version, reason: 'Wrong patient' },
    });
    expect(gone.body.data).toMatchObject({ status: -99, reason: 'Wrong patient' });
    const after = await waitFor(list, (l) => l.find((f) => f.id === b!.id)!.status !== 0);
    expect(after.find((f) => f.id === b!.id)!.status).toBe(1);
    const [row] = await s.database.db.select().from(sourceFiles).where(eq(sourceFiles.id, c!.id));
    expect(row!.originalKey).toBeTruthy();
    const trail = await s.database.db.select().from(auditEvents).where(eq(auditEvents.entity, 'sourceFile'));
    expect(trail.filter((e) => e.action === 'document.confirm' && e.entityId === String(b!.id))).toHaveLength(
      1,
    );
    expect(trail.find((e) => e.action === 'document.discard' && e.entityId === String(c!.id))).toMatchObject({
      reason: 'Wrong patient',
    });
    const invalid = await s.api.post<{ content: SourceFileView[] }>('/source/file/page', {
      token: tok.crc1,
      headers: H,
      form: { tab: 'invalid', ptsId, pageSize: 50 },
    });
    expect(invalid.body.data.content.map((f) => f.id)).toEqual([c!.id]);
    expect((await setProject({ fileConfirmConfig: 0 })).status).toBe(200);
  });
});

describe('uuidNo', () => {
  it('renewing it changes the entry link: the old uuid no longer finds the project; version-checked, audited', async () => {
    const before = await project();
    const old = before.uuidNo;
    expect(
      (
        await s.api.get<{ proId: number }>('/getProId', {
          token: tok.crc1,
          query: { uuid: old, proType: 'PRO' },
        })
      ).body.data.proId,
    ).toBe(1);
    expect(
      (
        await s.api.post('/pro/info/resetUuid', {
          token: tok.crc1,
          headers: H,
          form: { id: 1, version: before.version },
        })
      ).status,
    ).toBe(403);
    const stale = await s.api.post('/pro/info/resetUuid', {
      token: tok.dm,
      headers: H,
      form: { id: 1, version: before.version - 1 },
    });
    expect(stale.body.errorCode).toBe('STALE_WRITE');
    const r = await s.api.post<ProjectDetail>('/pro/info/resetUuid', {
      token: tok.dm,
      headers: H,
      form: { id: 1, version: before.version },
    });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    expect(r.body.data.uuidNo).not.toBe(old);
    expect(r.body.data.version).toBe(before.version + 1);
    expect(
      (await s.api.get('/getProId', { token: tok.crc1, query: { uuid: old, proType: 'PRO' } })).status,
    ).not.toBe(200);
    expect(
      (
        await s.api.get<{ proId: number }>('/getProId', {
          token: tok.crc1,
          query: { uuid: r.body.data.uuidNo, proType: 'PRO' },
        })
      ).body.data.proId,
    ).toBe(1);
    const [a] = await s.database.db.select().from(auditEvents).where(eq(auditEvents.action, 'project.uuid'));
    expect(a).toMatchObject({ field: 'uuidNo', oldValue: old, newValue: r.body.data.uuidNo });
    // another project's id is refused
    expect(
      (await s.api.post('/pro/info/resetUuid', { token: tok.dm, headers: H, form: { id: 2, version: 1 } }))
        .status,
    ).toBe(400);
  });
});

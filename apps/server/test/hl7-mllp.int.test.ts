/**
 * The HL7 v2 MLLP listener over a real socket (issue 11 item 1): every real message acknowledged and kept byte for
 * byte, malformed variants answered AE/AR and kept as dead letters, replay after the missing connection is added,
 * a client that disconnects mid-frame, and the admin API over the same rows.
 */
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { and, desc, eq } from 'drizzle-orm';
import { readHl7Header } from '@esource/interop';
import { hl7Messages, sites, sourceConnections, sourceRecords } from '../src/db/schema';
import { envOfProcessingId } from '../src/modules/hl7/hl7-intake';
import { ackCodeOf, MllpClient } from '../src/modules/hl7/mllp-client';
import { REPO_ROOT } from '../src/config/config';
import { startTestServer, type TestServer } from './harness';

const FIXTURES = path.join(REPO_ROOT, 'packages/interop/test-fixtures/hl7v2');
const files = fs.readdirSync(FIXTURES).filter((f) => f.endsWith('.hl7')).sort();
const MAX = 1024 * 1024;

let s: TestServer;
let client: MllpClient;
let siteId: number;

const lastRow = async () => {
  const rows = await s.database.db.select().from(hl7Messages).orderBy(hl7Messages.id);
  return rows[rows.length - 1]!;
};
const msg = (app: string, control: string, extra = '', charset = '') =>
  `MSH|^~\\&|${app}|HOSP|ESOURCE|ES|20260102030405||ORU^R01^ORU_R01|${control}|P|2.5.1|||||${charset ? `|${charset}` : ''}\r` +
  `PID|1||MRN-${control}^^^HOSP^MR||Doe^Jane||19800101|F\r` +
  `OBR|1||${control}|718-7^Hemoglobin^LN\r` +
  `OBX|1|NM|718-7^Hemoglobin [Mass/volume] in Blood^LN||13.2|g/dL^g/dL^UCUM|12-16|N|||F|||20260102030000\r${extra}`;

beforeAll(async () => {
  s = await startTestServer({ config: { mllpPort: 0, mllpHost: '127.0.0.1', mllpMaxBytes: MAX } });
  const db = s.database.db;
  const envs = new Set<string>();
  const apps = new Map<string, string>();
  for (const f of files) {
    const h = readHl7Header(fs.readFileSync(path.join(FIXTURES, f)));
    if (!h?.sendingApp) continue;
    const env = envOfProcessingId(h.processingId);
    envs.add(env);
    apps.set(`${env}|${h.sendingApp}`, h.sendingFacility);
  }
  for (const env of [...envs, 'PRO']) {
    const [site] = await db.select().from(sites).where(and(eq(sites.projectId, 1), eq(sites.env, env), eq(sites.siteNo, '01')));
    if (env === 'PRO') siteId = site!.id;
    for (const [k, facility] of apps) {
      const [e, app] = k.split('|');
      if (e !== env) continue;
      await db.insert(sourceConnections).values({ env, projectId: 1, siteId: site!.id, kind: 'hl7v2', name: `${app}`, config: { sendingApp: app, sendingFacility: facility } });
    }
  }
  await db.insert(sourceConnections).values({ env: 'PRO', projectId: 1, siteId, kind: 'hl7v2', name: 'lab', config: { sendingApp: 'LABSYS', sendingFacility: '' } });
  client = await MllpClient.connect(s.mllp!.port);
});
afterAll(async () => {
  await client?.close();
  await s?.stop();
});

describe('MLLP listener', () => {
  it('acknowledges every real message, keeps its exact bytes and stores ORU results as source records', async () => {
    const codes: Record<string, string> = {};
    for (const f of files) {
      const bytes = fs.readFileSync(path.join(FIXTURES, f));
      const ack = ackCodeOf(await client.send(bytes));
      codes[f] = ack.code;
      const row = await lastRow();
      expect(Buffer.compare(row.raw, bytes), f).toBe(0);
      const h = readHl7Header(bytes)!;
      expect(ack.controlId, f).toBe(h.controlId);
      if (!h.sendingApp) {
        // PPR^PC1 names no sending application: nothing can route it; answered AE and kept as a dead letter
        expect(ack.code, f).toBe('AE');
        expect(row).toMatchObject({ status: 2, errorCode: 'UNKNOWN_SENDER', ackCode: 'AE' });
        continue;
      }
      expect(ack.code, `${f}: ${ack.text}`).toBe('AA');
      expect(row).toMatchObject({ status: 1, ackCode: 'AA', projectId: 1, errorCode: null });
      if (h.messageType.startsWith('ORU')) {
        expect(row.records, f).toBeGreaterThan(0);
        const recs = await s.database.db.select().from(sourceRecords).where(eq(sourceRecords.connectionId, row.connectionId!));
        expect(recs.length, f).toBeGreaterThan(0);
      }
    }
    expect(Object.keys(codes)).toHaveLength(34);
  });

  it("reads a time without an offset in the project's time zone (the sender's local time)", async () => {
    // the demo project keeps Asia/Shanghai: 2026-01-02 03:00 there is 2026-01-01 19:00 UTC
    const ack = ackCodeOf(await client.send(msg('LABSYS', 'TZ-1')));
    expect(ack.code).toBe('AA');
    const [rec] = await s.database.db.select().from(sourceRecords).where(eq(sourceRecords.code, '718-7')).orderBy(desc(sourceRecords.id)).limit(1);
    expect(rec!.effectiveAt?.toISOString()).toBe('2026-01-01T19:00:00.000Z');
    expect(rec!.effectiveDate).toBe('2026-01-02');
  });

  it('answers malformed messages AE/AR and keeps every one as a dead letter', async () => {
    const cases: { name: string; bytes: Buffer; code: string; error: string | null }[] = [
      { name: 'no MSH', bytes: Buffer.from('PID|1||123\rOBX|1|NM|718-7^Hb^LN||13\r'), code: 'AR', error: 'NO_MSH' },
      { name: 'byte-order mark', bytes: Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(msg('LABSYS', 'BOM1'))]), code: 'AA', error: null },
      { name: 'LF line ends', bytes: Buffer.from(msg('LABSYS', 'LF1').replace(/\r/g, '\n')), code: 'AA', error: null },
      { name: 'unsupported MSH-18', bytes: Buffer.from(msg('LABSYS', 'CS1', '', 'EBCDIC')), code: 'AR', error: 'BAD_CHARSET' },
      { name: 'invalid UTF-8', bytes: Buffer.concat([Buffer.from(msg('LABSYS', 'U1')), Buffer.from([0xc3, 0x28, 0x0d])]), code: 'AR', error: 'BAD_ENCODING' },
      { name: 'unknown sender', bytes: Buffer.from(msg('NEWAPP', 'UNK1')), code: 'AE', error: 'UNKNOWN_SENDER' },
      { name: 'empty', bytes: Buffer.from('\r\n'), code: 'AR', error: 'EMPTY' },
    ];
    for (const c of cases) {
      const ack = ackCodeOf(await client.send(c.bytes));
      expect(ack.code, c.name).toBe(c.code);
      const row = await lastRow();
      expect(Buffer.compare(row.raw, c.bytes), c.name).toBe(0);
      expect(row.errorCode, c.name).toBe(c.error);
      expect(row.status, c.name).toBe(c.error ? 2 : 1);
      if (c.error) expect(ack.text.length, c.name).toBeGreaterThan(0);
    }
  });

  it('refuses garbage bytes and an oversized frame with AR, keeping what came', async () => {
    const garbage = Buffer.from('\x00\x01GET / HTTP/1.1\r\n\xff\xfe');
    // garbage is known to be garbage when the next frame starts (or the connection closes)
    const ack1 = await client.sendRaw(Buffer.concat([garbage, Buffer.from([0x0b]), Buffer.from(msg('LABSYS', 'AFTER1')), Buffer.from([0x1c, 0x0d])]));
    expect(ackCodeOf(ack1).code).toBe('AR');
    const rows = await s.database.db.select().from(hl7Messages).where(eq(hl7Messages.errorCode, 'NOT_FRAMED'));
    expect(rows.some((r) => Buffer.compare(r.raw, garbage) === 0)).toBe(true);
    // the message that followed the garbage is handled too (its ACK comes next, possibly in the same chunk)
    const next = await client.next();
    expect(next).toContain('MSA|AA|AFTER1');

    const big = Buffer.concat([Buffer.from(msg('LABSYS', 'BIG1')), Buffer.alloc(10 * 1024 * 1024, 0x41)]);
    const ack2 = ackCodeOf(await client.send(big));
    expect(ack2.code).toBe('AR');
    const row = await lastRow();
    expect(row).toMatchObject({ status: 2, errorCode: 'TOO_LARGE', controlId: 'BIG1' });
    expect(row.raw.length).toBe(MAX);
    expect(Buffer.compare(row.raw, big.subarray(0, MAX))).toBe(0);
  });

  it('survives a client that disconnects mid-frame and keeps the partial message', async () => {
    const before = (await lastRow()).id;
    await new Promise<void>((resolve) => {
      const sock = net.connect({ port: s.mllp!.port, host: '127.0.0.1' }, () => {
        sock.write(Buffer.concat([Buffer.from([0x0b]), Buffer.from(msg('LABSYS', 'CUT1').slice(0, 60))]));
        setTimeout(() => {
          sock.destroy();
          resolve();
        }, 50);
      });
    });
    const other = await MllpClient.connect(s.mllp!.port);
    expect(ackCodeOf(await other.send(msg('LABSYS', 'OK-AFTER-CUT'))).code).toBe('AA');
    await other.close();
    const rows = await s.database.db.select().from(hl7Messages).where(eq(hl7Messages.errorCode, 'INCOMPLETE'));
    expect(rows.some((r) => r.id > before && r.raw.toString().startsWith('MSH|^~\\&|LABSYS'))).toBe(true);
  });

  it('lists dead letters to the right people and replays one once its connection exists', async () => {
    const api = s.api;
    const send = ackCodeOf(await client.send(msg('LATEAPP', 'LATE1')));
    expect(send.code).toBe('AE');
    const admin = await api.login('admin');
    const dm = await api.login('dm');
    const cra = await api.login('cra');
    const proj = { proId: 1, proType: 'PRO' };

    // no project could be found: only the system list shows it
    const sys = await api.post<{ totalCount: number; content: { id: number; controlId: string; errorCode: string; status: number }[] }>('/system/hl7/message/list', {
      token: admin,
      json: { status: 2, controlId: 'LATE1', pageSize: 50 },
    });
    expect(sys.status).toBe(200);
    expect(sys.body.data.content).toHaveLength(1);
    const late = sys.body.data.content[0]!;
    expect(late).toMatchObject({ errorCode: 'UNKNOWN_SENDER', status: 2 });
    expect((await api.post('/system/hl7/message/list', { token: dm, json: {} })).status).toBe(403);
    const projList = await api.post<{ content: { controlId: string }[] }>('/project/hl7/message/list', { token: dm, headers: proj, json: { controlId: 'LATE1' } });
    expect(projList.body.data.content).toHaveLength(0);
    const sysCount = await api.post<{ deadLetters: number }>('/system/hl7/message/count', { token: admin });
    expect(sysCount.body.data.deadLetters).toBeGreaterThanOrEqual(1);

    // the raw text, as received, segment by segment
    const detail = await api.post<{ segments: string[]; exact: boolean; lineEnds: string }>('/system/hl7/message/detail', { token: admin, json: { id: late.id } });
    expect(detail.body.data.segments[0]).toMatch(/^MSH\|\^~\\&\|LATEAPP\|/);
    expect(detail.body.data.segments).toHaveLength(4);
    expect(detail.body.data).toMatchObject({ exact: true, lineEnds: 'CR' });

    // add the missing connection, replay: stored, in the project now, not twice
    await s.database.db.insert(sourceConnections).values({ env: 'PRO', projectId: 1, siteId, kind: 'hl7v2', name: 'late lab', config: { sendingApp: 'LATEAPP' } });
    const replayed = await api.post<{ status: number; records: number; connectionName: string }>('/system/hl7/message/replay', { token: admin, json: { id: late.id } });
    expect(replayed.status).toBe(200);
    expect(replayed.body.data).toMatchObject({ status: 3, connectionName: 'late lab' });
    const again = await api.post('/system/hl7/message/replay', { token: admin, json: { id: late.id } });
    expect(again.status).toBe(404); // it belongs to the project now
    const inProject = await api.post<{ content: { id: number; status: number; replayedByName: string }[] }>('/project/hl7/message/list', {
      token: cra,
      headers: proj,
      json: { controlId: 'LATE1' },
    });
    expect(inProject.body.data.content).toMatchObject([{ id: late.id, status: 3, replayedByName: 'System Admin' }]);
    const twice = await api.post<{ errorCode: string }>('/project/hl7/message/replay', { token: dm, headers: proj, json: { id: late.id } });
    expect(twice.status).toBe(409);
    // a monitor reads but does not replay
    const dead = await api.post<{ content: { id: number }[] }>('/project/hl7/message/list', { token: cra, headers: proj, json: { status: 2 } });
    expect(dead.status).toBe(200);
    const craReplay = await api.post('/project/hl7/message/replay', { token: cra, headers: proj, json: { id: dead.body.data.content[0]?.id ?? late.id } });
    expect(craReplay.status).toBe(403);
    // reading a raw message is audited
    await api.post('/project/hl7/message/detail', { token: cra, headers: proj, json: { id: late.id } });
    const audits = await s.database.executeSql(`select action from audit_events where entity = 'hl7_message' and entity_id = $1`, [String(late.id)]);
    expect(audits.rows.map((r) => r.action)).toEqual(expect.arrayContaining(['hl7.read', 'hl7.replay']));
  });

  it("keeps a known sender's failed message as its project's dead letter, for the data manager to see and replay", async () => {
    const bad = Buffer.concat([Buffer.from(msg('LABSYS', 'KNOWN-BAD')), Buffer.from([0xc3, 0x28, 0x0d])]);
    expect(ackCodeOf(await client.send(bad)).code).toBe('AR');
    const dm = await s.api.login('dm');
    const cra = await s.api.login('cra');
    const proj = { proId: 1, proType: 'PRO' };
    const list = await s.api.post<{ content: { id: number; status: number; errorCode: string }[] }>('/project/hl7/message/list', {
      token: dm,
      headers: proj,
      json: { controlId: 'KNOWN-BAD' },
    });
    expect(list.body.data.content).toMatchObject([{ status: 2, errorCode: 'BAD_ENCODING' }]);
    const id = list.body.data.content[0]!.id;
    expect((await s.api.post('/project/hl7/message/replay', { token: cra, headers: proj, json: { id } })).status).toBe(403);
    // the bytes have not changed: replayed, it is still a dead letter with the same reason, and nothing is stored
    const replay = await s.api.post<{ status: number; errorCode: string; records: number }>('/project/hl7/message/replay', { token: dm, headers: proj, json: { id } });
    expect(replay.status).toBe(200);
    expect(replay.body.data).toMatchObject({ status: 2, errorCode: 'BAD_ENCODING', records: 0 });
    // not in the system list of messages that belong to no project
    const admin = await s.api.login('admin');
    const sys = await s.api.post<{ content: unknown[] }>('/system/hl7/message/list', { token: admin, json: { controlId: 'KNOWN-BAD' } });
    expect(sys.body.data.content).toHaveLength(0);
  });

  it("is scoped to the reader's sites: a member of another site neither lists, reads nor counts the message", async () => {
    expect(ackCodeOf(await client.send(msg('LABSYS', 'SITE-01'))).code).toBe('AA');
    // and a dead letter of the same sender (site 01), for the badge count
    expect(ackCodeOf(await client.send(Buffer.concat([Buffer.from(msg('LABSYS', 'SITE-01-BAD')), Buffer.from([0xc3, 0x28, 0x0d])]))).code).toBe('AR');
    const proj = { proId: 1, proType: 'PRO' };
    const dm = await s.api.login('dm');
    const cra = await s.api.login('cra');
    const [row] = await s.database.db.select({ id: hl7Messages.id }).from(hl7Messages).where(eq(hl7Messages.controlId, 'SITE-01'));
    const countOf = async () => (await s.api.post<{ deadLetters: number }>('/project/hl7/message/count', { token: cra, headers: proj })).body.data.deadLetters;
    const before = await countOf();
    expect(before).toBeGreaterThan(0);
    // the monitor now follows site 02 only; the message came through site 01's connection
    const members = await s.database.executeSql(
      `select m.id from project_members m join users u on u.id = m.user_id where u.account = 'cra' and m.project_id = 1 and m.env = 'PRO'`,
    );
    const memberId = Number(members.rows[0]!.id);
    const [other] = await s.database.db.select({ id: sites.id }).from(sites).where(and(eq(sites.projectId, 1), eq(sites.env, 'PRO'), eq(sites.siteNo, '02')));
    await s.database.executeSql(`update project_members set all_sites = false where id = $1`, [memberId]);
    await s.database.executeSql(`insert into project_member_sites (member_id, site_id) values ($1, $2)`, [memberId, other!.id]);
    try {
      const list = await s.api.post<{ content: unknown[] }>('/project/hl7/message/list', { token: cra, headers: proj, json: { controlId: 'SITE-01' } });
      expect(list.status).toBe(200);
      expect(list.body.data.content).toHaveLength(0);
      expect((await s.api.post('/project/hl7/message/detail', { token: cra, headers: proj, json: { id: row!.id } })).status).toBe(404);
      expect(await countOf()).toBe(0);
      // the data manager (every site) still sees it
      const dmList = await s.api.post<{ content: unknown[] }>('/project/hl7/message/list', { token: dm, headers: proj, json: { controlId: 'SITE-01' } });
      expect(dmList.body.data.content).toHaveLength(1);
    } finally {
      await s.database.executeSql(`delete from project_member_sites where member_id = $1`, [memberId]);
      await s.database.executeSql(`update project_members set all_sites = true where id = $1`, [memberId]);
    }
  });

  it('filters and pages the project list, newest first', async () => {
    const dm = await s.api.login('dm');
    const r = await s.api.post<{ totalCount: number; pageSize: number; content: { id: number; messageType: string }[] }>('/project/hl7/message/list', {
      token: dm,
      headers: { proId: 1, proType: 'PRO' },
      json: { messageType: 'ORU', pageSize: 50 },
    });
    expect(r.status).toBe(200);
    expect(r.body.data.content.length).toBeGreaterThan(0);
    expect(r.body.data.content.every((m) => m.messageType.startsWith('ORU'))).toBe(true);
    const ids = r.body.data.content.map((m) => m.id);
    expect(ids).toEqual([...ids].sort((a, b) => b - a));
    expect((await s.api.post('/project/hl7/message/list', { token: dm, headers: { proId: 1, proType: 'PRO' }, json: { pageSize: 7 } })).status).toBe(400);
  });
});

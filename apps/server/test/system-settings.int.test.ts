/**
 * Issue 15 item 3 (and syncUserToHospital of item 8): host URLs and the administrator's contact kept by an
 * administrator, served by getConfig and /admin/info/detail; the ranges the user and team screens choose from.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { and, eq } from 'drizzle-orm';
import { auditEvents, sites, sourceConnections } from '../src/db/schema';
import { startTestServer, type TestServer } from './harness';

let s: TestServer;
let admin: string;
const P = { proId: 1, proType: 'PRO' };

type Hosts = { hosts: { key: string; value: string; custom: boolean; fallback: string }[]; lockVersion: number; updatedBy: string | null };
type Contact = { name: string; phone: string; mail: string; note: string; lockVersion: number };

beforeAll(async () => {
  s = await startTestServer();
  admin = await s.api.login('admin');
});
afterAll(async () => {
  await s?.stop();
});

describe('host URLs', () => {
  it('an administrator sets some, getConfig serves them over the defaults; empty goes back; stale and bad refused', async () => {
    const before = await s.api.post<Record<string, string>>('/sys/config/getConfig');
    expect(before.status).toBe(200);
    const view = await s.api.get<Hosts>('/sys/config/hosts', { token: admin });
    expect(view.body.data.lockVersion).toBe(0);
    expect(view.body.data.hosts.every((h) => !h.custom && h.value === before.body.data[h.key])).toBe(true);

    const up = await s.api.post<Hosts>('/sys/config/update', { token: admin, json: { lockVersion: 0, hosts: { icrc: 'https://icrc.hospital.example', evisit: 'https://evisit.example/app' } } });
    expect(up.status, JSON.stringify(up.body)).toBe(200);
    expect(up.body.data.lockVersion).toBe(1);
    expect(up.body.data.updatedBy).toBe('System Admin');
    const served = await s.api.post<Record<string, string>>('/sys/config/getConfig');
    expect(served.body.data).toMatchObject({ icrc: 'https://icrc.hospital.example', evisit: 'https://evisit.example/app', storage: before.body.data.storage });
    const audit = await s.database.db.select().from(auditEvents).where(eq(auditEvents.action, 'settings.update'));
    expect(audit.map((a) => [a.field, a.newValue]).sort()).toEqual([['evisit', 'https://evisit.example/app'], ['icrc', 'https://icrc.hospital.example']]);

    // stale: the version read is gone; nothing changes
    const stale = await s.api.post('/sys/config/update', { token: admin, headers: { language: 'en_US' }, json: { lockVersion: 0, hosts: { icrc: 'https://other.example' } } });
    expect(stale.status).toBe(409);
    expect(stale.body.message).toContain('System Admin');
    // not an http(s) address, or one with credentials: named
    for (const bad of ['javascript:alert(1)', 'ftp://x.example', 'https://user:pw@x.example', 'not a url']) {
      const r = await s.api.post('/sys/config/update', { token: admin, headers: { language: 'en_US' }, json: { lockVersion: 1, hosts: { icrc: bad } } });
      expect(r.status, bad).toBe(400);
      expect(r.body.detail?.[0]).toEqual({ field: 'hosts.icrc', message: 'must be an absolute http(s) address without a user name or password' });
    }
    // empty: the configured default again
    const back = await s.api.post<Hosts>('/sys/config/update', { token: admin, json: { lockVersion: 1, hosts: { icrc: '', evisit: 'https://evisit.example/app' } } });
    expect(back.body.data.hosts.find((h) => h.key === 'icrc')).toMatchObject({ custom: false, value: before.body.data.icrc });
  });

  it('only administrators read and change them', async () => {
    for (const who of ['dm', 'crc1', 'cra']) {
      const t = await s.api.login(who);
      expect((await s.api.get('/sys/config/hosts', { token: t })).status).toBe(403);
      expect((await s.api.post('/sys/config/update', { token: t, json: { lockVersion: 0, hosts: {} } })).status).toBe(403);
      expect((await s.api.post('/admin/info/update', { token: t, json: { lockVersion: 0, name: 'x' } })).status).toBe(403);
    }
  });
});

describe("the administrator's contact", () => {
  it('is public to read, changed by an administrator with checks, audited by field', async () => {
    const empty = await s.api.post<Contact>('/admin/info/detail');
    expect(empty.status).toBe(200);
    expect(empty.body.data).toMatchObject({ name: '', phone: '', mail: '', note: '', lockVersion: 0 });
    const up = await s.api.post<Contact>('/admin/info/update', { token: admin, json: { lockVersion: 0, name: ' IT Helpdesk ', phone: '+86 10 8888 0000', mail: 'help@hospital.example', note: 'Mon–Fri 8:00–18:00' } });
    expect(up.status, JSON.stringify(up.body)).toBe(200);
    expect(up.body.data).toMatchObject({ name: 'IT Helpdesk', phone: '+86 10 8888 0000', lockVersion: 1 });
    expect((await s.api.post<Contact>('/admin/info/detail')).body.data.mail).toBe('help@hospital.example');
    const bad = await s.api.post('/admin/info/update', { token: admin, headers: { language: 'en_US' }, json: { lockVersion: 1, name: 'x', phone: 'call me', mail: 'nope' } });
    expect(bad.status).toBe(400);
    expect(bad.body.detail!.map((d) => d.field).sort()).toEqual(['mail', 'phone']);
    const long = await s.api.post('/admin/info/update', { token: admin, json: { lockVersion: 1, name: 'x'.repeat(31) } });
    expect(long.status).toBe(400);
    const rows = await s.database.db.select().from(auditEvents).where(eq(auditEvents.entityId, 'adminInfo'));
    expect(rows.map((r) => r.field).sort()).toEqual(['mail', 'name', 'note', 'phone']);
  });

  it('two administrators saving the first version at once: one wins, the other is told', async () => {
    const s2 = await startTestServer();
    try {
      const a = await s2.api.login('admin');
      const results = await Promise.all(
        ['A', 'B', 'C'].map((n) => s2.api.post('/admin/info/update', { token: a, json: { lockVersion: 0, name: n } })),
      );
      expect(results.map((r) => r.status).sort()).toEqual([200, 409, 409]);
    } finally {
      await s2.stop();
    }
  });
});

describe('ranges and the hospital team sync', () => {
  it('lists enabled organisations and the membership ranges in the caller\'s language', async () => {
    const orgs = await s.api.get<{ id: number; name: string }[]>('/sys/range/listOrg', { token: admin });
    expect(orgs.status).toBe(200);
    expect(orgs.body.data.map((o) => o.name)).toEqual(expect.arrayContaining(['Demo City Hospital']));
    const crc = await s.api.login('crc1');
    expect((await s.api.get('/sys/range/listOrg', { token: crc })).status).toBe(403);
    const ranges = await s.api.get<{ value: string; label: string }[]>('/sys/range/listRange', { token: crc, headers: { language: 'en_US' } });
    expect(ranges.body.data.map((r) => [r.value, r.label])).toEqual([['all', 'All sites'], ['sites', 'Chosen sites']]);
  });

  it('syncUserToHospital answers that no connection of the project accepts users, naming them; site users may not ask', async () => {
    const dm = await s.api.login('dm');
    const ask = () => s.api.post('/project/info/syncUserToHospital', { token: dm, headers: { ...P, language: 'en_US' } });
    const none = await ask();
    expect(none.status).toBe(409);
    expect(none.body.errorCode).toBe('HOSPITAL_SYNC_UNSUPPORTED');
    expect(none.body.message).toContain('No hospital connection of this project can receive the study team (no connection)');
    // with connections: named by kind
    const [site] = await s.database.db.select().from(sites).where(and(eq(sites.projectId, 1), eq(sites.env, 'PRO')));
    await s.database.db.insert(sourceConnections).values([
      { env: 'PRO', projectId: 1, siteId: site!.id, kind: 'fhir', name: 'HIS FHIR' },
      { env: 'PRO', projectId: 1, siteId: site!.id, kind: 'hl7v2', name: 'LIS HL7' },
    ]);
    const r = await ask();
    expect(r.status).toBe(409);
    expect(r.body.message).toMatch(/receive the study team \((FHIR R4, HL7 v2|HL7 v2, FHIR R4)\)/);
    const crc = await s.api.login('crc1');
    expect((await s.api.post('/project/info/syncUserToHospital', { token: crc, headers: P })).status).toBe(403);
  });
});

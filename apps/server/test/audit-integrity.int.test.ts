/**
 * Security issue "The audit chain can be rewritten or cut without detection": the key (a), the anchors (b) and
 * the application's database role (c). The tamper steps do what an attacker with the owner's rights does: switch
 * the triggers off (session_replication_role = replica), then delete or rewrite rows.
 */
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { asc, desc, eq } from 'drizzle-orm';
import { auditCheckpoints, auditEvents } from '../src/db/schema';
import { SERVER_ROOT } from '../src/config/config';
import { chainSecret, hashRow, recordAudit, setAuditChainKey, verifyAuditChains } from '../src/modules/audit/audit.service';
import { resolveAuditKey } from '../src/modules/audit/audit-key';
import { verifyAuditTrail, writeCheckpoint } from '../src/modules/audit/audit-anchors';
import { startTestServer, type TestServer } from './harness';

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'esource-audit-'));
const anchorFile = path.join(tmp, 'anchors.jsonl');
let s: TestServer;
beforeAll(async () => {
  s = await startTestServer({ config: { auditAnchorFile: anchorFile, auditCheckpointMinutes: 0 } });
});
afterAll(async () => {
  await s?.stop();
  fs.rmSync(tmp, { recursive: true, force: true });
});

/** Runs statements as the owner with the append-only triggers switched off (what a DB owner/superuser can do). */
const asAttacker = (statements: string) =>
  s.database.ownerExecuteSql(`begin; set local session_replication_role = replica; ${statements}; commit`);

const actor = { userId: null, userName: 'test', env: 'PRO', requestId: null, ip: null };
/** a chain of its own per scenario (project 900, subject n), n rows */
async function chainOf(subjectId: number, n: number): Promise<string> {
  await s.database.db.transaction((tx) =>
    recordAudit(
      tx,
      actor,
      Array.from({ length: n }, (_, i) => ({ action: 'test.anchor', entity: 'test', entityId: i, projectId: 900, subjectId })),
    ),
  );
  return `project:900:subject:${subjectId}`;
}
const verify = () => verifyAuditTrail(s.database.db, { file: anchorFile });
const breaksOf = async (chainKey: string) => (await verify()).breaks.filter((b) => b.chainKey === chainKey);

describe('(a) the chain key', () => {
  const base = { auditChainKey: undefined, auditKeyFile: undefined, production: false };

  it('refuses to start in production without a configured key, a long enough one, or a private key file', () => {
    const dir = fs.mkdtempSync(path.join(tmp, 'prod-'));
    expect(() => resolveAuditKey({ ...base, dataDir: dir, production: true })).toThrow(/refusing to start in production/);
    expect(fs.existsSync(path.join(dir, 'audit-chain.key'))).toBe(false);
    expect(() => resolveAuditKey({ ...base, dataDir: dir, production: true, auditChainKey: 'short' })).toThrow(/shorter than 32/);
    const env = resolveAuditKey({ ...base, dataDir: dir, production: true, auditChainKey: 'k'.repeat(40) });
    expect(env).toMatchObject({ source: 'env', key: 'k'.repeat(40), warnings: [] });
    const file = path.join(dir, 'audit-chain.key');
    fs.writeFileSync(file, `${'f'.repeat(64)}\n`, { mode: 0o644 });
    fs.chmodSync(file, 0o644);
    expect(() => resolveAuditKey({ ...base, dataDir: dir, production: true })).toThrow(/readable by others/);
    fs.chmodSync(file, 0o600);
    expect(resolveAuditKey({ ...base, dataDir: dir, production: true })).toMatchObject({ source: 'file', key: 'f'.repeat(64) });
  });

  it('in development generates a random key once into a 0600 file in DATA_DIR, with a warning; verify never creates one', () => {
    const dir = fs.mkdtempSync(path.join(tmp, 'dev-'));
    expect(() => resolveAuditKey({ ...base, dataDir: dir }, { create: false })).toThrow(/audit chain key missing/);
    const first = resolveAuditKey({ ...base, dataDir: dir });
    expect(first.source).toBe('generated-file');
    expect(first.key).toMatch(/^[0-9a-f]{64}$/);
    expect(first.warnings.join(' ')).toMatch(/generated a new audit chain key/);
    expect(fs.statSync(path.join(dir, 'audit-chain.key')).mode & 0o777).toBe(0o600);
    const again = resolveAuditKey({ ...base, dataDir: dir });
    expect(again).toMatchObject({ source: 'file', key: first.key });
    expect(resolveAuditKey({ ...base, dataDir: fs.mkdtempSync(path.join(tmp, 'dev-')) }).key).not.toBe(first.key);
  });

  it('a chain recomputed with the key that used to be in the source no longer verifies', async () => {
    const chain = await chainOf(1, 3);
    const rows = await s.database.db.select().from(auditEvents).where(eq(auditEvents.chainKey, chain)).orderBy(asc(auditEvents.seq));
    // the attacker rewrites row 2 and recomputes the chain from there with the old built-in key
    const oldKey = 'esource-audit-chain-development-key';
    const mac = (prev: string, r: (typeof rows)[number]) => {
      const real = chainSecret();
      setAuditChainKey(oldKey);
      try {
        return hashRow(prev, r);
      } finally {
        setAuditChainKey(real);
      }
    };
    let prev = rows[0]!.hash;
    const updates: string[] = [];
    for (const r of rows.slice(1)) {
      const changed = r.seq === 2 ? { ...r, newValue: 'forged' } : r;
      const h = mac(prev, changed);
      updates.push(`update audit_events set new_value = ${changed.newValue === null ? 'null' : `'${changed.newValue}'`}, prev_hash = '${prev}', hash = '${h}' where id = ${r.id}`);
      prev = h;
    }
    await asAttacker(updates.join('; '));
    const r = await verifyAuditChains(s.database.db, { chainKey: chain });
    expect(r.breaks).toEqual([{ chainKey: chain, id: rows[1]!.id, seq: 2, reason: 'hash' }]);
  });
});

describe('(b) anchors: checkpoints in the table and the file', () => {
  it('anchors every chain head; an intact trail verifies, and a checkpoint with nothing new is not written', async () => {
    await chainOf(10, 2);
    const c = await writeCheckpoint(s.database.db, { file: anchorFile, reason: 'test' });
    expect(c.checkpoint!.heads).toContainEqual(['project:900:subject:10', 2, expect.stringMatching(/^[0-9a-f]{64}$/)]);
    expect(await breaksOf('project:900:subject:10')).toEqual([]);
    const r = await verify();
    expect(r.anchorProblems).toEqual([]);
    expect(r.checkpoints).toEqual({ table: 1, file: 1 });
    expect(fs.readFileSync(anchorFile, 'utf8').trim().split('\n')).toHaveLength(1);
    expect((await writeCheckpoint(s.database.db, { file: anchorFile, reason: 'test' })).checkpoint).toBeNull();
  });

  it('reports the last rows of a chain deleted behind the trigger, and the next checkpoint does not accept it', async () => {
    const chain = await chainOf(11, 5);
    await writeCheckpoint(s.database.db, { file: anchorFile, reason: 'test' });
    // before the anchors, verification of the remaining rows said "intact"
    await asAttacker(`delete from audit_events where chain_key = '${chain}' and seq > 3`);
    expect((await verifyAuditChains(s.database.db, { chainKey: chain })).breaks).toEqual([]);
    const [b] = await breaksOf(chain);
    expect(b).toMatchObject({ chainKey: chain, reason: 'truncated', seq: 3, id: null });
    expect(b!.detail).toContain('2 row(s) missing');
    const c = await writeCheckpoint(s.database.db, { file: anchorFile, reason: 'test' });
    expect(c.refused).toContainEqual(expect.stringContaining(`${chain}: head seq 3 below the anchored 5`));
    expect((await breaksOf(chain))[0]).toMatchObject({ reason: 'truncated' });
  });

  it('reports a whole chain deleted', async () => {
    const chain = await chainOf(12, 3);
    await writeCheckpoint(s.database.db, { file: anchorFile, reason: 'test' });
    await asAttacker(`delete from audit_events where chain_key = '${chain}'`);
    const [b] = await breaksOf(chain);
    expect(b).toMatchObject({ chainKey: chain, reason: 'missing' });
    expect(b!.detail).toContain('anchors 3 row(s)');
  });

  it('reports a chain rewritten with valid hashes (the key leaked) where the head hash differs from its anchor', async () => {
    const chain = await chainOf(13, 3);
    await writeCheckpoint(s.database.db, { file: anchorFile, reason: 'test' });
    const rows = await s.database.db.select().from(auditEvents).where(eq(auditEvents.chainKey, chain)).orderBy(asc(auditEvents.seq));
    let prev = rows[1]!.hash;
    const forged = { ...rows[2]!, newValue: 'forged', prevHash: prev };
    prev = hashRow(prev, forged);
    await asAttacker(`update audit_events set new_value = 'forged', hash = '${prev}' where id = ${forged.id}`);
    expect((await verifyAuditChains(s.database.db, { chainKey: chain })).breaks).toEqual([]);
    expect(await breaksOf(chain)).toEqual([
      { chainKey: chain, id: forged.id, seq: 3, reason: 'anchor', detail: expect.stringContaining('chain rewritten') },
    ]);
  });

  it('reports a tampered anchor file line', async () => {
    const lines = fs.readFileSync(anchorFile, 'utf8');
    fs.writeFileSync(anchorFile, lines.replace('"reason":"test"', '"reason":"tset"'));
    expect((await verify()).anchorProblems).toContainEqual(expect.stringMatching(/anchor file line 1: invalid signature/));
    fs.writeFileSync(anchorFile, lines);
    expect((await verify()).anchorProblems).toEqual([]);
  });

  it('reports checkpoints deleted from the table that the file still holds, and still anchors their chains', async () => {
    const chain = await chainOf(14, 4);
    await writeCheckpoint(s.database.db, { file: anchorFile, reason: 'test' });
    const [last] = await s.database.db.select().from(auditCheckpoints).orderBy(desc(auditCheckpoints.id)).limit(1);
    // the attacker removes the checkpoint, then cuts the chain it anchored
    await asAttacker(`delete from audit_checkpoints where id = ${last!.id}; delete from audit_events where chain_key = '${chain}' and seq > 2`);
    const r = await verify();
    expect(r.anchorProblems).toContainEqual(expect.stringMatching(/checkpoint table lost the checkpoint of .* that the anchor file holds/));
    expect(r.breaks.filter((b) => b.chainKey === chain)).toMatchObject([{ reason: 'truncated', seq: 2 }]);
  });
});

describe('(a, b) the server and `npm run audit:verify` share the key and the anchors', () => {
  it('a worker anchors on its timer and at shutdown; the CLI verifies with the key file, and fails with another key', async () => {
    // (a PGlite data folder of its own: the CLI opens it after the server closed it)
    const dir = fs.mkdtempSync(path.join(tmp, 'data-'));
    const realKey = chainSecret();
    const w = await startTestServer({
      config: { dataDir: dir, databaseUrl: undefined, auditCheckpointMinutes: 0.005 },
    });
    try {
      expect(fs.statSync(path.join(dir, 'audit-chain.key')).mode & 0o777).toBe(0o600);
      await w.api.login('dm');
      await new Promise((r) => setTimeout(r, 1200));
      const rows = await w.database.db.select().from(auditCheckpoints);
      expect(rows.map((x) => x.reason)).toContain('schedule');
    } finally {
      await w.close();
    }
    // started again on the same folder (no timer): the same key file, and a checkpoint at shutdown
    const again = await startTestServer({ seed: false, config: { dataDir: dir, databaseUrl: undefined, auditCheckpointMinutes: 0 } });
    try {
      await again.api.login('cra');
    } finally {
      await again.close();
      setAuditChainKey(realKey);
    }
    const lines = fs.readFileSync(path.join(dir, 'audit-anchors.jsonl'), 'utf8').trim().split('\n');
    expect((JSON.parse(lines[lines.length - 1]!) as { cp: { reason: string } }).cp.reason).toBe('shutdown');

    const cli = (env: Record<string, string>) =>
      promisify(execFile)(path.join(SERVER_ROOT, '../../node_modules/.bin/tsx'), ['src/cli/audit-verify.ts', '--no-checkpoint'], {
        cwd: SERVER_ROOT,
        env: { ...process.env, DATABASE_URL: '', AUDIT_CHAIN_KEY: '', AUDIT_ANCHOR_FILE: '', DATA_DIR: dir, ...env },
      }).then(
        (r) => ({ code: 0, out: r.stdout }),
        (e: unknown) => ({ code: (e as { code: number }).code, out: (e as { stdout: string }).stdout }),
      );
    const ok = await cli({});
    expect(ok.out).toContain(`key: file ${path.join(dir, 'audit-chain.key')}`);
    expect(ok.out).toContain('all chains intact');
    expect(ok.code).toBe(0);
    const bad = await cli({ AUDIT_CHAIN_KEY: randomBytes(32).toString('hex') });
    expect(bad.code).toBe(1);
    expect(bad.out).toMatch(/BROKEN chain system: first broken row id=\d+ seq=1 \(hash mismatch\)/);
    expect(bad.out).toMatch(/BROKEN anchors: checkpoint table: checkpoint 1 .* invalid signature/);
  }, 60_000);
});

describe.skipIf(!process.env.DATABASE_URL)('(c) the application role on the PostgreSQL server', () => {
  const refusedWith = async (p: Promise<unknown>, re: RegExp) => {
    const err = await p.then(() => null, (e: unknown) => e as Error);
    expect(err, 'the statement must fail').not.toBeNull();
    expect(err!.message).toMatch(re);
  };

  it("the application's connection cannot switch the triggers off, nor change or remove audit rows", async () => {
    const sql = (q: string) => s.database.executeSql(q);
    const who = await sql('select current_user as u');
    expect(who.rows[0]!.u).toBe('esource_app');
    await refusedWith(sql('set session_replication_role = replica'), /permission denied to set parameter "session_replication_role"/);
    for (const t of ['audit_events', 'audit_checkpoints']) {
      await refusedWith(sql(`update ${t} set created_at = now()`), new RegExp(`permission denied for table ${t}`));
      await refusedWith(sql(`delete from ${t}`), new RegExp(`permission denied for table ${t}`));
      await refusedWith(sql(`truncate ${t}`), new RegExp(`permission denied for table ${t}`));
      await refusedWith(sql(`alter table ${t} disable trigger all`), new RegExp(`must be owner of table ${t}`));
    }
    // it still appends and reads
    await chainOf(20, 1);
    expect((await sql(`select count(*)::int as n from audit_events where chain_key = 'project:900:subject:20'`)).rows[0]!.n).toBe(1);
  });

  it('with its own login (DATABASE_APP_URL) RESET ROLE and SET ROLE lead nowhere; a superuser or missing app login is refused', async () => {
    const ownerUrl = s.config.databaseUrl!;
    const login = `esource_app_t_${randomBytes(4).toString('hex')}`;
    const admin = new pg.Client({ connectionString: ownerUrl });
    await admin.connect();
    await admin.query(`create role ${login} login in role esource_app`);
    const appUrl = new URL(ownerUrl);
    appUrl.username = login;
    let a: TestServer | null = null;
    try {
      a = await startTestServer({ seed: false, databaseUrl: ownerUrl, config: { databaseAppUrl: appUrl.toString(), auditCheckpointMinutes: 0 } });
      const sql = (q: string) => a!.database.executeSql(q);
      await sql('reset role');
      expect((await sql('select current_user as u')).rows[0]!.u).toBe(login);
      await refusedWith(sql('set session_replication_role = replica'), /permission denied to set parameter/);
      await refusedWith(sql('set role postgres'), /permission denied to set role "postgres"/);
      await refusedWith(sql('delete from audit_events'), /permission denied for table audit_events/);
      await refusedWith(sql('alter table audit_events disable trigger all'), /must be owner/);
      await chainOf(21, 1);
    } finally {
      await a?.stop();
      await admin.query(`drop role if exists ${login}`).catch(() => undefined);
      await admin.end();
    }
    await expect(
      startTestServer({ seed: false, databaseUrl: ownerUrl, config: { databaseAppUrl: ownerUrl } }),
    ).rejects.toThrow(/is a superuser: it could bypass/);
    const realKey = chainSecret();
    // production also wants the connection-secret key: given here, so that the missing app login is what refuses
    const hadSecret = process.env.SOURCE_SECRET_KEY;
    process.env.SOURCE_SECRET_KEY = 's'.repeat(40);
    try {
      await expect(
        startTestServer({ seed: false, databaseUrl: ownerUrl, config: { production: true, auditChainKey: 'p'.repeat(40) } }),
      ).rejects.toThrow(/DATABASE_APP_URL is required in production/);
    } finally {
      if (hadSecret === undefined) delete process.env.SOURCE_SECRET_KEY;
      else process.env.SOURCE_SECRET_KEY = hadSecret;
    }
    setAuditChainKey(realKey);
  });
});

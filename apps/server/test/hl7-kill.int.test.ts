/**
 * Kill -9 safety of the MLLP listener (issue 11 performance goal: none lost when the process is killed mid-run):
 * a real server process (tsx src/main.ts --role=worker, MLLP_PORT) receives messages over 4 connections and is
 * SIGKILLed midway; every message that got an ACK must then be in hl7_messages, stored, and a restart processes
 * whatever was received but not processed. Runs on the embedded database in a folder (reopened after the kill),
 * and on the PostgreSQL server when DATABASE_URL is set.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { and, eq } from 'drizzle-orm';
import { hl7Messages, sites, sourceConnections } from '../src/db/schema';
import { ackCodeOf, MllpClient } from '../src/modules/hl7/mllp-client';
import { SERVER_ROOT } from '../src/config/config';
import { startServer } from '../src/server';
import { createServerDatabase, dropServerDatabase } from './harness';

const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'esource-hl7-kill-'));
let databaseUrl: string | undefined;
let child: ChildProcess | null = null;

afterAll(async () => {
  if (child && child.exitCode === null) child.kill('SIGKILL');
  await dropServerDatabase(databaseUrl);
  fs.rmSync(dataDir, { recursive: true, force: true });
});

const config = () => ({ port: 0, host: '127.0.0.1', dataDir, databaseUrl, logLevel: 'warn' });

function spawnListener(): Promise<{ proc: ChildProcess; port: number }> {
  return new Promise((resolve, reject) => {
    const proc = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts', '--role=worker'], {
      cwd: SERVER_ROOT,
      env: { ...process.env, DATA_DIR: dataDir, DATABASE_URL: databaseUrl ?? '', MLLP_PORT: '0', MLLP_HOST: '127.0.0.1', LOG_LEVEL: 'warn' },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let err = '';
    const t = setTimeout(() => reject(new Error(`listener did not start: ${err.slice(-2000)}`)), 90_000);
    proc.stderr.on('data', (d: Buffer) => {
      err += d.toString();
      const m = /\[mllp\] HL7 v2 listener on [\d.]+:(\d+)/.exec(err);
      if (m) {
        clearTimeout(t);
        resolve({ proc, port: Number(m[1]) });
      }
    });
    proc.on('exit', (code) => {
      clearTimeout(t);
      reject(new Error(`listener exited (${code}): ${err.slice(-2000)}`));
    });
  });
}

const message = (conn: number, n: number) =>
  `MSH|^~\\&|KILLLAB|KILLHOSP|ESOURCE|ES|20260102030405||ORU^R01^ORU_R01|K${conn}-${n}|P|2.5.1\r` +
  `PID|1||MRN-K${conn}^^^KILLHOSP^MR||Doe^Jane||19800101|F\r` +
  `OBR|1||K${conn}-${n}|718-7^Hemoglobin^LN\r` +
  `OBX|1|NM|718-7^Hemoglobin [Mass/volume] in Blood^LN||13.${n % 10}|g/dL^g/dL^UCUM|12-16|N|||F|||20260102030000\r`;

describe('MLLP listener killed with SIGKILL', () => {
  it('has every acknowledged message in the database, and processes the rest at restart', async () => {
    databaseUrl = await createServerDatabase();
    // prepare the database (migrate, seed) and the connection the messages are routed to
    const prep = await startServer({ config: config(), listen: false, logger: false });
    const [site] = await prep.database.db.select().from(sites).where(and(eq(sites.projectId, 1), eq(sites.env, 'PRO'), eq(sites.siteNo, '01')));
    await prep.database.db.insert(sourceConnections).values({ env: 'PRO', projectId: 1, siteId: site!.id, kind: 'hl7v2', name: 'kill lab', config: { sendingApp: 'KILLLAB', sendingFacility: 'KILLHOSP' } });
    await prep.close();

    const started = await spawnListener();
    child = started.proc;
    const exited = new Promise<void>((r) => child!.once('exit', () => r()));
    const acked: string[] = [];
    const sent: string[] = [];
    let stop = false;
    const senders = Array.from({ length: 4 }, async (_, c) => {
      const client = await MllpClient.connect(started.port);
      for (let n = 1; !stop; n++) {
        sent.push(`K${c}-${n}`);
        try {
          const ack = ackCodeOf(await client.send(message(c, n), 20_000));
          if (ack.code === 'AA') acked.push(ack.controlId);
        } catch {
          return; // the process is gone
        }
      }
    });
    // kill it midway, once a good number of messages went through
    while (acked.length < 150) await new Promise((r) => setTimeout(r, 20));
    child.kill('SIGKILL');
    stop = true;
    await Promise.all(senders);
    await exited;
    expect(acked.length).toBeGreaterThanOrEqual(150);

    // reopen the same database: every acknowledged message is there, stored
    const after = await startServer({ config: { ...config(), mllpPort: 0 }, listen: false, logger: false });
    try {
      const rows = await after.database.db.select({ controlId: hl7Messages.controlId, status: hl7Messages.status }).from(hl7Messages);
      const byId = new Map(rows.map((r) => [r.controlId, r.status]));
      const missing = acked.filter((id) => byId.get(id) !== 1);
      expect(missing).toEqual([]);
      // the restart's recovery left nothing unprocessed
      expect(rows.filter((r) => r.status === 0)).toEqual([]);
      expect(rows.length).toBeLessThanOrEqual(sent.length);
    } finally {
      await after.close();
    }
  }, 240_000);
});

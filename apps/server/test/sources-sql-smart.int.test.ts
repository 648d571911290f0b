/**
 * SQL views against the real PostgreSQL and MariaDB servers on this machine (a scratch 'hospital view'), with the
 * named parameters bound by the driver and the transaction read-only; and the SMART Backend Services token flow
 * against a stub token endpoint that verifies the client assertion's signature. Skipped with a message when a
 * database server is not reachable.
 */
import http from 'node:http';
import net from 'node:net';
import { generateKeyPairSync, verify } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import pg from 'pg';
import mysql from 'mysql2/promise';
import type { SqlConnectionConfig } from '@esource/shared';
import { bindNamed, checkSqlQuery, extractSql } from '../src/modules/sources/sql-source';
import { FhirClient } from '../src/modules/sources/fhir-client';
import type { ExtractedRecord } from '@esource/interop';

const reachable = (port: number) =>
  new Promise<boolean>((resolve) => {
    const s = net.connect({ host: '127.0.0.1', port }, () => {
      s.end();
      resolve(true);
    });
    s.on('error', () => resolve(false));
    s.setTimeout(1000, () => {
      s.destroy();
      resolve(false);
    });
  });

const query = (sqlText: string) => ({
  docType: 3,
  name: 'labs',
  sql: sqlText,
  columns: { patientKey: 'mrn', externalKey: 'id', code: 'code', display: 'name', value: 'val', unit: 'unit', effective: 'taken_at' },
});

describe('SQL query checks', () => {
  it('accepts one SELECT with known parameters and refuses anything else', () => {
    expect(checkSqlQuery('select * from labs where mrn = :patientId and taken_at >= :from')).toBeNull();
    expect(checkSqlQuery("select ':notAParam' as x, a::text from t where b = :to")).toBeNull();
    expect(checkSqlQuery('delete from labs')).toEqual({ key: 'validation.sqlSelectOnly' });
    expect(checkSqlQuery('select 1; drop table labs')).toEqual({ key: 'validation.sqlSelectOnly' });
    expect(checkSqlQuery('select * from labs where x = :evil')).toEqual({ key: 'validation.sqlParameter', params: { name: 'evil' } });
    expect(bindNamed('select * from t where a = :patientId and b = :patientId', 'postgres', { patientId: "x'; drop", from: null, to: null })).toEqual({
      text: 'select * from t where a = $1 and b = $2',
      values: ["x'; drop", "x'; drop"],
    });
  });
});

describe('SQL view on PostgreSQL', async () => {
  const up = await reachable(5432);
  if (!up) console.warn('PostgreSQL on 127.0.0.1:5432 not reachable: SQL view tests on PostgreSQL skipped');
  let admin: pg.Client;
  const config = (): SqlConnectionConfig => ({
    dialect: 'postgres',
    host: '127.0.0.1',
    port: 5432,
    database: 'test',
    user: process.env.PGUSER ?? 'postgres',
    ssl: false,
    timeoutMs: 5000,
    patientIdentifier: 'medicalRecordId',
    queries: [query('select id, mrn, code, name, val, unit, taken_at from esource_hosp.labs where mrn = :patientId and (:from::date is null or taken_at >= :from::date) order by id')],
  });
  beforeAll(async () => {
    if (!up) return;
    for (const user of [process.env.PGUSER, 'postgres', 'root'].filter(Boolean) as string[]) {
      try {
        admin = new pg.Client({ host: '127.0.0.1', port: 5432, database: 'test', user });
        await admin.connect();
        process.env.PGUSER = user;
        break;
      } catch {
        /* next user */
      }
    }
    await admin.query('drop schema if exists esource_hosp cascade; create schema esource_hosp');
    await admin.query('create table esource_hosp.labs (id int primary key, mrn text, code text, name text, val numeric, unit text, taken_at timestamp)');
    await admin.query(`insert into esource_hosp.labs values (1, 'MRN1', '718-7', 'Hemoglobin', 13.2, 'g/dL', '2026-11-02 08:00'), (2, 'MRN1', '2345-7', 'Glucose', 5.4, 'mmol/L', '2025-01-01 08:00'), (3, 'MRN2', '718-7', 'Hemoglobin', 11, 'g/dL', '2026-11-02 08:00')`);
  });
  afterAll(async () => {
    if (!up) return;
    await admin.query('drop schema if exists esource_hosp cascade');
    await admin.end();
  });
  it.skipIf(!up)('reads the patient\'s rows as source records, parameters bound, in a read-only transaction', async () => {
    const got: ExtractedRecord[] = [];
    const r = await extractSql(config(), null, { patientId: 'MRN1', from: '2026-01-01', to: null }, async (_n, recs) => {
      got.push(...recs);
    });
    expect(r.rows).toBe(1);
    expect(got[0]).toMatchObject({ externalId: 'SQL/labs/1', docType: 3, code: '718-7', valueNum: 13.2, unit: 'g/dL', effectiveDate: '2026-11-02', rawFormat: 'sql' });
    expect(JSON.parse(got[0]!.raw)).toMatchObject({ id: 1, mrn: 'MRN1' });
    // an injection attempt is a value, not SQL
    const none = await extractSql(config(), null, { patientId: "MRN1' or '1'='1", from: null, to: null });
    expect(none.rows).toBe(0);
    // the transaction is read-only: a query that writes fails
    const c = config();
    c.queries = [query("select * from (select 1 as id, 'x' as mrn) t where exists (select 1 from (select nextval('esource_hosp.s')) q) or :patientId = ''")];
    await admin.query('create sequence if not exists esource_hosp.s');
    await expect(extractSql(c, null, { patientId: 'MRN1', from: null, to: null })).rejects.toThrow(/read-only/);
  });
});

describe('SQL view on MariaDB', async () => {
  const up = await reachable(3306);
  if (!up) console.warn('MariaDB on 127.0.0.1:3306 not reachable: SQL view tests on MariaDB skipped');
  let admin: mysql.Connection;
  beforeAll(async () => {
    if (!up) return;
    admin = await mysql.createConnection({ host: '127.0.0.1', port: 3306, user: 'root', password: '', database: 'test' });
    await admin.query('drop table if exists esource_labs');
    await admin.query('create table esource_labs (id int primary key, mrn varchar(40), code varchar(20), name varchar(60), val decimal(8,2), unit varchar(20), taken_at datetime)');
    await admin.query(`insert into esource_labs values (1, 'MRN1', '718-7', 'Hemoglobin', 13.2, 'g/dL', '2026-11-02 08:00:00'), (2, 'MRN2', '718-7', 'Hemoglobin', 11, 'g/dL', '2026-11-02 08:00:00')`);
  });
  afterAll(async () => {
    if (!up) return;
    await admin.query('drop table if exists esource_labs');
    await admin.end();
  });
  it.skipIf(!up)('reads the patient\'s rows as source records with bound parameters', async () => {
    const got: ExtractedRecord[] = [];
    const c: SqlConnectionConfig = {
      dialect: 'mysql',
      host: '127.0.0.1',
      port: 3306,
      database: 'test',
      user: 'root',
      ssl: false,
      timeoutMs: 5000,
      patientIdentifier: 'medicalRecordId',
      queries: [query('select id, mrn, code, name, val, unit, taken_at from esource_labs where mrn = :patientId')],
    };
    const r = await extractSql(c, '', { patientId: 'MRN1', from: null, to: null }, async (_n, recs) => {
      got.push(...recs);
    });
    expect(r.rows).toBe(1);
    expect(got[0]).toMatchObject({ externalId: 'SQL/labs/1', valueNum: 13.2, effectiveDate: '2026-11-02' });
    const none = await extractSql(c, '', { patientId: "MRN1' or '1'='1", from: null, to: null });
    expect(none.rows).toBe(0);
  });
});

describe('SMART Backend Services', () => {
  for (const algorithm of ['RS384', 'ES384'] as const) {
    it(`signs a client assertion (${algorithm}) that the token endpoint verifies, and caches the token`, async () => {
      const { privateKey, publicKey } =
        algorithm === 'RS384' ? generateKeyPairSync('rsa', { modulusLength: 2048 }) : generateKeyPairSync('ec', { namedCurve: 'P-384' });
      const pem = privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
      let tokenCalls = 0;
      let searchAuth = '';
      let tokenUrl = '';
      const server = http.createServer((req, res) => {
        let body = '';
        req.on('data', (c: Buffer) => (body += c.toString()));
        req.on('end', () => {
          if (req.url === '/token') {
            tokenCalls++;
            const f = new URLSearchParams(body);
            const jwt = f.get('client_assertion') ?? '';
            const [h, p, sig] = jwt.split('.');
            const header = JSON.parse(Buffer.from(h!, 'base64url').toString()) as { alg: string; kid: string };
            const payload = JSON.parse(Buffer.from(p!, 'base64url').toString()) as { iss: string; aud: string; exp: number; jti: string };
            const ok =
              f.get('grant_type') === 'client_credentials' &&
              f.get('client_assertion_type') === 'urn:ietf:params:oauth:client-assertion-type:jwt-bearer' &&
              header.alg === algorithm &&
              header.kid === 'k1' &&
              payload.iss === 'client-1' &&
              payload.aud === tokenUrl &&
              payload.exp - Date.now() / 1000 <= 300 &&
              !!payload.jti &&
              verify('sha384', Buffer.from(`${h}.${p}`), algorithm === 'ES384' ? { key: publicKey, dsaEncoding: 'ieee-p1363' } : publicKey, Buffer.from(sig!, 'base64url'));
            res.writeHead(ok ? 200 : 401, { 'content-type': 'application/json' });
            res.end(JSON.stringify(ok ? { access_token: 'AT-1', token_type: 'bearer', expires_in: 300 } : { error: 'invalid_client' }));
            return;
          }
          searchAuth = req.headers.authorization ?? '';
          res.writeHead(200, { 'content-type': 'application/fhir+json' });
          res.end(JSON.stringify({ resourceType: 'Bundle', type: 'searchset', entry: [] }));
        });
      });
      await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
      const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
      tokenUrl = `${base}/token`;
      try {
        const client = new FhirClient({
          config: { baseUrl: base, auth: 'smart', tokenUrl, clientId: 'client-1', scope: 'system/*.read', keyId: 'k1', algorithm, identifierSystems: [], timeoutMs: 3000, pageLimit: 5, pageSize: 10, resourceTypes: ['Observation'] },
          secret: pem,
          attempts: 1,
        });
        await client.findPatients([{ value: 'X' }, { value: 'Y' }]);
        expect(searchAuth).toBe('Bearer AT-1');
        expect(tokenCalls).toBe(1);
      } finally {
        server.closeAllConnections();
        await new Promise<void>((r) => server.close(() => r()));
      }
    });
  }
});

describe('FHIR client: Medications named by prescriptions', () => {
  it('reads them by _id, only as well-formed ids, and goes on without them when the server refuses the search', async () => {
    const asked: string[] = [];
    let refuse = false;
    const server = http.createServer((req, res) => {
      asked.push(req.url ?? '');
      if (refuse) {
        res.writeHead(400, { 'content-type': 'application/fhir+json' });
        res.end(JSON.stringify({ resourceType: 'OperationOutcome', issue: [{ severity: 'error', code: 'not-supported', diagnostics: '_id is not supported' }] }));
        return;
      }
      const ids = (new URL(req.url ?? '', 'http://x').searchParams.get('_id') ?? '').split(',');
      res.writeHead(200, { 'content-type': 'application/fhir+json' });
      res.end(JSON.stringify({ resourceType: 'Bundle', type: 'searchset', entry: ids.filter((id) => id === 'm1').map((id) => ({ resource: { resourceType: 'Medication', id, code: { text: 'aspirin' } } })) }));
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
    const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    try {
      const client = new FhirClient({
        config: { baseUrl: base, auth: 'none', identifierSystems: [], timeoutMs: 3000, pageLimit: 5, pageSize: 10, resourceTypes: ['MedicationRequest'] },
        secret: null,
        attempts: 1,
      });
      const meds = await client.readMedications(['Medication/m1', 'Medication/m2', 'http://evil.example/x?y', 'Medication/../../admin']);
      expect(meds.map((m) => m.id)).toEqual(['m1']);
      expect(asked).toEqual(['/Medication?_id=m1%2Cm2&_count=2']);
      refuse = true;
      expect(await client.readMedications(['Medication/m1'])).toEqual([]);
    } finally {
      server.closeAllConnections();
      await new Promise<void>((r) => server.close(() => r()));
    }
  });
});

/**
 * SQL views of a hospital database (issue 11 item 1): PostgreSQL (pg) and MySQL/MariaDB (mysql2), a connection per
 * extraction, a statement timeout and a read-only transaction, the named parameters :patientId, :from, :to bound
 * as driver parameters (never concatenated), rows → source records (rawFormat 'sql', raw = the row's JSON,
 * externalId 'SQL/<query>/<key>').
 */
import { createHash } from 'node:crypto';
import pg from 'pg';
import mysql from 'mysql2/promise';
import type { DocType, ExtractedRecord } from '@esource/interop';
import type { SqlConnectionConfig, SqlQueryConfig } from '@esource/shared';
import { SourceError } from './fhir-client';

const PARAMS = ['patientId', 'from', 'to'] as const;
type ParamName = (typeof PARAMS)[number];

/**
 * Splits a query into text and :name parameters, skipping string literals, quoted identifiers, comments and '::'
 * casts. Returns null for a parameter we do not know.
 */
function tokenize(sqlText: string): { parts: (string | { param: string })[] } {
  const parts: (string | { param: string })[] = [];
  let buf = '';
  let i = 0;
  while (i < sqlText.length) {
    const ch = sqlText[i]!;
    if (ch === "'" || ch === '"' || ch === '`') {
      let j = i + 1;
      while (j < sqlText.length && !(sqlText[j] === ch && sqlText[j + 1] !== ch)) j += sqlText[j] === ch ? 2 : 1;
      buf += sqlText.slice(i, j + 1);
      i = j + 1;
    } else if (ch === '-' && sqlText[i + 1] === '-') {
      const j = sqlText.indexOf('\n', i);
      i = j < 0 ? sqlText.length : j;
    } else if (ch === '/' && sqlText[i + 1] === '*') {
      const j = sqlText.indexOf('*/', i + 2);
      i = j < 0 ? sqlText.length : j + 2;
    } else if (ch === ':' && sqlText[i + 1] === ':') {
      buf += '::';
      i += 2;
    } else if (ch === ':' && /[A-Za-z_]/.test(sqlText[i + 1] ?? '')) {
      const m = /^[A-Za-z_][A-Za-z0-9_]*/.exec(sqlText.slice(i + 1))!;
      parts.push(buf, { param: m[0] });
      buf = '';
      i += 1 + m[0].length;
    } else {
      buf += ch;
      i++;
    }
  }
  parts.push(buf);
  return { parts };
}

/** Why a query is refused (a message key), or null: one SELECT (or WITH … SELECT), known parameters only. */
export function checkSqlQuery(sqlText: string): { key: string; params?: Record<string, string> } | null {
  const { parts } = tokenize(sqlText);
  const text = parts.filter((p): p is string => typeof p === 'string').join(' ').trim().replace(/;\s*$/, '');
  if (!/^(select|with)\b/i.test(text) || text.includes(';')) return { key: 'validation.sqlSelectOnly' };
  if (/\b(insert|update|delete|merge|drop|alter|create|truncate|grant|revoke|call|copy|lock|set)\b/i.test(text.replace(/^with\b[\s\S]*?\bselect\b/i, 'select'))) {
    // words that only data-changing statements start with; a column named like that must be quoted
    if (/\b(insert\s+into|update\s+\S+\s+set|delete\s+from|drop\s|alter\s|create\s|truncate\s|grant\s|revoke\s|copy\s|lock\s)/i.test(text)) return { key: 'validation.sqlSelectOnly' };
  }
  for (const p of parts) if (typeof p !== 'string' && !(PARAMS as readonly string[]).includes(p.param)) return { key: 'validation.sqlParameter', params: { name: p.param } };
  return null;
}

/** The query with driver placeholders and its values, in order. */
export function bindNamed(sqlText: string, dialect: 'postgres' | 'mysql', values: Record<ParamName, string | null>): { text: string; values: (string | null)[] } {
  const { parts } = tokenize(sqlText.trim().replace(/;\s*$/, ''));
  let text = '';
  const out: (string | null)[] = [];
  for (const p of parts) {
    if (typeof p === 'string') text += p;
    else {
      out.push(values[p.param as ParamName] ?? null);
      text += dialect === 'postgres' ? `$${out.length}` : '?';
    }
  }
  return { text, values: out };
}

type Row = Record<string, unknown>;

interface SqlSession {
  query(text: string, values: (string | null)[]): Promise<Row[]>;
  close(): Promise<void>;
}

async function open(c: SqlConnectionConfig, password: string | null): Promise<SqlSession> {
  try {
    if (c.dialect === 'postgres') {
      const client = new pg.Client({
        host: c.host,
        port: c.port,
        database: c.database,
        user: c.user,
        password: password ?? undefined,
        ssl: c.ssl ? { rejectUnauthorized: false } : false,
        statement_timeout: c.timeoutMs,
        connectionTimeoutMillis: c.timeoutMs,
      });
      client.on('error', () => undefined);
      await client.connect();
      await client.query('BEGIN TRANSACTION READ ONLY');
      return {
        query: async (text, values) => (await client.query(text, values)).rows as Row[],
        close: async () => {
          await client.query('ROLLBACK').catch(() => undefined);
          await client.end().catch(() => undefined);
        },
      };
    }
    const conn = await mysql.createConnection({
      host: c.host,
      port: c.port,
      database: c.database,
      user: c.user,
      password: password ?? '',
      connectTimeout: c.timeoutMs,
      ...(c.ssl ? { ssl: {} } : {}),
      dateStrings: true,
    });
    conn.on('error', () => undefined);
    await conn.query(`SET SESSION max_statement_time = ${Math.ceil(c.timeoutMs / 1000)}`).catch(async () => {
      // MySQL spells it max_execution_time (ms, SELECT only)
      await conn.query(`SET SESSION max_execution_time = ${c.timeoutMs}`).catch(() => undefined);
    });
    await conn.query('START TRANSACTION READ ONLY');
    return {
      query: async (text, values) => {
        const [rows] = await conn.query({ sql: text, values, timeout: c.timeoutMs });
        return rows as Row[];
      },
      close: async () => {
        await conn.query('ROLLBACK').catch(() => undefined);
        await conn.end().catch(() => undefined);
      },
    };
  } catch (err) {
    throw new SourceError('source.error.sql', { detail: (err as Error).message.slice(0, 300) }, true);
  }
}

const str = (v: unknown): string | undefined => (v === null || v === undefined || v === '' ? undefined : v instanceof Date ? v.toISOString() : typeof v === 'string' ? v : typeof v === 'number' || typeof v === 'boolean' || typeof v === 'bigint' ? v.toString() : JSON.stringify(v));

function canonical(row: Row): string {
  const out: Row = {};
  for (const k of Object.keys(row).sort()) {
    const v = row[k];
    out[k] = v instanceof Date ? v.toISOString() : typeof v === 'bigint' ? v.toString() : Buffer.isBuffer(v) ? v.toString('base64') : v;
  }
  return JSON.stringify(out);
}

/** One row of a query as a source record. */
export function rowToRecord(q: SqlQueryConfig, row: Row): ExtractedRecord | null {
  const col = q.columns;
  const patientKey = str(row[col.patientKey]);
  const key = str(row[col.externalKey]);
  if (!patientKey || !key) return null;
  const raw = canonical(row);
  const value = col.value ? row[col.value] : undefined;
  const num = typeof value === 'number' ? value : typeof value === 'string' && value.trim() !== '' && Number.isFinite(Number(value)) ? Number(value) : undefined;
  const eff = col.effective ? row[col.effective] : undefined;
  const effText = eff instanceof Date ? eff.toISOString() : str(eff);
  const effDate = effText && /^\d{4}-\d{2}-\d{2}/.test(effText) ? effText.slice(0, 10) : undefined;
  const effAt = effText && /^\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}/.test(effText) ? new Date(effText.replace(' ', 'T')).toISOString() : undefined;
  return {
    patientKey,
    externalId: `SQL/${q.name}/${key}`.slice(0, 300),
    docType: q.docType as DocType,
    resourceType: q.name,
    code: col.code ? str(row[col.code]) : undefined,
    display: col.display ? str(row[col.display]) : undefined,
    valueNum: num,
    valueText: num === undefined ? str(value) : undefined,
    unit: col.unit ? str(row[col.unit]) : undefined,
    effectiveAt: effAt,
    effectiveDate: effDate,
    status: col.status ? str(row[col.status]) : undefined,
    rawFormat: 'sql',
    raw,
    contentHash: createHash('sha256').update(raw).digest('hex'),
  };
}

/** Runs every query for one patient and date window; returns records and rows read per query. */
export async function extractSql(
  c: SqlConnectionConfig,
  password: string | null,
  params: { patientId: string; from: string | null; to: string | null },
  onQuery?: (name: string, records: ExtractedRecord[], rows: number) => Promise<void>,
): Promise<{ rows: number; skipped: number }> {
  const session = await open(c, password);
  let rows = 0;
  let skipped = 0;
  try {
    for (const q of c.queries) {
      const b = bindNamed(q.sql, c.dialect, params);
      let list: Row[];
      try {
        list = await session.query(b.text, b.values);
      } catch (err) {
        throw new SourceError('source.error.sql', { detail: `${q.name}: ${(err as Error).message.slice(0, 300)}` });
      }
      rows += list.length;
      const recs: ExtractedRecord[] = [];
      for (const r of list) {
        const rec = rowToRecord(q, r);
        if (rec) recs.push(rec);
        else skipped++;
      }
      await onQuery?.(q.name, recs, list.length);
    }
  } finally {
    await session.close();
  }
  return { rows, skipped };
}

/** 'Test connection' for SQL: each query limited to 20 rows for the patient (or none), nothing stored. */
export async function testSqlConnection(c: SqlConnectionConfig, password: string | null, patientId: string | null): Promise<{ type: string; count: number; more: boolean }[]> {
  const session = await open(c, password);
  const out: { type: string; count: number; more: boolean }[] = [];
  try {
    for (const q of c.queries) {
      const b = bindNamed(q.sql, c.dialect, { patientId: patientId ?? '', from: null, to: null });
      try {
        const rows = await session.query(`select * from (${b.text}) as esource_test limit 21`, b.values);
        out.push({ type: q.name, count: Math.min(rows.length, 20), more: rows.length > 20 });
      } catch (err) {
        throw new SourceError('source.error.sql', { detail: `${q.name}: ${(err as Error).message.slice(0, 300)}` });
      }
    }
  } finally {
    await session.close();
  }
  return out;
}

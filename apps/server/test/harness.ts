/**
 * Test harness: starts the real server on a free port. Without DATABASE_URL each file gets an in-memory PGlite;
 * with it, a fresh database on that PostgreSQL server, dropped afterwards.
 */
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { startServer, type RunningServer, type StartOptions } from '../src/server';
import type { Config } from '../src/config/config';
import { DEMO_PASSWORD, DEMO_USERS, sha256Hex } from '../src/seed/seed';
import { pgliteTemplate } from './pglite-template';

export interface CallOptions {
  token?: string | null;
  headers?: Record<string, string | number>;
  /** form-encoded body (the default encoding) */
  form?: Record<string, string | number | boolean | (string | number)[]>;
  json?: unknown;
  raw?: { body: string | Buffer | FormData; contentType?: string };
  query?: Record<string, string | number>;
}

export interface ApiResult<T = unknown> {
  status: number;
  body: { code: number; status: '0' | '1'; data: T; message: string; errorCode: string; requestId: string; detail?: { field: string; message: string }[] };
}

export class ApiClient {
  constructor(readonly base: string) {}

  async call<T = unknown>(method: string, path: string, o: CallOptions = {}): Promise<ApiResult<T>> {
    const headers: Record<string, string> = {};
    for (const [k, v] of Object.entries(o.headers ?? {})) headers[k] = String(v);
    if (o.token) headers.token = o.token;
    let body: string | Buffer | FormData | undefined;
    if (o.json !== undefined) {
      body = JSON.stringify(o.json);
      headers['content-type'] = 'application/json';
    } else if (o.form) {
      const p = new URLSearchParams();
      for (const [k, v] of Object.entries(o.form)) {
        if (Array.isArray(v)) for (const x of v) p.append(k, String(x));
        else p.append(k, String(v));
      }
      body = p.toString();
      headers['content-type'] = 'application/x-www-form-urlencoded';
    } else if (o.raw) {
      body = o.raw.body;
      if (o.raw.contentType) headers['content-type'] = o.raw.contentType;
    }
    const qs = o.query ? `?${new URLSearchParams(Object.entries(o.query).map(([k, v]): [string, string] => [k, String(v)])).toString()}` : '';
    const res = await fetch(`${this.base}/api${path}${qs}`, { method, headers, ...(body !== undefined ? { body } : {}) });
    const text = await res.text();
    let parsed: ApiResult<T>['body'];
    try {
      parsed = JSON.parse(text) as ApiResult<T>['body'];
    } catch {
      parsed = { code: res.status, status: '0', data: text as T, message: text, errorCode: 'NOT_JSON', requestId: '' };
    }
    return { status: res.status, body: parsed };
  }

  post<T = unknown>(path: string, o: CallOptions = {}) {
    return this.call<T>('POST', path, o);
  }

  get<T = unknown>(path: string, o: CallOptions = {}) {
    return this.call<T>('GET', path, o);
  }

  /** Logs a demo user in with their own login type; returns the token. */
  async login(account: string, opts: { loginType?: number; password?: string } = {}): Promise<string> {
    const u = DEMO_USERS.find((x) => x.account === account);
    const loginType = opts.loginType ?? u?.loginTypes[0] ?? 1;
    const r = await this.post<{ token: string }>('/passport/login', {
      form: { account, password: sha256Hex(opts.password ?? DEMO_PASSWORD), loginType },
    });
    if (r.status !== 200) throw new Error(`login ${account} failed: ${r.status} ${JSON.stringify(r.body)}`);
    return r.body.data.token;
  }
}

export interface TestServer extends RunningServer {
  api: ApiClient;
  /** closes the server and drops its database on the PostgreSQL server */
  stop(): Promise<void>;
}

export interface TestServerOptions extends Omit<StartOptions, 'config'> {
  config?: Partial<Config>;
  /** reuse a database created by an earlier start (restart tests) */
  databaseUrl?: string;
}

/** Creates a fresh database on the server in DATABASE_URL; returns its URL. */
export async function createServerDatabase(): Promise<string | undefined> {
  const base = process.env.DATABASE_URL;
  if (!base) return undefined;
  const name = `esource_t_${randomBytes(6).toString('hex')}`;
  const c = new pg.Client({ connectionString: base });
  await c.connect();
  await c.query(`create database ${name}`);
  await c.end();
  const u = new URL(base);
  u.pathname = `/${name}`;
  return u.toString();
}

export async function dropServerDatabase(url: string | undefined): Promise<void> {
  const base = process.env.DATABASE_URL;
  if (!base || !url) return;
  const name = new URL(url).pathname.slice(1);
  const c = new pg.Client({ connectionString: base });
  await c.connect();
  await c.query(`drop database if exists ${name} with (force)`);
  await c.end();
}

export async function startTestServer(opts: TestServerOptions = {}): Promise<TestServer> {
  // a test that names its own database in the config (e.g. `databaseUrl: undefined`: the embedded one on a folder of
  // its own) gets no server database made for it, which nothing would use or drop
  const ownDb = opts.databaseUrl === undefined && !(opts.config && 'databaseUrl' in opts.config);
  const databaseUrl = opts.databaseUrl ?? (ownDb ? await createServerDatabase() : undefined);
  // a start that fails (tests that expect a refusal) drops the database it was given, as stop() would
  const server = await startServer({
    ...opts,
    logger: opts.logger ?? false,
    config: {
      port: 0,
      host: '127.0.0.1',
      dataDir: 'memory://',
      testHooks: true,
      databaseUrl,
      ...(databaseUrl ? {} : { pgliteTemplate: await pgliteTemplate() }),
      ...opts.config,
    },
  }).catch(async (err: unknown) => {
    if (ownDb) await dropServerDatabase(databaseUrl);
    throw err;
  });
  return Object.assign(server, {
    api: new ApiClient(server.url ?? ''),
    stop: async () => {
      await server.close();
      if (ownDb) await dropServerDatabase(databaseUrl);
    },
  });
}

export const DEMO_PROJECT_ID = 1;
export { DEMO_PASSWORD, sha256Hex };

/** Polls `fn` every 200 ms until `ok` holds; fails after `ms` with the last value it saw. */
export async function waitFor<T>(fn: () => Promise<T>, ok: (v: T) => boolean, ms = 30_000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = await fn();
    if (ok(v)) return v;
    if (Date.now() > end) throw new Error(`timed out; last value ${JSON.stringify(v).slice(0, 1500)}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

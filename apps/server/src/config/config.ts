/** Server configuration from the environment, read once. */
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
export const SERVER_ROOT = path.resolve(here, '../..');
export const REPO_ROOT = path.resolve(SERVER_ROOT, '../..');

function int(name: string, fallback: number): number {
  const v = process.env[name];
  if (v === undefined || v === '') return fallback;
  const n = Number(v);
  if (!Number.isFinite(n)) throw new Error(`${name} must be a number, got ${v}`);
  return n;
}

/**
 * TRUST_PROXY: unset, empty, 'false' or '0' = trust no proxy; a whole number = that many hops; otherwise a comma
 * list of proxy addresses or CIDRs (e.g. '10.0.0.0/8, 127.0.0.1'). 'true' is refused: name the proxies.
 */
export function parseTrustProxy(v: string | undefined): false | number | string[] {
  const s = (v ?? '').trim();
  if (s === '' || s === 'false' || s === '0') return false;
  if (/^\d+$/.test(s)) return Number(s);
  if (s === 'true' || s === '*') throw new Error('TRUST_PROXY must name the proxies (addresses/CIDRs) or a hop count, not trust every client');
  const list = s.split(',').map((x) => x.trim()).filter(Boolean);
  for (const x of list) {
    if (!/^[0-9a-fA-F:.]+(\/\d{1,3})?$/.test(x) && !['loopback', 'linklocal', 'uniquelocal'].includes(x)) {
      throw new Error(`TRUST_PROXY: '${x}' is not an address or CIDR`);
    }
  }
  return list;
}

/**
 * FRAME_ANCESTORS: who may show the app in a frame (CSP frame-ancestors). A space or comma list of origins
 * (https://host[:port], a leading *. for subdomains) and/or 'self'; 'none' alone forbids framing. Default 'self'.
 * Checked here so that nothing but origins reaches the header.
 */
export function parseFrameAncestors(v: string | undefined): string[] {
  const list = (v ?? '').split(/[\s,]+/).map((x) => x.trim()).filter(Boolean);
  if (list.length === 0) return ["'self'"];
  const out: string[] = [];
  for (const raw of list) {
    const x = raw.replace(/^'|'$/g, '').toLowerCase();
    if (x === 'self' || x === 'none') out.push(`'${x}'`);
    else if (/^https?:\/\/(\*\.)?[a-z0-9]([a-z0-9.-]*[a-z0-9])?(:\d{1,5})?$/.test(x)) out.push(x);
    else throw new Error(`FRAME_ANCESTORS: '${raw}' is not an origin (https://host[:port]), 'self' or 'none'`);
  }
  if (out.includes("'none'") && out.length > 1) throw new Error("FRAME_ANCESTORS: 'none' cannot be combined with origins");
  return [...new Set(out)];
}

/** API_DOCS: public (anyone), admin (the OpenAPI document needs a system administrator's session; default), off (404). */
export function parseApiDocs(v: string | undefined): 'public' | 'admin' | 'off' {
  const s = (v ?? '').trim().toLowerCase();
  if (s === '') return 'admin';
  if (s === 'public' || s === 'admin' || s === 'off') return s;
  throw new Error(`API_DOCS must be public, admin or off, got ${v}`);
}

/** S3-compatible object storage of uploaded files (FILE_STORE=s3; parseFileStore). */
export interface S3Settings {
  kind: 's3';
  /** S3_ENDPOINT: the store's URL (MinIO, Ceph …); unset = AWS S3 of the region */
  endpoint: string | undefined;
  /** S3_REGION (default us-east-1) */
  region: string;
  /** S3_BUCKET (required) */
  bucket: string;
  /** S3_PREFIX: object names start with it (default 'esource/') */
  prefix: string;
  /** S3_ACCESS_KEY_ID / S3_SECRET_ACCESS_KEY; unset = the SDK's default chain (environment, instance role …) */
  accessKeyId: string | undefined;
  secretAccessKey: string | undefined;
  /** S3_FORCE_PATH_STYLE: bucket in the path, not the host name (default: true with an endpoint, else false) */
  forcePathStyle: boolean;
}

/** FILE_STORE: local (default: DATA_DIR/files) or s3 (S3_* settings, checked here so a mistake stops the start). */
export function parseFileStore(env: NodeJS.ProcessEnv): { kind: 'local' } | S3Settings {
  const kind = (env.FILE_STORE ?? '').trim().toLowerCase();
  if (kind === '' || kind === 'local') return { kind: 'local' };
  if (kind !== 's3') throw new Error(`FILE_STORE must be local or s3, got ${env.FILE_STORE}`);
  const bucket = (env.S3_BUCKET ?? '').trim();
  if (!bucket) throw new Error('FILE_STORE=s3 needs S3_BUCKET');
  const endpoint = (env.S3_ENDPOINT ?? '').trim() || undefined;
  if (endpoint && !/^https?:\/\/[^\s/]+(\/.*)?$/.test(endpoint)) throw new Error(`S3_ENDPOINT must be an http(s) URL, got ${endpoint}`);
  const accessKeyId = env.S3_ACCESS_KEY_ID || undefined;
  const secretAccessKey = env.S3_SECRET_ACCESS_KEY || undefined;
  if (Boolean(accessKeyId) !== Boolean(secretAccessKey)) throw new Error('S3_ACCESS_KEY_ID and S3_SECRET_ACCESS_KEY go together');
  const pathStyle = (env.S3_FORCE_PATH_STYLE ?? '').trim().toLowerCase();
  let prefix = env.S3_PREFIX ?? 'esource/';
  if (prefix && !prefix.endsWith('/')) prefix += '/';
  return {
    kind: 's3',
    endpoint,
    region: (env.S3_REGION ?? '').trim() || 'us-east-1',
    bucket,
    prefix,
    accessKeyId,
    secretAccessKey,
    forcePathStyle: pathStyle === '' ? Boolean(endpoint) : pathStyle === 'true' || pathStyle === '1',
  };
}

/** How text messages (verification codes) are sent (SMS_PROVIDER; parseSms; docs/decisions.md "SMS provider"). */
export type SmsSettings =
  | { kind: 'outbox' }
  | {
      kind: 'http';
      /** SMS_HTTP_URL: the gateway's endpoint (http or https), POSTed one JSON message per text */
      url: string;
      /** SMS_HTTP_KEY: sent as `Authorization: Bearer <key>` (unset = no header) */
      key: string | undefined;
      /** SMS_HTTP_TEMPLATE: the template id registered at the gateway for verification codes (sent as `template`) */
      template: string | undefined;
      /** SMS_HTTP_SIGN: the sender signature registered at the gateway (sent as `sign`) */
      sign: string | undefined;
      /** SMS_HTTP_TIMEOUT_MS: how long to wait for the gateway (default 10000) */
      timeoutMs: number;
    };

/** SMS_PROVIDER: outbox (default: messages are kept for administrators to read, development) or http (SMS_HTTP_*). */
export function parseSms(env: NodeJS.ProcessEnv): SmsSettings {
  const kind = (env.SMS_PROVIDER ?? '').trim().toLowerCase();
  if (kind === '' || kind === 'outbox') return { kind: 'outbox' };
  if (kind !== 'http') throw new Error(`SMS_PROVIDER must be outbox or http, got ${env.SMS_PROVIDER}`);
  const url = (env.SMS_HTTP_URL ?? '').trim();
  if (!/^https?:\/\/[^\s/]+(\/\S*)?$/.test(url)) throw new Error(`SMS_PROVIDER=http needs SMS_HTTP_URL, an http(s) URL; got '${url}'`);
  const timeout = Number((env.SMS_HTTP_TIMEOUT_MS ?? '').trim() || 10_000);
  if (!Number.isFinite(timeout) || timeout <= 0) throw new Error(`SMS_HTTP_TIMEOUT_MS must be a positive number, got ${env.SMS_HTTP_TIMEOUT_MS}`);
  return {
    kind: 'http',
    url,
    key: env.SMS_HTTP_KEY || undefined,
    template: (env.SMS_HTTP_TEMPLATE ?? '').trim() || undefined,
    sign: (env.SMS_HTTP_SIGN ?? '').trim() || undefined,
    timeoutMs: timeout,
  };
}

/**
 * The WebAuthn relying party of face login (issue 15 item 2; parseWebAuthn; docs/decisions.md "Face login"):
 * `fixed` = one RP ID and the page origins allowed to use it; `host` = both taken from each request's Host (and
 * protocol) — only when WEBAUTHN_FROM_HOST says so; `off` = face login answers PASSKEY_NOT_CONFIGURED.
 */
export type WebAuthnSettings =
  | { mode: 'fixed'; rpName: string; rpId: string; origins: string[] }
  | { mode: 'host'; rpName: string }
  | { mode: 'off'; rpName: string };

const IP_LIKE = /^(\d{1,3}(\.\d{1,3}){3}|\[?[0-9a-f:]+\]?)$/i;
const DOMAIN = /^(localhost|([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z][a-z0-9-]{0,61}[a-z0-9])$/;

/**
 * WEBAUTHN_RP_ID (a domain, never an IP address: browsers refuse those) with WEBAUTHN_ORIGINS (comma list of
 * https://host[:port] whose host is the RP ID or below it; http only for localhost; default https://<RP ID>);
 * else the host and origin of PUBLIC_URL; else, outside production, localhost with http://localhost:<PORT> and the
 * Vite dev server http://localhost:5173; in production without any of these, off. WEBAUTHN_FROM_HOST=1 derives
 * both from each request instead (behind a proxy that sets Host). WEBAUTHN_RP_NAME: the name authenticators show.
 */
export function parseWebAuthn(env: NodeJS.ProcessEnv, port: number, production: boolean): WebAuthnSettings {
  const rpName = (env.WEBAUTHN_RP_NAME ?? '').trim() || 'eSource';
  const fromHost = (env.WEBAUTHN_FROM_HOST ?? '').trim().toLowerCase();
  if (fromHost === '1' || fromHost === 'true') return { mode: 'host', rpName };
  const checkRpId = (id: string, what: string) => {
    if (IP_LIKE.test(id) || !DOMAIN.test(id)) throw new Error(`${what}: '${id}' is not a domain name (browsers refuse IP addresses as a WebAuthn RP ID)`);
    return id;
  };
  const checkOrigin = (rpId: string, o: string): string => {
    let u: URL;
    try {
      u = new URL(o);
    } catch {
      throw new Error(`WEBAUTHN_ORIGINS: '${o}' is not a URL`);
    }
    if (u.origin !== o.replace(/\/$/, '')) throw new Error(`WEBAUTHN_ORIGINS: '${o}' must be an origin only (scheme, host, port)`);
    const secure = u.protocol === 'https:' || (u.protocol === 'http:' && u.hostname === 'localhost');
    if (!secure) throw new Error(`WEBAUTHN_ORIGINS: '${o}' must use https (http only for localhost)`);
    if (u.hostname !== rpId && !u.hostname.endsWith(`.${rpId}`)) throw new Error(`WEBAUTHN_ORIGINS: '${o}' is not on the RP ID ${rpId} or below it`);
    return u.origin;
  };
  const rpIdEnv = (env.WEBAUTHN_RP_ID ?? '').trim().toLowerCase();
  if (rpIdEnv) {
    const rpId = checkRpId(rpIdEnv, 'WEBAUTHN_RP_ID');
    const list = (env.WEBAUTHN_ORIGINS ?? '').split(',').map((x) => x.trim()).filter(Boolean);
    return { mode: 'fixed', rpName, rpId, origins: (list.length ? list : [`https://${rpId}`]).map((o) => checkOrigin(rpId, o)) };
  }
  const publicUrl = (env.PUBLIC_URL ?? '').trim();
  if (publicUrl) {
    const u = new URL(publicUrl);
    if (!IP_LIKE.test(u.hostname) && DOMAIN.test(u.hostname)) return { mode: 'fixed', rpName, rpId: u.hostname, origins: [u.origin] };
  }
  if (production) return { mode: 'off', rpName };
  return { mode: 'fixed', rpName, rpId: 'localhost', origins: [`http://localhost:${port}`, 'http://localhost:5173'] };
}

/** REAL_NAME_PROVIDER: development (default outside production) or none (default in production). */
export function parseRealNameProvider(env: NodeJS.ProcessEnv, production: boolean): 'development' | 'none' {
  const v = (env.REAL_NAME_PROVIDER ?? '').trim().toLowerCase();
  if (v === '') return production ? 'none' : 'development';
  if (v === 'development' || v === 'none') return v;
  throw new Error(`REAL_NAME_PROVIDER must be development or none, got ${env.REAL_NAME_PROVIDER}`);
}

export interface Config {
  port: number;
  host: string;
  /** PostgreSQL server URL; unset = embedded PGlite under dataDir */
  databaseUrl: string | undefined;
  /**
   * the application's own login on the PostgreSQL server (DATABASE_APP_URL): a role that is not superuser and does
   * not own the tables, so it cannot bypass the audit triggers. DATABASE_URL (the owner) then only migrates. Unset =
   * the owner's connection with `role=esource_app` (development; required in production). docs/security.md
   */
  databaseAppUrl: string | undefined;
  /** NODE_ENV=production: refuses to start without a configured audit key (and app database role) */
  production: boolean;
  /** AUDIT_CHAIN_KEY: HMAC key of the audit chain; unset = the key file */
  auditChainKey: string | undefined;
  /** AUDIT_CHAIN_KEY_FILE: where the key is kept when AUDIT_CHAIN_KEY is unset; default <dataDir>/audit-chain.key */
  auditKeyFile: string | undefined;
  /** AUDIT_ANCHOR_FILE: append-only JSON-lines file of signed checkpoints; default <dataDir>/audit-anchors.jsonl */
  auditAnchorFile: string | undefined;
  /** AUDIT_CHECKPOINT_MINUTES: how often a worker anchors the chains' heads (0 = only at shutdown and verify) */
  auditCheckpointMinutes: number;
  /** folder for the embedded database and uploaded files; 'memory://' = in-memory (tests) */
  dataDir: string;
  /**
   * PGLITE_TEMPLATE: an in-memory database starts from this dump of a migrated embedded database (PGlite's
   * dumpDataDir) instead of an empty one; the migrations newer than the dump still run. Tests use it: creating
   * an empty database is most of a test server's start (apps/server/test/harness.ts).
   */
  pgliteTemplate?: string | undefined;
  /** where uploaded source documents are kept (FILE_STORE, parseFileStore) */
  fileStore: { kind: 'local' } | S3Settings;
  /** how text messages (verification codes) go out (SMS_PROVIDER, parseSms) */
  sms: SmsSettings;
  /** face login's WebAuthn relying party (WEBAUTHN_*, PUBLIC_URL; parseWebAuthn) */
  webauthn: WebAuthnSettings;
  /** who checks name + ID number for real-name verification (REAL_NAME_PROVIDER; parseRealNameProvider) */
  realNameProvider: 'development' | 'none';
  sessionIdleMinutes: number;
  /**
   * GUARD_CACHE (default on; 0 = off): the guard keeps each session's access answer in the process and drops it
   * on the database's NOTIFY (modules/auth/access-cache.ts); off = one query per request
   */
  guardCache: boolean;
  /**
   * RESPONSE_CACHE (default on; 0 = off): routes declared `cache: true` keep their answers in the process and drop
   * them all on the database's NOTIFY of any data change (lib/response-cache.ts); off = every request reads
   */
  responseCache: boolean;
  /**
   * RESPONSE_CHECK (default on outside production, off in production): every answer is also encoded with its zod
   * schema and must be what the compiled serializer wrote (lib/response-serializer.ts); off = the compiled one only
   */
  responseCheck: boolean;
  loginMaxFailures: number;
  loginLockMinutes: number;
  /**
   * Which proxies may set X-Forwarded-For (TRUST_PROXY): false (default: the socket address is the client), a hop
   * count, or a list of addresses/CIDRs. Trusting every proxy would let any client choose its own address.
   */
  trustProxy: false | number | string[];
  role: 'all' | 'api' | 'worker';
  webDist: string;
  otlpEndpoint: string | undefined;
  /** TRACES_MAX_KB: largest browser trace export accepted (KB; default 512), larger = 413 */
  tracesMaxBytes: number;
  /** TRACES_PER_MINUTE: trace exports accepted per session per minute (default 120), more = 429 */
  tracesPerMinute: number;
  /** FRAME_ANCESTORS (parseFrameAncestors): CSP frame-ancestors; X-Frame-Options only when it is 'self' or 'none' */
  frameAncestors: string[];
  /** API_DOCS (parseApiDocs): who may read the OpenAPI document at /api/docs */
  apiDocs: 'public' | 'admin' | 'off';
  hosts: Record<'storage' | 'ilink' | 'auth' | 'isource' | 'icrc' | 'igcp' | 'evisit', string>;
  logLevel: string;
  /** ESOURCE_TEST_HOOKS=1: registers the self-test job and its route (tests and browser journeys) */
  testHooks: boolean;
  /** MLLP_PORT: the HL7 v2 MLLP listener's port (worker or all-in-one process only); unset = no listener, 0 = any free port */
  mllpPort: number | null;
  /** MLLP_HOST: the address it listens on (default 127.0.0.1: put a TLS-terminating proxy or VPN in front) */
  mllpHost: string;
  /** MLLP_MAX_KB: largest HL7 message kept whole (default 4096 KB); a larger one is refused with AR, its head kept */
  mllpMaxBytes: number;
  /** SAFETY_GENERATE_SYNC_MAX: the most subjects "generate candidates" does in the request (default 200); more run as a job */
  safetyGenerateSyncMax: number;
}

export function loadConfig(overrides: Partial<Config> = {}): Config {
  const roleArg = process.argv.find((a) => a.startsWith('--role='))?.slice('--role='.length);
  const role = (overrides.role ?? roleArg ?? process.env.ESOURCE_ROLE ?? 'all') as Config['role'];
  if (!['all', 'api', 'worker'].includes(role)) throw new Error(`--role must be api, worker or all, got ${role}`);
  const base = process.env.PUBLIC_URL ?? '';
  return {
    port: int('PORT', 8080),
    host: process.env.HOST ?? '0.0.0.0',
    databaseUrl: process.env.DATABASE_URL || undefined,
    databaseAppUrl: process.env.DATABASE_APP_URL || undefined,
    production: process.env.NODE_ENV === 'production',
    auditChainKey: process.env.AUDIT_CHAIN_KEY || undefined,
    auditKeyFile: process.env.AUDIT_CHAIN_KEY_FILE || undefined,
    auditAnchorFile: process.env.AUDIT_ANCHOR_FILE || undefined,
    auditCheckpointMinutes: int('AUDIT_CHECKPOINT_MINUTES', 5),
    dataDir: process.env.DATA_DIR ?? path.join(REPO_ROOT, 'data'),
    pgliteTemplate: process.env.PGLITE_TEMPLATE || undefined,
    fileStore: parseFileStore(process.env),
    sms: parseSms(process.env),
    webauthn: parseWebAuthn(process.env, int('PORT', 8080), process.env.NODE_ENV === 'production'),
    realNameProvider: parseRealNameProvider(process.env, process.env.NODE_ENV === 'production'),
    sessionIdleMinutes: int('SESSION_IDLE_MINUTES', 30),
    guardCache: !['0', 'false', 'off'].includes((process.env.GUARD_CACHE ?? '').trim().toLowerCase()),
    responseCache: !['0', 'false', 'off'].includes((process.env.RESPONSE_CACHE ?? '').trim().toLowerCase()),
    responseCheck: ['', undefined].includes(process.env.RESPONSE_CHECK?.trim())
      ? process.env.NODE_ENV !== 'production'
      : !['0', 'false', 'off'].includes(process.env.RESPONSE_CHECK!.trim().toLowerCase()),
    loginMaxFailures: int('LOGIN_MAX_FAILURES', 5),
    loginLockMinutes: int('LOGIN_LOCK_MINUTES', 15),
    trustProxy: parseTrustProxy(process.env.TRUST_PROXY),
    role,
    webDist: process.env.WEB_DIST ?? path.join(REPO_ROOT, 'apps/web/dist'),
    otlpEndpoint: process.env.OTEL_EXPORTER_OTLP_ENDPOINT || undefined,
    tracesMaxBytes: int('TRACES_MAX_KB', 512) * 1024,
    tracesPerMinute: int('TRACES_PER_MINUTE', 120),
    frameAncestors: parseFrameAncestors(process.env.FRAME_ANCESTORS),
    apiDocs: parseApiDocs(process.env.API_DOCS),
    hosts: {
      storage: process.env.HOST_STORAGE ?? `${base}/api/files`,
      ilink: process.env.HOST_ILINK ?? base,
      auth: process.env.HOST_AUTH ?? base,
      isource: process.env.HOST_ISOURCE ?? base,
      icrc: process.env.HOST_ICRC ?? base,
      igcp: process.env.HOST_IGCP ?? base,
      evisit: process.env.HOST_EVISIT ?? base,
    },
    logLevel: process.env.LOG_LEVEL ?? 'info',
    testHooks: process.env.ESOURCE_TEST_HOOKS === '1',
    mllpPort: process.env.MLLP_PORT ? int('MLLP_PORT', 0) : null,
    mllpHost: process.env.MLLP_HOST || '127.0.0.1',
    mllpMaxBytes: int('MLLP_MAX_KB', 4096) * 1024,
    safetyGenerateSyncMax: int('SAFETY_GENERATE_SYNC_MAX', 200),
    ...overrides,
  };
}

/**
 * Property-based fuzzing of every registered API route (fast-check): bad bodies (JSON and form), queries and
 * headers, sent anonymously and as each logged-in demo user. What must always hold: no answer is a 5xx, and
 * every 4xx is the failure envelope `{ code, status: "0", message, errorCode, requestId }`; a zh_CN caller never
 * sees the English of the JSON parser or of zod.
 *
 * Half of the requests are chaos (any route, any caller, any headers, bad values in any field); the other half are
 * plausible requests built from the route's own schema (OpenAPI) by a logged-in member with good headers, with one
 * field set to a bad or just-out-of-range value, so that they reach services and the database.
 *
 * `FUZZ_RUNS` sets the number of requests (default 1500: ≈ 5 s on an idle 2-core machine, ≈ 25 s under load);
 * `FUZZ_SEED` replays a run; `FUZZ_LOG=1` prints the server's error log (the stack behind a 5xx);
 * `FUZZ_PROFILE=1` prints the routes that took longest. docs/security.md "Input validation and fuzzing".
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { and, eq } from 'drizzle-orm';
import { DEMO_USERS } from '../src/seed/seed';
import { sites } from '../src/db/schema';
import type { RegisteredRoute } from '../src/app';
import { startTestServer, type TestServer } from './harness';

const RUNS = Number(process.env.FUZZ_RUNS ?? 1500);
const SEED = process.env.FUZZ_SEED ? Number(process.env.FUZZ_SEED) : undefined;

let s: TestServer;
/** field names each route's body and query declare (from the OpenAPI document), to aim values at */
const fieldsOf = new Map<string, string[]>();
/** each route's body and query schemas (OpenAPI), to build plausible requests with one bad field */
const schemaOf = new Map<string, { body?: JsonSchema; query?: JsonSchema }>();
/** a site of each demo user's, for the proSiteId header */
const siteOf = new Map<string, number>();
const tokens = new Map<string, string | null>();

const COMMON_FIELDS = ['id', 'ptsId', 'instanceId', 'versionId', 'visitId', 'formId', 'siteId', 'userId', 'orgId', 'repeatNo', 'version', 'status', 'pageNumber', 'pageSize', 'firstVisitDate', 'startTime', 'endTime', 'startDate', 'endDate', 'keyword', 'name', 'account', 'password', 'idList', 'resourceSpans', 'from', 'to'];

beforeAll(async () => {
  s = await startTestServer({
    ...(process.env.FUZZ_LOG ? { logger: true, config: { logLevel: 'error' } } : {}),
  });
  const doc = s.app!.swagger() as { paths?: Record<string, Record<string, OpenApiOp>> };
  for (const [url, ops] of Object.entries(doc.paths ?? {})) {
    for (const [method, op] of Object.entries(ops)) {
      const key = `${method.toUpperCase()} ${url}`;
      fieldsOf.set(key, fieldNames(op));
      const body = Object.values(op.requestBody?.content ?? {})[0]?.schema;
      const params = op.parameters ?? [];
      const query: JsonSchema | undefined = params.length
        ? { type: 'object', properties: Object.fromEntries(params.map((p) => [p.name, p.schema ?? {}])), required: params.filter((p) => p.required).map((p) => p.name) }
        : undefined;
      schemaOf.set(key, { ...(body ? { body } : {}), ...(query ? { query } : {}) });
    }
  }
  const rows = await s.database.db.select().from(sites).where(and(eq(sites.projectId, 1), eq(sites.env, 'PRO')));
  for (const u of DEMO_USERS) {
    const m = u.member;
    const no = m && m.sites !== 'all' && m.sites[0] === 'b' ? '02' : '01';
    siteOf.set(u.account, rows.find((r) => r.siteNo === no)?.id ?? 1);
  }
  for (const u of DEMO_USERS) tokens.set(u.account, await s.api.login(u.account));
  // a server start and seven logins (scrypt): over a minute when the two cores run other test files and OCR
}, 180_000);
afterAll(async () => {
  await s?.stop();
});

interface OpenApiOp {
  parameters?: { name: string; required?: boolean; schema?: JsonSchema }[];
  requestBody?: { content?: Record<string, { schema?: JsonSchema }> };
}
interface JsonSchema {
  type?: string;
  enum?: unknown[];
  minimum?: number;
  maximum?: number;
  maxLength?: number;
  pattern?: string;
  required?: string[];
  properties?: Record<string, JsonSchema>;
  items?: JsonSchema;
  anyOf?: JsonSchema[];
  allOf?: JsonSchema[];
}

function fieldNames(op: OpenApiOp): string[] {
  const out = new Set<string>((op.parameters ?? []).map((p) => p.name));
  const walk = (sc: JsonSchema | undefined, depth: number) => {
    if (!sc || depth > 4) return;
    for (const [k, v] of Object.entries(sc.properties ?? {})) {
      out.add(k);
      walk(v, depth + 1);
    }
    walk(sc.items, depth + 1);
    for (const x of [...(sc.anyOf ?? []), ...(sc.allOf ?? [])]) walk(x, depth + 1);
  };
  for (const c of Object.values(op.requestBody?.content ?? {})) walk(c.schema, 0);
  return [...out];
}

// ---- values -------------------------------------------------------------------------------------------------

/** JSON text sent as is (numbers JSON.stringify cannot write, deep nesting). */
class Raw {
  constructor(readonly json: string) {}
}
type Val = string | number | boolean | null | Raw | Val[] | { [k: string]: Val };

const INT4 = 2_147_483_647;
const deep = fc.integer({ min: 20, max: 20_000 }).chain((n) =>
  fc.constantFrom(new Raw('['.repeat(n) + ']'.repeat(n)), new Raw('{"a":'.repeat(n) + '1' + '}'.repeat(n)), new Raw('['.repeat(n) + '"x"' + ']'.repeat(n))),
);
const hugeInt = fc.oneof(
  fc.constantFrom<Val>(INT4 + 1, -INT4 - 2, 2 ** 53 + 2, -(2 ** 63), 1e308, new Raw('1e400'), new Raw('-1e400'), new Raw('123456789012345678901234567890'), -0, 0, -1),
  fc.constantFrom<Val>(String(INT4 + 1), '9223372036854775808', '99999999999999999999999', '-2147483649'),
  fc.bigInt({ min: BigInt(INT4) + 1n, max: 10n ** 30n }).map((b) => new Raw(b.toString())),
);
const nanish = fc.constantFrom<Val>('NaN', 'Infinity', '-Infinity', '1e3', '0x10', '0b1', '0o7', ' 1', '1 ', '1.5', '1.0', '+1', '-0', '', ' ', 'null', 'undefined', 'true', '１', '1,2', '[1]', '{}', 1.5, -1.5, 0.1);
const bools = fc.constantFrom<Val>(true, false, 'true', 'false', null);
const nul = fc.oneof(
  fc.constantFrom<Val>('\u0000', 'a\u0000b', 'admin\u0000', '1\u0000', '2026-01-01\u0000'),
  fc.string({ maxLength: 8 }).map((x) => `${x}\u0000${x}`),
);
const badDate = fc.constantFrom<Val>(
  '2026-02-31', '0000-01-01', '9999-12-31', '2026-13-01', '2026-00-10', '2026-1-1', '20260101', '2026-02-29', '1899-12-31',
  '2026-02-31T10:00:00Z', '2026-02-28T25:61:00Z', '+275760-09-13', '-000001-01-01', '2026-02-28 24:00:00', 'yesterday', '0',
);
const longStr = fc.integer({ min: 1_000, max: 200_000 }).map((n) => 'x'.repeat(n));
const protoKeys = fc.constantFrom<Val>(
  new Raw('{"__proto__":{"polluted":1,"isAdmin":true}}'),
  new Raw('{"constructor":{"prototype":{"polluted":1}}}'),
  new Raw('{"__proto__":null}'),
  new Raw('{"toString":1,"hasOwnProperty":"x","valueOf":[]}'),
);
const arraysForScalars = fc.oneof(fc.constantFrom<Val>([], [[]], [{}], [1, 2], ['a', 'b'], [null], [true]), fc.array(fc.integer(), { maxLength: 3 }));
const plausible = fc.oneof(
  fc.integer({ min: 1, max: 6 }),
  fc.integer({ min: 1, max: 6 }).map(String),
  fc.constantFrom<Val>('abc', '2026-01-15', '2026-01-15 10:00:00', 'PRO', 'zh_CN', 'a'.repeat(64), '01-001', 50, '50'),
  fc.string({ maxLength: 12 }),
);
const bad: fc.Arbitrary<Val> = fc.oneof(deep, hugeInt, nanish, bools, nul, badDate, longStr, protoKeys, arraysForScalars, fc.string({ unit: 'grapheme', maxLength: 20 }), fc.double(), fc.dictionary(fc.string({ maxLength: 5 }), fc.oneof(hugeInt, nul, nanish), { maxKeys: 3 }));
const value: fc.Arbitrary<Val> = fc.oneof({ arbitrary: plausible, weight: 2 }, { arbitrary: bad, weight: 3 });

function toJson(v: Val): string {
  if (v instanceof Raw) return v.json;
  if (Array.isArray(v)) return `[${v.map(toJson).join(',')}]`;
  if (v && typeof v === 'object') return `{${Object.entries(v).map(([k, x]) => `${JSON.stringify(k)}:${toJson(x)}`).join(',')}}`;
  if (typeof v === 'number' && !Number.isFinite(v)) return 'null';
  return JSON.stringify(v);
}

/** qs-style pairs: arrays repeat the key, objects use brackets; Raw JSON goes in as text. */
function toForm(key: string, v: Val, out: string[], depth = 0): void {
  const enc = encodeURIComponent;
  if (depth > 40) return;
  if (v instanceof Raw) out.push(`${enc(key)}=${enc(v.json.slice(0, 5_000))}`);
  else if (Array.isArray(v)) for (const x of v) toForm(key, x, out, depth + 1);
  else if (v && typeof v === 'object') for (const [k, x] of Object.entries(v)) toForm(`${key}[${k}]`, x, out, depth + 1);
  else out.push(`${enc(key)}=${enc(v === null ? '' : String(v))}`);
}

/** form bodies and queries that only make sense as text */
const formOnly = fc.oneof(
  fc.integer({ min: 10, max: 5_000 }).map((n) => `a${'[b]'.repeat(n)}=1`),
  fc.integer({ min: 1_001, max: 20_000 }).map((n) => 'x=1&'.repeat(n)),
  fc.integer({ min: 21, max: 1_000_000 }).map((n) => `id[${n}]=1&ids[${n}]=2`),
  fc.constantFrom('id[]=1&id[]=2', 'id[a]=1', '__proto__[x]=1', 'constructor[prototype][x]=1', 'id=%00', 'id=%E0%A4%A', '%', 'a=%zz', '=1', '&&&', 'ptsId=1&ptsId=2'),
);

interface Req {
  route: RegisteredRoute;
  caller: string | null;
  headers: Record<string, string>;
  query: string;
  body: { kind: 'none' } | { kind: 'json'; text: string } | { kind: 'form'; text: string } | { kind: 'raw'; text: string; type: string };
}

const headerText = fc.string({ unit: fc.integer({ min: 0x20, max: 0x7e }).map((c) => String.fromCharCode(c)), maxLength: 24 });
const idHeader = fc.oneof(
  fc.constantFrom('1', '2', '3', '2147483647', '2147483648', '-1', '0', 'true', 'false', '1e3', '0x10', '1.5', 'NaN', 'Infinity', '99999999999999999999', '1,2', ''),
  headerText,
);

function requestArb(routes: RegisteredRoute[]): fc.Arbitrary<Req> {
  return fc
    .record({
      route: fc.constantFrom(...routes),
      caller: fc.oneof(fc.constant(null), fc.constantFrom(...DEMO_USERS.map((u) => u.account))),
      tokenKind: fc.constantFrom('own', 'own', 'own', 'junk', 'none'),
      junkToken: fc.oneof(headerText, fc.constantFrom('Bearer x', 'x'.repeat(4_000))),
      proId: fc.option(idHeader, { nil: undefined }),
      proSiteId: fc.option(idHeader, { nil: undefined }),
      orgId: fc.option(idHeader, { nil: undefined }),
      proType: fc.option(fc.oneof(fc.constantFrom('PRO', 'UAT', 'DEV', 'pro', 'xx', ''), headerText), { nil: undefined }),
      language: fc.option(fc.oneof(fc.constantFrom('zh_CN', 'en_US', 'en', 'zh-CN', 'fr'), headerText), { nil: undefined }),
      bodyKind: fc.constantFrom('json', 'json', 'form', 'form', 'none', 'raw'),
      fieldPicks: fc.array(fc.nat(), { maxLength: 6 }),
      extraKeys: fc.array(fc.constantFrom('__proto__', 'constructor', 'prototype', 'toString', 'hasOwnProperty', ...COMMON_FIELDS), { maxLength: 2 }),
      values: fc.array(value, { minLength: 8, maxLength: 8 }),
      queryValues: fc.array(value, { minLength: 4, maxLength: 4 }),
      topLevel: fc.oneof(fc.constant<Val | undefined>(undefined), fc.constant<Val | undefined>(undefined), bad),
      formExtra: fc.option(formOnly, { nil: undefined }),
      raw: fc.constantFrom(
        { text: '{nope', type: 'application/json' },
        { text: '{"a":1,}', type: 'application/json' },
        { text: '', type: 'application/json' },
        { text: 'null', type: 'application/json' },
        { text: '"x"', type: 'application/json' },
        { text: '<a/>', type: 'text/xml' },
        { text: '--x\r\nContent-Disposition: form-data; name="a"\r\n\r\n1\r\n--x--\r\n', type: 'multipart/form-data; boundary=x' },
        { text: 'garbage', type: 'multipart/form-data' },
        { text: 'a=1', type: 'application/x-www-form-urlencoded; charset=latin1' },
        { text: '{"resourceSpans":[{"scopeSpans":1}]}', type: 'application/json' },
        { text: '{"resourceSpans":[{"scopeSpans":[null,{"spans":5},{"spans":[null]}]}]}', type: 'application/json' },
        { text: '{"resourceSpans":[null,1,"x"]}', type: 'application/json' },
      ),
    })
    .map((g): Req => {
      const key = `${g.route.method} ${g.route.url}`;
      const names = [...(fieldsOf.get(key) ?? []), ...COMMON_FIELDS];
      const picked = [...new Set([...g.fieldPicks.map((i) => names[i % names.length]!), ...g.extraKeys])];
      const entries = picked.map((k, i): [string, Val] => [k, g.values[i % g.values.length]!]);
      const headers: Record<string, string> = {};
      const own = g.caller ? tokens.get(g.caller) : null;
      if (g.tokenKind === 'own' && own) headers.token = own;
      else if (g.tokenKind === 'junk') headers.token = g.junkToken;
      for (const h of ['proId', 'proSiteId', 'orgId', 'proType', 'language'] as const) if (g[h] !== undefined) headers[h] = g[h];
      const qPairs: string[] = [];
      for (let i = 0; i < Math.min(entries.length, 3); i++) toForm(entries[i]![0], g.queryValues[i]!, qPairs);
      if (g.formExtra && g.route.method === 'GET') qPairs.push(g.formExtra);
      let body: Req['body'] = { kind: 'none' };
      if (g.route.method !== 'GET') {
        if (g.bodyKind === 'json') body = { kind: 'json', text: g.topLevel !== undefined ? toJson(g.topLevel) : toJson(Object.fromEntries(entries)) };
        else if (g.bodyKind === 'form') {
          const pairs: string[] = [];
          for (const [k, v] of entries) toForm(k, v, pairs);
          if (g.formExtra) pairs.push(g.formExtra);
          body = { kind: 'form', text: pairs.join('&') };
        } else if (g.bodyKind === 'raw') body = { kind: 'raw', ...g.raw };
      }
      return { route: g.route, caller: g.caller, headers, query: qPairs.join('&'), body };
    });
}

// ---- plausible requests with one bad field -------------------------------------------------------------

/** A value the schema (OpenAPI, from the route's zod schema) would likely take, to get past validation. */
function plausibleOf(sc: JsonSchema | undefined, name: string, depth = 0): fc.Arbitrary<Val> {
  if (!sc || depth > 5) return plausible;
  if (sc.enum?.length) return fc.constantFrom(...(sc.enum as Val[]));
  if (sc.anyOf?.length) return fc.oneof(...sc.anyOf.map((x) => plausibleOf(x, name, depth + 1)));
  switch (sc.type ?? 'string') {
    case 'integer':
    case 'number': {
      const lo = Math.max(sc.minimum ?? 0, -3);
      const hi = Math.max(lo, Math.min(sc.maximum ?? 6, 6));
      return fc.integer({ min: lo, max: hi }).chain((n) => fc.constantFrom<Val>(n, String(n)));
    }
    case 'boolean':
      return fc.boolean();
    case 'array':
      return fc.array(plausibleOf(sc.items, name, depth + 1), { maxLength: 2 });
    case 'object': {
      const props = Object.entries(sc.properties ?? {});
      if (!props.length) return fc.constant({});
      return fc.record(Object.fromEntries(props.map(([k, v]) => [k, plausibleOf(v, k, depth + 1)])), { requiredKeys: (sc.required ?? []).filter((k) => sc.properties?.[k]) });
    }
    default: {
      if (/date$/i.test(name) || name === 'from' || name === 'to') return fc.constantFrom<Val>('2026-01-15', '2026-03-01', '2024-02-29');
      if (/time$/i.test(name)) return fc.constantFrom<Val>('2026-01-15T08:00:00Z', '2026-01-15');
      const max = sc.maxLength ?? 20;
      return fc.constantFrom<Val>('A1', 'abc', 'ZS', 'x-1', '01-001', 'PRO').map((x) => (typeof x === 'string' ? x.slice(0, Math.max(1, max)) : x));
    }
  }
}

/** Values just past what the schema says, and the usual bad ones. */
function badFor(sc: JsonSchema | undefined): fc.Arbitrary<Val> {
  const edges: Val[] = [];
  if (sc?.maxLength !== undefined) edges.push('x'.repeat(sc.maxLength), 'x'.repeat(sc.maxLength + 1), '字'.repeat(sc.maxLength), '😀'.repeat(sc.maxLength));
  if (sc?.maximum !== undefined) edges.push(sc.maximum, sc.maximum + 1, String(sc.maximum + 1));
  if (sc?.minimum !== undefined) edges.push(sc.minimum, sc.minimum - 1);
  if (sc?.type === 'string' && sc.maxLength === undefined) edges.push('x'.repeat(300), 'x'.repeat(70_000));
  return edges.length ? fc.oneof({ arbitrary: fc.constantFrom(...edges), weight: 2 }, { arbitrary: bad, weight: 3 }) : bad;
}

/** Sets the value at one path of a plausible object (top level or one level down). */
function withBad(base: Val, sc: JsonSchema | undefined, pick: number, badValue: (sc: JsonSchema | undefined) => Val): Val {
  if (!base || typeof base !== 'object' || base instanceof Raw || Array.isArray(base)) return base;
  const keys = Object.keys(sc?.properties ?? {});
  if (!keys.length) return base;
  const k = keys[pick % keys.length]!;
  const sub = sc?.properties?.[k];
  const cur = base[k];
  // one level down into an object or the first item of a list, half of the time
  if (pick % 2 === 1 && cur && typeof cur === 'object' && !(cur instanceof Raw)) {
    if (Array.isArray(cur) && cur.length) return { ...base, [k]: [withBad(cur[0]!, sub?.items, pick >> 1, badValue), ...cur.slice(1)] };
    if (!Array.isArray(cur)) return { ...base, [k]: withBad(cur, sub, pick >> 1, badValue) };
  }
  return { ...base, [k]: badValue(sub) };
}

function oneBadArb(routes: RegisteredRoute[]): fc.Arbitrary<Req> {
  return fc
    .record({
      route: fc.constantFrom(...routes),
      caller: fc.constantFrom(...DEMO_USERS.map((u) => u.account)),
      proType: fc.constantFrom('PRO', 'PRO', 'UAT', 'DEV'),
      withSite: fc.boolean(),
      language: fc.constantFrom('zh_CN', 'en_US', undefined),
      asJson: fc.boolean(),
      pick: fc.nat(),
      where: fc.constantFrom('body', 'body', 'query', 'none'),
    })
    .chain((g) => {
      const sch = schemaOf.get(`${g.route.method} ${g.route.url}`) ?? {};
      const bodySchema = sch.body;
      const querySchema = sch.query;
      const target = g.where === 'query' ? querySchema : bodySchema;
      const keys = Object.keys(target?.properties ?? {});
      return fc
        .record({
          body: bodySchema ? plausibleOf(bodySchema, 'body') : fc.constant<Val>({}),
          query: querySchema ? plausibleOf(querySchema, 'query') : fc.constant<Val>({}),
          // the bad value for the field `pick` names (withBad picks the same one at the top level)
          badValue: badFor(keys.length ? target?.properties?.[keys[g.pick % keys.length]!] : undefined),
        })
        .map((v): Req => {
          let body = v.body;
          let query = v.query;
          if (g.where === 'body') body = withBad(body, bodySchema, g.pick, () => v.badValue);
          else if (g.where === 'query') query = withBad(query, querySchema, g.pick, () => v.badValue);
          const headers: Record<string, string> = { proId: '1', proType: g.proType };
          const own = tokens.get(g.caller);
          if (own) headers.token = own;
          if (g.withSite) headers.proSiteId = String(siteOf.get(g.caller) ?? 1);
          if (g.language) headers.language = g.language;
          const qPairs: string[] = [];
          if (query && typeof query === 'object' && !(query instanceof Raw) && !Array.isArray(query)) for (const [k, x] of Object.entries(query)) toForm(k, x, qPairs);
          let b: Req['body'] = { kind: 'none' };
          if (g.route.method !== 'GET' && bodySchema) {
            if (g.asJson) b = { kind: 'json', text: toJson(body) };
            else {
              const pairs: string[] = [];
              if (body && typeof body === 'object' && !(body instanceof Raw) && !Array.isArray(body)) for (const [k, x] of Object.entries(body)) toForm(k, x, pairs);
              b = { kind: 'form', text: pairs.join('&') };
            }
          }
          return { route: g.route, caller: g.caller, headers, query: qPairs.join('&'), body: b };
        });
    });
}

// ---- sending and checking -----------------------------------------------------------------------------------

const ENGLISH_LEAKS = /Invalid input|Expected |expected |Unexpected |in JSON at|Too (big|small)|Unrecognized key/;

async function send(r: Req) {
  const headers = { ...r.headers };
  let payload: string | undefined;
  if (r.body.kind === 'json') {
    headers['content-type'] = 'application/json';
    payload = r.body.text;
  } else if (r.body.kind === 'form') {
    headers['content-type'] = 'application/x-www-form-urlencoded';
    payload = r.body.text;
  } else if (r.body.kind === 'raw') {
    headers['content-type'] = r.body.type;
    payload = r.body.text;
  }
  const url = r.route.url + (r.query ? `?${r.query}` : '');
  return s.app!.inject({ method: r.route.method as 'GET', url, headers, ...(payload !== undefined ? { payload } : {}) });
}

/** What is wrong with an answer, or null. */
function problemWith(r: Req, status: number, text: string): string | null {
  if (status >= 500) return `answered ${status}`;
  if (status < 400) return null;
  let b: Record<string, unknown>;
  try {
    b = JSON.parse(text) as Record<string, unknown>;
  } catch {
    return `${status} without a JSON body`;
  }
  if (b.code !== status || b.status !== '0' || typeof b.message !== 'string' || !b.message || typeof b.errorCode !== 'string' || typeof b.requestId !== 'string') {
    return `${status} not the failure envelope`;
  }
  const lang = r.headers.language;
  const zh = lang === undefined || !/^en/i.test(lang);
  if (zh && ['VALIDATION', 'BAD_JSON'].includes(b.errorCode)) {
    const texts = [b.message, ...((b.detail as { message: string }[] | undefined) ?? []).map((d) => d.message)];
    if (texts.some((t) => ENGLISH_LEAKS.test(t))) return `${b.errorCode} in English for a zh_CN caller`;
  }
  return null;
}

function describeReq(r: Req): string {
  const cut = (x: string) => (x.length > 300 ? `${x.slice(0, 300)}…(${x.length})` : x);
  return `${r.route.method} ${r.route.url} as ${r.caller ?? 'anonymous'} headers=${cut(JSON.stringify(r.headers))} query=${cut(r.query)} body=${r.body.kind}:${cut('text' in r.body ? r.body.text : '')}`;
}

describe('fuzzing every route', () => {
  it(`never answers 5xx, and answers every 4xx with the failure envelope (${RUNS} requests)`, async () => {
    const routes = s.routes;
    expect(routes.length).toBeGreaterThan(100);
    const found = new Map<string, { count: number; example: string; body: string }>();
    let sent = 0;
    let fiveXX = 0;
    const slowest = new Map<string, { ms: number; n: number; total: number }>();
    await fc.assert(
      fc.asyncProperty(fc.oneof(requestArb(routes), oneBadArb(routes)), async (r) => {
        const t0 = performance.now();
        const res = await send(r);
        const ms = performance.now() - t0;
        const slow = slowest.get(r.route.url) ?? { ms: 0, n: 0, total: 0 };
        slowest.set(r.route.url, { ms: Math.max(slow.ms, ms), n: slow.n + 1, total: slow.total + ms });
        sent++;
        if (res.statusCode >= 500) fiveXX++;
        const p = problemWith(r, res.statusCode, res.body);
        if (p) {
          const key = `${r.route.method} ${r.route.url}: ${p}`;
          const f = found.get(key);
          if (f) f.count++;
          else found.set(key, { count: 1, example: describeReq(r), body: res.body.slice(0, 400) });
        }
        // a session ended by the fuzz (logout, a disabled user): log that user in again, or carry on without
        if (r.caller && r.headers.token === tokens.get(r.caller) && (res.statusCode === 401 || r.route.url.endsWith('/logout'))) {
          tokens.set(r.caller, await s.api.login(r.caller).catch(() => null));
        }
      }),
      { numRuns: RUNS, ...(SEED !== undefined ? { seed: SEED } : {}), endOnFailure: true },
    );
    const report = [...found].map(([k, f]) => `${k} ×${f.count}\n    e.g. ${f.example}\n    → ${f.body}`);
    console.info(`fuzz: ${sent} requests over ${routes.length} routes: ${fiveXX} answered 5xx; ${found.size} kinds of problem`);
    if (process.env.FUZZ_PROFILE) {
      const top = [...slowest].sort((a, b) => b[1].total - a[1].total).slice(0, 10);
      console.info(top.map(([u, x]) => `${u}: ${x.n} requests, ${Math.round(x.total)} ms in all, slowest ${Math.round(x.ms)} ms`).join('\n'));
    }
    expect(report, report.join('\n')).toEqual([]);
  }, 600_000);
});

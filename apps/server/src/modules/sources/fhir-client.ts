/**
 * A FHIR R4 REST client for extraction (issue 11 item 1): timeouts (AbortController), bounded retries with
 * exponential back-off on 429/5xx/network errors, a size limit per response (counted while streaming), malformed
 * JSON and the server's OperationOutcome turned into readable, translated reasons, `next` links followed up to a
 * limit (an endless chain stops with an error), and SMART Backend Services (client-credentials with a signed
 * RS384/ES384 client assertion, token cached until it expires) or a bearer token.
 */
import { createPrivateKey, randomUUID, sign, type KeyObject } from 'node:crypto';
import { medicationKey } from '@esource/interop';
import { FHIR_DATE_PARAM, type FhirConnectionConfig, type FhirSearchType } from '@esource/shared';

/** A failure with a message key (source.error.*) and its parameters: stored on the task, shown translated. */
export class SourceError extends Error {
  constructor(
    readonly key: string,
    readonly params: Record<string, string | number> = {},
    /** retrying may help (timeouts, 429, 5xx, network) */
    readonly transient = false,
  ) {
    super(`${key} ${JSON.stringify(params)}`);
  }
}

export interface FhirClientOptions {
  config: FhirConnectionConfig;
  /** bearer token or SMART private key PEM */
  secret: string | null;
  /** attempts per request (default 3) */
  attempts?: number;
  /** first back-off delay in ms (default 500; doubled per attempt, at most 8 s) */
  backoffMs?: number;
  /** largest response body in bytes (default 20 MB) */
  maxBytes?: number;
}

type Json = Record<string, unknown>;

/** The readable text of an OperationOutcome (issue[].diagnostics / details.text), or null. */
export function outcomeText(body: unknown): string | null {
  if (!body || typeof body !== 'object' || (body as Json).resourceType !== 'OperationOutcome') return null;
  const issues = Array.isArray((body as Json).issue) ? ((body as Json).issue as Json[]) : [];
  const parts = issues
    .map((i) => {
      const details = i.details as Json | undefined;
      return (typeof i.diagnostics === 'string' && i.diagnostics) || (typeof details?.text === 'string' && details.text) || (typeof i.code === 'string' ? i.code : '');
    })
    .filter(Boolean);
  return parts.length ? parts.join('; ').slice(0, 500) : null;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function b64url(b: Buffer | string): string {
  return Buffer.from(b).toString('base64url');
}

/** Signs a SMART Backend Services client assertion (RFC 7523) with RS384 or ES384. */
export function signClientAssertion(opts: { clientId: string; tokenUrl: string; keyId?: string | undefined; algorithm: 'RS384' | 'ES384'; privateKey: KeyObject | string }): string {
  const now = Math.floor(Date.now() / 1000);
  const header = { alg: opts.algorithm, typ: 'JWT', ...(opts.keyId ? { kid: opts.keyId } : {}) };
  const payload = { iss: opts.clientId, sub: opts.clientId, aud: opts.tokenUrl, exp: now + 240, iat: now, jti: randomUUID() };
  const input = `${b64url(JSON.stringify(header))}.${b64url(JSON.stringify(payload))}`;
  const key = typeof opts.privateKey === 'string' ? createPrivateKey(opts.privateKey) : opts.privateKey;
  const sig = sign('sha384', Buffer.from(input), opts.algorithm === 'ES384' ? { key, dsaEncoding: 'ieee-p1363' } : key);
  return `${input}.${b64url(sig)}`;
}

export interface SearchPage {
  resources: Json[];
  /** raw JSON text of each resource is not kept: the converter re-serialises canonically */
  page: number;
}

export class FhirClient {
  private token: { value: string; expiresAt: number } | null = null;
  private readonly base: string;
  requests = 0;

  constructor(private readonly opts: FhirClientOptions) {
    this.base = opts.config.baseUrl.replace(/\/+$/, '');
  }

  private get timeoutMs() {
    return this.opts.config.timeoutMs;
  }

  private async authHeader(): Promise<Record<string, string>> {
    const c = this.opts.config;
    if (c.auth === 'bearer' && this.opts.secret) return { authorization: `Bearer ${this.opts.secret}` };
    if (c.auth !== 'smart') return {};
    if (this.token && this.token.expiresAt > Date.now() + 30_000) return { authorization: `Bearer ${this.token.value}` };
    if (!this.opts.secret || !c.tokenUrl || !c.clientId || !c.algorithm) throw new SourceError('source.error.auth', { detail: 'SMART configuration incomplete' });
    let assertion: string;
    try {
      assertion = signClientAssertion({ clientId: c.clientId, tokenUrl: c.tokenUrl, keyId: c.keyId, algorithm: c.algorithm, privateKey: this.opts.secret });
    } catch (err) {
      throw new SourceError('source.error.auth', { detail: `private key: ${(err as Error).message}` });
    }
    const form = new URLSearchParams({
      grant_type: 'client_credentials',
      client_assertion_type: 'urn:ietf:params:oauth:client-assertion-type:jwt-bearer',
      client_assertion: assertion,
      ...(c.scope ? { scope: c.scope } : {}),
    });
    const body = await this.request(c.tokenUrl, { method: 'POST', body: form.toString(), headers: { 'content-type': 'application/x-www-form-urlencoded' }, auth: false });
    const token = body as { access_token?: unknown; expires_in?: unknown };
    if (typeof token.access_token !== 'string') throw new SourceError('source.error.auth', { detail: 'no access_token in the token response' });
    const ttl = typeof token.expires_in === 'number' ? token.expires_in : 300;
    this.token = { value: token.access_token, expiresAt: Date.now() + ttl * 1000 };
    return { authorization: `Bearer ${token.access_token}` };
  }

  /** One HTTP request with timeout, size limit and bounded retries; returns the parsed JSON body. */
  async request(url: string, init: { method?: string; body?: string; headers?: Record<string, string>; auth?: boolean } = {}): Promise<unknown> {
    const attempts = this.opts.attempts ?? 3;
    let last: SourceError | null = null;
    for (let attempt = 0; attempt < attempts; attempt++) {
      if (attempt > 0) await sleep(Math.min((this.opts.backoffMs ?? 500) * 2 ** (attempt - 1), 8000));
      try {
        return await this.once(url, init);
      } catch (err) {
        if (!(err instanceof SourceError) || !err.transient) throw err;
        last = err;
      }
    }
    throw last!;
  }

  private async once(url: string, init: { method?: string; body?: string; headers?: Record<string, string>; auth?: boolean }): Promise<unknown> {
    const headers: Record<string, string> = { accept: 'application/fhir+json, application/json', ...(init.headers ?? {}) };
    if (init.auth !== false) Object.assign(headers, await this.authHeader());
    const ac = new AbortController();
    const timer = setTimeout(() => ac.abort(), this.timeoutMs);
    const maxBytes = this.opts.maxBytes ?? 20 * 1024 * 1024;
    this.requests++;
    try {
      let res: Response;
      try {
        res = await fetch(url, { method: init.method ?? 'GET', headers, body: init.body, signal: ac.signal, redirect: 'follow' });
      } catch (err) {
        if (ac.signal.aborted) throw new SourceError('source.error.timeout', { ms: this.timeoutMs }, true);
        const cause = (err as { cause?: { code?: string; message?: string } }).cause;
        throw new SourceError('source.error.network', { detail: cause?.code ?? cause?.message ?? (err as Error).message }, true);
      }
      const declared = Number(res.headers.get('content-length') ?? 0);
      if (declared > maxBytes) {
        await res.body?.cancel();
        throw new SourceError('source.error.tooLarge', { mb: Math.round(maxBytes / 1048576) });
      }
      const chunks: Uint8Array[] = [];
      let size = 0;
      try {
        if (res.body) {
          for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
            size += chunk.length;
            if (size > maxBytes) {
              ac.abort();
              throw new SourceError('source.error.tooLarge', { mb: Math.round(maxBytes / 1048576) });
            }
            chunks.push(chunk);
          }
        }
      } catch (err) {
        if (err instanceof SourceError) throw err;
        if (ac.signal.aborted) throw new SourceError('source.error.timeout', { ms: this.timeoutMs }, true);
        throw new SourceError('source.error.network', { detail: (err as Error).message }, true);
      }
      const text = Buffer.concat(chunks).toString('utf8');
      let body: unknown = undefined;
      let parseError: string | null = null;
      if (text.trim() !== '') {
        try {
          body = JSON.parse(text);
        } catch (err) {
          parseError = (err as Error).message.slice(0, 200);
        }
      }
      if (!res.ok) {
        const outcome = outcomeText(body);
        const transient = res.status === 429 || res.status >= 500;
        throw new SourceError('source.error.http', { status: res.status, outcome: outcome ? `: ${outcome}` : '' }, transient);
      }
      if (parseError !== null) throw new SourceError('source.error.malformedJson', { detail: parseError });
      if (body === undefined || typeof body !== 'object' || body === null) throw new SourceError('source.error.malformedJson', { detail: 'empty or not an object' });
      return body;
    } finally {
      clearTimeout(timer);
    }
  }

  async metadata(): Promise<{ fhirVersion: string | null; software: string | null }> {
    const cs = (await this.request(`${this.base}/metadata`)) as Json;
    const software = cs.software as { name?: string; version?: string } | undefined;
    return {
      fhirVersion: typeof cs.fhirVersion === 'string' ? cs.fhirVersion : null,
      software: software?.name ? `${software.name}${software.version ? ` ${software.version}` : ''}` : null,
    };
  }

  /** Patients carrying any of these identifiers (each looked up as system|value, or value alone), deduplicated by id. */
  async findPatients(identifiers: { system?: string | undefined; value: string }[]): Promise<Json[]> {
    const byId = new Map<string, Json>();
    for (const i of identifiers) {
      const token = i.system ? `${i.system}|${i.value}` : i.value;
      await this.search(`${this.base}/Patient?identifier=${encodeURIComponent(token)}`, async (resources) => {
        for (const r of resources) if (r.resourceType === 'Patient' && typeof r.id === 'string') byId.set(r.id, r);
      });
    }
    return [...byId.values()];
  }

  /**
   * The Medication resources of these ids ('Medication/<id>'), by `_id` search, 50 at a time. Best effort: a medication
   * the server does not return, or a search it refuses (no `_id` search, no Medication endpoint), is left out and its
   * prescription keeps the reference's display; the extraction itself goes on.
   */
  async readMedications(keys: readonly string[]): Promise<Json[]> {
    // only well-formed ids of this server's Medications: never a URL taken from the data
    const ids = keys.flatMap((k) => medicationKey(k)?.slice('Medication/'.length) ?? []);
    const out: Json[] = [];
    for (let i = 0; i < ids.length; i += 50) {
      const slice = ids.slice(i, i + 50);
      const p = new URLSearchParams({ _id: slice.join(','), _count: String(slice.length) });
      try {
        await this.search(`${this.base}/Medication?${p.toString()}`, async (resources) => {
          for (const r of resources) if (r.resourceType === 'Medication') out.push(r);
        });
      } catch (err) {
        if (!(err instanceof SourceError)) throw err;
      }
    }
    return out;
  }

  /** The search URL of a resource type for a patient and date window. */
  searchUrl(type: FhirSearchType, patientId: string, from: string | null, to: string | null): string {
    const p = new URLSearchParams({ patient: `Patient/${patientId}`, _count: String(this.opts.config.pageSize) });
    const dateParam = FHIR_DATE_PARAM[type];
    if (from) p.append(dateParam, `ge${from}`);
    if (to) p.append(dateParam, `le${to}`);
    return `${this.base}/${type}?${p.toString()}`;
  }

  /**
   * Runs a search, following `link[rel=next]` up to pageLimit pages; each page's resources are handed to onPage
   * (so a caller can store each page in its own transaction). Returns the pages read.
   */
  async search(url: string, onPage: (resources: Json[], page: number) => Promise<void>): Promise<number> {
    let next: string | null = url;
    let page = 0;
    const seen = new Set<string>();
    while (next) {
      if (page >= this.opts.config.pageLimit || seen.has(next)) throw new SourceError('source.error.endlessNext', { pages: page });
      seen.add(next);
      const bundle = (await this.request(next)) as Json;
      if (bundle.resourceType !== 'Bundle') throw new SourceError('source.error.malformedJson', { detail: `expected a Bundle, got ${String(bundle.resourceType)}` });
      page++;
      const entries = Array.isArray(bundle.entry) ? (bundle.entry as Json[]) : [];
      const resources = entries
        .filter((e) => (e.search as Json | undefined)?.mode !== 'outcome')
        .map((e) => e.resource)
        .filter((r): r is Json => !!r && typeof r === 'object');
      await onPage(resources, page);
      const links = Array.isArray(bundle.link) ? (bundle.link as Json[]) : [];
      const n = links.find((l) => l.relation === 'next');
      next = typeof n?.url === 'string' ? new URL(n.url, `${this.base}/`).toString() : null;
    }
    return page;
  }
}

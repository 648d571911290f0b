import { LIMITS } from '@esource/shared';

/**
 * The one HTTP client (spec §7, §8; DESIGN §8). It adds the spec's headers, form-encodes POST bodies by
 * default, trims strings, unwraps the `{code, status, data}` envelope and reports failures through the hooks
 * given to `configureApi` (notifications, the Login Expired dialog, the no-permission message). It imports
 * no feature code: the session and the UI plug themselves in.
 */

export const API_PREFIX = '/api';

export type ApiData = Record<string, unknown>;

export interface RequestOptions {
  method?: 'GET' | 'POST';
  /** query parameters (GET) or body (POST) */
  data?: ApiData;
  /** send the body as JSON instead of form-encoded */
  json?: boolean;
  /** send multipart (uploads); timeout becomes the upload timeout unless given */
  multipart?: FormData;
  timeoutMs?: number;
  /** answer is a file: resolve to a Blob; a JSON body with status "0" is still an error */
  raw?: boolean;
  /** do not show notifications (the caller handles errors itself) */
  silent?: boolean;
  /** a 401 here does not open the Login Expired dialog (spec §8: badge and logout calls) */
  ignore401?: boolean;
  signal?: AbortSignal;
  /** headers of this request only, over the session's (e.g. proSiteId of a site other than the current one) */
  headers?: Record<string, string | number>;
  /**
   * sends none of the session's headers (token, project…), only `headers`: a public page acting for someone without
   * an account (the shared form), whoever else is logged in on this browser
   */
  anonymous?: boolean;
}

export interface ErrorDetail {
  field: string;
  message: string;
}

export class ApiError extends Error {
  override name = 'ApiError';
  constructor(
    message: string,
    /** HTTP status, or the envelope's code */
    readonly code: number,
    readonly errorCode: string,
    readonly requestId: string | null = null,
    readonly detail: ErrorDetail[] = [],
  ) {
    super(message);
  }
}

export interface ApiHooks {
  /** headers from the session: token, proId, proSiteId, proType, language, product, source, orgId */
  headers: () => Record<string, string | number | null | undefined>;
  /** 'Error' notification with the body's detail or message */
  onError: (err: ApiError) => void;
  /** HTTP 401 / code 401: session expired */
  onUnauthorized: (err: ApiError) => void;
  /** HTTP 403: no-permission message */
  onForbidden: (err: ApiError) => void;
  /** translated texts the client itself needs */
  text: (key: 'timeout' | 'network' | 'badResponse') => string;
}

let hooks: ApiHooks = {
  headers: () => ({}),
  onError: () => undefined,
  onUnauthorized: () => undefined,
  onForbidden: () => undefined,
  text: (k) => k,
};

export function configureApi(h: Partial<ApiHooks>): void {
  hooks = { ...hooks, ...h };
}

/** Trims every string, deeply (spec §7: string values are trimmed). */
export function trimDeep<T>(v: T): T {
  if (typeof v === 'string') return v.trim() as T;
  if (Array.isArray(v)) return v.map((x: unknown) => trimDeep(x)) as T;
  if (v && typeof v === 'object' && !(v instanceof Blob) && !(v instanceof Date)) {
    const out: Record<string, unknown> = {};
    for (const [k, x] of Object.entries(v as Record<string, unknown>)) out[k] = trimDeep(x);
    return out as T;
  }
  return v;
}

function scalar(v: unknown): string {
  if (typeof v === 'string') return v;
  if (typeof v === 'number' || typeof v === 'boolean' || typeof v === 'bigint') return String(v);
  return JSON.stringify(v);
}

/** Form / query encoding: arrays repeat the key, null and undefined are left out, objects become JSON. */
export function encodeParams(data: ApiData | undefined): URLSearchParams {
  const p = new URLSearchParams();
  if (!data) return p;
  for (const [k, v] of Object.entries(trimDeep(data))) {
    if (v === undefined || v === null) continue;
    if (Array.isArray(v)) for (const x of v as unknown[]) p.append(k, scalar(x));
    else p.append(k, scalar(v));
  }
  return p;
}

export function buildHeaders(): Headers {
  const h = new Headers();
  for (const [k, v] of Object.entries(hooks.headers())) {
    if (v !== null && v !== undefined && v !== '') h.set(k, String(v));
  }
  return h;
}

interface Envelope {
  code?: number;
  status?: string;
  data?: unknown;
  message?: string;
  errorCode?: string;
  requestId?: string;
  detail?: ErrorDetail[];
}

function isEnvelope(v: unknown): v is Envelope {
  return typeof v === 'object' && v !== null && ('status' in v || 'code' in v);
}

function envelopeError(body: Envelope, httpStatus: number): ApiError {
  const detail = Array.isArray(body.detail) ? body.detail : [];
  const msg =
    detail.length > 0 ? detail.map((d) => d.message).join('; ') : (body.message ?? `HTTP ${httpStatus}`);
  const code = typeof body.code === 'number' && body.code !== 200 ? body.code : httpStatus;
  return new ApiError(msg, code, body.errorCode ?? 'UNKNOWN', body.requestId ?? null, detail);
}

function report(err: ApiError, opts: RequestOptions): ApiError {
  if (err.code === 401) {
    if (!opts.ignore401) hooks.onUnauthorized(err);
  } else if (err.code === 403) {
    if (!opts.silent) hooks.onForbidden(err);
  } else if (!opts.silent) {
    hooks.onError(err);
  }
  return err;
}

/** Sends a request and resolves to the envelope's data (or a Blob with `raw`). */
export async function request<T>(path: string, opts: RequestOptions = {}): Promise<T> {
  const method = opts.method ?? 'POST';
  const headers = opts.anonymous ? new Headers() : buildHeaders();
  for (const [k, v] of Object.entries(opts.headers ?? {})) headers.set(k, String(v));
  let url = `${API_PREFIX}${path.startsWith('/') ? path : `/${path}`}`;
  let body: BodyInit | undefined;
  if (method === 'GET') {
    const qs = encodeParams(opts.data).toString();
    if (qs) url += (url.includes('?') ? '&' : '?') + qs;
  } else if (opts.multipart) {
    body = opts.multipart;
  } else if (opts.json) {
    headers.set('content-type', 'application/json');
    body = JSON.stringify(trimDeep(opts.data ?? {}));
  } else {
    headers.set('content-type', 'application/x-www-form-urlencoded;charset=UTF-8');
    body = encodeParams(opts.data).toString();
  }

  const timeoutMs =
    opts.timeoutMs ?? (opts.multipart ? LIMITS.sourceUploadTimeoutMs : LIMITS.requestTimeoutMs);
  const ctl = new AbortController();
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    ctl.abort();
  }, timeoutMs);
  const onOuterAbort = () => ctl.abort();
  opts.signal?.addEventListener('abort', onOuterAbort);

  let res: Response;
  try {
    res = await fetch(url, { method, headers, body, signal: ctl.signal, credentials: 'same-origin' });
  } catch (e) {
    clearTimeout(timer);
    opts.signal?.removeEventListener('abort', onOuterAbort);
    if (opts.signal?.aborted) throw e;
    const err = timedOut
      ? new ApiError(hooks.text('timeout'), 408, 'TIMEOUT')
      : new ApiError(hooks.text('network'), 0, 'NETWORK');
    throw report(err, opts);
  }

  try {
    const type = res.headers.get('content-type') ?? '';
    const isJson = type.includes('json');
    if (opts.raw && res.ok && !isJson) return (await res.blob()) as T;

    let parsed: unknown = null;
    const text = await res.text();
    if (text) {
      try {
        parsed = JSON.parse(text);
      } catch {
        parsed = null;
      }
    }
    if (res.status === 401 || res.status === 403 || !res.ok) {
      const env: Envelope = isEnvelope(parsed) ? parsed : {};
      const err = envelopeError(env, res.status);
      // the HTTP status decides 401 / 403 handling even when the body says otherwise
      const final =
        res.status === 401 || res.status === 403
          ? new ApiError(err.message, res.status, err.errorCode, err.requestId, err.detail)
          : err;
      throw report(final, opts);
    }
    if (!isEnvelope(parsed)) {
      if (opts.raw) return new Blob([text], { type }) as T;
      throw report(new ApiError(hooks.text('badResponse'), res.status, 'BAD_RESPONSE'), opts);
    }
    // spec §8: a body with status "1" or code 200 resolves to its data; a raw-file JSON body with status "0" is an error
    if (parsed.status === '1' || (parsed.code === 200 && parsed.status !== '0')) return parsed.data as T;
    throw report(envelopeError(parsed, res.status), opts);
  } finally {
    clearTimeout(timer);
    opts.signal?.removeEventListener('abort', onOuterAbort);
  }
}

export const api = {
  get: <T>(path: string, data?: ApiData, opts: Omit<RequestOptions, 'method' | 'data'> = {}) =>
    request<T>(path, { ...opts, method: 'GET', data }),
  post: <T>(path: string, data?: ApiData, opts: Omit<RequestOptions, 'method' | 'data'> = {}) =>
    request<T>(path, { ...opts, method: 'POST', data }),
  postJson: <T>(path: string, data?: ApiData, opts: Omit<RequestOptions, 'method' | 'data' | 'json'> = {}) =>
    request<T>(path, { ...opts, method: 'POST', data, json: true }),
};

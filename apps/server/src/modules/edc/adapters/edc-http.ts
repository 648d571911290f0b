/**
 * The one HTTP call both EDC adapters make: a timeout per request (AbortController), a size limit on the answer,
 * and the EdcExchange for the EDC log with every trace of the secret removed — from the URL, the body sent and the
 * body received (a target that echoes the token must not put it into our log). Whether a status is a refusal of
 * records or a failure of the exchange is the adapter's to decide; the transport failures (no answer in time, no
 * connection) throw EdcTransportError here.
 */
import { EdcTransportError, type EdcExchange } from './adapter';

/** Request and response bodies are cut to this many characters in the EDC log. */
export const EXCHANGE_BODY_LIMIT = 4096;
const DEFAULT_TIMEOUT_MS = 30_000;
/** Largest answer read (a subject's current data or a study's metadata fits well within it). */
const MAX_RESPONSE_BYTES = 32 * 1024 * 1024;

export interface EdcHttpRequest {
  method: 'GET' | 'POST';
  url: string;
  headers?: Record<string, string>;
  body?: string;
  /** the body as it may be logged (the secret already replaced); default: `body` with the secret masked */
  logBody?: string;
}

export interface EdcHttpResponse {
  status: number;
  contentType: string;
  text: string;
  exchange: EdcExchange;
}

/** Every form in which a secret may show: itself, for "user:password" the password, and Basic's base64. */
function secretForms(secret: string): string[] {
  if (!secret) return [];
  const forms = new Set<string>([secret, Buffer.from(secret).toString('base64'), encodeURIComponent(secret)]);
  const colon = secret.indexOf(':');
  if (colon >= 0 && secret.length - colon - 1 >= 4) forms.add(secret.slice(colon + 1));
  return [...forms].filter((f) => f.length >= 4).sort((a, b) => b.length - a.length);
}

/** The text with every form of the secret replaced by ***. */
export function maskSecret(text: string, secret: string): string {
  let out = text;
  for (const f of secretForms(secret)) out = out.split(f).join('***');
  return out;
}

/** A body as kept in the EDC log: secret masked, cut to EXCHANGE_BODY_LIMIT characters. */
export function logText(text: string, secret: string): string {
  const masked = maskSecret(text, secret);
  return masked.length > EXCHANGE_BODY_LIMIT ? `${masked.slice(0, EXCHANGE_BODY_LIMIT)}… (${masked.length} characters)` : masked;
}

/**
 * Sends one request. Throws EdcTransportError 'timeout' when no complete answer came within `timeoutMs`, and
 * 'network' when the target could not be reached; any HTTP status is returned.
 */
export async function edcFetch(req: EdcHttpRequest, opts: { secret: string; timeoutMs?: number | undefined }): Promise<EdcHttpResponse> {
  const timeoutMs = opts.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const started = performance.now();
  const exchange: EdcExchange = {
    method: req.method,
    url: maskSecret(req.url, opts.secret),
    ...(req.body !== undefined ? { request: logText(req.logBody ?? req.body, opts.secret) } : {}),
    ms: 0,
  };
  const ac = new AbortController();
  const timer = setTimeout(() => ac.abort(), timeoutMs);
  const finish = () => (exchange.ms = Math.round(performance.now() - started));
  try {
    let res: Response;
    try {
      res = await fetch(req.url, { method: req.method, headers: req.headers, body: req.body, signal: ac.signal, redirect: 'manual' });
    } catch (err) {
      finish();
      if (ac.signal.aborted) throw new EdcTransportError('timeout', `no answer within ${timeoutMs} ms`, exchange);
      const cause = (err as { cause?: { code?: string; message?: string } }).cause;
      throw new EdcTransportError('network', maskSecret(cause?.code ?? cause?.message ?? (err as Error).message, opts.secret), exchange);
    }
    exchange.httpStatus = res.status;
    const chunks: Uint8Array[] = [];
    let size = 0;
    try {
      if (res.body) {
        for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
          size += chunk.length;
          if (size > MAX_RESPONSE_BYTES) {
            ac.abort();
            finish();
            throw new EdcTransportError('protocol', `answer larger than ${MAX_RESPONSE_BYTES} bytes`, exchange);
          }
          chunks.push(chunk);
        }
      }
    } catch (err) {
      if (err instanceof EdcTransportError) throw err;
      finish();
      if (ac.signal.aborted) throw new EdcTransportError('timeout', `no complete answer within ${timeoutMs} ms`, exchange);
      throw new EdcTransportError('network', maskSecret((err as Error).message, opts.secret), exchange);
    }
    const text = Buffer.concat(chunks).toString('utf8');
    finish();
    exchange.response = logText(text, opts.secret);
    return { status: res.status, contentType: res.headers.get('content-type') ?? '', text, exchange };
  } finally {
    clearTimeout(timer);
  }
}

/** The failure for a status the adapter does not handle itself: 401/403 'auth', anything else 'http'. */
export function statusError(r: EdcHttpResponse, what: string): EdcTransportError {
  const kind = r.status === 401 || r.status === 403 ? 'auth' : 'http';
  const detail = r.exchange.response ? `: ${r.exchange.response.slice(0, 300)}` : '';
  return new EdcTransportError(kind, `${what}: HTTP ${r.status}${detail}`, r.exchange);
}

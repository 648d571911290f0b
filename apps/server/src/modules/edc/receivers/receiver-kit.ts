/**
 * What the strict EDC receivers (rave-receiver.ts, redcap-receiver.ts) share: a real HTTP server on node:http, the
 * log of every request it got (method, path, headers without credentials, body with the secret masked, the status
 * it answered), and fault injection — a delay, no answer at all (the client times out; nothing is applied), HTTP
 * 500, auth refused — after a number of requests, optionally only for writes. Test-and-demo code: it runs on its
 * own port and is never part of the product's request handling.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';

/** One request as the receiver got it. */
export interface ReceivedRequest {
  seq: number;
  at: string;
  method: string;
  /** path and query */
  path: string;
  /** headers, with authorization and cookies removed */
  headers: Record<string, string>;
  /** the body with the secret masked */
  body: string;
  /** true for a request that writes data (REDCap import, Rave PostODMClinicalData) */
  write: boolean;
  /** the status answered; 0 when no answer was given (timeout fault) */
  status: number;
}

export type FaultMode = 'timeout' | 'delay' | 'http500' | 'auth';

/** A fault applied to requests after `afterRequests` matching ones were answered normally. */
export interface ReceiverFault {
  mode: FaultMode;
  /** matching requests answered normally first (counted from when the fault was set); default 0 */
  afterRequests?: number;
  /** how many matching requests the fault hits; default: every following one */
  times?: number;
  /** which requests count and are hit: 'write' (imports/posts), 'read', or 'any' (default) */
  on?: 'any' | 'write' | 'read';
  /** delay mode: milliseconds before the request is handled normally */
  delayMs?: number;
}

export interface Reply {
  status: number;
  contentType: string;
  body: string;
}

export interface ReceiverServer {
  /** http://127.0.0.1:port */
  origin: string;
  requests: ReceivedRequest[];
  /** replaces the active fault (null clears it) */
  setFault: (fault: ReceiverFault | null) => void;
  close: () => Promise<void>;
}

interface ActiveFault extends ReceiverFault {
  seen: number;
  hit: number;
}

const MAX_BODY = 8 * 1024 * 1024;
const HIDDEN_HEADERS = new Set(['authorization', 'cookie', 'proxy-authorization']);

export interface ReceiverHandlers {
  /** is this a write (for the log and for faults with on: 'write') */
  isWrite(method: string, path: string, body: string): boolean;
  handle(method: string, path: string, headers: http.IncomingHttpHeaders, body: string): Promise<Reply> | Reply;
  /** the target's answer when auth is refused by fault */
  authRefused(): Reply;
  /** the target's answer to an internal error (fault http500) */
  serverError(): Reply;
  /** removes the secret from a logged body */
  maskBody(body: string): string;
  port?: number;
  host?: string;
}

/** Starts a receiver on its own port (0 = any free one). */
export async function startReceiverServer(h: ReceiverHandlers): Promise<ReceiverServer> {
  const requests: ReceivedRequest[] = [];
  let fault: ActiveFault | null = null;
  let seq = 0;

  const faultFor = (write: boolean): ActiveFault | null => {
    const f = fault;
    if (!f) return null;
    const on = f.on ?? 'any';
    if ((on === 'write' && !write) || (on === 'read' && write)) return null;
    f.seen++;
    if (f.seen <= (f.afterRequests ?? 0)) return null;
    if (f.times !== undefined && f.hit >= f.times) return null;
    f.hit++;
    return f;
  };

  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let tooLarge = false;
    req.on('data', (c: Buffer) => {
      size += c.length;
      if (size > MAX_BODY) tooLarge = true;
      else chunks.push(c);
    });
    req.on('end', () => {
      void (async () => {
        const method = req.method ?? 'GET';
        const path = req.url ?? '/';
        const body = Buffer.concat(chunks).toString('utf8');
        const headers: Record<string, string> = {};
        for (const [k, v] of Object.entries(req.headers)) if (!HIDDEN_HEADERS.has(k) && v !== undefined) headers[k] = Array.isArray(v) ? v.join(', ') : v;
        const write = h.isWrite(method, path, body);
        const entry: ReceivedRequest = { seq: ++seq, at: new Date().toISOString(), method, path, headers, body: h.maskBody(body), write, status: 0 };
        requests.push(entry);
        const send = (r: Reply) => {
          entry.status = r.status;
          if (res.destroyed) return;
          res.writeHead(r.status, { 'content-type': r.contentType });
          res.end(r.body);
        };
        if (tooLarge) return send({ status: 413, contentType: 'text/plain', body: 'Request Entity Too Large' });
        const f = faultFor(write);
        if (f?.mode === 'timeout') return; // never answered, nothing applied; the socket closes when the client gives up
        if (f?.mode === 'http500') return send(h.serverError());
        if (f?.mode === 'auth') return send(h.authRefused());
        if (f?.mode === 'delay') await new Promise((r) => setTimeout(r, f.delayMs ?? 1000));
        try {
          send(await h.handle(method, path, req.headers, body));
        } catch (err) {
          send({ status: 500, contentType: 'text/plain', body: `receiver error: ${(err as Error).message}` });
        }
      })();
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(h.port ?? 0, h.host ?? '127.0.0.1', () => resolve());
  });
  const addr = server.address() as AddressInfo;
  return {
    origin: `http://${addr.address.includes(':') ? `[${addr.address}]` : addr.address}:${addr.port}`,
    requests,
    setFault: (f) => (fault = f ? { ...f, seen: 0, hit: 0 } : null),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** A refusal of a subject (every record) or of one item's value, with the reason the target gives. */
export interface Refusal {
  /** the subject refused (with item: only that subject's item) */
  subject?: string;
  /** the item refused (ODM ItemOID; REDCap field name) */
  item?: string;
  reason: string;
}

/** The refusal that applies to a subject's item (or to the subject when item is undefined), if any. */
export function refusalFor(refusals: readonly Refusal[], subject: string, item?: string): Refusal | undefined {
  return refusals.find((r) => (item === undefined ? r.item === undefined && r.subject === subject : r.item === item && (r.subject === undefined || r.subject === subject)));
}

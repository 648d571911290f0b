/**
 * The HL7 v2 MLLP listener (off by default: MLLP_PORT; MLLP_HOST default 127.0.0.1). Every frame is handed to the
 * intake (stored, then processed) and answered with its ACK, in order, per connection. A problem on one connection
 * (garbage bytes, an oversized frame, a client that disconnects mid-frame, a socket error, the database refusing)
 * is answered or logged there and never ends the listener. Framing: mllp-framer.ts (why not @medplum/hl7's
 * Hl7Connection is explained there and in docs/decisions.md).
 */
import net from 'node:net';
import { buildAck } from '@esource/interop';
import type { FrameProblem, Hl7Intake } from './hl7-intake';
import { CR, FS, MllpFramer, VT, type FrameEvent, type LeftOver } from './mllp-framer';

export interface MllpListenerOptions {
  port: number;
  host: string;
  /** largest frame kept whole (bytes); a larger one is refused with AR and its first maxBytes kept */
  maxBytes: number;
  /** a connection silent this long is closed (ms; 0 = never) */
  idleTimeoutMs?: number;
  log?: (msg: string) => void;
}

export function frameOf(text: string | Buffer): Buffer {
  const body = typeof text === 'string' ? Buffer.from(text, 'utf8') : text;
  return Buffer.concat([Buffer.from([VT]), body, Buffer.from([FS, CR])]);
}

export class MllpListener {
  private server: net.Server | null = null;
  private readonly sockets = new Set<net.Socket>();
  private readonly pending = new Set<Promise<void>>();
  private readonly log: (msg: string) => void;

  constructor(
    private readonly intake: Hl7Intake,
    private readonly opts: MllpListenerOptions,
  ) {
    this.log = opts.log ?? ((m) => console.warn(`[mllp] ${m}`));
  }

  /** Listens; resolves with the port (port 0 = any free port). */
  async start(): Promise<number> {
    const server = net.createServer((socket) => this.accept(socket));
    server.on('error', (err) => this.log(`listener error: ${err.message}`));
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(this.opts.port, this.opts.host, () => {
        server.off('error', reject);
        resolve();
      });
    });
    this.server = server;
    return this.port;
  }

  get port(): number {
    const a = this.server?.address();
    return typeof a === 'object' && a ? a.port : 0;
  }

  /** Stops accepting, lets the messages in hand finish (their ACKs are sent), then closes every connection. */
  async stop(): Promise<void> {
    const server = this.server;
    this.server = null;
    if (!server) return;
    const closed = new Promise<void>((resolve) => server.close(() => resolve()));
    await Promise.allSettled([...this.pending]);
    for (const s of this.sockets) s.destroy();
    await closed;
    await this.intake.drain();
  }

  private track(p: Promise<void>) {
    this.pending.add(p);
    void p.finally(() => this.pending.delete(p));
  }

  private accept(socket: net.Socket) {
    this.sockets.add(socket);
    const remote = `${socket.remoteAddress ?? '?'}:${socket.remotePort ?? '?'}`;
    const framer = new MllpFramer(this.opts.maxBytes);
    let chain: Promise<void> = Promise.resolve();
    socket.setNoDelay(true);
    if (this.opts.idleTimeoutMs) {
      socket.setTimeout(this.opts.idleTimeoutMs, () => {
        this.log(`${remote}: idle for ${this.opts.idleTimeoutMs} ms, closing`);
        socket.destroy();
      });
    }
    const enqueue = (ev: FrameEvent) => {
      chain = chain.then(() => this.handle(ev, remote, socket)).catch((err: unknown) => this.log(`${remote}: ${(err as Error).message}`));
      this.track(chain);
    };
    socket.on('data', (chunk: Buffer) => {
      for (const ev of framer.push(chunk)) enqueue(ev);
    });
    socket.on('error', (err) => this.log(`${remote}: socket error: ${err.message}`));
    socket.on('close', () => {
      this.sockets.delete(socket);
      const left = framer.end();
      if (left) {
        chain = chain.then(() => this.keepLeftOver(left, remote)).catch((err: unknown) => this.log(`${remote}: ${(err as Error).message}`));
        this.track(chain);
      }
    });
  }

  private async handle(ev: FrameEvent, remote: string, socket: net.Socket): Promise<void> {
    let bytes: Buffer;
    let problem: FrameProblem | null = null;
    if (ev.kind === 'frame') bytes = ev.bytes;
    else if (ev.kind === 'oversized') {
      bytes = ev.head;
      problem = {
        code: 'TOO_LARGE',
        detail: `the message is ${ev.size} bytes, more than the maximum of ${this.opts.maxBytes}; the first ${ev.head.length} bytes are kept`,
      };
    } else {
      bytes = ev.bytes;
      problem = { code: 'NOT_FRAMED', detail: `${ev.size} bytes arrived outside an MLLP frame (<VT> … <FS><CR>)` };
    }
    let ack: string;
    try {
      ack = (await this.intake.receive(bytes, remote, problem)).ack;
    } catch (err) {
      // not even stored: reject, so that the sender keeps it and sends it again
      this.log(`${remote}: message not stored: ${(err as Error).message}`);
      const message = 'the message could not be stored; send it again later';
      ack = buildAck(bytes, 'AR', message, { error: { code: 'STORAGE', message } });
    }
    if (!socket.destroyed && socket.writable) socket.write(frameOf(ack));
  }

  private async keepLeftOver(left: LeftOver, remote: string): Promise<void> {
    const problem: FrameProblem =
      left.kind === 'partial'
        ? { code: 'INCOMPLETE', detail: `the connection closed in the middle of a frame after ${left.size} bytes; no ACK was sent` }
        : { code: 'NOT_FRAMED', detail: `${left.size} bytes arrived outside an MLLP frame before the connection closed` };
    await this.intake.receive(left.bytes, remote, problem);
  }
}

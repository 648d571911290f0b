/**
 * A minimal MLLP sender (tests, benchmark, a connection check): sends the exact bytes of a message in a frame and
 * resolves with the ACK's text. One message in flight at a time, like a hospital interface engine.
 */
import net from 'node:net';
import { MllpFramer } from './mllp-framer';
import { frameOf } from './mllp-listener';

export class MllpClient {
  private readonly framer = new MllpFramer(1 << 24);
  private waiting: { resolve: (ack: string) => void; reject: (err: Error) => void } | null = null;
  /** ACK frames that came while nobody waited (two ACKs can arrive in one chunk): handed out in order. */
  private readonly unclaimed: string[] = [];
  private closedErr: Error | null = null;

  private constructor(readonly socket: net.Socket) {
    socket.setNoDelay(true);
    socket.on('data', (chunk: Buffer) => {
      for (const ev of this.framer.push(chunk)) {
        if (ev.kind !== 'frame') continue;
        const w = this.waiting;
        this.waiting = null;
        if (w) w.resolve(ev.bytes.toString('utf8'));
        else this.unclaimed.push(ev.bytes.toString('utf8'));
      }
    });
    const fail = (err: Error) => {
      this.closedErr = err;
      const w = this.waiting;
      this.waiting = null;
      w?.reject(err);
    };
    socket.on('error', fail);
    socket.on('close', () => fail(new Error('connection closed')));
  }

  static connect(port: number, host = '127.0.0.1'): Promise<MllpClient> {
    return new Promise((resolve, reject) => {
      const s = net.connect({ port, host }, () => {
        s.off('error', reject);
        resolve(new MllpClient(s));
      });
      s.once('error', reject);
    });
  }

  /** Sends raw bytes as they are (already framed or not) and waits for the next ACK frame. */
  sendRaw(bytes: Buffer, timeoutMs = 30_000): Promise<string> {
    const ack = this.next(timeoutMs);
    if (!this.closedErr) this.socket.write(bytes);
    return ack;
  }

  /** The next ACK frame: one already received and not yet handed out, or the next to come. */
  next(timeoutMs = 30_000): Promise<string> {
    const early = this.unclaimed.shift();
    if (early !== undefined) return Promise.resolve(early);
    if (this.closedErr) return Promise.reject(this.closedErr);
    return new Promise((resolve, reject) => {
      const t = setTimeout(() => {
        this.waiting = null;
        reject(new Error(`no ACK within ${timeoutMs} ms`));
      }, timeoutMs);
      this.waiting = {
        resolve: (a) => {
          clearTimeout(t);
          resolve(a);
        },
        reject: (e) => {
          clearTimeout(t);
          reject(e);
        },
      };
    });
  }

  /** Sends one message (text or exact bytes) in an MLLP frame and resolves with the ACK. */
  send(message: string | Buffer, timeoutMs?: number): Promise<string> {
    return this.sendRaw(frameOf(message), timeoutMs);
  }

  close(): Promise<void> {
    return new Promise((resolve) => {
      if (this.socket.destroyed) return resolve();
      this.socket.once('close', () => resolve());
      this.socket.end();
    });
  }
}

/** MSA-1 and MSA-3 of an ACK's text. */
export function ackCodeOf(ack: string): { code: string; text: string; controlId: string } {
  const msa = ack.split(/\r\n|\r|\n/).find((l) => l.startsWith('MSA'));
  const f = (msa ?? '').split('|');
  return { code: f[1] ?? '', controlId: f[2] ?? '', text: f[3] ?? '' };
}

/**
 * MLLP (Minimal Lower Layer Protocol) framing of one TCP connection: <VT> message <FS><CR>. Gives the exact bytes
 * of each frame, whatever the TCP chunking (several frames in one chunk, a frame or its <FS><CR> split across
 * chunks), with a maximum frame size, and reports what is not a frame instead of dropping it.
 *
 * Why not @medplum/hl7's Hl7Connection (docs/decisions.md, "HL7 v2 listener framing"): its 'message' event hands over
 * only a parsed Hl7Message decoded with a fixed charset (the exact bytes are gone), it ends a frame only when a TCP
 * chunk happens to end with <FS><CR> (two pipelined frames in one chunk become one message, an <FS>|<CR> split never
 * ends), it keeps a frame that failed to parse in its buffer (the next message is glued to it), and it has no size
 * limit. Its socket 'data' event is the raw stream, so the bytes are ours to frame: this class is that framing.
 */
export const VT = 0x0b;
export const FS = 0x1c;
export const CR = 0x0d;

export type FrameEvent =
  /** a complete frame's content (between <VT> and <FS><CR>), byte for byte */
  | { kind: 'frame'; bytes: Buffer }
  /** a complete frame larger than the maximum: its first `max` bytes, and how large it was */
  | { kind: 'oversized'; head: Buffer; size: number }
  /** bytes that came outside any frame (not just white space between frames) */
  | { kind: 'garbage'; bytes: Buffer; size: number };

/** What was left when the connection closed: a frame that never ended, or bytes outside a frame. */
export type LeftOver = { kind: 'partial'; bytes: Buffer; size: number } | { kind: 'garbage'; bytes: Buffer; size: number };

const isSpace = (b: number) => b === 0x0d || b === 0x0a || b === 0x20 || b === 0x09;

export class MllpFramer {
  private inFrame = false;
  private parts: Buffer[] = [];
  /** bytes kept in parts (at most max) */
  private kept = 0;
  /** bytes seen in the current frame or garbage run (may exceed max) */
  private size = 0;
  /** the last byte of the previous chunk was <FS> inside a frame */
  private pendingFs = false;
  private garbageParts: Buffer[] = [];
  private garbageKept = 0;
  private garbageSize = 0;
  private garbageSeen = false;

  constructor(readonly max: number) {}

  push(chunk: Buffer): FrameEvent[] {
    const out: FrameEvent[] = [];
    let i = 0;
    while (i < chunk.length) {
      if (!this.inFrame) {
        const vt = chunk.indexOf(VT, i);
        const end = vt < 0 ? chunk.length : vt;
        if (end > i) this.addGarbage(chunk.subarray(i, end));
        if (vt < 0) break;
        const g = this.takeGarbage();
        if (g) out.push(g);
        this.inFrame = true;
        this.parts = [];
        this.kept = 0;
        this.size = 0;
        this.pendingFs = false;
        i = vt + 1;
        continue;
      }
      if (this.pendingFs) {
        this.pendingFs = false;
        if (chunk[i] === CR) {
          out.push(this.finish());
          i++;
          continue;
        }
        this.append(Buffer.from([FS]));
      }
      const fs = chunk.indexOf(FS, i);
      if (fs < 0) {
        this.append(chunk.subarray(i));
        break;
      }
      this.append(chunk.subarray(i, fs));
      if (fs + 1 >= chunk.length) {
        this.pendingFs = true;
        break;
      }
      if (chunk[fs + 1] === CR) {
        out.push(this.finish());
        i = fs + 2;
      } else {
        this.append(chunk.subarray(fs, fs + 1));
        i = fs + 1;
      }
    }
    return out;
  }

  /** The connection closed: what was received and never completed (null when nothing). */
  end(): LeftOver | null {
    if (this.inFrame) {
      if (this.pendingFs) this.append(Buffer.from([FS]));
      const bytes = Buffer.concat(this.parts);
      const size = this.size;
      this.inFrame = false;
      this.parts = [];
      return size > 0 ? { kind: 'partial', bytes, size } : null;
    }
    const g = this.takeGarbage();
    return g ? { kind: 'garbage', bytes: g.bytes, size: g.size } : null;
  }

  /** bytes buffered now (tests: a frame beyond the maximum does not grow memory) */
  get buffered(): number {
    return this.kept + this.garbageKept;
  }

  private append(b: Buffer) {
    this.size += b.length;
    const room = this.max - this.kept;
    if (room <= 0) return;
    const part = b.length <= room ? b : b.subarray(0, room);
    this.parts.push(part);
    this.kept += part.length;
  }

  private finish(): FrameEvent {
    const bytes = Buffer.concat(this.parts);
    const size = this.size;
    this.inFrame = false;
    this.parts = [];
    this.kept = 0;
    this.size = 0;
    return size > this.max ? { kind: 'oversized', head: bytes, size } : { kind: 'frame', bytes };
  }

  private addGarbage(b: Buffer) {
    if (!this.garbageSeen && b.every(isSpace)) return; // line ends between frames are not garbage
    this.garbageSeen = true;
    this.garbageSize += b.length;
    const room = this.max - this.garbageKept;
    if (room <= 0) return;
    const part = b.length <= room ? b : b.subarray(0, room);
    this.garbageParts.push(part);
    this.garbageKept += part.length;
  }

  private takeGarbage(): { kind: 'garbage'; bytes: Buffer; size: number } | null {
    if (!this.garbageSeen) return null;
    const g = { kind: 'garbage' as const, bytes: Buffer.concat(this.garbageParts), size: this.garbageSize };
    this.garbageParts = [];
    this.garbageKept = 0;
    this.garbageSize = 0;
    this.garbageSeen = false;
    return g;
  }
}

import { describe, expect, it } from 'vitest';
import { MllpFramer } from './mllp-framer';
import { frameOf } from './mllp-listener';

const MSG = 'MSH|^~\\&|LAB|HOSP|ES|ES|20260101||ORU^R01|C1|P|2.5.1\rPID|1||123\r';

describe('MLLP framer', () => {
  it('splits frames whatever the TCP chunking, byte for byte', () => {
    const stream = Buffer.concat([frameOf(MSG), Buffer.from('\r\n'), frameOf('MSH|^~\\&|B||||||ADT^A01|C2|P|2.5\r')]);
    for (let cut = 1; cut < stream.length; cut++) {
      const f = new MllpFramer(1 << 20);
      const evs = [...f.push(stream.subarray(0, cut)), ...f.push(stream.subarray(cut))];
      expect(evs.map((e) => e.kind)).toEqual(['frame', 'frame']);
      const first = evs[0]!;
      expect(first.kind === 'frame' && first.bytes.toString()).toBe(MSG);
      expect(f.end()).toBeNull();
    }
  });

  it('keeps only the head of an oversized frame and says how large it was', () => {
    const f = new MllpFramer(100);
    const big = Buffer.alloc(10_000, 0x41);
    const evs = [...f.push(Buffer.from([0x0b])), ...f.push(big), ...f.push(big), ...f.push(Buffer.from([0x1c, 0x0d]))];
    expect(evs).toHaveLength(1);
    expect(evs[0]).toMatchObject({ kind: 'oversized', size: 20_000 });
    const first = evs[0]!;
    expect(first.kind === 'oversized' && first.head.length).toBe(100);
  });

  it('reports bytes outside a frame and a frame cut by a disconnect', () => {
    const f = new MllpFramer(1000);
    const evs = f.push(Buffer.concat([Buffer.from('garbage\x00\xff'), frameOf(MSG), Buffer.from([0x0b]), Buffer.from('MSH|^~')]));
    expect(evs.map((e) => e.kind)).toEqual(['garbage', 'frame']);
    expect(f.end()).toMatchObject({ kind: 'partial', size: 6 });
  });
});

/**
 * The MLLP sender used by tests and the benchmark: ACKs that arrive together in one chunk are all handed out, in
 * order (the CI failure of stop 30 was a second ACK lost this way).
 */
import net from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { ackCodeOf, MllpClient } from '../src/modules/hl7/mllp-client';
import { frameOf } from '../src/modules/hl7/mllp-listener';

const ack = (code: string, control: string) =>
  `MSH|^~\\&|ES|ES|X|X|20260101||ACK|A${control}|P|2.5.1\rMSA|${code}|${control}\r`;
let server: net.Server | undefined;
afterEach(() => new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve())));

const listen = (onData: (sock: net.Socket) => void) =>
  new Promise<number>((resolve) => {
    server = net.createServer((sock) => sock.once('data', () => onData(sock)));
    server.listen(0, '127.0.0.1', () => resolve((server!.address() as net.AddressInfo).port));
  });

describe('MllpClient', () => {
  it('keeps a second ACK that came in the same chunk as the first', async () => {
    const port = await listen((sock) =>
      sock.write(Buffer.concat([frameOf(ack('AR', 'G1')), frameOf(ack('AA', 'M2'))])),
    );
    const client = await MllpClient.connect(port);
    expect(ackCodeOf(await client.send('MSH|x')).code).toBe('AR');
    expect(ackCodeOf(await client.next()).controlId).toBe('M2');
    await client.close();
  });

  it('times out when no ACK comes, and rejects once the connection is gone', async () => {
    const port = await listen((sock) => setTimeout(() => sock.destroy(), 100));
    const client = await MllpClient.connect(port);
    await expect(client.send('MSH|x', 20)).rejects.toThrow(/no ACK within 20 ms/);
    await expect(client.next(1000)).rejects.toThrow(/connection closed/);
    await expect(client.send('MSH|y')).rejects.toThrow(/connection closed/);
  });
});

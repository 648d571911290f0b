/**
 * Streams a FHIR file from disk, one resource at a time, never holding the whole file: a Bundle (JSON; its
 * entry[] is found by interop's byte scanner, readBundleStream, so a 100 MB bundle costs one entry of memory) or Bulk
 * Data NDJSON (one resource per line). A gzipped file (by its magic bytes) is inflated on the fly.
 */
import fs from 'node:fs';
import readline from 'node:readline';
import zlib from 'node:zlib';
import { type Readable } from 'node:stream';
import { readBundleStream } from '@esource/interop';
import { SourceError } from './fhir-client';

/** `raw`: the resource's JSON when the reader already made it (the converter then does not stringify it again) */
export type FhirItemHandler = (resource: unknown, context: { fullUrl?: string; raw?: string }, bytesRead: number) => Promise<void>;

async function firstBytes(file: string, n: number): Promise<Buffer> {
  const fh = await fs.promises.open(file, 'r');
  try {
    const b = Buffer.alloc(n);
    const { bytesRead } = await fh.read(b, 0, n, 0);
    return b.subarray(0, bytesRead);
  } finally {
    await fh.close();
  }
}

/** Reads every resource of the file in order; throws SourceError('source.error.fileFormat') for anything else. */
export async function readFhirFile(file: string, onItem: FhirItemHandler): Promise<{ items: number; kind: 'bundle' | 'ndjson' }> {
  const head = await firstBytes(file, 2);
  const gz = head[0] === 0x1f && head[1] === 0x8b;
  const raw = fs.createReadStream(file);
  let bytesRead = 0;
  raw.on('data', (c: Buffer | string) => {
    bytesRead += c.length;
  });
  const input: Readable = gz ? raw.pipe(zlib.createGunzip()) : raw;
  // the first significant character tells a Bundle ('{' then "resourceType":"Bundle") from NDJSON
  const peek = await new Promise<string>((resolve) => {
    const onData = (c: Buffer) => {
      input.pause();
      input.off('data', onData);
      input.unshift(c);
      resolve(c.toString('utf8', 0, Math.min(c.length, 4096)));
    };
    input.on('data', onData);
    input.once('end', () => resolve(''));
  });
  const text = peek.replace(/^\uFEFF/, '').trimStart();
  const firstLine = text.split('\n', 1)[0] ?? '';
  let isNdjson = false;
  if (!text.startsWith('{')) throw new SourceError('source.error.fileFormat', { detail: 'not JSON' });
  try {
    const first = JSON.parse(firstLine) as { resourceType?: unknown };
    isNdjson = first.resourceType !== 'Bundle';
  } catch {
    isNdjson = false; // a pretty-printed (multi-line) JSON document: a Bundle
  }
  let items = 0;
  try {
    if (isNdjson) {
      const rl = readline.createInterface({ input, crlfDelay: Infinity });
      for await (const l of rl) {
        const s = l.replace(/^\uFEFF/, '').trim();
        if (!s) continue;
        let resource: unknown;
        try {
          resource = JSON.parse(s);
        } catch {
          // one bad line of a Bulk Data file: counted as malformed by the converter, the other lines go on (as a
          // malformed Bundle entry)
          resource = {};
        }
        items++;
        await onItem(resource, {}, bytesRead);
      }
      return { items, kind: 'ndjson' };
    }
    for await (const item of readBundleStream(input)) {
      if (item.kind === 'error') {
        // a cut-off or structurally broken file: nothing after this point can be read
        if (item.fatal) throw new SourceError('source.error.fileFormat', { detail: `${item.message} (entry ${item.index ?? items}, byte ${item.offset ?? bytesRead})`.slice(0, 200) });
        // an entry without a resource, not JSON, or too large: the converter counts it as malformed, the rest goes on
        items++;
        await onItem({}, {}, bytesRead);
        continue;
      }
      items++;
      await onItem(item.resource, item.fullUrl === undefined ? { raw: item.raw } : { fullUrl: item.fullUrl, raw: item.raw }, bytesRead);
    }
    return { items, kind: 'bundle' };
  } catch (err) {
    if (err instanceof SourceError) throw err;
    throw new SourceError('source.error.fileFormat', { detail: (err as Error).message.slice(0, 200) });
  } finally {
    raw.destroy();
  }
}

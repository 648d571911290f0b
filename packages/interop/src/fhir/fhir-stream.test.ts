import fs from 'node:fs';
import path from 'node:path';
import { Readable } from 'node:stream';
import zlib from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { convertFhirBundle } from './fhir-batch';
import { convertFhirStream, readBundleStream, readNdjsonStream, type FhirStreamItem } from './fhir-stream';

const FIXTURES = path.resolve(import.meta.dirname, '../../test-fixtures/fhir-synthea');
const bundleFiles = fs.readdirSync(FIXTURES).filter((f) => f.endsWith('.json.gz'));

async function collect(items: AsyncIterable<FhirStreamItem>): Promise<FhirStreamItem[]> {
  const out: FhirStreamItem[] = [];
  for await (const i of items) out.push(i);
  return out;
}
/** a readable that hands out the bytes in small chunks, as a socket would */
function chunked(buf: Buffer, size = 4096): Readable {
  const parts: Buffer[] = [];
  for (let i = 0; i < buf.length; i += size) parts.push(buf.subarray(i, i + size));
  return Readable.from(parts);
}

describe('readBundleStream', () => {
  it.each(bundleFiles.slice(0, 5))(
    'yields the same resources as JSON.parse for %s (gunzipped as it streams)',
    async (file) => {
      const whole = JSON.parse(
        zlib.gunzipSync(fs.readFileSync(path.join(FIXTURES, file))).toString('utf8'),
      ) as { entry: { fullUrl: string; resource: unknown }[] };
      const items = await collect(
        readBundleStream(
          fs.createReadStream(path.join(FIXTURES, file), { highWaterMark: 8192 }).pipe(zlib.createGunzip()),
        ),
      );
      expect(items.every((i) => i.kind === 'resource')).toBe(true);
      expect(items.map((i) => (i.kind === 'resource' ? i.resource : null))).toEqual(
        whole.entry.map((e) => e.resource),
      );
      expect(items.map((i) => (i.kind === 'resource' ? i.fullUrl : null))).toEqual(
        whole.entry.map((e) => e.fullUrl),
      );
    },
  );

  it('converts a streamed bundle exactly as the parsed one', async () => {
    const file = bundleFiles[1]!;
    const buf = zlib.gunzipSync(fs.readFileSync(path.join(FIXTURES, file)));
    const parsed = convertFhirBundle(JSON.parse(buf.toString('utf8')));
    const chunks = [];
    for await (const c of convertFhirStream(readBundleStream(chunked(buf)), {}, 100)) chunks.push(c);
    expect(chunks.length).toBeGreaterThan(2);
    const last = chunks.at(-1)!;
    expect(last.done).toBe(true);
    expect(last.summary).toEqual({ ...parsed.summary, errors: 0 });
    expect(chunks.flatMap((c) => c.records).map((r) => r.contentHash)).toEqual(
      parsed.records.map((r) => r.contentHash),
    );
  });

  it('reports an entry without a resource and an over-large resource, and keeps the rest', async () => {
    const bundle = {
      resourceType: 'Bundle',
      type: 'collection',
      entry: [
        { resource: { resourceType: 'Patient', id: 'p' } },
        { request: { method: 'DELETE', url: 'Observation/x' } },
        { resource: { resourceType: 'Observation', id: 'big', note: [{ text: 'x'.repeat(5000) }] } },
        { resource: { resourceType: 'Observation', id: 'ok', subject: { reference: 'Patient/p' } } },
      ],
    };
    const items = await collect(
      readBundleStream(Readable.from([Buffer.from(JSON.stringify(bundle))]), { maxResourceBytes: 1000 }),
    );
    expect(items.map((i) => (i.kind === 'resource' ? i.resource.id : `error@${i.index}`))).toEqual([
      'p',
      'error@1',
      'error@2',
      'ok',
    ]);
    expect(items[2]).toMatchObject({ kind: 'error', message: expect.stringContaining('larger than 1000') });
  });

  it('a truncated bundle yields the entries before the cut, then a fatal error with the offset', async () => {
    const buf = zlib.gunzipSync(fs.readFileSync(path.join(FIXTURES, bundleFiles[2]!)));
    const cut = buf.subarray(0, Math.floor(buf.length / 2));
    const items = await collect(readBundleStream(chunked(cut)));
    const last = items.at(-1)!;
    expect(last).toMatchObject({ kind: 'error', fatal: true });
    expect(last.kind === 'error' && last.offset).toBeGreaterThan(0);
    expect(items.filter((i) => i.kind === 'resource').length).toBeGreaterThan(10);
  });
});

describe('readBundleStream scanner', () => {
  // strings holding brackets, quotes, escapes (\" \\ \u), multi-byte UTF-8 (2, 3 and 4 bytes), a nested Bundle
  // whose own "entry" must not be picked, and Bundle fields after the entry array
  const tricky = {
    resourceType: 'Bundle',
    id: 'b "entry": [ {',
    type: 'collection',
    meta: { tag: [{ code: 'entry' }] },
    entry: [
      {
        fullUrl: 'urn:uuid:1',
        resource: { resourceType: 'Patient', id: 'p1', name: [{ text: '张三 Zoë 🩺' }] },
      },
      {
        fullUrl: 'urn:uuid:2',
        resource: {
          resourceType: 'Observation',
          id: 'o"1',
          note: [{ text: 'a \\ b \\" c } ] { [ "entry": [1] \u00e9 \n\t end\\' }],
          valueString: '血红蛋白测定 \u2028 ',
        },
      },
      {
        resource: {
          resourceType: 'Bundle',
          id: 'inner',
          entry: [{ resource: { resourceType: 'Patient', id: 'no' } }],
        },
      },
    ],
    link: [{ relation: 'self', url: 'http://x/y?entry=1' }],
  };
  const text = JSON.stringify(tricky, null, 1);

  it.each([1, 2, 3, 5, 7, 13, 64, 100_000])(
    'finds the same entries as JSON.parse whatever the chunk boundaries (chunks of %i bytes)',
    async (size) => {
      const items = await collect(readBundleStream(chunked(Buffer.from(text, 'utf8'), size)));
      expect(items).toEqual(
        tricky.entry.map((e, index) => ({
          kind: 'resource',
          resource: e.resource,
          raw: JSON.stringify(e.resource),
          index,
          ...(e.fullUrl ? { fullUrl: e.fullUrl } : {}),
        })),
      );
    },
  );

  it('reports a malformed entry with its byte offset and reads on; an entry that is not an object too', async () => {
    const good = '{"resource":{"resourceType":"Patient","id":"a"}}';
    const bad = '{"resource":{"resourceType":"Observation",id:"x"}}';
    const prefix = `{"resourceType":"Bundle","entry":[${good}, `;
    const body = `${prefix}${bad},42,"s",${good}]}`;
    const items = await collect(readBundleStream(chunked(Buffer.from(body), 4)));
    expect(items.map((i) => (i.kind === 'resource' ? i.resource.id : `error@${i.index}`))).toEqual([
      'a',
      'error@1',
      'error@2',
      'error@3',
      'a',
    ]);
    expect(items[1]).toMatchObject({
      kind: 'error',
      offset: prefix.length,
      message: expect.stringContaining('malformed JSON'),
    });
    expect(items[1]).not.toHaveProperty('fatal');
    expect(items[2]).toMatchObject({ message: 'entry is not an object' });
  });

  it.each([
    [
      'a mismatched bracket',
      '{"entry":[{"resource":{"resourceType":"Patient","id":"a"}},{"resource":{]]}',
      1,
    ],
    ['a cut-off file', '{"entry":[{"resource":{"resourceType":"Patient","id":"a"}},{"resource":{"reso', 1],
    ['data after the Bundle', '{"entry":[{"resource":{"resourceType":"Patient","id":"a"}}]} {}', 1],
    ['a trailing comma', '{"entry":[{"resource":{"resourceType":"Patient","id":"a"}},]}', 1],
    [
      'a malformed field outside the entries',
      '{"resourceType":Bundle,"entry":[{"resource":{"resourceType":"Patient","id":"a"}}]}',
      1,
    ],
    ['not an object', '[{"resource":{}}]', 0],
    ['an empty input', '', 0],
  ])('%s is a fatal error after the good entries', async (_name, body, good) => {
    const items = await collect(readBundleStream(chunked(Buffer.from(body), 3)));
    expect(items.filter((i) => i.kind === 'resource')).toHaveLength(good);
    expect(items.at(-1)).toMatchObject({
      kind: 'error',
      fatal: true,
      message: expect.stringContaining('malformed JSON'),
    });
    expect(items.slice(0, -1).every((i) => i.kind === 'resource')).toBe(true);
  });

  it('counts an oversized entry while scanning (20 MB streamed against a 64 KB limit), never holding it, and reads on', async () => {
    const piece = Buffer.alloc(64 * 1024, 'y'.charCodeAt(0));
    const pieces = 320;
    async function* source() {
      yield Buffer.from(
        '{"resourceType":"Bundle","entry":[{"resource":{"resourceType":"Patient","id":"a"}},',
      );
      yield Buffer.from('{"resource":{"resourceType":"Binary","id":"big","data":"');
      for (let k = 0; k < pieces; k++) yield piece; // the same buffer each time: nothing new to hold
      yield Buffer.from('"}},{"resource":{"resourceType":"Patient","id":"b"}}]}');
    }
    const items = await collect(readBundleStream(Readable.from(source()), { maxResourceBytes: 64 * 1024 }));
    expect(items.map((i) => (i.kind === 'resource' ? i.resource.id : `error@${i.index}`))).toEqual([
      'a',
      'error@1',
      'b',
    ]);
    const entryBytes =
      '{"resource":{"resourceType":"Binary","id":"big","data":"'.length +
      pieces * piece.length +
      '"}}'.length;
    expect(items[1]).toMatchObject({
      kind: 'error',
      message: `resource larger than ${64 * 1024} bytes (${entryBytes})`,
    });
  });
});

describe('readNdjsonStream', () => {
  const whole = JSON.parse(
    zlib.gunzipSync(fs.readFileSync(path.join(FIXTURES, bundleFiles[3]!))).toString('utf8'),
  ) as { entry: { resource: { resourceType: string; id: string } }[] };
  // Bulk Data style: Patient.ndjson after the others, 'Patient/<id>' references
  const resources = whole.entry.map((e) => e.resource);
  const patient = resources.find((r) => r.resourceType === 'Patient')!;
  const rewritten = resources
    .filter((r) => r !== patient)
    .map(
      (r) =>
        JSON.parse(JSON.stringify(r).replaceAll(`urn:uuid:${patient.id}`, `Patient/${patient.id}`)) as Record<
          string,
          unknown
        >,
    );

  it('reads line by line (BOM, CRLF, blank lines), reports a malformed line with its line number and keeps the rest', async () => {
    const lines = [
      ...rewritten.map((r) => JSON.stringify(r)),
      '{"resourceType": "Observation", "id": "broken", ',
      '',
      '[1,2]',
      JSON.stringify(patient),
    ];
    const text = `\uFEFF${lines.join('\r\n')}\r\n`;
    const items = await collect(readNdjsonStream(chunked(Buffer.from(text, 'utf8'), 1000)));
    const errors = items.filter((i) => i.kind === 'error');
    expect(errors).toEqual([
      expect.objectContaining({
        line: rewritten.length + 1,
        message: expect.stringContaining('malformed JSON'),
      }),
      expect.objectContaining({ line: rewritten.length + 3, message: 'line is not a FHIR resource' }),
    ]);
    // byte offset of the broken line
    const offset = Buffer.byteLength(`\uFEFF${lines.slice(0, rewritten.length).join('\r\n')}\r\n`);
    expect(errors[0]).toMatchObject({ offset });
    const good = items.filter((i) => i.kind === 'resource');
    expect(good).toHaveLength(resources.length);
    expect(good[0]?.kind === 'resource' && good[0].raw).toBe(JSON.stringify(rewritten[0]));

    // the patient comes last, the records still land on it, and everything is accounted for
    const chunks = [];
    for await (const c of convertFhirStream(readNdjsonStream(chunked(Buffer.from(text, 'utf8'), 777))))
      chunks.push(c);
    const s = chunks.at(-1)!.summary;
    expect(s.errors).toBe(2);
    expect(s.patients + s.converted + s.skippedTotal).toBe(resources.length);
    const recs = chunks.flatMap((c) => c.records);
    expect(recs.length).toBeGreaterThan(100);
    expect(recs.every((r) => r.patientKey === patient.id)).toBe(true);
  });

  it('discards an over-long line as it streams and goes on with the next', async () => {
    const big = JSON.stringify({
      resourceType: 'Observation',
      id: 'big',
      note: [{ text: 'y'.repeat(50_000) }],
    });
    const text = [JSON.stringify(patient), big, JSON.stringify(rewritten[0])].join('\n');
    const items = await collect(
      readNdjsonStream(chunked(Buffer.from(text), 512), { maxResourceBytes: 10_000 }),
    );
    expect(items.map((i) => (i.kind === 'resource' ? i.resource.id : `error@${i.line}`))).toEqual([
      patient.id,
      'error@2',
      rewritten[0]!.id,
    ]);
  });

  it('keeps multi-byte characters split across chunks intact', async () => {
    const r = { resourceType: 'Observation', id: 'zh', code: { text: '血红蛋白测定' } };
    const items = await collect(readNdjsonStream(chunked(Buffer.from(JSON.stringify(r) + '\n'), 3)));
    expect(items).toEqual([{ kind: 'resource', resource: r, raw: JSON.stringify(r), index: 0, line: 1 }]);
  });
});

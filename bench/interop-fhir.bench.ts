/**
 * Benchmark: FHIR R4 → source records conversion speed (pure code, no database), over the 15 Synthea bundles in
 * packages/interop/test-fixtures: (a) parsed bundles through convertFhirBundle, (b) the streaming path
 * (readBundleStream over the JSON bytes + convertFhirStream), and HL7 v2 parseHl7 over the 34 sample messages.
 * Prints resources/s (messages/s for HL7). The storage side of ingest is measured by the server's own benchmark.
 *
 *   npm run bench -- interop-fhir            (DURATION=10 seconds per case)
 */
import fs from 'node:fs';
import path from 'node:path';
import { Readable } from 'node:stream';
import zlib from 'node:zlib';
import { convertFhirBundle, convertFhirStream, parseHl7, readBundleStream } from '../packages/interop/src/index';

const duration = Number(process.env.DURATION ?? 10) * 1000;
const root = path.resolve(import.meta.dirname, '../packages/interop/test-fixtures');
const bundles = fs
  .readdirSync(path.join(root, 'fhir-synthea'))
  .filter((f) => f.endsWith('.json.gz'))
  .map((f) => zlib.gunzipSync(fs.readFileSync(path.join(root, 'fhir-synthea', f))));
const parsed = bundles.map((b) => JSON.parse(b.toString('utf8')) as { entry: unknown[] });
const resourcesPerRound = parsed.reduce((n, b) => n + b.entry.length, 0);
const messages = fs
  .readdirSync(path.join(root, 'hl7v2'))
  .filter((f) => f.endsWith('.hl7'))
  .map((f) => fs.readFileSync(path.join(root, 'hl7v2', f)));

async function measure(name: string, unitsPerRound: number, unit: string, round: () => Promise<void> | void): Promise<void> {
  await round(); // warm-up
  let rounds = 0;
  const t0 = performance.now();
  while (performance.now() - t0 < duration) {
    await round();
    rounds++;
  }
  const s = (performance.now() - t0) / 1000;
  console.log(`${name.padEnd(44)} ${Math.round((rounds * unitsPerRound) / s).toLocaleString('en-US').padStart(9)} ${unit}/s  (${rounds} rounds of ${unitsPerRound} in ${s.toFixed(1)} s)`);
}

console.log(`FHIR: ${bundles.length} Synthea bundles, ${resourcesPerRound} resources, ${(bundles.reduce((n, b) => n + b.length, 0) / 1e6).toFixed(1)} MB of JSON per round`);
await measure('convertFhirBundle (already parsed)', resourcesPerRound, 'resources', () => {
  for (const b of parsed) convertFhirBundle(b);
});
await measure('JSON.parse + convertFhirBundle', resourcesPerRound, 'resources', () => {
  for (const b of bundles) convertFhirBundle(JSON.parse(b.toString('utf8')));
});
await measure('readBundleStream + convertFhirStream (bytes)', resourcesPerRound, 'resources', async () => {
  for (const b of bundles) {
    for await (const _chunk of convertFhirStream(readBundleStream(Readable.from([b])))) {
      // drain
    }
  }
});
await measure('parseHl7 (34 sample messages)', messages.length, 'messages', () => {
  for (const m of messages) parseHl7(m);
});

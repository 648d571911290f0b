/**
 * Benchmark (issue 14, performance): the study exports' writers at study scale — SUBJECTS subjects (default 100,000)
 * × ITEMS items (default 50) — streamed to a sink that counts bytes:
 *
 * - CDISC ODM 1.3.2 ClinicalData through `odmClinicalChunks` (packages/interop), the writer of the `study-odm`
 *   export: goal ≥ 50,000 items/s with RSS < 200 MB;
 * - Excel through exceljs's streaming WorkbookWriter as the `study-xlsx` export uses it (one row per form instance):
 *   constant memory.
 *
 * Prints items/s, bytes, and the peak RSS / heap sampled every 100 ms. The database reads of the real exports are
 * keyset pages of 500 subjects (see apps/server/src/modules/exports/study/study-exports.ts); this measures the writers.
 *
 * With DATABASE_URL set it measures the real export jobs end to end instead (ODM, Excel, Dataset-JSON read from a
 * seeded PostgreSQL database: bench/study-export-e2e.ts); MODE=writers keeps the writers' mode.
 *
 *   npm run bench -- study-export                SUBJECTS=20000 ITEMS=50 npm run bench -- study-export
 *   DATABASE_URL=postgres://postgres@127.0.0.1:5432/bench_export npm run bench -- study-export
 */
import { Writable } from 'node:stream';
import { performance } from 'node:perf_hooks';
import ExcelJS from 'exceljs';
import { sheetDrained } from '../apps/server/src/lib/xlsx-backpressure';
import { odmClinicalChunks, type OdmSubject } from '../packages/interop/src/odm';

const SUBJECTS = Number(process.env.SUBJECTS ?? 100_000);
const ITEMS = Number(process.env.ITEMS ?? 50);
const FORMS = 5;
const perForm = Math.ceil(ITEMS / FORMS);

class Sink extends Writable {
  bytes = 0;
  override _write(chunk: Buffer | string, _enc: BufferEncoding, done: () => void) {
    this.bytes += typeof chunk === 'string' ? Buffer.byteLength(chunk) : chunk.length;
    done();
  }
}

export type Sampler = typeof sampler;

function sampler() {
  let rss = 0;
  let heap = 0;
  let external = 0;
  const sample = () => {
    const m = process.memoryUsage();
    rss = Math.max(rss, m.rss);
    heap = Math.max(heap, m.heapUsed);
    external = Math.max(external, m.external);
  };
  const t = setInterval(sample, 100);
  return { sample, stop: () => (clearInterval(t), sample(), { rss, heap, external }) };
}

const mb = (n: number) => `${(n / 1024 / 1024).toFixed(0)} MB`;

function* subjects(): Generator<OdmSubject> {
  for (let s = 1; s <= SUBJECTS; s++) {
    yield {
      subjectKey: `S-${String(s).padStart(6, '0')}`,
      siteOid: `LOC.${(s % 20) + 1}`,
      events: [
        {
          eventOid: 'SE.V1',
          forms: Array.from({ length: FORMS }, (_, f) => ({
            formOid: `F.F${f}`,
            groups: [{ groupOid: `IG.F${f}`, items: Array.from({ length: perForm }, (_, i) => ({ itemOid: `I.F${f}.IT${i}`, value: i % 3 === 0 ? String(100 + ((s * 7 + i) % 80)) : i % 3 === 1 ? '2026-11-02' : `text ${s % 97}` })) }],
          })),
        },
      ],
    };
  }
}

async function odm() {
  const sink = new Sink();
  const m = sampler();
  const t0 = performance.now();
  for await (const chunk of odmClinicalChunks({ fileOid: 'BENCH', fileType: 'Snapshot', creationDateTime: new Date(), studyOid: 'S.BENCH', metaDataVersionOid: 'MDV.1' }, subjects()))
  {
    if (!sink.write(chunk)) await new Promise((r) => sink.once('drain', r));
    m.sample();
  }
  const s = (performance.now() - t0) / 1000;
  const peak = m.stop();
  const items = SUBJECTS * FORMS * perForm;
  console.log(`ODM ClinicalData  ${SUBJECTS.toLocaleString()} subjects × ${FORMS * perForm} items: ${s.toFixed(1)} s, ${Math.round(items / s).toLocaleString()} items/s, ${mb(sink.bytes)} written, peak RSS ${mb(peak.rss)}, heap ${mb(peak.heap)}, external ${mb(peak.external)}`);
}

async function xlsx() {
  const sink = new Sink();
  const m = sampler();
  const t0 = performance.now();
  const wb = new ExcelJS.stream.xlsx.WorkbookWriter({ stream: sink, useSharedStrings: false, useStyles: true });
  for (let f = 0; f < FORMS; f++) {
    const ws = wb.addWorksheet(`F${f}`);
    ws.addRow(['Subject', 'Site', 'Visit', 'Repeat', 'Status', ...Array.from({ length: perForm }, (_, i) => `IT${i}`)]).commit();
    for (let s = 1; s <= SUBJECTS; s++) {
      // the export writes a page of 500 instances, then waits for the zip to take it (as study-exports.ts does)
      if (s % 500 === 0) await sheetDrained(ws);
      ws.addRow([`S-${s}`, String((s % 20) + 1), 'V1', 1, 'Completed', ...Array.from({ length: perForm }, (_, i) => (i % 3 === 0 ? 100 + ((s * 7 + i) % 80) : i % 3 === 1 ? '2026-11-02' : `text ${s % 97}`))]).commit();
    }
    ws.commit();
  }
  await wb.commit();
  const s = (performance.now() - t0) / 1000;
  const peak = m.stop();
  const items = SUBJECTS * FORMS * perForm;
  console.log(`Excel (streaming) ${SUBJECTS.toLocaleString()} subjects × ${FORMS * perForm} items: ${s.toFixed(1)} s, ${Math.round(items / s).toLocaleString()} items/s, ${mb(sink.bytes)} written, peak RSS ${mb(peak.rss)}, heap ${mb(peak.heap)}, external ${mb(peak.external)}`);
}

// end to end on a PostgreSQL database (its modules loaded only then: the writers' figures stay comparable)
if (process.env.EXPORT_RUN) await (await import('./study-export-e2e')).endToEndRun(process.env.EXPORT_RUN, sampler);
else if (process.env.DATABASE_URL && process.env.MODE !== 'writers') await (await import('./study-export-e2e')).endToEnd(SUBJECTS, import.meta.url);
else {
  console.log(`study export writers — ${SUBJECTS.toLocaleString()} subjects × ${ITEMS} items (goal: ODM ≥ 50,000 items/s, RSS < 200 MB; Excel at constant memory)`);
  await odm();
  await xlsx();
}

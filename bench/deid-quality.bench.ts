/**
 * Benchmark (issue 12): quality of automatic de-identification of document images, measured in pixels against
 * generated pages with ground truth (bench/deid-docs.ts: zh/en lab reports, discharge summaries, outpatient records,
 * prescriptions; a third rotated, noisy or low-contrast).
 *
 * Each page goes through the pipeline exactly as the de-identification job does it for an image
 * (apps/server/src/modules/documents/deid.job.ts): ocrImage → ocrPiece per region → pageBoxes with the subject's
 * known identifiers as DeidJob.options() builds them from the subject record (initials as the name, record numbers
 * and ID number the record holds; no project keywords) and the default policy. Figures:
 * - recall: share of the ground-truth identifier pixels (the ink box of each identifier string, rotated with the
 *   page) under a produced box, per kind and overall (goal ≥ 99.5 %);
 * - precision, raw: share of the produced boxes' pixels on ground-truth identifier pixels; padding-aware: the same
 *   with each identifier's ground truth taken as its bounding box grown by the job's padding (padOf of the height
 *   of the OCR region it lies in, as pageBoxes pads) (goal ≥ 95 %);
 * - clinical values surviving: lab results and units, drugs and doses, diagnoses with no pixel under a box
 *   (goal 100 %; also with < 5 % covered); likewise the visit, sampling, admission and report dates (with times)
 *   that the default policy keeps;
 * - every identifier not fully covered (kind, text, page, share covered, what OCR read there, which boxes touch it),
 *   and the boxes that lie mostly off the identifiers (kind, reason, text).
 * Then the same pipeline over two small real images (bench/fixtures/deid-real, MIT, from microsoft/presidio):
 * which of their hand-listed identifiers are covered.
 *
 *   npm run bench -- deid-quality                      (40 pages, ≈ 6 CPU-s of OCR per page)
 *   node --import tsx bench/deid-quality.bench.ts --pages 8 [--seed 12] [--only p03,p11]
 *   OCR_CACHE=/tmp/ocr-cache …   reuses OCR results by image hash (for re-running after detector changes)
 *   --draw <dir> (DRAW=<dir>)    writes each page with its truth (red/blue/orange) and the boxes (green)
 * Writes bench/results/deid-quality.json (per page: boxes, misses) for closer study.
 */
process.env.OCR_ENGINE = 'paddle';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import sharp from 'sharp';
import {
  close as closeOcr,
  findChars,
  ocrImage,
  ocrService,
  substringBox,
  type OcrResult,
} from '@esource/ocr';
import { padOf } from '../apps/server/src/modules/documents/deid-boxes';
import {
  argOf,
  generatePage,
  ID_KINDS,
  type GeneratedPage,
  type IdKind,
  type Rect,
  type TruthItem,
} from './deid-docs';
import { jobOptions, placedBoxes, type Placed } from './deid-pipeline';

const here = path.dirname(fileURLToPath(import.meta.url));
const PAGES = Number(argOf('pages', '40'));
const SEED = Number(argOf('seed', '12'));
const ONLY = argOf('only', '').split(',').filter(Boolean);
const CACHE = process.env.OCR_CACHE;
const DRAW = argOf('draw', '');

/** The page with its ground truth (identifiers red, clinical values blue, kept dates orange) and the boxes (green). */
async function draw(page: GeneratedPage, boxes: readonly Placed[]): Promise<void> {
  const poly = (it: TruthItem, c: string) =>
    `<polygon points="${it.polygon.map((p) => `${p.x},${p.y}`).join(' ')}" fill="none" stroke="${c}" stroke-width="1"/>`;
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="${page.width}" height="${page.height}">${boxes
    .map(
      (b) =>
        `<rect x="${b.x}" y="${b.y}" width="${b.width}" height="${b.height}" fill="lime" fill-opacity="0.25" stroke="green" stroke-width="1"/>`,
    )
    .join(
      '',
    )}${page.identifiers.map((i) => poly(i, 'red')).join('')}${page.clinical.map((i) => poly(i, 'blue')).join('')}${page.dates.map((i) => poly(i, 'orange')).join('')}</svg>`;
  fs.mkdirSync(DRAW, { recursive: true });
  await sharp(page.bytes)
    .composite([{ input: Buffer.from(svg) }])
    .png()
    .toFile(path.join(DRAW, `${page.id}.png`));
}

/** OCR, from the cache when OCR_CACHE names a folder. */
async function ocr(bytes: Buffer): Promise<{ r: OcrResult; ms: number; cached: boolean }> {
  const file = CACHE ? path.join(CACHE, `${createHash('sha256').update(bytes).digest('hex')}.json`) : '';
  if (file && fs.existsSync(file))
    return { r: JSON.parse(fs.readFileSync(file, 'utf8')) as OcrResult, ms: 0, cached: true };
  const t = performance.now();
  const r = await ocrImage(new Uint8Array(bytes));
  const ms = performance.now() - t;
  if (file) {
    fs.mkdirSync(CACHE!, { recursive: true });
    fs.writeFileSync(file, JSON.stringify(r));
  }
  return { r, ms, cached: false };
}

// ── pixel geometry ──

class Mask {
  readonly a: Uint8Array;
  constructor(
    readonly w: number,
    readonly h: number,
  ) {
    this.a = new Uint8Array(w * h);
  }
  rect(r: Rect): void {
    const x0 = Math.max(0, Math.floor(r.x));
    const y0 = Math.max(0, Math.floor(r.y));
    const x1 = Math.min(this.w, Math.ceil(r.x + r.width));
    const y1 = Math.min(this.h, Math.ceil(r.y + r.height));
    for (let y = y0; y < y1; y++) this.a.fill(1, y * this.w + x0, y * this.w + x1);
  }
  set(idx: readonly number[]): void {
    for (const i of idx) this.a[i] = 1;
  }
  count(): number {
    let n = 0;
    for (let i = 0; i < this.a.length; i++) n += this.a[i]!;
    return n;
  }
  countIn(other: Mask): number {
    let n = 0;
    for (let i = 0; i < this.a.length; i++) n += this.a[i]! & other.a[i]!;
    return n;
  }
}

/** Pixel indices whose centre lies inside the (convex) polygon. */
function polygonPixels(poly: TruthItem['polygon'], w: number, h: number): number[] {
  const xs = poly.map((p) => p.x);
  const ys = poly.map((p) => p.y);
  const out: number[] = [];
  for (let y = Math.max(0, Math.floor(Math.min(...ys))); y < Math.min(h, Math.ceil(Math.max(...ys))); y++) {
    for (let x = Math.max(0, Math.floor(Math.min(...xs))); x < Math.min(w, Math.ceil(Math.max(...xs))); x++) {
      const cx = x + 0.5;
      const cy = y + 0.5;
      let inside = true;
      for (let i = 0; i < 4 && inside; i++) {
        const a = poly[i]!;
        const b = poly[(i + 1) % 4]!;
        if ((b.x - a.x) * (cy - a.y) - (b.y - a.y) * (cx - a.x) < 0) inside = false;
      }
      if (inside) out.push(y * w + x);
    }
  }
  return out;
}

const overlap = (a: Rect, b: Rect) =>
  Math.max(0, Math.min(a.x + a.width, b.x + b.width) - Math.max(a.x, b.x)) *
  Math.max(0, Math.min(a.y + a.height, b.y + b.height) - Math.max(a.y, b.y));
const grow = (r: Rect, pad: number): Rect => ({
  x: r.x - pad,
  y: r.y - pad,
  width: r.width + 2 * pad,
  height: r.height + 2 * pad,
});
const squash = (s: string) => s.replace(/\s+/g, '');
const pct = (a: number, b: number) => (b ? `${((100 * a) / b).toFixed(2)} %` : '—');

// ── one page ──

interface Miss {
  page: string;
  kind: IdKind;
  text: string;
  covered: number;
  cause: 'ocr' | 'ocr-spaces' | 'detector' | 'span-short' | 'placement';
  ocrText: string;
  boxes: string[];
  line: string;
}
interface Overhang {
  lang: string;
  left: number;
  right: number;
  top: number;
  bottom: number;
  pad: number;
}
interface PageResult {
  id: string;
  lang: string;
  ocrMs: number;
  regions: number;
  boxes: Placed[];
  idPixels: Record<string, [number, number]>;
  /** identifiers per kind */
  idCounts: Record<string, number>;
  producedPixels: number;
  onTruth: number;
  onTruthPadded: number;
  /** produced pixels outside the padded truth that belong to boxes lying mostly off the identifiers */
  offPixels: number;
  clinical: { text: string; covered: number }[];
  dates: { text: string; covered: number }[];
  misses: Miss[];
  /** for identifiers covered by one box: how far the box reaches beyond the ground truth grown by the padding */
  overhang: Overhang[];
  offBoxes: { kind: string; reason: string; text: string; onTruth: number }[];
}

function evaluate(page: GeneratedPage, r: OcrResult, boxes: Placed[], ocrMs: number): PageResult {
  const { width: W, height: H } = page;
  const produced = new Mask(W, H);
  for (const b of boxes) produced.rect(b);
  const truth = new Mask(W, H);
  const padded = new Mask(W, H);
  const idPixels: Record<string, [number, number]> = {};
  const idCounts: Record<string, number> = {};
  const misses: Miss[] = [];
  const overhang: Overhang[] = [];
  for (const it of page.identifiers) {
    const px = polygonPixels(it.polygon, W, H);
    truth.set(px);
    let covered = 0;
    for (const i of px) covered += produced.a[i]!;
    idCounts[it.kind] = (idCounts[it.kind] ?? 0) + 1;
    const k = (idPixels[it.kind] ??= [0, 0]);
    k[0] += covered;
    k[1] += px.length;
    // the padding pageBoxes would give it: padOf(height of the OCR region it lies in)
    const region = r.regions.map((g) => ({ g, o: overlap(g.box, it.box) })).sort((a, b) => b.o - a.o)[0];
    const pad = padOf(region && region.o > 0 ? region.g.box.height : Math.round(it.fontSize * 1.5));
    padded.rect(grow(it.box, pad));
    const share = px.length ? covered / px.length : 1;
    const over = boxes.filter((b) => overlap(b, it.box) > 0);
    if (share >= 0.995 && over.length === 1) {
      const b = over[0]!;
      const g = grow(it.box, pad);
      overhang.push({
        lang: page.lang,
        left: g.x - b.x,
        right: b.x + b.width - (g.x + g.width),
        top: g.y - b.y,
        bottom: b.y + b.height - (g.y + g.height),
        pad,
      });
    }
    if (share < 0.995) {
      const regions = r.regions.filter((g) => overlap(g.box, it.box) > 0.2 * it.box.width * it.box.height);
      const ocrText = regions.map((g) => g.text).join(' | ');
      const touching = boxes.filter((b) => overlap(b, it.box) > 0);
      const read = squash(ocrText).includes(squash(it.text));
      // read with its characters but not its spaces (the recogniser drops most spaces between Latin words)
      const spaced = ocrText.includes(it.text);
      const placedWhole = touching.some((b) => squash(b.text).includes(squash(it.text)));
      const cause: Miss['cause'] = !read
        ? 'ocr'
        : share > 0 && placedWhole
          ? 'placement'
          : share > 0
            ? 'span-short'
            : spaced
              ? 'detector'
              : 'ocr-spaces';
      misses.push({
        page: page.id,
        kind: it.kind as IdKind,
        text: it.text,
        covered: share,
        cause,
        ocrText,
        boxes: touching.map((b) => `${b.text} (${b.kind}/${b.reason})`),
        line: it.line,
      });
    }
  }
  const coveredShare = (it: TruthItem) => {
    const px = polygonPixels(it.polygon, W, H);
    let covered = 0;
    for (const i of px) covered += produced.a[i]!;
    return { text: it.text, covered: px.length ? covered / px.length : 0 };
  };
  const clinical = page.clinical.map(coveredShare);
  const dates = page.dates.map(coveredShare);
  const offMask = new Mask(W, H);
  const offBoxes = boxes
    .map((b) => {
      const m = new Mask(W, H);
      m.rect(b);
      const n = m.count();
      const onTruth = n ? m.countIn(padded) / n : 1;
      if (onTruth < 0.5) offMask.rect(b);
      return { kind: b.kind, reason: b.reason, text: b.text, onTruth };
    })
    .filter((b) => b.onTruth < 0.5);
  let offPixels = 0;
  for (let i = 0; i < offMask.a.length; i++) offPixels += offMask.a[i]! & (padded.a[i]! ^ 1);
  return {
    id: page.id,
    lang: page.lang,
    ocrMs,
    regions: r.regions.length,
    boxes,
    idPixels,
    idCounts,
    producedPixels: produced.count(),
    onTruth: produced.countIn(truth),
    onTruthPadded: produced.countIn(padded),
    offPixels,
    clinical,
    dates,
    misses,
    overhang,
    offBoxes,
  };
}

// ── run ──

console.log(`OCR: ${JSON.stringify(ocrService().config)}${CACHE ? `; OCR cache ${CACHE}` : ''}`);
console.log(
  `pages: ${PAGES} generated (seed ${SEED})${ONLY.length ? `, only ${ONLY.join(',')}` : ''}; pipeline as deid.job.ts: ocrImage → ocrPiece → pageBoxes (default policy, subject record identifiers)`,
);
const results: PageResult[] = [];
const t0 = Date.now();
const cpu0 = process.cpuUsage();
for (let i = 0; i < PAGES; i++) {
  const page = await generatePage(i, SEED);
  if (ONLY.length && !ONLY.some((o) => page.id.startsWith(o))) continue;
  const { r, ms, cached } = await ocr(page.bytes);
  const boxes = placedBoxes(r, jobOptions(page.subject));
  const res = evaluate(page, r, boxes, ms);
  if (DRAW) await draw(page, boxes);
  results.push(res);
  const [c, t] = Object.values(res.idPixels).reduce(([a, b], [x, y]) => [a + x, b + y], [0, 0]);
  const survived = res.clinical.filter((x) => x.covered === 0).length;
  console.log(
    `${page.id.padEnd(34)} OCR ${cached ? 'cached' : `${(ms / 1000).toFixed(1)} s`}, ${String(res.regions).padStart(3)} regions, ${String(boxes.length).padStart(2)} boxes; ` +
      `recall ${pct(c, t)}, precision ${pct(res.onTruth, res.producedPixels)} raw / ${pct(res.onTruthPadded, res.producedPixels)} padding-aware; ` +
      `clinical ${survived}/${res.clinical.length}, dates kept ${res.dates.filter((x) => x.covered === 0).length}/${res.dates.length}; missed ${res.misses.length}`,
  );
}
const cpu = process.cpuUsage(cpu0);

// ── summary ──
const byKind: Record<string, [number, number]> = {};
for (const r of results)
  for (const [k, [c, t]] of Object.entries(r.idPixels)) {
    const v = (byKind[k] ??= [0, 0]);
    v[0] += c;
    v[1] += t;
  }
const allMisses = results.flatMap((r) => r.misses);
console.log(
  `\n${results.length} pages in ${((Date.now() - t0) / 1000).toFixed(0)} s (${((cpu.user + cpu.system) / 1e6).toFixed(0)} CPU-s in this process, generation included)`,
);
const kindLang = (k: string, lang?: string) => {
  let c = 0;
  let t = 0;
  for (const r of results) {
    if (lang && r.lang !== lang) continue;
    for (const [kk, [x, y]] of Object.entries(r.idPixels)) {
      if (k && kk !== k) continue;
      c += x;
      t += y;
    }
  }
  return pct(c, t);
};
const missIds = (k: string, lang?: string) => {
  const missed = allMisses.filter(
    (m) => (!k || m.kind === k) && (!lang || results.find((r) => r.id === m.page)?.lang === lang),
  ).length;
  const all = results
    .filter((r) => !lang || r.lang === lang)
    .reduce(
      (a, r) => a + Object.entries(r.idCounts).reduce((b, [kk, n]) => b + (!k || kk === k ? n : 0), 0),
      0,
    );
  return `${missed}/${all}`;
};
console.log(
  '\nrecall (identifier pixels under a box), per kind (in brackets: identifiers not fully covered / identifiers):',
);
console.log('| kind | all | zh pages | en pages |');
console.log('|---|---|---|---|');
for (const k of ID_KINDS) {
  if (!byKind[k]) continue;
  console.log(
    `| ${k} | ${kindLang(k)} (${missIds(k)}) | ${kindLang(k, 'zh')} (${missIds(k, 'zh')}) | ${kindLang(k, 'en')} (${missIds(k, 'en')}) |`,
  );
}
console.log(
  `| **overall** | **${kindLang('')}** (${missIds('')}) | ${kindLang('', 'zh')} (${missIds('', 'zh')}) | ${kindLang('', 'en')} (${missIds('', 'en')}) |`,
);
const P = results.reduce((a, r) => a + r.producedPixels, 0);
const onT = results.reduce((a, r) => a + r.onTruth, 0);
const onP = results.reduce((a, r) => a + r.onTruthPadded, 0);
const offP = results.reduce((a, r) => a + r.offPixels, 0);
console.log(
  `\nprecision: raw ${pct(onT, P)}, padding-aware ${pct(onP, P)} (${results.reduce((a, r) => a + r.boxes.length, 0)} boxes, ${P} px)`,
);
console.log(
  `  produced pixels: ${pct(onT, P)} on identifier ink boxes, ${pct(onP - onT, P)} in their padding, ${pct(P - onP - offP, P)} beyond the padding of boxes on identifiers (placement overhang), ${pct(offP, P)} in boxes mostly off identifiers (false positives)`,
);
console.log(`  precision without the false-positive boxes: ${pct(onP, P - offP)} padding-aware`);
const med = (xs: number[]) => [...xs].sort((x, y) => x - y)[Math.floor(xs.length / 2)] ?? NaN;
for (const lang of ['zh', 'en']) {
  const o = results.flatMap((r) => r.overhang).filter((x) => x.lang === lang);
  if (!o.length) continue;
  console.log(
    `  ${lang}: a box on one identifier reaches beyond its ground truth + padding by (median px) left ${med(o.map((x) => x.left))}, right ${med(o.map((x) => x.right))}, ` +
      `top ${med(o.map((x) => x.top))}, bottom ${med(o.map((x) => x.bottom))} (padding median ${med(o.map((x) => x.pad))} px; ${o.length} identifiers)`,
  );
}
const clin = results.flatMap((r) => r.clinical);
console.log(
  `clinical values surviving: ${pct(clin.filter((c) => c.covered === 0).length, clin.length)} untouched, ${pct(clin.filter((c) => c.covered < 0.05).length, clin.length)} with < 5 % covered (${clin.length} values)`,
);
for (const r of results)
  for (const c of r.clinical.filter((x) => x.covered > 0))
    console.log(`  touched: ${r.id} "${c.text}" ${(c.covered * 100).toFixed(1)} % covered`);
const dts = results.flatMap((r) => r.dates);
console.log(
  `dates the default policy keeps (visit, sampling, admission, report; not identifiers): ${pct(dts.filter((c) => c.covered === 0).length, dts.length)} untouched, ${pct(dts.filter((c) => c.covered < 0.05).length, dts.length)} with < 5 % covered (${dts.length} dates)`,
);
for (const r of results)
  for (const c of r.dates.filter((x) => x.covered > 0))
    console.log(`  touched: ${r.id} "${c.text}" ${(c.covered * 100).toFixed(1)} % covered`);

console.log(
  '\nidentifiers not fully covered (cause: ocr = characters misread; ocr-spaces = characters read, spaces between words lost, no box; detector = read as written, no box; span-short = the span misses part; placement = span whole, box short):',
);
const causes = ['ocr', 'ocr-spaces', 'detector', 'span-short', 'placement'] as const;
for (const cause of causes) {
  const ms = allMisses.filter((m) => m.cause === cause);
  if (!ms.length) continue;
  console.log(`\n[${cause}] ${ms.length}`);
  for (const m of ms.sort((a, b) => a.kind.localeCompare(b.kind)))
    console.log(
      `  ${m.kind.padEnd(16)} ${JSON.stringify(m.text)} ${(m.covered * 100).toFixed(0)} % covered — ${m.page}; OCR: ${JSON.stringify(m.ocrText)}${m.boxes.length ? `; boxes: ${m.boxes.join('; ')}` : ''}`,
    );
}
const off = results.flatMap((r) => r.offBoxes.map((b) => ({ ...b, page: r.id })));
console.log(
  `\nboxes mostly off the identifiers (< 50 % of their area on padded ground truth): ${off.length}`,
);
for (const b of off)
  console.log(
    `  ${b.page}: ${b.kind}/${b.reason} ${JSON.stringify(b.text)} (${(b.onTruth * 100).toFixed(0)} % on truth)`,
  );

// ── real images (bench/fixtures/deid-real) ──
const realDir = path.join(here, 'fixtures', 'deid-real');
const real: { file: string; expect: string[] }[] = [
  { file: 'ocr_test.png', expect: ['David Johnson', '(212) 555-1234', 'opencode@microsoft.com'] },
  { file: 'ocr_bounding_box.png', expect: ['Jessica Smith', 'John Constantine'] },
];
console.log('\nreal images (bench/fixtures/deid-real; identifiers located by OCR, no pixel truth):');
for (const { file, expect } of real) {
  const bytes = fs.readFileSync(path.join(realDir, file));
  const { r } = await ocr(bytes);
  const boxes = placedBoxes(r, { keywords: [] });
  const produced = new Mask(r.width, r.height);
  for (const b of boxes) produced.rect(b);
  const found = expect.map((e) => {
    for (const g of r.regions) {
      const at = findChars(g, e);
      if (!at) continue;
      const { polygon } = substringBox(g, at[0], at[1]);
      const px = polygonPixels(polygon, r.width, r.height);
      const c = px.filter((i) => produced.a[i]).length;
      return `${JSON.stringify(e)} ${px.length ? ((100 * c) / px.length).toFixed(0) : 0} %`;
    }
    return `${JSON.stringify(e)} not read by OCR`;
  });
  console.log(
    `  ${file}: ${boxes.length} boxes (${boxes.map((b) => `${b.text}: ${b.kind}`).join('; ')}); covered: ${found.join(', ')}`,
  );
}

fs.mkdirSync(path.join(here, 'results'), { recursive: true });
fs.writeFileSync(
  path.join(here, 'results', 'deid-quality.json'),
  JSON.stringify({ seed: SEED, pages: results }, null, 1),
);
await closeOcr();

/**
 * Benchmark (issue 13 item 5): dictionary search over TERMS generated terms (default 100,000) — realistic zh/en
 * diagnosis-like terms (site × disorder × modifier × qualifier), ICD-like codes, about half with synonyms — imported
 * through the import's own writer (writeVersion: terms, pinyin and search keys, one transaction), then searched
 * through the service (searchTerms, limit 20) one query at a time: code prefixes, zh prefixes, en prefixes and later
 * words, synonyms, pinyin initials, contains matches (text from inside a term, where the prefixes find too few), and
 * texts that match nothing (the worst case: the contains match scans every term of the version).
 * Prints p50 / p95 / p99 / max per kind of search. Goal: prefix and pinyin-initial searches p99 < 20 ms.
 *
 *   npm run bench -- dictionary-search                         (embedded PGlite)
 *   DATABASE_URL=postgres://postgres@127.0.0.1:5432/esource_bench npm run bench -- dictionary-search
 */
import os from 'node:os';
import { performance } from 'node:perf_hooks';
import { openDatabase } from '../apps/server/src/db/client';
import { setAuditChainKey } from '../apps/server/src/modules/audit/audit.service';
import { writeVersion } from '../apps/server/src/modules/dictionaries/dictionaries.service';
import { searchTerms } from '../apps/server/src/modules/dictionaries/dictionaries.search';
import { pinyinKeys } from '../apps/server/src/modules/dictionaries/dictionary-keys';
import type { ImportRow } from '../apps/server/src/modules/dictionaries/dictionaries.import';

const TERMS = Number(process.env.TERMS ?? 100_000);
const QUERIES = Number(process.env.QUERIES ?? 400);

// a small deterministic generator, so that every run searches the same data
let seed = 20261121;
const rnd = () => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648;
const pick = <T>(a: readonly T[]): T => a[Math.floor(rnd() * a.length)]!;

const SITES: [string, string][] = [
  ['肝', 'liver'],
  ['肾', 'kidney'],
  ['肺', 'lung'],
  ['心脏', 'heart'],
  ['胃', 'stomach'],
  ['结肠', 'colon'],
  ['直肠', 'rectum'],
  ['胰腺', 'pancreas'],
  ['甲状腺', 'thyroid'],
  ['乳腺', 'breast'],
  ['前列腺', 'prostate'],
  ['膀胱', 'bladder'],
  ['皮肤', 'skin'],
  ['股骨', 'femur'],
  ['膝关节', 'knee joint'],
  ['髋关节', 'hip joint'],
  ['脑', 'brain'],
  ['脊髓', 'spinal cord'],
  ['视网膜', 'retina'],
  ['中耳', 'middle ear'],
  ['鼻窦', 'nasal sinus'],
  ['咽', 'pharynx'],
  ['喉', 'larynx'],
  ['食管', 'esophagus'],
  ['十二指肠', 'duodenum'],
  ['胆囊', 'gallbladder'],
  ['脾', 'spleen'],
  ['子宫', 'uterus'],
  ['卵巢', 'ovary'],
  ['睾丸', 'testis'],
  ['冠状动脉', 'coronary artery'],
  ['下肢静脉', 'lower limb vein'],
  ['淋巴结', 'lymph node'],
  ['骨髓', 'bone marrow'],
  ['支气管', 'bronchus'],
  ['胸膜', 'pleura'],
  ['腹膜', 'peritoneum'],
  ['输尿管', 'ureter'],
  ['肾上腺', 'adrenal gland'],
  ['垂体', 'pituitary'],
];
const DISORDERS: [string, string][] = [
  ['炎', 'inflammation'],
  ['恶性肿瘤', 'malignant neoplasm'],
  ['良性肿瘤', 'benign neoplasm'],
  ['结石', 'calculus'],
  ['损伤', 'injury'],
  ['出血', 'hemorrhage'],
  ['梗死', 'infarction'],
  ['功能不全', 'insufficiency'],
  ['衰竭', 'failure'],
  ['感染', 'infection'],
  ['囊肿', 'cyst'],
  ['息肉', 'polyp'],
  ['纤维化', 'fibrosis'],
  ['硬化', 'sclerosis'],
  ['溃疡', 'ulcer'],
  ['狭窄', 'stenosis'],
  ['畸形', 'malformation'],
  ['脓肿', 'abscess'],
  ['坏死', 'necrosis'],
  ['增生', 'hyperplasia'],
  ['栓塞', 'embolism'],
  ['破裂', 'rupture'],
  ['萎缩', 'atrophy'],
  ['结核', 'tuberculosis'],
  ['转移癌', 'secondary malignant neoplasm'],
];
const MODIFIERS: [string, string][] = [
  ['急性', 'Acute'],
  ['慢性', 'Chronic'],
  ['继发性', 'Secondary'],
  ['原发性', 'Primary'],
  ['复发性', 'Recurrent'],
  ['先天性', 'Congenital'],
  ['药物性', 'Drug-induced'],
  ['中毒性', 'Toxic'],
  ['特发性', 'Idiopathic'],
  ['轻度', 'Mild'],
  ['重度', 'Severe'],
  ['左侧', 'Left'],
  ['右侧', 'Right'],
  ['双侧', 'Bilateral'],
  ['创伤性', 'Traumatic'],
];
const QUALIFIERS: [string, string][] = [
  ['', ''],
  ['伴出血', 'with hemorrhage'],
  ['不伴并发症', 'without complication'],
  ['伴感染', 'with infection'],
  ['未特指', 'unspecified'],
  ['伴梗阻', 'with obstruction'],
  ['初次就诊', 'initial encounter'],
  ['后遗症', 'sequela'],
];

function generate(n: number): ImportRow[] {
  const combos: [number, number, number, number][] = [];
  for (let a = 0; a < SITES.length; a++)
    for (let b = 0; b < DISORDERS.length; b++)
      for (let c = 0; c < MODIFIERS.length; c++)
        for (let d = 0; d < QUALIFIERS.length; d++) combos.push([a, b, c, d]);
  for (let i = combos.length - 1; i > 0; i--) {
    const j = Math.floor(rnd() * (i + 1));
    [combos[i], combos[j]] = [combos[j]!, combos[i]!];
  }
  const rows: ImportRow[] = [];
  for (let i = 0; i < n; i++) {
    const [a, b, c, d] = combos[i % combos.length]!;
    const round = Math.floor(i / combos.length);
    const [sz, se] = SITES[a]!;
    const [dz, de] = DISORDERS[b]!;
    const [mz, me] = MODIFIERS[c]!;
    const [qz, qe] = QUALIFIERS[d]!;
    const letter = String.fromCharCode(65 + (i % 26));
    const code = `${letter}${String(Math.floor(i / 26) % 100).padStart(2, '0')}.${Math.floor(i / 2600)}${round ? `-${round}` : ''}`;
    const termZh = `${mz}${sz}${dz}${qz ? `，${qz}` : ''}${round ? `（${round + 1}型）` : ''}`;
    const termEn = `${me} ${de} of ${se}${qe ? `, ${qe}` : ''}${round ? ` type ${round + 1}` : ''}`;
    const synonyms =
      rnd() < 0.5
        ? [`${sz}${dz}`, ...(rnd() < 0.4 ? [`${letter}${se.slice(0, 2).toUpperCase()}${i % 97}`] : [])]
        : [];
    rows.push({ rowNo: i + 2, code, termZh, termEn, synonyms });
  }
  return rows;
}

const pct = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.ceil((p / 100) * s.length) - 1)]!;
};

const database = await openDatabase({
  databaseUrl: process.env.DATABASE_URL || undefined,
  dataDir: 'memory://',
});
setAuditChainKey('dictionary-bench');
const db = database.db;
const rows = generate(TERMS);
const t0 = performance.now();
const version = `bench-${Date.now()}`;
const d = await db.transaction((tx) =>
  writeVersion(
    tx,
    { userId: null, userName: 'bench', requestId: null, ip: null, env: null },
    { kind: 'diagnosis', version, name: 'bench', source: null },
    rows,
  ),
);
const importMs = performance.now() - t0;
const keys = Number(
  (await database.executeSql(`select count(*)::int as n from dictionary_keys where dictionary_id = ${d.id}`))
    .rows[0]!.n,
);
console.log(
  `\ndictionary search — ${database.kind}, ${os.cpus().length} cores: ${TERMS.toLocaleString()} terms, ${keys.toLocaleString()} search keys, imported in ${(importMs / 1000).toFixed(1)} s (${Math.round(TERMS / (importMs / 1000)).toLocaleString()} terms/s)`,
);

// the texts, drawn from the data as a user would type them
const sample = () => rows[Math.floor(rnd() * rows.length)]!;
const initialsOf = (s: string) => pinyinKeys(s)?.initials ?? '';
const kinds: Record<string, () => string> = {
  'code prefix (1–4 chars)': () => sample().code.slice(0, 1 + Math.floor(rnd() * 4)),
  'exact code': () => sample().code,
  'zh prefix (1–3 chars)': () => sample().termZh!.slice(0, 1 + Math.floor(rnd() * 3)),
  'en prefix (3–8 chars)': () => sample().termEn!.slice(0, 3 + Math.floor(rnd() * 6)),
  'en later word': () => pick(DISORDERS)[1].slice(0, 4 + Math.floor(rnd() * 4)),
  'synonym prefix': () => {
    let r = sample();
    while (!r.synonyms.length) r = sample();
    return r.synonyms[0]!.slice(0, 2 + Math.floor(rnd() * 3));
  },
  'pinyin initials (2–4)': () => initialsOf(sample().termZh!).slice(0, 2 + Math.floor(rnd() * 3)),
  'pinyin initials (1)': () => initialsOf(sample().termZh!).slice(0, 1),
  'no match (full contains scan)': () => `zq${Math.floor(rnd() * 1e6)}x`,
  'contains (inside a zh term)': () => {
    const z = sample().termZh!;
    const i = 2 + Math.floor(rnd() * Math.max(1, z.length - 4));
    return z.slice(i, i + 3);
  },
};

// warm-up (plans, caches)
for (let i = 0; i < 50; i++)
  await searchTerms(db, { kind: 'diagnosis', text: kinds['zh prefix (1–3 chars)']!(), limit: 20 });

console.log(
  `${'search'.padEnd(30)} ${'n'.padStart(5)} ${'p50'.padStart(8)} ${'p95'.padStart(8)} ${'p99'.padStart(8)} ${'max'.padStart(8)}   avg hits`,
);
const prefixTimes: number[] = [];
for (const [name, make] of Object.entries(kinds)) {
  const times: number[] = [];
  let hits = 0;
  for (let i = 0; i < QUERIES; i++) {
    const text = make();
    const s = performance.now();
    const r = await searchTerms(db, { kind: 'diagnosis', text, limit: 20 });
    times.push(performance.now() - s);
    hits += r.length;
  }
  if (!name.startsWith('contains') && !name.startsWith('no match')) prefixTimes.push(...times);
  const f = (x: number) => `${x.toFixed(1)} ms`.padStart(8);
  console.log(
    `${name.padEnd(30)} ${String(QUERIES).padStart(5)} ${f(pct(times, 50))} ${f(pct(times, 95))} ${f(pct(times, 99))} ${f(Math.max(...times))}   ${(hits / QUERIES).toFixed(1)}`,
  );
}
console.log(
  `all prefix and pinyin searches: p50 ${pct(prefixTimes, 50).toFixed(1)} ms, p99 ${pct(prefixTimes, 99).toFixed(1)} ms   (goal: p99 < 20 ms)`,
);

// leave a server database as it was found
if (database.kind === 'postgres') await database.executeSql(`delete from dictionaries where id = ${d.id}`);
await database.close();

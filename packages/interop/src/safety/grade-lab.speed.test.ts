/**
 * How long grading takes for 10,000 records of every format. Printed, not asserted: a timed assertion fails on a
 * busy machine for reasons that are not the code's (DESIGN §9: benchmarks are not timed tests).
 */
import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { convertFhirResource } from '../fhir/fhir-to-records';
import { parseHl7 } from '../hl7/hl7-to-records';
import { gradeLab } from './grade-lab';
import type { LabRecordInput } from './reference-range';

const FIXTURES = path.resolve(import.meta.dirname, '../../test-fixtures/fhir-synthea');

/** Every laboratory Observation of the Synthea bundles, as source records (their raw is the resource's JSON). */
function syntheaLabRecords(): LabRecordInput[] {
  const out: LabRecordInput[] = [];
  for (const f of fs.readdirSync(FIXTURES).filter((x) => x.endsWith('.json.gz'))) {
    const bundle = JSON.parse(zlib.gunzipSync(fs.readFileSync(path.join(FIXTURES, f))).toString('utf8')) as {
      entry: { resource: { resourceType: string; category?: { coding?: { code?: string }[] }[] } }[];
    };
    for (const e of bundle.entry) {
      const r = e.resource;
      if (
        r.resourceType !== 'Observation' ||
        !r.category?.some((c) => c.coding?.some((x) => x.code === 'laboratory'))
      )
        continue;
      const c = convertFhirResource(r, {}, { resolvePatient: () => 'p' });
      if (c.kind === 'records') out.push(...c.records);
    }
  }
  return out;
}

/**
 * The same Observations with a reference range and an interpretation, as a hospital FHIR server sends them: one range
 * per test (taken around the first value seen), the flag by where the value falls.
 */
function withRanges(records: LabRecordInput[]): LabRecordInput[] {
  const ranges = new Map<string, { low: number; high: number }>();
  return records.map((r) => {
    const res = JSON.parse(r.raw!) as Record<string, unknown> & {
      valueQuantity?: { value?: number; unit?: string };
    };
    const v = res.valueQuantity?.value ?? 1;
    let range = ranges.get(r.code ?? '');
    if (!range)
      ranges.set(
        r.code ?? '',
        (range = { low: Number((v * 0.8).toFixed(2)), high: Number((v * 1.2).toFixed(2)) }),
      );
    const unit = res.valueQuantity?.unit;
    res.referenceRange = [
      {
        low: { value: range.low, unit },
        high: { value: range.high, unit },
        text: `${range.low}-${range.high}`,
      },
    ];
    const code = v > range.high ? 'H' : v < range.low ? 'L' : 'N';
    res.interpretation = [
      { coding: [{ system: 'http://terminology.hl7.org/CodeSystem/v3-ObservationInterpretation', code }] },
    ];
    return { ...r, raw: JSON.stringify(res) };
  });
}

const CN_TESTS: [string, string, string, string, number][] = [
  ['WBC', '白细胞计数', '10\\S\\9/L', '3.5-9.5', 6],
  ['NEUT#', '中性粒细胞绝对值', '10\\S\\9/L', '1.8-6.3', 3],
  ['HGB', '血红蛋白', 'g/L', '130-175', 140],
  ['PLT', '血小板计数', '10\\S\\9/L', '125-350', 200],
  ['ALT', '丙氨酸氨基转移酶', 'U/L', '9-50', 30],
  ['AST', '天门冬氨酸氨基转移酶', 'U/L', '15-40', 25],
  ['TBIL', '总胆红素', 'umol/L', '0-21', 12],
  ['CREA', '肌酐', 'umol/L', '57-111', 80],
  ['K', '钾', 'mmol/L', '3.5～5.3', 4.2],
  ['NA', '钠', 'mmol/L', '137-147', 140],
  ['CRP', 'C反应蛋白', 'mg/L', '0-10', 5],
];

function hl7Records(n: number): LabRecordInput[] {
  const out: LabRecordInput[] = [];
  for (let m = 0; out.length < n; m++) {
    const obx = CN_TESTS.map(
      ([code, name, unit, range, v], i) =>
        `OBX|${i + 1}|NM|${code}^${name}^L||${(v * (0.3 + ((m * 7 + i * 13) % 20) / 10)).toFixed(2)}|${unit}|${range}||||F`,
    );
    const msg = [
      `MSH|^~\\&|LIS|H|ES|H|20240301083000||ORU^R01|M${m}|P|2.5`,
      'PID|1||MRN1^^^H^MR',
      'OBR|1||L1|01^生化',
      ...obx,
    ].join('\r');
    out.push(...parseHl7(msg).records);
  }
  return out.slice(0, n);
}

function sqlRecords(n: number): LabRecordInput[] {
  const out: LabRecordInput[] = [];
  for (let i = 0; i < n; i++) {
    const [, name, unit, range, v] = CN_TESTS[i % CN_TESTS.length]!;
    const value = Number((v * (0.3 + (i % 20) / 10)).toFixed(2));
    const row = {
      patient_id: `P${i % 100}`,
      item_name: name,
      result: value,
      unit: unit.replace('\\S\\', '^'),
      参考范围: range,
      异常标志: '',
    };
    out.push({
      rawFormat: 'sql',
      raw: JSON.stringify(row),
      docType: 3,
      display: name,
      valueNum: value,
      unit: row.unit,
    });
  }
  return out;
}

function cycle<T>(list: T[], n: number): T[] {
  return Array.from({ length: n }, (_, i) => list[i % list.length]!);
}

describe('grading speed', () => {
  it('grades 10,000 records (FHIR without and with ranges, HL7 v2, SQL rows) and prints the time', () => {
    const synthea = syntheaLabRecords();
    const records = [
      ...cycle(synthea, 2500),
      ...cycle(withRanges(synthea), 2500),
      ...hl7Records(2500),
      ...sqlRecords(2500),
    ];
    expect(records).toHaveLength(10_000);
    /** wall and CPU time of one pass over `list`, best of `n` */
    const time = (list: LabRecordInput[], n: number) => {
      let wall = Infinity;
      let cpu = Infinity;
      let graded = 0;
      let out = 0;
      for (let k = 0; k < n; k++) {
        graded = 0;
        out = 0;
        const t0 = performance.now();
        const c0 = process.cpuUsage();
        for (const r of list) {
          const a = gradeLab(r);
          if (a) graded++;
          if (a?.outOfRange) out++;
        }
        const c = process.cpuUsage(c0);
        wall = Math.min(wall, performance.now() - t0);
        cpu = Math.min(cpu, (c.user + c.system) / 1000);
      }
      return { wall, cpu, graded, out };
    };
    const cold = time(records, 1); // caches empty, code not yet optimised, ICU normaliser loading
    const warm = time(records, 5);
    const part = (from: number) => {
      const t = time(records.slice(from, from + 2500), 5);
      return `${t.wall.toFixed(1)} ms (cpu ${t.cpu.toFixed(1)})`;
    };
    console.log(
      [
        `gradeLab, 10,000 records: first pass ${cold.wall.toFixed(1)} ms; then best of 5 ${warm.wall.toFixed(1)} ms wall, ${warm.cpu.toFixed(1)} ms cpu`,
        `(${warm.graded} graded, ${warm.out} out of range). Per 2,500: FHIR without range ${part(0)}, FHIR with range ${part(2500)},`,
        `HL7 v2 ${part(5000)}, SQL ${part(7500)}`,
      ].join(' '),
    );
    expect(warm.graded).toBe(10_000);
  }, 60_000);
});

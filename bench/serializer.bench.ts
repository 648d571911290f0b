/**
 * Benchmark (issue 16 item 2): what serialising a response costs, per page of 50 rows, on the response path the API
 * uses today (fastify-type-provider-zod: the zod schema encodes the value — checking it and dropping undeclared keys
 * — then JSON.stringify) against a serializer compiled from the same schema (z.toJSONSchema → fast-json-stringify,
 * Fastify's own, which writes only declared keys but checks nothing), and a bare JSON.stringify. One process, no I/O:
 * it says how much of a list request's ≈ 2–3 ms of API CPU the serialisation is.
 *
 *   npm run bench -- serializer        (ROUNDS, default 3 s per case)
 */
import { performance } from 'node:perf_hooks';
import { isDeepStrictEqual } from 'node:util';
import fastJson from 'fast-json-stringify';
import { z } from 'zod';
import { okEnvelope } from '../packages/shared/src/common.schema';
import { subjectListPage } from '../packages/shared/src/subjects.schema';
import { formDefinition, formsByStage } from '../packages/shared/src/design.schema';
import { DEMO_FORMS } from '../apps/server/src/seed/seed-design';

const SECONDS = Number(process.env.SECONDS ?? 3);

function subjectRows() {
  return Array.from({ length: 50 }, (_, i) => ({
    ptsId: 100_000 + i,
    ptsNo: `B${String(i).padStart(7, '0')}`,
    designVersionId: 1,
    orgId: 2,
    orgNo: '01',
    siteName: 'Demo City Hospital 示范市医院',
    siteId: 1,
    status: 1 + (i % 7),
    statusReason: null,
    initials: 'ZS',
    firstVisitDate: '2026-03-01',
    medicalRecordId: `MR${i}`,
    inpatientId: null,
    outpatientId: `OP${i}`,
    idCard: '110***********1234',
    identifiersMasked: true,
    currentVisitId: 3,
    currentVisitName: '第 2 周',
    formsDone: 7,
    formsTotal: 12,
    riskLevel: null,
    siteRiskLevel: 2,
    version: 3,
    createTime: '2026-03-01T08:00:00.000Z',
    updateTime: '2026-03-02T08:00:00.000Z',
    deleteTime: null,
    deleteReason: null,
    queries: i % 3 ? { open: 1, replied: 0 } : null,
  }));
}

function measure(name: string, fn: () => string): number {
  let n = 0;
  let bytes = 0;
  const end = performance.now() + SECONDS * 1000;
  for (let i = 0; i < 200; i++) fn(); // warm-up
  const t0 = performance.now();
  while (performance.now() < end) {
    bytes = fn().length;
    n++;
  }
  const us = ((performance.now() - t0) * 1000) / n;
  console.log(`  ${name.padEnd(44)} ${us.toFixed(1).padStart(7)} µs per page  (${bytes} chars)`);
  return us;
}

function compare(label: string, schema: z.ZodType, value: unknown) {
  console.log(`${label}:`);
  const zodWay = measure('zod encode + JSON.stringify (today)', () => JSON.stringify(z.encode(schema, value)));
  const json = z.toJSONSchema(schema, { io: 'output', unrepresentable: 'any', target: 'draft-7' });
  const compiled = fastJson(json as unknown as Parameters<typeof fastJson>[0]);
  const fast = measure('fast-json-stringify (compiled from the schema)', () => compiled(value));
  const bare = measure('JSON.stringify alone', () => JSON.stringify(value));
  const [a, b] = [compiled(value), JSON.stringify(z.encode(schema, value))];
  if (a !== b) console.log(isDeepStrictEqual(JSON.parse(a), JSON.parse(b)) ? '  (the same JSON value, some keys in another order)' : '  THE OUTPUTS DIFFER');
  console.log(`  saved per page by compiling: ${(zodWay - fast).toFixed(1)} µs; zod's check alone: ${(zodWay - bare).toFixed(1)} µs`);
}

const env = (data: unknown) => ({ code: 200, status: '1', data });
compare('subject list page (50 rows)', okEnvelope(subjectListPage), env({ pageNumber: 1, pageSize: 50, totalCount: 100_000, content: subjectRows() }));

// a design's forms with their definitions (a union of component kinds, tables nesting components): the case a
// compiled serializer does least well, since fast-json-stringify picks a union's branch by validating it
const forms = DEMO_FORMS.map((f, i) => ({
  id: i + 1,
  versionId: 1,
  code: f.code,
  name: f.name,
  nameEn: f.nameEn ?? null,
  lockVersion: 1,
  fieldCount: 5,
  definition: formDefinition.parse(f),
  updateTime: '2026-03-01T08:00:00.000Z',
}));
compare(`a design's ${forms.length} forms with their definitions`, okEnvelope(formsByStage), env({ version: null, forms }));

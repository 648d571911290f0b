/**
 * CDISC ODM 1.3.2 study definitions over the real API (issue 14 item 1): the demo design exported as ODM (valid
 * against the official XSD) and imported back gives the same forms and visits; the CDISC example imports as a new
 * design version listing what it could not map; a file that is not well-formed, breaks the schema or refers to an
 * undefined OID is refused with the line and the reason, and nothing is written.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eq } from 'drizzle-orm';
import { validateOdm } from '@esource/interop';
import { formFields, type FormDefinition } from '@esource/shared';
import { designVersions } from '../src/db/schema';
import { startTestServer, type TestServer } from './harness';

const FIXTURES = path.resolve(import.meta.dirname, '../../../packages/interop/src/odm/fixtures');
let s: TestServer;
let dm: string;
let projectId: number;
const DEV = () => ({ proId: projectId, proType: 'DEV', language: 'en_US' });
type Imported = { id: number; formCount: number; visitCount: number; unmapped?: { line: number; oid: string; reason: string; message: string }[] };
const importFile = (content: string) => s.api.post<Imported>('/project/info/import', { token: dm, headers: DEV(), json: { content } });
const versions = async () => (await s.database.db.select().from(designVersions).where(eq(designVersions.projectId, projectId))).length;

beforeAll(async () => {
  s = await startTestServer();
  dm = await s.api.login('dm');
  const p = await s.api.post<{ id: number }>('/pro/info/add', { token: dm, form: { no: 'ODM-1', name: 'ODM study', scene: 1 } });
  projectId = p.body.data.id;
});
afterAll(async () => {
  await s?.stop();
});

describe('ODM study definitions', () => {
  it('exports the demo design as valid ODM and imports it back with the same forms, items and visits', async () => {
    const odm = await fetch(`${s.url}/api/project/info/export?format=odm`, { headers: { token: dm, proId: '1', proType: 'PRO' } });
    expect(odm.status).toBe(200);
    expect(odm.headers.get('content-type')).toContain('application/xml');
    const xml = await odm.text();
    const valid = await validateOdm(xml, { engine: 'cli' });
    expect(valid.errors).toEqual([]);
    const imp = await importFile(xml);
    expect(imp.status, JSON.stringify(imp.body)).toBe(200);
    expect(imp.body.data).toMatchObject({ formCount: 8, visitCount: 4, unmapped: [] });
    const json = async (headers: Record<string, string>, q = '') => (await (await fetch(`${s.url}/api/project/info/export${q}`, { headers: { token: dm, ...headers } })).json()) as { forms: unknown[]; visits: unknown[]; stages: unknown[] };
    const orig = await json({ proId: '1', proType: 'PRO' });
    const back = await json({ proId: String(projectId), proType: 'DEV' }, `?versionId=${imp.body.data.id}`);
    // the same items (type, label, options, unit, range, condition …) in the same order; ODM has no place for a
    // table's grid or a component's id, so those are compared out (docs/decisions.md "CDISC ODM 1.3.2 mapping")
    const items = (forms: unknown[]) =>
      (forms as FormDefinition[]).map((f) => ({ code: f.code, name: f.name, nameEn: f.nameEn, cycle: f.cycle, fields: formFields(f.components).map(({ id: _id, displayCondition, ...x }) => ({ ...x, hasCondition: !!displayCondition })) }));
    expect(items(back.forms)).toEqual(items(orig.forms));
    // visits in the same order (ODM keeps the order, not our sort numbers)
    const plan = (visits: unknown[]) => (visits as { sortOrder: number }[]).map(({ sortOrder: _s, ...v }) => v);
    expect(plan(back.visits)).toEqual(plan(orig.visits));
  });

  it('imports the CDISC example as a new version and lists what it did not map', async () => {
    const imp = await importFile(fs.readFileSync(path.join(FIXTURES, 'MetaData_Dave_1_3_2_new_2006_01_26_extra_languages.xml'), 'utf8'));
    expect(imp.status, JSON.stringify(imp.body)).toBe(200);
    expect(imp.body.data.formCount).toBeGreaterThan(0);
    expect(imp.body.data.visitCount).toBe(5);
    expect(imp.body.data.unmapped!.length).toBeGreaterThan(0);
    expect(imp.body.data.unmapped!.every((u) => u.line > 0 && u.message && !u.message.includes('odmUnmapped'))).toBe(true);
  });

  it("imports another system's export (REDCap) with its vendor extensions listed as ignored, not refused", async () => {
    const imp = await importFile(fs.readFileSync(path.join(FIXTURES, 'redcap-style-odm.xml'), 'utf8'));
    expect(imp.status, JSON.stringify(imp.body)).toBe(200);
    expect(imp.body.data).toMatchObject({ formCount: 1, visitCount: 1 });
    const vendor = imp.body.data.unmapped!.filter((u) => u.oid.startsWith('redcap:') || u.message.includes('redcap:'));
    expect(vendor.find((u) => u.reason === 'vendorAttribute' && u.oid === 'redcap:Variable')?.message).toBe(
      "vendor attribute redcap:Variable (12 in the file) is ignored: it belongs to another system's extension of ODM",
    );
    expect(vendor.some((u) => u.reason === 'element' && u.message.startsWith('redcap:SurveysEnabled'))).toBe(true);
    const back = (await (await fetch(`${s.url}/api/project/info/export?versionId=${imp.body.data.id}`, { headers: { token: dm, proId: String(projectId), proType: 'DEV' } })).json()) as { forms: FormDefinition[] };
    const fields = formFields(back.forms[0]!.components);
    expect(fields.map((f) => f.label)).toEqual(expect.arrayContaining(['Date of birth', 'Sex', 'Weight (kg)']));
  });

  it('refuses a file with undefined OIDs, one that breaks the schema and one that is not XML, with the line; nothing is written', async () => {
    const before = await versions();
    const cdash = await importFile(fs.readFileSync(path.join(FIXTURES, 'cdash-odm-test.xml'), 'utf8'));
    expect(cdash.status).toBe(400);
    expect(cdash.body.message).toMatch(/line \d+: CodeListRef\/@CodeListOID refers to 'CL\.[A-Z.]+', which the file does not define/);
    const odm = await (await fetch(`${s.url}/api/project/info/export?format=odm`, { headers: { token: dm, proId: '1', proType: 'PRO' } })).text();
    const schemaBroken = odm.replace(/<FormDef /, '<FormDef Bogus="1" ');
    const bad = await importFile(schemaBroken);
    expect(bad.status).toBe(400);
    expect(bad.body.message).toMatch(/line \d+: not valid against the ODM 1\.3\.2 schema: .*Bogus/);
    const notXml = await importFile('<ODM><Study></ODM>');
    expect(notXml.status).toBe(400);
    expect(notXml.body.message).toMatch(/line 1: not well-formed XML/);
    expect(await versions()).toBe(before);
  });
});

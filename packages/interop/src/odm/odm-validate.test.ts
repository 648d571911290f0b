import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { odmClinicalChunks, type OdmSubject } from './odm-clinical';
import { CDISC_EXAMPLES, FIXTURES, richDesign, xmllintCli } from './odm-fixture';
import { designToOdmMetadata } from './odm-metadata';
import { validateOdm } from './odm-validate';

const read = (f: string) => fs.readFileSync(path.join(FIXTURES, f), 'utf8');
const meta = [
  ...designToOdmMetadata(richDesign(), { creationDateTime: new Date('2026-03-01T00:00:00Z') }),
].join('');
const lines = meta.split('\n');
/** the document with line `at` (1-based) changed */
function edit(match: RegExp, change: (line: string) => string): { xml: string; line: number } {
  const i = lines.findIndex((l) => match.test(l));
  const copy = [...lines];
  copy[i] = change(copy[i]!);
  return { xml: copy.join('\n'), line: i + 1 };
}

describe('validateOdm', () => {
  it.each(CDISC_EXAMPLES)('accepts %s', async (file) => {
    expect(await validateOdm(read(file))).toEqual({ valid: true, errors: [], engine: 'xmllint-wasm' });
  });

  it.each([
    [
      'an enumeration value out of its list',
      edit(/<FormDef OID="F.DM"/, (l) => l.replace('Repeating="No"', 'Repeating="Maybe"')),
      /Repeating.*Maybe/,
    ],
    [
      'a required attribute missing',
      edit(/<ItemRef ItemOID="I.DM.SEX"/, (l) => l.replace(' Mandatory="Yes"', '')),
      /Mandatory.*required/,
    ],
    [
      'an element out of order',
      edit(/<StudyEventDef OID="SE.V2"/, (l) =>
        l.replace(
          '>',
          '><FormRef FormOID="F.X" Mandatory="No"/><Description><TranslatedText>x</TranslatedText></Description>',
        ),
      ),
      /Description.*not expected/,
    ],
    [
      'an unknown element',
      edit(/<ItemDef OID="I.DM.SEX"/, (l) => `${l}<Color>red</Color>`),
      /Color.*not expected/,
    ],
    [
      'a duplicate OID',
      edit(/<ItemDef OID="I.DM.SEX"/, (l) => l.replace('I.DM.SEX', 'I.DM.PREG')),
      /Duplicate key-sequence/,
    ],
  ])('reports %s with its line and message, as the xmllint CLI does', async (_name, doc, message) => {
    const r = await validateOdm(doc.xml);
    expect(r.valid).toBe(false);
    expect(r.errors.length).toBeGreaterThan(0);
    expect(r.errors[0]!.message).toMatch(message);
    const cli = await validateOdm(doc.xml, { engine: 'cli' });
    expect(cli).toMatchObject({ valid: false, engine: 'xmllint-cli' });
    if (/Duplicate/.test(String(message))) {
      // identity constraints are reported where libxml2 evaluates them (the streaming reader: later than the DOM)
      expect(r.errors[0]!.line).toBeGreaterThanOrEqual(doc.line);
      expect(cli.errors[0]!.line).toBeGreaterThanOrEqual(doc.line);
    } else {
      expect(r.errors.map((e) => e.line)).toEqual(cli.errors.map((e) => e.line));
      expect(r.errors[0]!.line).toBe(doc.line);
    }
    expect(xmllintCli(doc.xml).code).not.toBe(0);
  });

  it('reports a document that is not well-formed with its line', async () => {
    const bad = `${lines.slice(0, 5).join('\n')}\n<Broken attr=>\n`;
    const r = await validateOdm(bad);
    expect(r).toMatchObject({ valid: false, engine: 'xmllint-wasm' });
    expect(r.errors[0]!.line).toBe(6);
    const cli = await validateOdm(bad, { engine: 'cli' });
    expect(cli.valid).toBe(false);
    expect(cli.errors[0]!.line).toBe(6);
  });

  it('validates a large clinical document in streaming mode (figures printed)', async () => {
    async function* subjects(): AsyncGenerator<OdmSubject> {
      for (let s = 0; s < 5000; s++) {
        const items = Array.from({ length: 50 }, (_, i) => ({
          itemOid: `I.LB.IT${i}`,
          value: i % 2 ? `值 ${i}` : s + i / 4,
        }));
        yield {
          subjectKey: `S${s}`,
          events: [
            { eventOid: 'SE.V1', forms: [{ formOid: 'F.LB', groups: [{ groupOid: 'IG.LB', items }] }] },
          ],
        };
      }
    }
    let xml = '';
    for await (const c of odmClinicalChunks(
      { fileOid: 'F', fileType: 'Snapshot', studyOid: 'S', metaDataVersionOid: 'M' },
      subjects(),
    ))
      xml += c;
    const t0 = performance.now();
    const r = await validateOdm(xml);
    console.log(
      `validateOdm: ${(Buffer.byteLength(xml) / 2 ** 20).toFixed(1)} MB (250,000 items) in ${Math.round(performance.now() - t0)} ms`,
    );
    expect(r).toEqual({ valid: true, errors: [], engine: 'xmllint-wasm' });
  }, 120_000);
});

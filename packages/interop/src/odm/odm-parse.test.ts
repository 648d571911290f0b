import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { CDISC_EXAMPLES, FIXTURES } from './odm-fixture';
import { OdmError, parseOdmClinical, parseOdmStudy, type OdmParsedSubject } from './odm-parse';

const read = (f: string) => fs.readFileSync(path.join(FIXTURES, f), 'utf8');

function error(fn: () => unknown): OdmError {
  try {
    fn();
  } catch (e) {
    if (e instanceof OdmError) return e;
    throw e;
  }
  throw new Error('no OdmError');
}

async function collect(it: AsyncIterable<OdmParsedSubject>): Promise<OdmParsedSubject[]> {
  const out: OdmParsedSubject[] = [];
  for await (const s of it) out.push(s);
  return out;
}

const HEAD =
  '<?xml version="1.0" encoding="UTF-8"?>\n<ODM xmlns="http://www.cdisc.org/ns/odm/v1.3" FileType="Snapshot" FileOID="F1" CreationDateTime="2026-01-01T00:00:00" ODMVersion="1.3.2">\n';

describe('parseOdmStudy: the CDISC examples', () => {
  it.each(CDISC_EXAMPLES)('parses %s', (file) => {
    const m = parseOdmStudy(read(file));
    expect(m.studies).toHaveLength(1);
    const mdv = m.studies[0]!.metaDataVersions[0]!;
    expect(mdv.forms.length).toBeGreaterThan(3);
    expect(mdv.items.length).toBeGreaterThan(40);
    expect(mdv.codeLists.length).toBeGreaterThan(10);
    // the CDASH file refers to three code lists by OIDs it never defines (it defines them as ODM.CL.…)
    expect(m.problems.map((p) => [p.line, p.oid, p.reason])).toEqual(
      file === 'cdash-odm-test.xml'
        ? [
            [301, 'CL.SEX', 'undefinedOid'],
            [313, 'CL.ETHNIC.SUBSET.ETHNIC', 'undefinedOid'],
            [325, 'CL.RACE', 'undefinedOid'],
          ]
        : [],
    );
  });

  it('reads the definitions with their lines', () => {
    const m = parseOdmStudy(read('MetaData_Dave_1_3_2_new_2006_01_26_extra_languages.xml'));
    const mdv = m.studies[0]!.metaDataVersions[0]!;
    expect(m).toMatchObject({ fileOid: 'CES_001', fileType: 'Transactional', odmVersion: '1.3.2' });
    expect(mdv.events.map((e) => [e.oid, e.type, e.repeating])).toEqual([
      ['BASELINE', 'Scheduled', false],
      ['WEEK_1', 'Scheduled', false],
      ['WEEK_2', 'Scheduled', false],
      ['DIARY', 'Scheduled', true],
      ['AE', 'Common', false],
    ]);
    const rbc = mdv.items.find((i) => i.oid === 'I_LB_RBC')!;
    expect(rbc).toMatchObject({ dataType: 'float', length: 8, significantDigits: 3, line: 841 });
    expect(rbc.rangeChecks.map((r) => [r.comparator, r.softHard, r.checkValues[0]])).toEqual([
      ['LE', 'Hard', '8.0'],
      ['GE', 'Hard', '2.0'],
      ['LE', 'Soft', '6.5'],
      ['GE', 'Soft', '4.0'],
    ]);
    expect(mdv.conditions.find((c) => c.oid === 'COND.SMOKING')!.expressions[0]).toMatchObject({
      context: 'XPath',
      text: "../ItemData[@ItemOID='I_SMOKING'][@Value='false']",
    });
    expect(mdv.methods.map((x) => x.oid)).toEqual(['METH.001']);
    expect(mdv.codeLists.find((c) => c.oid === 'CL_SEX')!.items[0]!.decode.map((d) => d.lang)).toContain(
      'ko',
    );
    // Presentation is not part of the model: listed
    expect(m.ignored.filter((i) => i.element === 'Presentation')).toHaveLength(4);
  });

  it('checks the references of clinical data in the same file', () => {
    const m = parseOdmStudy(read('odm-data-snapshot.xml'));
    expect(m.clinicalData).toEqual([
      { line: 846, studyOid: '1001_virus', metaDataVersionOid: 'v1.0.0', subjects: 2 },
    ]);
    expect(m.problems).toEqual([]);
    expect(m.ignored).toEqual([{ line: 838, element: 'AdminData', oid: '1001_virus' }]);
  });
});

describe('parseOdmStudy: bad input', () => {
  it.each([
    ['an unclosed element', `${HEAD}<Study OID="S">\n  <GlobalVariables>\n</Study>\n</ODM>`, 5],
    ['a bad attribute', `${HEAD}<Study OID="S" Name=x>\n</Study>\n</ODM>`, 3],
    [
      'an undefined entity',
      `${HEAD}<Study OID="S">\n<GlobalVariables><StudyName>a &nbsp; b</StudyName>\n</GlobalVariables></Study></ODM>`,
      4,
    ],
    ['text after the root', `${HEAD}</ODM>\n\njunk<x/>`, 5],
    ['a cut-off file', `${HEAD}<Study OID="S">\n<GlobalVariables>`, 4],
  ])('refuses %s with its line', (_name, xml, line) => {
    const e = error(() => parseOdmStudy(xml));
    expect(e.line).toBe(line);
    expect(e.column).toBeGreaterThan(0);
    expect(e.reason.length).toBeGreaterThan(5);
    expect(e.message).toContain(`line ${line}`);
  });

  it('refuses a document that is not ODM', () => {
    const e = error(() => parseOdmStudy('<?xml version="1.0"?>\n\n<html><body/></html>'));
    expect(e).toMatchObject({ line: 3, column: 1 });
    expect(e.reason).toContain('not an ODM');
  });

  it('lists every reference to an undefined OID with its line, and duplicate OIDs', () => {
    const xml = `${HEAD}<Study OID="S">
<GlobalVariables><StudyName>s</StudyName><StudyDescription/><ProtocolName>p</ProtocolName></GlobalVariables>
<BasicDefinitions><MeasurementUnit OID="MU.kg" Name="kg"><Symbol><TranslatedText>kg</TranslatedText></Symbol></MeasurementUnit></BasicDefinitions>
<MetaDataVersion OID="MDV" Name="m">
<Protocol><StudyEventRef StudyEventOID="SE.1" Mandatory="Yes"/><StudyEventRef StudyEventOID="SE.MISSING" Mandatory="Yes"/></Protocol>
<StudyEventDef OID="SE.1" Name="e" Repeating="No" Type="Scheduled"><FormRef FormOID="F.1" Mandatory="Yes"/><FormRef FormOID="F.NOPE" Mandatory="Yes"/></StudyEventDef>
<FormDef OID="F.1" Name="f" Repeating="No"><ItemGroupRef ItemGroupOID="IG.1" Mandatory="Yes"/></FormDef>
<ItemGroupDef OID="IG.1" Name="g" Repeating="No">
  <ItemRef ItemOID="I.1" Mandatory="Yes" CollectionExceptionConditionOID="C.NONE"/>
  <ItemRef ItemOID="I.GONE" Mandatory="No" MethodOID="M.NONE"/>
</ItemGroupDef>
<ItemDef OID="I.1" Name="i" DataType="text"><MeasurementUnitRef MeasurementUnitOID="MU.lb"/><CodeListRef CodeListOID="CL.X"/></ItemDef>
<ItemDef OID="I.1" Name="again" DataType="text"/>
</MetaDataVersion>
</Study>
<ClinicalData StudyOID="S" MetaDataVersionOID="MDV">
<SubjectData SubjectKey="1"><StudyEventData StudyEventOID="SE.1"><FormData FormOID="F.1"><ItemGroupData ItemGroupOID="IG.1">
<ItemData ItemOID="I.1" Value="a"/><ItemData ItemOID="I.UNKNOWN" Value="b"/>
</ItemGroupData></FormData></StudyEventData></SubjectData>
</ClinicalData>
</ODM>`;
    const m = parseOdmStudy(xml);
    expect(m.problems.map((p) => [p.line, p.oid, p.what, p.reason])).toEqual([
      [7, 'SE.MISSING', 'StudyEventRef/@StudyEventOID', 'undefinedOid'],
      [8, 'F.NOPE', 'FormRef/@FormOID', 'undefinedOid'],
      [11, 'C.NONE', 'ItemRef/@CollectionExceptionConditionOID', 'undefinedOid'],
      [12, 'I.GONE', 'ItemRef/@ItemOID', 'undefinedOid'],
      [12, 'M.NONE', 'ItemRef/@MethodOID', 'undefinedOid'],
      [14, 'MU.lb', 'MeasurementUnitRef/@MeasurementUnitOID', 'undefinedOid'],
      [14, 'CL.X', 'CodeListRef/@CodeListOID', 'undefinedOid'],
      [15, 'I.1', 'ItemDef', 'duplicateOid'],
      [20, 'I.UNKNOWN', 'ItemData/@ItemOID', 'undefinedOid'],
    ]);
  });
});

describe('parseOdmClinical', () => {
  it('streams the subjects of a real file (165 ItemData)', async () => {
    const subjects = await collect(parseOdmClinical(read('odm-data-snapshot.xml')));
    expect(subjects.map((s) => s.subjectKey)).toEqual(['SS_0001', 'SS_0002']);
    const items = subjects.flatMap((s) =>
      s.events.flatMap((e) => e.forms.flatMap((f) => f.groups.flatMap((g) => g.items))),
    );
    expect(items).toHaveLength(165);
    expect(subjects[0]).toMatchObject({ studyOid: '1001_virus', metaDataVersionOid: 'v1.0.0', line: 847 });
    expect(subjects[0]!.events[0]).toMatchObject({ eventOid: 'SE.SCREENING', repeatKey: '1' });
    expect(subjects[0]!.events[0]!.forms[0]!.groups[0]!.items[0]).toEqual({ itemOid: 'IT.AGE', value: '56' });
  });

  it('reads bytes split anywhere (inside a multi-byte character too) and typed ItemData', async () => {
    const xml = `${HEAD}<ClinicalData StudyOID="S" MetaDataVersionOID="M"><SubjectData SubjectKey="受试者-1" TransactionType="Insert"><SiteRef LocationOID="L1"/>
<StudyEventData StudyEventOID="SE.1"><FormData FormOID="F.1"><AuditRecord><UserRef UserOID="U1"/><LocationRef LocationOID="L1"/><DateTimeStamp>2026-01-01T00:00:00Z</DateTimeStamp><ReasonForChange>更正 &amp; 核对</ReasonForChange></AuditRecord>
<Signature><UserRef UserOID="U1"/><LocationRef LocationOID="L1"/><SignatureRef SignatureOID="SD1"/><DateTimeStamp>2026-01-02T00:00:00Z</DateTimeStamp></Signature>
<ItemGroupData ItemGroupOID="IG.1"><ItemData ItemOID="I.A" Value="发热 &lt; 38℃"/><ItemData ItemOID="I.B" IsNull="Yes"/></ItemGroupData>
<ItemGroupData ItemGroupOID="IG.2" ItemGroupRepeatKey="2"><ItemDataString ItemOID="I.C">文本</ItemDataString><ItemDataInteger ItemOID="I.D">42</ItemDataInteger></ItemGroupData>
</FormData></StudyEventData></SubjectData></ClinicalData></ODM>`;
    const bytes = Buffer.from(xml);
    const parts: Buffer[] = [];
    for (let i = 0; i < bytes.length; i += 7) parts.push(bytes.subarray(i, i + 7));
    const [s] = await collect(parseOdmClinical(parts));
    expect(s).toMatchObject({ subjectKey: '受试者-1', siteOid: 'L1', transactionType: 'Insert' });
    const form = s!.events[0]!.forms[0]!;
    expect(form.audit).toEqual({
      userOid: 'U1',
      locationOid: 'L1',
      dateTime: '2026-01-01T00:00:00Z',
      reason: '更正 & 核对',
    });
    expect(form.signature).toEqual({
      userOid: 'U1',
      locationOid: 'L1',
      signatureOid: 'SD1',
      dateTime: '2026-01-02T00:00:00Z',
    });
    expect(form.groups.map((g) => g.items)).toEqual([
      [
        { itemOid: 'I.A', value: '发热 < 38℃' },
        { itemOid: 'I.B', value: null },
      ],
      [
        { itemOid: 'I.C', value: '文本' },
        { itemOid: 'I.D', value: '42' },
      ],
    ]);
  });

  it('yields the subjects before a syntax error, then throws OdmError with the line', async () => {
    const xml = `${HEAD}<ClinicalData StudyOID="S" MetaDataVersionOID="M">\n<SubjectData SubjectKey="1"></SubjectData>\n<SubjectData SubjectKey="2"><Oops></SubjectData>\n</ClinicalData></ODM>`;
    const got: string[] = [];
    let err: unknown;
    try {
      for await (const s of parseOdmClinical([xml.slice(0, 250), xml.slice(250)])) got.push(s.subjectKey);
    } catch (e) {
      err = e;
    }
    expect(got).toEqual(['1']);
    expect(err).toBeInstanceOf(OdmError);
    expect((err as OdmError).line).toBe(5);
  });
});

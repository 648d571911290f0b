import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { designExportFile, formFields, type DesignExportFile } from '@esource/shared';
import { CDISC_EXAMPLES, FIXTURES, richDesign } from './odm-fixture';
import { odmToDesign, type OdmUnmapped } from './odm-import';
import { designToOdmMetadata, odmFormLayout } from './odm-metadata';
import { parseOdmStudy } from './odm-parse';

const read = (f: string) => fs.readFileSync(path.join(FIXTURES, f), 'utf8');
const importFile = (f: string) => odmToDesign(parseOdmStudy(read(f)));
const has = (u: OdmUnmapped[], partial: Partial<OdmUnmapped>) =>
  expect(u).toContainEqual(expect.objectContaining(partial));

describe('odmToDesign: the CDISC examples', () => {
  it.each(CDISC_EXAMPLES)(
    '%s gives a valid design and lists what it did not map, each with its line',
    (file) => {
      const { design, unmapped } = importFile(file);
      expect(designExportFile.safeParse(design).success).toBe(true);
      expect(design.forms.length).toBeGreaterThan(3);
      expect(design.visits.length).toBeGreaterThan(0);
      expect(unmapped.length).toBeGreaterThan(0);
      for (const u of unmapped) expect(u.line).toBeGreaterThan(0);
      // sorted by line, each entry once
      expect(unmapped.map((u) => u.line)).toEqual([...unmapped.map((u) => u.line)].sort((a, b) => a - b));
      expect(new Set(unmapped.map((u) => JSON.stringify(u))).size).toBe(unmapped.length);
    },
  );

  it('maps the CDISC example study (events, forms, types, code lists, units, ranges) and lists the rest', () => {
    const { design, unmapped } = importFile('MetaData_Dave_1_3_2_new_2006_01_26_extra_languages.xml');
    expect(design.version.name).toBe('CDISC Example Study Metadata');
    expect(design.visits.map((v) => [v.code, v.unscheduled, v.forms])).toEqual([
      ['BASELINE', false, ['F_BASELINE', 'F_CM', 'F_LAB', 'F_COMPLAINTS_REL_SMOKING']],
      ['WEEK_1', false, ['F_WEEK_1_2', 'F_LAB']],
      ['WEEK_2', false, ['F_WEEK_1_2', 'F_LAB']],
      ['DIARY', false, ['F_DIARY']],
      ['AE', true, ['F_AE', 'F_CM']],
    ]);
    const form = (code: string) => design.forms.find((f) => f.code === code)!;
    expect(form('F_AE').cycle).toBe(true);
    expect(form('F_BASELINE').cycle).toBe(false);
    const field = (code: string, v: string) =>
      formFields(form(code).components).find((f) => f.variable === v)!;
    expect(field('F_BASELINE', 'I_SEX')).toMatchObject({
      type: 'select',
      label: 'Sex',
      labelEn: 'Sex',
      required: true,
    });
    expect(field('F_BASELINE', 'I_SEX').options!.map((o) => [o.value, o.labelEn])).toEqual([
      ['M', 'Male'],
      ['F', 'Female'],
    ]);
    expect(field('F_BASELINE', 'I_SYSBP')).toMatchObject({
      type: 'number',
      precision: 0,
      unit: 'mm Hg',
      max: 179,
    });
    expect(field('F_LAB', 'I_LB_RBC')).toMatchObject({
      type: 'number',
      precision: 3,
      unit: 'million/uL',
      min: 2,
      max: 8,
    });
    expect(field('F_LAB', 'I_LB_RBC').softRange).toBeUndefined();
    expect(field('F_BASELINE', 'I_BRTHDT').type).toBe('date');
    expect(field('F_BASELINE', 'I_XRAY').type).toBe('file');
    expect(field('F_BASELINE', 'I_SMOKING')).toMatchObject({
      type: 'radio',
      options: [{ value: '1' }, { value: '0' }],
    });

    has(unmapped, { line: 1565, oid: 'METH.001', what: 'MethodDef', reason: 'methodDef' });
    has(unmapped, { oid: 'I_DIABP', what: 'ItemRef/@MethodOID', reason: 'methodDef' });
    has(unmapped, { oid: 'PR.001', what: 'Presentation', reason: 'element' });
    has(unmapped, { reason: 'otherLanguages', detail: 'fr, de, ko, it' });
    has(unmapped, { oid: 'I_NR_CIGARETTES', reason: 'condition', detail: 'COND.SMOKING: XPath' });
    has(unmapped, {
      line: 270,
      oid: 'IG_PD',
      reason: 'repeatingGroup',
      detail: 'inside a non-repeating form',
    });
    has(unmapped, { oid: 'IG_AE', reason: 'repeatingGroup', detail: 'inside a repeating form' });
    has(unmapped, { oid: 'AE', reason: 'eventType' });
    has(unmapped, { oid: 'DIARY', reason: 'repeatingEvent' });
    has(unmapped, { oid: 'I_VISITTIME', reason: 'dataType', detail: 'time' });
    has(unmapped, { oid: 'I_AE_DURATION', reason: 'dataType', detail: 'durationDatetime' });
    has(unmapped, { oid: 'I_SMOKING', reason: 'booleanAsChoice' });
    has(unmapped, { line: 529, oid: 'I_HEIGHT', reason: 'rangeCheck' });
    has(unmapped, { line: 868, oid: 'I_LB_RBC', reason: 'rangeCheckSoft' });
    has(unmapped, { oid: 'I_SITE', what: 'ItemDef/Alias', reason: 'alias', detail: 'SDTM: SITEID' });
  });

  it("derives codes our rules accept from other systems' OIDs and lists them", () => {
    const { design, unmapped } = importFile('cdash-odm-test.xml');
    expect(design.forms.map((f) => f.code)).toEqual(['DM', 'VS', 'AE', 'RACE']);
    has(unmapped, { oid: 'ODM.F.DM', reason: 'codeDerived', detail: 'ODM.F.DM → DM' });
    has(unmapped, {
      oid: 'ODM.IT.VS.WEIGHT.VSORRES',
      reason: 'codeDerived',
      detail: 'ODM.IT.VS.WEIGHT.VSORRES → VSORRES_2',
    });
    has(unmapped, { line: 301, oid: 'CL.SEX', reason: 'undefinedOid' });
    has(unmapped, { oid: 'ODM.IT.AE.AESTDTC', reason: 'dataType', detail: 'partialDatetime' });
    has(unmapped, { oid: 'ODM.IG.VS', reason: 'repeatingGroup' });
    const vs = formFields(design.forms.find((f) => f.code === 'VS')!.components);
    expect(new Set(vs.map((f) => f.variable)).size).toBe(vs.length);
  });

  it('lists the clinical data and repeating events of a data snapshot', () => {
    const { design, unmapped } = importFile('odm-data-snapshot.xml');
    expect(design.visits.map((v) => v.code)).toEqual(['SCREENING', 'VISIT_1', 'VISIT_2', 'VISIT_3']);
    has(unmapped, { line: 846, what: 'ClinicalData', reason: 'clinicalData', detail: '2 subjects' });
    has(unmapped, { line: 838, what: 'AdminData', reason: 'element' });
    has(unmapped, { oid: 'SE.VISIT 1', reason: 'codeDerived', detail: 'SE.VISIT 1 → VISIT_1' });
    has(unmapped, { oid: 'SE.SCREENING', reason: 'repeatingEvent' });
  });
});

/** What a round trip must keep: forms, their fields (tables flattened, conditions as written), options, units, visits. */
function essentials(d: DesignExportFile, conditions: 'layout' | 'as-is') {
  return {
    stages: d.stages.map((s) => s.name),
    forms: d.forms.map((f) => {
      const layout = odmFormLayout(f);
      return {
        code: f.code,
        name: f.name,
        nameEn: f.nameEn,
        cycle: f.cycle,
        fields: formFields(f.components).map(({ id: _id, displayCondition, ...rest }) => ({
          ...rest,
          displayCondition:
            conditions === 'layout'
              ? layout.fields.find((l) => l.field.variable === rest.variable)!.condition
              : displayCondition,
        })),
      };
    }),
    visits: d.visits.map(({ sortOrder: _s, ...v }) => ({ ...v, nameEn: v.nameEn ?? null })),
  };
}

describe('round trip design → ODM → parse → odmToDesign', () => {
  it.each([
    ['the demo design', () => JSON.parse(read('seed-design.json')) as DesignExportFile],
    ['the design with every field type', richDesign],
  ])('keeps %s: forms, items, options, units, visits — with nothing unmapped', (_name, make) => {
    const original = make();
    const xml = [...designToOdmMetadata(original)].join('');
    const { design, unmapped } = odmToDesign(parseOdmStudy(xml));
    expect(unmapped).toEqual([]);
    expect(design.version).toEqual(original.version);
    expect(design.project).toEqual(original.project);
    const strip = (x: unknown) => JSON.parse(JSON.stringify(x));
    expect(strip(essentials(design, 'as-is'))).toEqual(strip(essentials(original, 'layout')));
  });
});

describe('odmToDesign: what does not fit', () => {
  const long = (n: number, c = 'x') => c.repeat(n);
  const xml = `<?xml version="1.0" encoding="UTF-8"?>
<ODM xmlns="http://www.cdisc.org/ns/odm/v1.3" FileType="Snapshot" FileOID="T" CreationDateTime="2026-01-01T00:00:00" ODMVersion="1.3.2" SourceSystem="Other EDC">
<Study OID="ST">
<GlobalVariables><StudyName>Study</StudyName><StudyDescription/><ProtocolName>P-1</ProtocolName></GlobalVariables>
<BasicDefinitions><MeasurementUnit OID="MU.LONG" Name="long"><Symbol><TranslatedText xml:lang="en">${long(25, 'u')}</TranslatedText></Symbol></MeasurementUnit></BasicDefinitions>
<MetaDataVersion OID="OLD" Name="old version"/>
<MetaDataVersion OID="NEW" Name="${long(60, 'v')}">
<Protocol><StudyEventRef StudyEventOID="SE.${long(40, 'E')}" Mandatory="Yes" OrderNumber="1"/></Protocol>
<StudyEventDef OID="SE.${long(40, 'E')}" Name="${long(60, 'n')}" Repeating="No" Type="Scheduled"><FormRef FormOID="FORM ONE" Mandatory="Yes"/><FormRef FormOID="EMPTY" Mandatory="No"/></StudyEventDef>
<FormDef OID="FORM ONE" Name="Form" Repeating="No"><ItemGroupRef ItemGroupOID="G1" Mandatory="Yes"/><ItemGroupRef ItemGroupOID="G2" Mandatory="No"/></FormDef>
<FormDef OID="EMPTY" Name="Empty" Repeating="No"/>
<ItemGroupDef OID="G1" Name="g" Repeating="No">
<ItemRef ItemOID="1st-item" Mandatory="Yes" OrderNumber="1"/>
<ItemRef ItemOID="IT.A.1st_item" Mandatory="No" OrderNumber="2"/>
<ItemRef ItemOID="IT.${long(45, 'L')}" Mandatory="No" OrderNumber="3"/>
<ItemRef ItemOID="IT.NUM" Mandatory="No" OrderNumber="4" CollectionExceptionConditionOID="C.BAD"/>
<ItemRef ItemOID="IT.EXT" Mandatory="No" OrderNumber="5"/>
</ItemGroupDef>
<ItemGroupDef OID="G2" Name="race" Repeating="Yes"><ItemRef ItemOID="IT.RACE" Mandatory="Yes"/></ItemGroupDef>
<ItemDef OID="1st-item" Name="a" DataType="text"><Question><TranslatedText xml:lang="en">${long(120, 'q')}</TranslatedText></Question></ItemDef>
<ItemDef OID="IT.A.1st_item" Name="b" DataType="text" Length="2000"/>
<ItemDef OID="IT.${long(45, 'L')}" Name="c" DataType="string"><CodeListRef CodeListOID="CL.LONG"/></ItemDef>
<ItemDef OID="IT.NUM" Name="n" DataType="float" SignificantDigits="8">
<MeasurementUnitRef MeasurementUnitOID="MU.LONG"/>
<RangeCheck Comparator="GT" SoftHard="Soft"><CheckValue>0.5</CheckValue></RangeCheck>
<RangeCheck Comparator="NE" SoftHard="Hard"><CheckValue>7</CheckValue></RangeCheck>
<RangeCheck SoftHard="Hard"><FormalExpression Context="XPath">. &lt; 10</FormalExpression></RangeCheck>
</ItemDef>
<ItemDef OID="IT.EXT" Name="e" DataType="text"><CodeListRef CodeListOID="CL.EXT"/></ItemDef>
<ItemDef OID="IT.RACE" Name="Race" DataType="text"><Question><TranslatedText xml:lang="zh-CN">种族</TranslatedText><TranslatedText xml:lang="en-US">Race</TranslatedText></Question><CodeListRef CodeListOID="CL.RACE"/></ItemDef>
<CodeList OID="CL.LONG" Name="l" DataType="text">
<CodeListItem CodedValue="${long(60, 'c')}1"><Decode><TranslatedText>one</TranslatedText></Decode></CodeListItem>
<CodeListItem CodedValue="${long(60, 'c')}2"><Decode><TranslatedText>two</TranslatedText></Decode></CodeListItem>
</CodeList>
<CodeList OID="CL.EXT" Name="meddra" DataType="text"><ExternalCodeList Dictionary="MedDRA" Version="26.0"/></CodeList>
<CodeList OID="CL.RACE" Name="race" DataType="text">
<CodeListItem CodedValue="ASIAN"><Decode><TranslatedText xml:lang="zh-CN">亚裔</TranslatedText><TranslatedText xml:lang="en-US">Asian</TranslatedText></Decode></CodeListItem>
<CodeListItem CodedValue="WHITE"><Decode><TranslatedText xml:lang="en-US">White</TranslatedText></Decode></CodeListItem>
</CodeList>
<ConditionDef OID="C.BAD" Name="bad"><Description><TranslatedText>x</TranslatedText></Description><FormalExpression Context="eSource">not (NOPE == 1)</FormalExpression></ConditionDef>
<MethodDef OID="M.1" Name="m" Type="Computation"><Description><TranslatedText>x</TranslatedText></Description></MethodDef>
</MetaDataVersion>
</Study>
</ODM>`;

  it('derives valid unique codes, cuts long texts and lists each change with its line', () => {
    const { design, unmapped } = odmToDesign(parseOdmStudy(xml));
    expect(designExportFile.safeParse(design).success).toBe(true);
    expect(design.version.name).toBe(`${long(49, 'v')}…`);
    expect(design.visits[0]).toMatchObject({
      code: long(30, 'E'),
      name: `${long(49, 'n')}…`,
      forms: ['FORM_ONE'],
    });
    const fields = formFields(design.forms[0]!.components);
    expect(fields.map((f) => [f.variable, f.type])).toEqual([
      ['V1st_item', 'text'],
      ['V1st_item_2', 'textarea'],
      [long(40, 'L'), 'select'],
      ['NUM', 'number'],
      ['EXT', 'text'],
      ['RACE', 'checkbox'],
    ]);
    expect(fields[0]!.label).toBe(`${long(99, 'q')}…`);
    expect(fields[2]!.options!.map((o) => o.value)).toEqual([long(50, 'c'), `${long(48, 'c')}_2`]);
    expect(fields[3]).toMatchObject({ min: 0.5, softRange: true, unit: `${long(19, 'u')}…` });
    expect(fields[3]!.precision).toBeUndefined();
    expect(fields[3]!.displayCondition).toBeUndefined();
    expect(fields[5]).toMatchObject({ label: '种族', labelEn: 'Race' });
    expect(fields[5]!.required).toBeUndefined();
    expect(fields[5]!.options).toEqual([
      { value: 'ASIAN', label: '亚裔', labelEn: 'Asian' },
      { value: 'WHITE', label: 'White', labelEn: 'White' },
    ]);

    const r = (reason: string) =>
      unmapped.filter((u) => u.reason === reason).map((u) => [u.line, u.oid, u.what, u.detail]);
    expect(r('otherMetaDataVersion')).toEqual([[6, 'OLD', 'MetaDataVersion', undefined]]);
    expect(r('codeDerived')).toEqual([
      [9, `SE.${long(40, 'E')}`, 'StudyEventDef/@OID', `SE.${long(40, 'E')} → ${long(30, 'E')}`],
      [10, 'FORM ONE', 'FormDef/@OID', 'FORM ONE → FORM_ONE'],
      [20, '1st-item', 'ItemDef/@OID', '1st-item → V1st_item'],
      [21, 'IT.A.1st_item', 'ItemDef/@OID', 'IT.A.1st_item → V1st_item_2'],
      [22, `IT.${long(45, 'L')}`, 'ItemDef/@OID', `IT.${long(45, 'L')} → ${long(40, 'L')}`],
      [23, 'IT.NUM', 'ItemDef/@OID', 'IT.NUM → NUM'],
      [29, 'IT.EXT', 'ItemDef/@OID', 'IT.EXT → EXT'],
      [30, 'IT.RACE', 'ItemDef/@OID', 'IT.RACE → RACE'],
      [32, 'CL.LONG', 'CodeListItem/@CodedValue', `${long(60, 'c')}1 → ${long(50, 'c')}`],
      [33, 'CL.LONG', 'CodeListItem/@CodedValue', `${long(60, 'c')}2 → ${long(48, 'c')}_2`],
    ]);
    expect(r('truncated').map((x) => x[0])).toEqual([5, 7, 9, 20]);
    expect(r('emptyForm')).toEqual([[11, 'EMPTY', 'FormDef', undefined]]);
    expect(r('precision')).toEqual([[23, 'IT.NUM', 'ItemDef/@SignificantDigits', '8 > 6']]);
    expect(r('rangeCheck')).toEqual([
      [25, 'IT.NUM', 'RangeCheck/@Comparator', 'GT 0.5 imported as ≥ 0.5'],
      [26, 'IT.NUM', 'RangeCheck', 'NE 7'],
      [27, 'IT.NUM', 'RangeCheck', '(no comparator) . < 10'],
    ]);
    expect(r('externalCodeList')).toEqual([[35, 'CL.EXT', 'ExternalCodeList', 'MedDRA 26.0']]);
    expect(r('condition')).toEqual([[10, 'IT.NUM', 'ItemRef/@CollectionExceptionConditionOID', 'NOPE == 1']]);
    expect(r('methodDef')).toEqual([[41, 'M.1', 'MethodDef', undefined]]);
  });

  it('imports the MetaDataVersion asked for', () => {
    const { design, unmapped } = odmToDesign(parseOdmStudy(xml), {
      metaDataVersionOid: 'OLD',
      versionName: 'v2',
    });
    expect(design).toMatchObject({ version: { name: 'v2' }, forms: [], visits: [] });
    expect(unmapped.filter((u) => u.reason === 'otherMetaDataVersion').map((u) => u.oid)).toEqual(['NEW']);
  });
});

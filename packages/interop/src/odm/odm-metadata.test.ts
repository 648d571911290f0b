import { describe, expect, it } from 'vitest';
import { designToOdmMetadata, odmDataType, odmFormLayout } from './odm-metadata';
import { decodeOidPart, encodeOidPart, odmOid, parseOwnOid } from './odm-oids';
import { parseOdmStudy } from './odm-parse';
import { validateOdm } from './odm-validate';
import { richDesign, xmllintCli } from './odm-fixture';

const design = richDesign();
const CREATED = new Date('2026-03-01T08:00:00Z');
const xml = [...designToOdmMetadata(design, { creationDateTime: CREATED })].join('');

describe('odm-oids', () => {
  it('names OIDs from codes, distinct per element type, and reads ours back', () => {
    expect(odmOid.event('V1')).toBe('SE.V1');
    expect(odmOid.form('DM')).toBe('F.DM');
    expect(odmOid.item('DM', 'SEX')).toBe('I.DM.SEX');
    expect(odmOid.unit('10^9/L')).toBe('MU.10_5e_9_2f_L');
    expect(parseOwnOid('I.DM-X.SEX_2')).toEqual({ kind: 'item', form: 'DM-X', variable: 'SEX_2' });
    expect(parseOwnOid('IG.DM')).toEqual({ kind: 'itemGroup', form: 'DM' });
    expect(parseOwnOid('IG.XT.CHK')).toEqual({ kind: 'checkboxGroup', form: 'XT', variable: 'CHK' });
    expect(parseOwnOid('MU.10_5e_9_2f_L')).toEqual({ kind: 'unit', unit: '10^9/L' });
    expect(parseOwnOid('IT.DM.SEX')).toBeNull();
  });

  it('encodes free text reversibly and injectively', () => {
    for (const s of ['µmol/L', 'g/L', 'g_L', 'g-L', '10*3/uL', '', '血压 mmHg', '😀']) {
      expect(decodeOidPart(encodeOidPart(s))).toBe(s);
      expect(encodeOidPart(s)).toMatch(/^[A-Za-z0-9_]+$/);
    }
    expect(encodeOidPart('g/L')).not.toBe(encodeOidPart('g_L'));
  });
});

describe('designToOdmMetadata', () => {
  it('is valid against the ODM 1.3.2 XSD (real xmllint CLI)', () => {
    const r = xmllintCli(xml);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
  });

  it('is valid for validateOdm (xmllint-wasm) too', async () => {
    const r = await validateOdm(xml);
    expect(r).toMatchObject({ valid: true, errors: [], engine: 'xmllint-wasm' });
  });

  it('writes the root, study, units, protocol and every definition, all references resolvable', () => {
    expect(xml).toMatch(
      /^<\?xml version="1.0" encoding="UTF-8"\?>\n<ODM xmlns="http:\/\/www.cdisc.org\/ns\/odm\/v1.3" FileType="Snapshot" Granularity="Metadata" FileOID="[^"]+" CreationDateTime="2026-03-01T08:00:00Z" ODMVersion="1.3.2" SourceSystem="eSource">/,
    );
    const m = parseOdmStudy(xml);
    expect(m.problems).toEqual([]);
    expect(m.ignored).toEqual([]);
    const [study] = m.studies;
    expect(study!.oid).toBe('S.DEMO_2d_001');
    expect(study!.studyName).toBe('演示研究');
    const mdv = study!.metaDataVersions[0]!;
    expect(mdv.protocol!.eventRefs.map((r) => r.oid)).toEqual(['SE.V1', 'SE.V2', 'SE.V3', 'SE.UNS']);
    const uns = mdv.events.find((e) => e.oid === 'SE.UNS')!;
    expect(uns).toMatchObject({ repeating: true, type: 'Unscheduled', category: '治疗期 Treatment' });
    expect(mdv.events.find((e) => e.oid === 'SE.V1')).toMatchObject({ repeating: false, type: 'Scheduled' });
    expect(mdv.forms.find((f) => f.oid === 'F.AE')!.repeating).toBe(true);
    expect(mdv.forms.find((f) => f.oid === 'F.DM')!.repeating).toBe(false);
    expect(mdv.forms.map((f) => f.oid)).toEqual(design.forms.map((f) => `F.${f.code}`));
    expect(study!.units.map((u) => u.name).sort()).toEqual(
      ['10^9/L', 'bpm', 'g/L', 'kg', 'mg/dL', 'mmHg', 'mmol/L', 'µmol/L'].sort(),
    );
  });

  it('maps every field type to an ODM DataType', () => {
    const mdv = parseOdmStudy(xml).studies[0]!.metaDataVersions[0]!;
    const item = (v: string) => mdv.items.find((i) => i.oid === `I.XT.${v}`)!;
    expect(item('TXT')).toMatchObject({ dataType: 'text', length: 500 });
    expect(item('MEMO')).toMatchObject({ dataType: 'text', length: 5000 });
    expect(item('NUM1').dataType).toBe('float');
    expect(item('NUM1').significantDigits).toBeUndefined();
    expect(item('NUM2')).toMatchObject({ dataType: 'float', significantDigits: 2 });
    expect(item('NUM3').dataType).toBe('integer');
    expect(item('DT').dataType).toBe('date');
    expect(item('PDT').dataType).toBe('partialDate');
    expect(item('DTM').dataType).toBe('datetime');
    expect(item('RAD')).toMatchObject({ dataType: 'text', codeListRef: { oid: 'CL.XT.RAD' } });
    expect(item('SEL')).toMatchObject({ dataType: 'text', codeListRef: { oid: 'CL.XT.SEL' } });
    expect(item('CHK')).toMatchObject({ dataType: 'text', codeListRef: { oid: 'CL.XT.CHK' } });
    expect(item('ATT').dataType).toBe('URI');
    expect(item('NUM2').rangeChecks).toMatchObject([
      { comparator: 'GE', softHard: 'Soft', checkValues: ['0.5'] },
      { comparator: 'LE', softHard: 'Soft', checkValues: ['99.99'] },
    ]);
    expect(item('NUM3').rangeChecks).toMatchObject([
      { comparator: 'GE', softHard: 'Hard', checkValues: ['-10'] },
    ]);
    expect(item('NUM2').rangeChecks[0]!.errorMessage.map((t) => t.lang)).toEqual(['zh', 'en']);
    expect(item('NUM2').unitRefs).toMatchObject([{ oid: 'MU.10_5e_9_2f_L' }]);
    expect(item('TXT').question).toEqual([
      { lang: 'zh', text: `文本 A&B <x> "q" 'a'` },
      { lang: 'en', text: `Text A&B <x> "q" 'a'` },
    ]);
    const cl = mdv.codeLists.find((c) => c.oid === 'CL.XT.RAD')!;
    expect(cl.items.map((i) => [i.codedValue, i.decode, i.aliases.map((a) => a.name)])).toEqual([
      [
        'Y',
        [
          { lang: 'zh', text: '是 & <对>' },
          { lang: 'en', text: 'Yes & <right>' },
        ],
        ['1'],
      ],
      [
        'N',
        [
          { lang: 'zh', text: '否' },
          { lang: 'en', text: 'No' },
        ],
        ['2'],
      ],
    ]);
    expect(mdv.codeLists.find((c) => c.oid === 'CL.XT.SEL')!.items.map((i) => i.codedValue)).toEqual([
      'a"b',
      `c'd`,
    ]);
  });

  it('puts a checkbox in its own repeating group that keeps its place, and a table in the form group', () => {
    const mdv = parseOdmStudy(xml).studies[0]!.metaDataVersions[0]!;
    const f = mdv.forms.find((x) => x.oid === 'F.XT')!;
    expect(f.itemGroupRefs.map((r) => [r.oid, r.orderNumber, r.mandatory, r.conditionOid])).toEqual([
      ['IG.XT', 1, true, undefined],
      ['IG.XT.CHK', 2, true, 'C.XT.CHK'],
    ]);
    const g = mdv.itemGroups.find((x) => x.oid === 'IG.XT.CHK')!;
    expect(g.repeating).toBe(true);
    expect(g.itemRefs).toMatchObject([{ oid: 'I.XT.CHK', orderNumber: 11 }]);
    const main = mdv.itemGroups.find((x) => x.oid === 'IG.XT')!;
    expect(main.repeating).toBe(false);
    expect(main.itemRefs.map((r) => r.orderNumber)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 12, 13, 14, 15]);
    expect(main.itemRefs.find((r) => r.oid === 'I.XT.TXT')!.mandatory).toBe(true);
    // the table's condition and the cell's own, and-ed; negated as a collection exception
    expect(main.itemRefs.find((r) => r.oid === 'I.XT.T2')!.conditionOid).toBe('C.XT.T2');
    const cond = (oid: string) => mdv.conditions.find((c) => c.oid === oid)!.expressions;
    expect(cond('C.XT.T2')).toMatchObject([{ context: 'eSource', text: 'not ((NUM3 < 5) and (T1 > 0))' }]);
    expect(cond('C.XT.T1')).toMatchObject([{ context: 'eSource', text: 'not (NUM3 < 5)' }]);
    expect(cond('C.XT.AFTER')).toMatchObject([
      { context: 'eSource', text: 'not (TXT == "A&B" and NUM1 < 3)' },
    ]);
    expect(xml).toContain(
      '<FormalExpression Context="eSource">not (TXT == "A&amp;B" and NUM1 &lt; 3)</FormalExpression>',
    );
  });

  it('lays out forms and data types as documented', () => {
    const xt = design.forms.find((f) => f.code === 'XT')!;
    const layout = odmFormLayout(xt);
    expect(layout.fields.map((l) => l.field.variable)).toEqual([
      'TXT',
      'MEMO',
      'NUM1',
      'NUM2',
      'NUM3',
      'DT',
      'PDT',
      'DTM',
      'RAD',
      'SEL',
      'CHK',
      'ATT',
      'T1',
      'T2',
      'AFTER',
    ]);
    expect(odmFormLayout(design.forms.find((f) => f.code === 'XC')!).mainGroupOid).toBe('IG.XC');
    expect(odmDataType({ id: 'x', type: 'number', label: 'x', variable: 'X', precision: 3 })).toEqual({
      dataType: 'float',
      significantDigits: 3,
    });
  });

  it('escapes every text and attribute', () => {
    expect(xml).toContain(
      '<FormDef OID="F.XT" Name="全类型 &amp; &lt;测试&gt; &quot;表单&quot;" Repeating="No">',
    );
    expect(xml).toContain(`<TranslatedText xml:lang="zh">文本 A&amp;B &lt;x&gt; "q" 'a'</TranslatedText>`);
    expect(xml).toContain('<CodeListItem CodedValue="a&quot;b" OrderNumber="1">');
    expect(xml).toContain('<CodeListItem CodedValue="c&apos;d" OrderNumber="2">');
  });

  it('streams the document in chunks', () => {
    const chunks = [...designToOdmMetadata(design, { creationDateTime: CREATED })];
    expect(chunks.length).toBeGreaterThan(50);
    expect(chunks.join('')).toBe(xml);
  });
});

import { describe, expect, it } from 'vitest';
import type { DesignExportFile } from '@esource/shared';
import {
  formItemGroups,
  odmClinicalChunks,
  odmFieldValue,
  OdmWriteError,
  type OdmClinicalHeader,
  type OdmSubject,
} from './odm-clinical';
import { richDesign, xmllintCli } from './odm-fixture';
import { odmOid } from './odm-oids';
import { parseOdmClinical, parseOdmStudy } from './odm-parse';
import { designToOdmMetadata } from './odm-metadata';

const design = richDesign();
const AT = new Date('2026-03-02T09:15:00Z');

async function text(chunks: AsyncIterable<string>): Promise<string> {
  let out = '';
  for await (const c of chunks) out += c;
  return out;
}

/** A value for every field of the design, by type. */
function sampleValues(d: DesignExportFile, formCode: string): Record<string, unknown> {
  const form = d.forms.find((f) => f.code === formCode)!;
  const values: Record<string, unknown> = {};
  const fields = form.components.flatMap((c) =>
    c.type === 'table' ? c.cells.flatMap((cell) => (cell.component ? [cell.component] : [])) : [c],
  );
  for (const f of fields) {
    values[f.variable] = {
      text: `A&B <x> "q" 'a' 中文`,
      textarea: 'line 1\nline 2\ttab',
      number: f.precision === 0 ? 42 : '12.50',
      date: f.partialDate ? '2026-01' : '2026-01-02',
      datetime: '2026-01-02 10:30',
      radio: f.options?.[0]?.value,
      select: f.options?.at(-1)?.value,
      checkbox: f.options?.filter((_, i) => i !== 1).map((o) => o.value),
      file: 'uploads/报告 1.pdf',
    }[f.type];
  }
  return values;
}

const audit = {
  userOid: 'U.1',
  locationOid: 'L.SITE1',
  dateTime: AT,
  reason: '录入 & 核对 <首次>',
  sourceId: 'his:123',
};

function subjects(d: DesignExportFile, transactional: boolean): OdmSubject[] {
  return ['S-001', 'S-002 "东院"'].map((subjectKey) => ({
    subjectKey,
    siteOid: 'L.SITE1',
    ...(transactional ? { transactionType: 'Upsert' as const } : {}),
    events: d.visits.flatMap((v) =>
      (v.unscheduled ? [1, 2] : [undefined]).map((repeatKey) => ({
        eventOid: odmOid.event(v.code),
        ...(repeatKey ? { repeatKey } : {}),
        forms: v.forms.flatMap((code) => {
          const form = d.forms.find((f) => f.code === code)!;
          return (form.cycle ? [1, 2] : [undefined]).map((formRepeat) => ({
            formOid: odmOid.form(code),
            ...(formRepeat ? { repeatKey: formRepeat } : {}),
            groups: formItemGroups(form, sampleValues(d, code), {
              includeBlank: transactional,
              audit: (v) => (v === 'TXT' ? audit : undefined),
            }),
            audit,
            ...(code === 'XT'
              ? { signature: { userOid: 'U.1', locationOid: 'L.SITE1', signatureOid: 'SD.PI', dateTime: AT } }
              : {}),
          }));
        }),
      })),
    ),
  }));
}

const header: OdmClinicalHeader = {
  fileOid: 'F.TEST',
  fileType: 'Snapshot',
  creationDateTime: AT,
  studyOid: 'S.DEMO',
  metaDataVersionOid: 'MDV.v1',
};
const adminData = {
  users: [
    {
      oid: 'U.1',
      userType: 'Investigator' as const,
      loginName: 'pi01',
      fullName: '王医生 & <PI>',
      email: 'pi@example.org',
      locationOids: ['L.SITE1'],
    },
  ],
  locations: [{ oid: 'L.SITE1', name: '第一中心 "东院"', locationType: 'Site' as const }],
  signatureDefs: [
    {
      oid: 'SD.PI',
      methodology: 'Electronic' as const,
      meaning: '研究者签名 / PI signature',
      legalReason: '21 CFR Part 11',
    },
  ],
};

describe('odmClinicalChunks', () => {
  it('writes a Snapshot that is valid against the XSD (xmllint CLI): every type, repeats, checkbox groups, audit, signature', async () => {
    const xml = await text(odmClinicalChunks(header, subjects(design, false)));
    const r = xmllintCli(xml);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(xml).not.toContain('TransactionType');
    expect(xml).toContain('<StudyEventData StudyEventOID="SE.UNS" StudyEventRepeatKey="2">');
    expect(xml).toContain('<FormData FormOID="F.AE" FormRepeatKey="2">');
    expect(xml).toContain('<ItemGroupData ItemGroupOID="IG.XT.CHK" ItemGroupRepeatKey="2">');
    expect(xml).toContain('<ItemData ItemOID="I.XT.DTM" Value="2026-01-02T10:30:00"/>');
    expect(xml).toContain('<ItemData ItemOID="I.XT.RAD" Value="Y"/>');
    expect(xml).toContain('<ItemData ItemOID="I.XT.ATT" Value="uploads/%E6%8A%A5%E5%91%8A%201.pdf"/>');
    expect(xml).toContain('<ItemData ItemOID="I.XT.MEMO" Value="line 1&#10;line 2&#9;tab"/>');
    expect(xml).toContain(
      `<ItemData ItemOID="I.XT.TXT" Value="A&amp;B &lt;x&gt; &quot;q&quot; &apos;a&apos; 中文"><AuditRecord><UserRef UserOID="U.1"/><LocationRef LocationOID="L.SITE1"/><DateTimeStamp>2026-03-02T09:15:00Z</DateTimeStamp><ReasonForChange>录入 &amp; 核对 &lt;首次&gt;</ReasonForChange><SourceID>his:123</SourceID></AuditRecord></ItemData>`,
    );
  });

  it('writes a Transactional file with AdminData, TransactionType and IsNull that is valid (xmllint CLI)', async () => {
    const xml = await text(
      odmClinicalChunks({ ...header, fileType: 'Transactional', adminData }, subjects(design, true)),
    );
    const r = xmllintCli(xml);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(xml.indexOf('<AdminData')).toBeLessThan(xml.indexOf('<ClinicalData'));
    expect(xml).toContain(
      '<SubjectData SubjectKey="S-002 &quot;东院&quot;" TransactionType="Upsert"><SiteRef LocationOID="L.SITE1"/>',
    );
    expect(xml).toContain('<ItemData ItemOID="I.LB.LBDTC" Value="2026-01-02T10:30:00"/>');
    expect(xml).toMatch(/<ItemData ItemOID="I\.DM\.PREG" Value="Y"\/>/);
  });

  it('writes clinical data whose OIDs are all defined by the metadata of the same design', async () => {
    const meta = [
      ...designToOdmMetadata(design, {
        creationDateTime: AT,
        studyOid: 'S.DEMO',
        metaDataVersionOid: 'MDV.v1',
      }),
    ].join('');
    const clinical = await text(odmClinicalChunks({ ...header, adminData }, subjects(design, false)));
    // one document with both (the metadata's Study, then AdminData and ClinicalData)
    const both =
      meta.replace('</Study>\n</ODM>\n', '</Study>\n') + clinical.slice(clinical.indexOf('<AdminData'));
    expect(xmllintCli(both).code).toBe(0);
    expect(parseOdmStudy(both).problems).toEqual([]);
  });

  it('lays out a form of several item groups as its metadata defines them: groups of the form, items of the group, repeat keys exactly where Repeating', () => {
    const meta = parseOdmStudy(
      [...designToOdmMetadata(design, { creationDateTime: AT, studyOid: 'S.DEMO', metaDataVersionOid: 'MDV.v1' })].join(''),
    );
    const mdv = meta.studies[0]!.metaDataVersions[0]!;
    let several = 0;
    for (const form of design.forms) {
      const groups = formItemGroups(form, sampleValues(design, form.code));
      if (new Set(groups.map((g) => g.groupOid)).size > 1) several++;
      const def = mdv.forms.find((f) => f.oid === odmOid.form(form.code))!;
      for (const g of groups) {
        expect(def.itemGroupRefs.map((r) => r.oid)).toContain(g.groupOid);
        const gd = mdv.itemGroups.find((x) => x.oid === g.groupOid)!;
        expect(gd.repeating).toBe(g.repeatKey !== undefined);
        for (const i of g.items) expect(gd.itemRefs.map((r) => r.oid)).toContain(i.itemOid);
      }
    }
    // XT and XC: the form's items and a checkbox's own repeating group
    expect(several).toBeGreaterThanOrEqual(2);
  });

  it('writes Remove transactions (a FormData or ItemGroupData without children, an ItemData without a value) that are valid (xmllint CLI)', async () => {
    const input: OdmSubject[] = [
      {
        subjectKey: 'S-001',
        transactionType: 'Upsert',
        events: [
          {
            eventOid: 'SE.V1',
            transactionType: 'Upsert',
            forms: [
              {
                formOid: 'F.XT',
                transactionType: 'Upsert',
                groups: [
                  {
                    groupOid: 'IG.XT',
                    transactionType: 'Upsert',
                    items: [
                      { itemOid: 'I.XT.TXT', value: 'x', transactionType: 'Upsert' },
                      { itemOid: 'I.XT.MEMO', value: null, transactionType: 'Remove' },
                    ],
                  },
                  { groupOid: 'IG.XT.CHK', repeatKey: 2, transactionType: 'Remove', items: [] },
                ],
              },
              { formOid: 'F.DM', transactionType: 'Remove', groups: [] },
            ],
          },
        ],
      },
    ];
    const xml = await text(odmClinicalChunks({ ...header, fileType: 'Transactional' }, input));
    const r = xmllintCli(xml);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(xml).toContain('<ItemData ItemOID="I.XT.MEMO" TransactionType="Remove"/>');
    expect(xml).toContain('<ItemGroupData ItemGroupOID="IG.XT.CHK" ItemGroupRepeatKey="2" TransactionType="Remove">');
    expect(xml).toMatch(/<FormData FormOID="F\.DM" TransactionType="Remove">\s*<\/FormData>/);
    const got = [];
    for await (const s of parseOdmClinical(xml)) got.push(s);
    const forms = got[0]!.events[0]!.forms;
    expect(forms.map((f) => f.transactionType)).toEqual(['Upsert', 'Remove']);
    expect(forms[0]!.groups.map((g) => g.transactionType)).toEqual(['Upsert', 'Remove']);
    expect(forms[0]!.groups[0]!.items[1]).toMatchObject({ itemOid: 'I.XT.MEMO', value: null, transactionType: 'Remove' });
  });

  it('replaces characters XML cannot carry, so that any value gives a well-formed, valid document', async () => {
    const xml = await text(
      odmClinicalChunks(header, [
        {
          subjectKey: 'bad\u0001key',
          events: [
            {
              eventOid: 'SE.V1',
              forms: [
                {
                  formOid: 'F.DM',
                  groups: [
                    {
                      groupOid: 'IG.DM',
                      items: [{ itemOid: 'I.DM.X', value: 'a\u0000b\uD800c\uFFFEd\r\n' }],
                    },
                  ],
                },
              ],
            },
          ],
        },
      ]),
    );
    expect(xmllintCli(xml).code).toBe(0);
    expect(xml).toContain('SubjectKey="bad\uFFFDkey"');
    expect(xml).toContain('Value="a\uFFFDb\uFFFDc\uFFFDd&#13;&#10;"');
  });

  it('refuses a Transactional subject without TransactionType', async () => {
    await expect(
      text(odmClinicalChunks({ ...header, fileType: 'Transactional' }, [{ subjectKey: '1', events: [] }])),
    ).rejects.toBeInstanceOf(OdmWriteError);
  });

  it('reads back what it wrote (parseOdmClinical)', async () => {
    const input = subjects(design, true);
    const got = [];
    for await (const s of parseOdmClinical(
      odmClinicalChunks({ ...header, fileType: 'Transactional', adminData }, input),
    ))
      got.push(s);
    expect(got.map((s) => s.subjectKey)).toEqual(input.map((s) => s.subjectKey));
    const norm = (s: OdmSubject) =>
      s.events.map((e) => ({
        ...e,
        repeatKey: e.repeatKey === undefined ? undefined : String(e.repeatKey),
        forms: e.forms.map((f) => ({
          formOid: f.formOid,
          repeatKey: f.repeatKey === undefined ? undefined : String(f.repeatKey),
          audit: f.audit && { ...f.audit, dateTime: '2026-03-02T09:15:00Z' },
          signature: f.signature && { ...f.signature, dateTime: '2026-03-02T09:15:00Z' },
          groups: f.groups.map((g) => ({
            groupOid: g.groupOid,
            repeatKey: g.repeatKey === undefined ? undefined : String(g.repeatKey),
            items: g.items.map((i) => ({
              itemOid: i.itemOid,
              value: i.value === null ? null : String(i.value),
              audit: i.audit && { ...i.audit, dateTime: '2026-03-02T09:15:00Z' },
            })),
          })),
        })),
      }));
    const strip = (x: unknown) => JSON.parse(JSON.stringify(x));
    expect(strip(got.map(norm))).toEqual(strip(input.map(norm)));
  });
});

describe('formItemGroups and odmFieldValue', () => {
  const xt = design.forms.find((f) => f.code === 'XT')!;
  it('puts answered items in the form group in form order and one group per ticked option', () => {
    const groups = formItemGroups(xt, { NUM3: 5, CHK: ['C', 'A'], TXT: 'x', MEMO: '  ' });
    expect(groups).toEqual([
      {
        groupOid: 'IG.XT',
        items: [
          { itemOid: 'I.XT.TXT', value: 'x' },
          { itemOid: 'I.XT.NUM3', value: '5' },
        ],
      },
      { groupOid: 'IG.XT.CHK', repeatKey: 1, items: [{ itemOid: 'I.XT.CHK', value: 'GAMMA' }] },
      { groupOid: 'IG.XT.CHK', repeatKey: 2, items: [{ itemOid: 'I.XT.CHK', value: 'ALPHA' }] },
    ]);
  });

  it('formats values per ODM data type', () => {
    const f = (v: string) =>
      xt.components.find((c) => c.type !== 'table' && c.variable === v) as Parameters<
        typeof odmFieldValue
      >[0];
    expect(odmFieldValue(f('NUM2'), '12.50')).toBe('12.50');
    expect(odmFieldValue(f('NUM1'), 1e-7)).toBe('0.0000001');
    expect(odmFieldValue(f('NUM1'), '+3')).toBe('3');
    expect(odmFieldValue(f('DTM'), '2026-01-02 07:05')).toBe('2026-01-02T07:05:00');
    expect(odmFieldValue(f('DTM'), '2026-01-02T07:05:09')).toBe('2026-01-02T07:05:09');
    expect(odmFieldValue(f('PDT'), '2026')).toBe('2026');
    expect(odmFieldValue(f('SEL'), `c'd`)).toBe(`c'd`);
    expect(odmFieldValue(f('RAD'), '2')).toBe('N');
    expect(odmFieldValue(f('ATT'), 'a b%20c%zz.pdf')).toBe('a%20b%20c%25zz.pdf');
    expect(odmFieldValue(f('TXT'), '')).toBeNull();
  });
});

describe('streaming (20,000 subjects × 50 items)', () => {
  const SUBJECTS = 20_000;
  const ITEMS = 50;
  async function* many(): AsyncGenerator<OdmSubject> {
    for (let s = 0; s < SUBJECTS; s++) {
      const items = [];
      for (let i = 0; i < ITEMS; i++)
        items.push({
          itemOid: `I.LB.IT${i}`,
          value: i % 10 === 0 ? null : i % 3 === 0 ? s * 0.25 + i : `值 ${s}-${i} & <ok>`,
        });
      yield {
        subjectKey: `SUBJ-${String(s).padStart(6, '0')}`,
        siteOid: 'L.SITE1',
        events: [{ eventOid: 'SE.V1', forms: [{ formOid: 'F.LB', groups: [{ groupOid: 'IG.LB', items }] }] }],
      };
    }
  }

  it('keeps the heap flat while writing, without storing the output (figures printed)', async () => {
    const base = process.memoryUsage().heapUsed;
    let peak = base;
    let bytes = 0;
    let chunks = 0;
    const t0 = performance.now();
    for await (const c of odmClinicalChunks(header, many())) {
      bytes += Buffer.byteLength(c);
      if (++chunks % 20 === 0) peak = Math.max(peak, process.memoryUsage().heapUsed);
    }
    const s = (performance.now() - t0) / 1000;
    const growthMb = (peak - base) / 2 ** 20;
    console.log(
      `ODM writer: ${SUBJECTS} subjects × ${ITEMS} items = ${SUBJECTS * ITEMS} items, ${(bytes / 2 ** 20).toFixed(1)} MB in ${chunks} chunks, ` +
        `${s.toFixed(2)} s, ${Math.round((SUBJECTS * ITEMS) / s)} items/s, heap growth ${growthMb.toFixed(1)} MB (output would be ${(bytes / 2 ** 20).toFixed(0)} MB)`,
    );
    expect(bytes).toBeGreaterThan(40 * 2 ** 20);
    // the output is never held: the heap grows by far less than the document's size
    expect(growthMb).toBeLessThan(bytes / 2 ** 20 / 2);
  }, 120_000);

  it('parses the same stream back item by item (figures printed)', async () => {
    const base = process.memoryUsage().heapUsed;
    let peak = base;
    let subjects = 0;
    let items = 0;
    let nulls = 0;
    const t0 = performance.now();
    for await (const s of parseOdmClinical(odmClinicalChunks(header, many()))) {
      subjects++;
      for (const e of s.events)
        for (const f of e.forms)
          for (const g of f.groups)
            for (const i of g.items) {
              items++;
              if (i.value === null) nulls++;
            }
      if (subjects % 1000 === 0) peak = Math.max(peak, process.memoryUsage().heapUsed);
    }
    const s = (performance.now() - t0) / 1000;
    console.log(
      `ODM write → parse: ${subjects} subjects, ${items} items in ${s.toFixed(2)} s, ${Math.round(items / s)} items/s, heap growth ${((peak - base) / 2 ** 20).toFixed(1)} MB`,
    );
    expect(subjects).toBe(SUBJECTS);
    expect(items).toBe(SUBJECTS * ITEMS);
    expect(nulls).toBe(SUBJECTS * 5);
  }, 300_000);
});

import { describe, expect, it } from 'vitest';
import { formDefinition } from '@esource/shared';
import type { EdcTargetItem } from './adapters/adapter';
import { canonicalValue, indexMapping, mappingProblems, proposeMapping, recordItems, type MappingDesign, type MappingEntry } from './edc-mapping';

const vs = formDefinition.parse({
  name: '生命体征',
  code: 'VS',
  components: [
    { id: 'a', type: 'date', label: '检查日期', variable: 'VSDAT', required: true },
    { id: 'b', type: 'number', label: '收缩压', variable: 'SYSBP', unit: 'mmHg' },
    { id: 'c', type: 'radio', label: '体位', variable: 'POS', options: [{ value: '1', label: '坐位', mapping: 'SITTING' }, { value: '2', label: '卧位' }] },
    { id: 'd', type: 'checkbox', label: '症状', variable: 'SYM', options: [{ value: 'h', label: '头痛' }, { value: 'n', label: '恶心' }] },
    { id: 'e', type: 'file', label: '附件', variable: 'ATT' },
  ],
});
const design: MappingDesign = {
  visits: [
    { id: 1, code: 'V1', name: '筛选', nameEn: 'Screening', unscheduled: false, formIds: [10] },
    { id: 2, code: 'UNS', name: '计划外', nameEn: null, unscheduled: true, formIds: [10] },
  ],
  forms: [{ id: 10, code: 'VS', name: '生命体征', nameEn: 'Vital signs', definition: vs }],
};
const target: EdcTargetItem[] = [
  { event: 'SE.V1', form: 'F.VS', group: 'IG.VS', item: 'I.VS.VSDAT', dataType: 'date', required: true },
  { event: 'SE.V1', form: 'F.VS', group: 'IG.VS', item: 'I.VS.SYSBP', dataType: 'integer', required: false },
  { event: 'SE.V1', form: 'F.VS', group: 'IG.VS', item: 'I.VS.POS', dataType: 'text', required: true, codes: [{ value: 'SITTING' }, { value: 'SUPINE', label: '卧位' }] },
  { event: 'SE.UNS', form: 'F.VS', group: 'IG.VS', item: 'I.VS.VSDAT', dataType: 'date', required: true },
];

describe('EDC mapping rules', () => {
  it('needs the item list first, then names everything that blocks a sync', () => {
    expect(mappingProblems(design, [], null).map((p) => p.code)).toEqual(['noItemList']);
    expect(mappingProblems(design, [], target).map((p) => p.code)).toEqual(['nothingMapped']);
    const entries: MappingEntry[] = [
      { level: 'form', localKey: 'VS', target: 'F.VS', targetGroup: null, valueMap: null },
      { level: 'event', localKey: 'V1', target: 'SE.V1', targetGroup: null, valueMap: null },
      { level: 'item', localKey: 'VS.SYSBP', target: 'I.VS.SYSBP', targetGroup: 'IG.VS', valueMap: null },
      { level: 'item', localKey: 'VS.POS', target: 'I.VS.POS', targetGroup: 'IG.VS', valueMap: null },
      { level: 'item', localKey: 'VS.SYM', target: 'I.VS.SYSBP', targetGroup: 'IG.VS', valueMap: null },
    ];
    const codes = mappingProblems(design, entries, target).map((p) => `${p.code}:${p.localKey ?? ''}:${p.target ?? ''}`);
    expect(codes).toEqual(
      expect.arrayContaining([
        'eventUnmapped:UNS:', // the unscheduled visit holds the form but has no event
        'requiredUnmapped:VS:I.VS.VSDAT', // nothing fills the EDC's required date
        'codeUnmapped:VS.POS:I.VS.POS', // option 2 (卧位) has no code: its value '2' is not SUPINE
        'duplicateTarget:VS.SYM:I.VS.SYSBP',
      ]),
    );
    expect(codes, codes.join(" | ")).toHaveLength(4);
  });

  it('proposes visits, forms, items and option codes by code and label, keeping what is mapped', () => {
    const kept: MappingEntry = { level: 'item', localKey: 'VS.SYSBP', target: 'I.VS.SYSBP', targetGroup: 'IG.VS', valueMap: null };
    const p = proposeMapping(design, [kept], target);
    expect(p.find((e) => e.level === 'event' && e.localKey === 'V1')?.target).toBe('SE.V1');
    expect(p.find((e) => e.level === 'event' && e.localKey === 'UNS')?.target).toBe('SE.UNS');
    expect(p.find((e) => e.level === 'form')?.target).toBe('F.VS');
    expect(p.find((e) => e.localKey === 'VS.VSDAT')).toMatchObject({ target: 'I.VS.VSDAT', targetGroup: 'IG.VS' });
    // option 1 by its mapping, option 2 by its label
    expect(p.find((e) => e.localKey === 'VS.POS')?.valueMap).toEqual({ '1': 'SITTING', '2': 'SUPINE' });
    expect(p.some((e) => e.localKey === 'VS.SYSBP')).toBe(false);
    expect(p.some((e) => e.localKey === 'VS.ATT')).toBe(false);
    // the proposal, saved, leaves nothing to fix
    expect(mappingProblems(design, [kept, ...p], target)).toEqual([]);
  });

  it('gives values in canonical form', () => {
    const f = (v: string) => formDefinition.parse({ ...vs }).components.find((c) => 'variable' in c && c.variable === v) as Parameters<typeof canonicalValue>[0];
    expect(canonicalValue(f('SYSBP'), 120, null)).toBe('120');
    expect(canonicalValue(f('POS'), '1', null)).toBe('SITTING');
    expect(canonicalValue(f('POS'), '2', { '2': 'SUPINE' })).toBe('SUPINE');
    expect(canonicalValue(f('SYM'), ['h', 'n'], { h: 'HEADACHE' })).toBe('HEADACHE,n');
    expect(canonicalValue(f('VSDAT'), '', null)).toBeNull();
    expect(canonicalValue({ ...f('VSDAT'), type: 'datetime' }, '2026-03-01 08:30', null)).toBe('2026-03-01T08:30:00');
  });

  it("gives a record's items each with its target group, a checkbox as a multiple choice, our labels in both languages", () => {
    const form = { code: 'VS', definition: formDefinition.parse({ ...vs, components: vs.components.map((c) => (c.type !== 'table' && c.variable === 'SYSBP' ? { ...c, labelEn: 'Systolic' } : c)) }) };
    const by = indexMapping([
      { level: 'item', localKey: 'VS.VSDAT', target: 'I.VS.VSDAT', targetGroup: 'IG.VS', valueMap: null },
      { level: 'item', localKey: 'VS.SYSBP', target: 'I.VS.SYSBP', targetGroup: 'IG.VS_BP', valueMap: null },
      { level: 'item', localKey: 'VS.SYM', target: 'I.VS.SYM', targetGroup: 'IG.VS.SYM', valueMap: { h: 'HEADACHE' } },
      { level: 'item', localKey: 'VS.POS', target: 'I.VS.POS', targetGroup: null, valueMap: null },
    ]);
    const { items, locals } = recordItems(form, new Map<string, unknown>([['VSDAT', '2026-03-01'], ['SYSBP', 120], ['SYM', ['h', 'n']]]), by);
    expect(items).toEqual([
      { item: 'I.VS.VSDAT', value: '2026-03-01', group: 'IG.VS' },
      { item: 'I.VS.SYSBP', value: '120', group: 'IG.VS_BP' },
      { item: 'I.VS.POS', value: null },
      { item: 'I.VS.SYM', value: 'HEADACHE,n', group: 'IG.VS.SYM', multiple: true },
    ]);
    expect(locals['I.VS.SYSBP']).toEqual({ zh: '收缩压', en: 'Systolic' });
    expect(locals['I.VS.POS']).toEqual({ zh: '体位', en: null });
  });
});

import { describe, expect, it } from 'vitest';
import type { EdcMappingRow, EdcTargetItemView } from '@esource/shared';
import {
  applyEdits,
  changedRows,
  itemChoiceValue,
  normalValueMap,
  parseItemChoice,
  problemsByRow,
  pruneEdits,
  sections,
  targetChoices,
  targetItemOf,
  withEdit,
} from './mapping-edit';

const row = (
  level: EdcMappingRow['level'],
  localKey: string,
  target: string | null,
  extra: Partial<EdcMappingRow> = {},
): EdcMappingRow => ({
  level,
  localKey,
  label: localKey,
  formCode: level === 'item' ? localKey.split('.')[0]! : null,
  target,
  targetGroup: null,
  valueMap: null,
  ...extra,
});

const ROWS: EdcMappingRow[] = [
  row('event', 'V1', 'SE.V1'),
  row('form', 'DM', 'F.DM'),
  row('item', 'DM.SEX', 'I.SEX', {
    targetGroup: 'IG.DM',
    valueMap: { '1': 'M', '2': 'F' },
    options: [
      { value: '1', label: 'Male' },
      { value: '2', label: 'Female' },
    ],
  }),
  row('item', 'DM.AGE', null),
  row('form', 'VS', null),
];

describe('the mapping editor: rows to save', () => {
  it('sends nothing when nothing was edited, or an edit went back to the saved value', () => {
    expect(changedRows(ROWS, {})).toEqual([]);
    let e = withEdit(ROWS, {}, 'item:DM.AGE', { target: 'I.AGE', targetGroup: 'IG.DM', valueMap: null });
    e = withEdit(ROWS, e, 'item:DM.AGE', { target: null, targetGroup: null, valueMap: null });
    expect(e).toEqual({});
    expect(changedRows(ROWS, e)).toEqual([]);
  });

  it('sends only the rows that differ, a cleared target as a removal without target', () => {
    let e = withEdit(ROWS, {}, 'item:DM.AGE', { target: 'I.AGE', targetGroup: 'IG.DM', valueMap: null });
    e = withEdit(ROWS, e, 'event:V1', { target: null, targetGroup: null, valueMap: null });
    // the same SEX mapping with its codes in another key order: not a change
    e = withEdit(ROWS, e, 'item:DM.SEX', {
      target: 'I.SEX',
      targetGroup: 'IG.DM',
      valueMap: { '2': 'F', '1': 'M' },
    });
    expect(changedRows(ROWS, e)).toEqual([
      { level: 'event', localKey: 'V1' },
      { level: 'item', localKey: 'DM.AGE', target: 'I.AGE', targetGroup: 'IG.DM' },
    ]);
  });

  it('takes a changed code map as a change, and an emptied one as none', () => {
    const e1 = withEdit(ROWS, {}, 'item:DM.SEX', {
      target: 'I.SEX',
      targetGroup: 'IG.DM',
      valueMap: { '1': 'M', '2': 'W' },
    });
    expect(changedRows(ROWS, e1)).toEqual([
      {
        level: 'item',
        localKey: 'DM.SEX',
        target: 'I.SEX',
        targetGroup: 'IG.DM',
        valueMap: { '1': 'M', '2': 'W' },
      },
    ]);
    const e2 = withEdit(ROWS, {}, 'item:DM.SEX', {
      target: 'I.SEX',
      targetGroup: 'IG.DM',
      valueMap: { '1': '', '2': '' },
    });
    expect(changedRows(ROWS, e2)).toEqual([
      { level: 'item', localKey: 'DM.SEX', target: 'I.SEX', targetGroup: 'IG.DM' },
    ]);
    expect(normalValueMap({})).toBeNull();
  });

  it('shows the edits over the saved rows and drops those the server now holds', () => {
    const e = withEdit(ROWS, {}, 'form:VS', { target: 'F.VS', targetGroup: null, valueMap: null });
    expect(applyEdits(ROWS, e).find((r) => r.localKey === 'VS')?.target).toBe('F.VS');
    const afterAuto = ROWS.map((r) => (r.localKey === 'VS' ? { ...r, target: 'F.VS' } : r));
    expect(pruneEdits(afterAuto, e)).toEqual({});
    expect(pruneEdits(ROWS, e)).toEqual(e);
  });
});

describe('the targets the EDC offers', () => {
  const items: EdcTargetItemView[] = [
    {
      event: 'SE.V1',
      form: 'F.DM',
      group: 'IG.DM',
      item: 'I.SEX',
      dataType: 'text',
      required: true,
      codes: [{ value: 'M' }, { value: 'F' }],
    },
    {
      event: 'SE.V2',
      form: 'F.DM',
      group: 'IG.DM',
      item: 'I.SEX',
      dataType: 'text',
      required: true,
      codes: [{ value: 'M' }, { value: 'F' }],
    },
    { event: 'SE.V1', form: 'F.DM', group: 'IG.DM', item: 'I.AGE', dataType: 'integer', required: false },
    { form: 'F.VS', item: 'I.SYSBP', dataType: 'integer', required: false },
  ];
  it('lists events and forms once, and each form item once per group', () => {
    const c = targetChoices(items);
    expect(c.events).toEqual(['SE.V1', 'SE.V2']);
    expect(c.forms).toEqual(['F.DM', 'F.VS']);
    expect(c.items.get('F.DM')!.map((i) => i.item)).toEqual(['I.SEX', 'I.AGE']);
    expect(targetItemOf(c, 'F.DM', { target: 'I.SEX', targetGroup: 'IG.DM' })?.codes).toHaveLength(2);
    expect(targetItemOf(c, 'F.VS', { target: 'I.SEX', targetGroup: null })).toBeUndefined();
    expect(targetItemOf(c, null, { target: 'I.SEX', targetGroup: null })).toBeUndefined();
  });
  it('encodes an item choice with its group', () => {
    expect(parseItemChoice(itemChoiceValue('I.SEX', 'IG.DM'))).toEqual({ item: 'I.SEX', group: 'IG.DM' });
    expect(parseItemChoice(itemChoiceValue('I.SYSBP', null))).toEqual({ item: 'I.SYSBP', group: null });
  });
  it('groups the rows: visits, then each form with its items; problems by row', () => {
    const s = sections(ROWS);
    expect(s.events.map((r) => r.localKey)).toEqual(['V1']);
    expect(s.forms.map((f) => [f.form.localKey, f.items.map((i) => i.localKey)])).toEqual([
      ['DM', ['DM.SEX', 'DM.AGE']],
      ['VS', []],
    ]);
    const p = problemsByRow([
      { level: 'item', localKey: 'DM.SEX', target: 'I.SEX', code: 'codeUnmapped', message: 'x' },
      { level: null, localKey: null, target: null, code: 'nothingMapped', message: 'y' },
    ]);
    expect([...p.keys()]).toEqual(['item:DM.SEX']);
  });
});

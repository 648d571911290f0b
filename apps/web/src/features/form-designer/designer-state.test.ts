import { describe, expect, it } from 'vitest';
import type { FieldComponent, TableComponent } from '@esource/shared';
import {
  addComponent,
  cellAt,
  duplicateComponent,
  exportFile,
  mergeCell,
  moveComponent,
  newDraft,
  optionProblems,
  readImport,
  removeComponent,
  resizeTable,
  splitCell,
  updateCell,
  updateComponent,
  validateDraft,
  withCode,
  type Draft,
} from './designer-state';

function sample(): Draft {
  let d: Draft = { ...newDraft(), name: 'Demographics', code: 'DM2' };
  for (const t of ['text', 'radio', 'number', 'table'] as const) d = addComponent(d, t).draft;
  return d;
}

describe('designer state', () => {
  it('adds components with unique variables, at an index, and moves / deletes them', () => {
    let d = sample();
    expect(d.components.map((c) => c.type)).toEqual(['text', 'radio', 'number', 'table']);
    const r = addComponent(d, 'text', 0);
    d = r.draft;
    expect(d.components[0]!.id).toBe(r.id);
    expect((d.components[0] as FieldComponent).variable).toBe('TEXT_2');
    expect((d.components[2] as FieldComponent).options).toHaveLength(2);
    d = moveComponent(d, 0, 3);
    expect(d.components.map((c) => c.type)).toEqual(['text', 'radio', 'number', 'text', 'table']);
    d = removeComponent(d, r.id);
    expect(d.components).toHaveLength(4);
  });

  it('duplicates with new ids and variables, also inside tables', () => {
    let d = sample();
    const table = d.components[3] as TableComponent;
    d = updateComponent(d, table.id, updateCell(table, 0, 1, { component: { id: 'x', type: 'date', label: 'D', variable: 'VISIT_DATE' } }));
    const r = duplicateComponent(d, table.id);
    const copy = r.draft.components[4] as TableComponent;
    expect(copy.id).not.toBe(table.id);
    expect(cellAt(copy, 0, 1)!.component!.variable).toBe('DATE_1');
    const f = duplicateComponent(d, d.components[0]!.id).draft.components[1] as FieldComponent;
    expect(f.variable).toBe('TEXT_2');
    expect(validateDraft(r.draft).ok).toBe(true);
  });

  it('merges table cells with the shared rules and refuses the last row / column', () => {
    let t = (sample().components[3] as TableComponent);
    t = resizeTable(t, 3, 3);
    expect(t.cells).toHaveLength(9);
    expect(mergeCell(t, 2, 0, 'down')).toBe('mergeLastRow');
    expect(mergeCell(t, 0, 2, 'right')).toBe('mergeLastCol');
    const m = mergeCell(t, 0, 0, 'down') as TableComponent;
    expect(cellAt(m, 0, 0)).toMatchObject({ rowSpan: 2, colSpan: 1 });
    expect(m.cells).toHaveLength(8);
    expect(mergeCell(m, 0, 0, 'right')).toBe('mergeUneven');
    const m2 = mergeCell(m, 0, 1, 'down') as TableComponent;
    const m3 = mergeCell(m2, 0, 0, 'right') as TableComponent;
    expect(cellAt(m3, 0, 0)).toMatchObject({ rowSpan: 2, colSpan: 2 });
    // shrinking drops the merged cell that no longer fits and fills the grid again
    const small = resizeTable(m3, 1, 3);
    expect(small.cells.map((c) => `${c.row},${c.col}`)).toEqual(['0,0', '0,1', '0,2']);
    const split = splitCell(m3, 0, 0);
    expect(split.cells).toHaveLength(9);
  });

  it('places schema problems on their components', () => {
    let d: Draft = newDraft();
    let r = validateDraft(d);
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.issues.map((i) => i.message).sort()).toEqual(['validation.componentsEmpty', 'validation.formCode', 'validation.formName']);
    d = sample();
    const radio = d.components[1] as FieldComponent;
    d = updateComponent(d, radio.id, { options: [{ value: '1', label: 'a', mapping: 'M' }, { value: '1', label: 'b', mapping: 'M' }] });
    d = updateComponent(d, d.components[0]!.id, { displayCondition: 'NOPE == 1' });
    r = validateDraft(d);
    expect(r.ok).toBe(false);
    if (!r.ok) {
      expect(r.issues).toContainEqual(expect.objectContaining({ componentId: radio.id, field: 'options.1.value', message: 'validation.duplicateOptionValue' }));
      expect(r.issues).toContainEqual(expect.objectContaining({ componentId: radio.id, field: 'options.1.mapping', message: 'validation.duplicateOptionMapping' }));
      expect(r.issues).toContainEqual(expect.objectContaining({ componentId: d.components[0]!.id, field: 'displayCondition', message: 'validation.conditionVariable' }));
    }
    expect(optionProblems([{ value: '1', label: 'a', mapping: 'M' }, { value: '1', label: 'b', mapping: 'M' }, { value: '2', label: 'c' }])).toEqual({ 1: { value: true, mapping: true } });
  });

  it('round-trips through the export file, and reads a wrong file with the reason', () => {
    const d = sample();
    const t = d.components[3] as TableComponent;
    const merged = mergeCell(t, 0, 0, 'right') as TableComponent;
    const d2 = updateComponent(d, t.id, { ...merged, cells: merged.cells.map((c) => (c.row === 0 ? { ...c, text: '标题', textEn: 'Header' } : c)) });
    const v = validateDraft(updateComponent(d2, d2.components[2]!.id, { displayCondition: 'RADIO_1 == "2"', precision: 1, unit: 'kg', labelEn: '' }));
    expect(v.ok).toBe(true);
    if (!v.ok) return;
    expect((v.definition.components[2] as FieldComponent).labelEn).toBeUndefined();
    const text = JSON.stringify(exportFile(v.definition));
    const back = readImport(text);
    expect(back).toEqual({ ok: true, form: v.definition });
    expect((v.definition.components[3] as TableComponent).cells[0]).toMatchObject({ text: '标题', textEn: 'Header' });
    const copy = readImport(withCode(text, 'DM3'));
    expect(copy.ok && copy.form).toEqual({ ...v.definition, code: 'DM3' });
    expect(readImport('{"kind":"esource.form"}')).toMatchObject({ ok: false });
    expect(readImport('not json')).toMatchObject({ ok: false });
  });

  it("edits a cell's English text: an empty one is dropped, and leaving the text kind drops it", () => {
    const t = sample().components[3] as TableComponent;
    let u = updateCell(t, 0, 0, { text: '收缩压', textEn: 'Systolic' });
    expect(cellAt(u, 0, 0)).toMatchObject({ text: '收缩压', textEn: 'Systolic' });
    u = updateCell(u, 0, 0, { textEn: '' });
    expect(cellAt(u, 0, 0)).not.toHaveProperty('textEn');
    u = updateCell(updateCell(u, 0, 0, { textEn: 'Systolic' }), 0, 0, { text: undefined, textEn: undefined, component: undefined });
    expect(cellAt(u, 0, 0)).not.toHaveProperty('textEn');
  });
});

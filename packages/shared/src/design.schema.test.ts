import { describe, expect, it } from 'vitest';
import { cellText, emptyTableCells, formDefinition, formFields, mergeDown, mergeRight, tableCoverage, type FormDefinitionInput } from './design.schema';

const base = (components: FormDefinitionInput['components']): FormDefinitionInput => ({ name: 'Vitals', code: 'VS', components });
const messages = (def: unknown) => {
  const r = formDefinition.safeParse(def);
  return r.success ? [] : r.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`);
};

describe('form definition rules (spec §5 form designer)', () => {
  it('requires the form name and code, and at least one component', () => {
    expect(messages({ name: ' ', code: '', components: [] })).toEqual([
      'name: validation.formName',
      'code: validation.formCode',
      'components: validation.componentsEmpty',
    ]);
  });

  it('refuses a duplicate option value or mapping', () => {
    const def = base([
      {
        id: 'c1',
        type: 'radio',
        label: 'Sex',
        variable: 'sex',
        options: [
          { value: '1', label: 'Male', mapping: 'M' },
          { value: '1', label: 'Female', mapping: 'M' },
        ],
      },
    ]);
    expect(messages(def)).toEqual([
      'components.0.options.1.value: validation.duplicateOptionValue',
      'components.0.options.1.mapping: validation.duplicateOptionMapping',
    ]);
  });

  it('needs options on choice items, unique variables, precision only on numbers', () => {
    const def = base([
      { id: 'a', type: 'select', label: 'A', variable: 'a' },
      { id: 'b', type: 'text', label: 'B', variable: 'a', precision: 2 },
    ]);
    expect(messages(def)).toEqual([
      'components.0.options: validation.optionsRequired',
      'components.1.variable: validation.duplicateVariable',
      'components.1.precision: validation.precisionNumberOnly',
    ]);
  });

  it('checks display conditions: valid syntax, known variables of the same form', () => {
    const def = base([
      { id: 'a', type: 'radio', label: 'Sex', variable: 'sex', options: [{ value: '1', label: 'M' }, { value: '2', label: 'F' }] },
      { id: 'b', type: 'radio', label: 'Pregnant', variable: 'preg', options: [{ value: 'Y', label: 'Yes' }], displayCondition: 'sex == "2"' },
      { id: 'c', type: 'text', label: 'x', variable: 'x', displayCondition: 'weight > 3' },
      { id: 'd', type: 'text', label: 'y', variable: 'y', displayCondition: 'sex ==' },
    ]);
    expect(messages(def)).toEqual(['components.2.displayCondition: validation.conditionVariable', 'components.3.displayCondition: validation.condition']);
  });

  it('accepts every component type, a table with merged cells and items inside', () => {
    const table = { id: 't', type: 'table' as const, label: 'BP', rows: 2, cols: 3, cells: emptyTableCells(2, 3) };
    const merged = mergeRight(table, 0, 0);
    expect(Array.isArray(merged)).toBe(true);
    const cells = (merged as typeof table.cells).map((c) =>
      c.row === 1 && c.col === 0 ? { ...c, component: { id: 'sbp', type: 'number' as const, label: 'SBP', variable: 'sbp', unit: 'mmHg', precision: 0 } } : c,
    );
    const def = base([
      { id: '1', type: 'text', label: 'Text', variable: 't1' },
      { id: '2', type: 'textarea', label: 'Area', variable: 't2' },
      { id: '3', type: 'number', label: 'Num', variable: 'n1', precision: 1, unit: 'kg' },
      { id: '4', type: 'date', label: 'Date', variable: 'd1', required: true },
      { id: '5', type: 'datetime', label: 'When', variable: 'd2' },
      { id: '6', type: 'radio', label: 'R', variable: 'r1', options: [{ value: '1', label: 'a' }] },
      { id: '7', type: 'checkbox', label: 'C', variable: 'c1', options: [{ value: '1', label: 'a' }, { value: '2', label: 'b' }] },
      { id: '8', type: 'select', label: 'S', variable: 's1', options: [{ value: '1', label: 'a' }] },
      { id: '9', type: 'file', label: 'F', variable: 'f1' },
      { ...table, cells },
    ]);
    const r = formDefinition.parse(def);
    expect(formFields(r.components).map((f) => f.variable)).toEqual(['t1', 't2', 'n1', 'd1', 'd2', 'r1', 'c1', 's1', 'f1', 'sbp']);
    expect(r).toMatchObject({ cycle: false, layout: 'vertical', labelWidth: 120, recordType: 'medical' });
  });
});

describe('table merges', () => {
  const t = { rows: 2, cols: 2, cells: emptyTableCells(2, 2) };
  it('merge-down and merge-right are refused on the last row / column', () => {
    expect(mergeDown(t, 1, 0)).toBe('mergeLastRow');
    expect(mergeRight(t, 0, 1)).toBe('mergeLastCol');
  });
  it('merging spans the cell and removes the absorbed one', () => {
    const down = mergeDown(t, 0, 0);
    expect(down).toEqual([
      { row: 0, col: 0, rowSpan: 2, colSpan: 1 },
      { row: 0, col: 1, rowSpan: 1, colSpan: 1 },
      { row: 1, col: 1, rowSpan: 1, colSpan: 1 },
    ]);
    expect(tableCoverage({ ...t, cells: down as never })).toBeNull();
    // the merged cell now reaches the last row
    expect(mergeDown({ ...t, cells: down as never }, 0, 0)).toBe('mergeLastRow');
    // a 2-high cell cannot absorb a 1-high neighbour
    expect(mergeRight({ ...t, cells: down as never }, 0, 0)).toBe('mergeUneven');
  });
  it('detects overlapping cells', () => {
    expect(tableCoverage({ rows: 1, cols: 2, cells: [{ row: 0, col: 0, rowSpan: 1, colSpan: 2 }, { row: 0, col: 1, rowSpan: 1, colSpan: 1 }] })).toMatch(/twice/);
  });
});

describe('table cell texts in the reader\'s language', () => {
  const table = (cell: Record<string, unknown>) =>
    base([{ id: 't', type: 'table', label: '', rows: 1, cols: 1, cells: [{ row: 0, col: 0, rowSpan: 1, colSpan: 1, ...cell }] }]);
  it('keeps the English text of a cell and limits it to 200 characters', () => {
    const def = formDefinition.parse(table({ text: '收缩压', textEn: 'Systolic' }));
    expect(def.components[0]).toMatchObject({ cells: [{ text: '收缩压', textEn: 'Systolic' }] });
    expect(messages(table({ text: '收缩压', textEn: 'x'.repeat(201) }))).toEqual(['components.0.cells.0.textEn: Too big: expected string to have <=200 characters']);
  });
  it('shows the English text to en_US readers when there is one, else the text', () => {
    expect(cellText({ text: '收缩压', textEn: 'Systolic' }, 'en_US')).toBe('Systolic');
    expect(cellText({ text: '收缩压', textEn: 'Systolic' }, 'zh_CN')).toBe('收缩压');
    expect(cellText({ text: '收缩压' }, 'en_US')).toBe('收缩压');
    expect(cellText({ text: '收缩压', textEn: '' }, 'en_US')).toBe('收缩压');
    expect(cellText({}, 'en_US')).toBeUndefined();
  });
});

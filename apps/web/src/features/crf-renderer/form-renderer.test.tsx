import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { cleanup, fireEvent, render, screen } from '@testing-library/react';
import { useState } from 'react';
import { I18nextProvider } from 'react-i18next';
import { emptyTableCells, mergeDown, mergeRight, type FormComponent, type ItemValues } from '@esource/shared';
import { initI18n, i18n } from '../../i18n/i18n';
import { FormRenderer } from './form-renderer';
import { applyConditions, formWarnings, roundTo, shownVariables, validateForm, type FieldErrors, type RenderableForm } from './renderer-logic';

beforeAll(() => {
  initI18n('en_US');
});
afterEach(cleanup);

const SEX: FormComponent = {
  id: 'c1',
  type: 'radio',
  label: '性别',
  labelEn: 'Sex',
  variable: 'SEX',
  required: true,
  options: [
    { value: '1', label: '男', labelEn: 'Male' },
    { value: '2', label: '女', labelEn: 'Female' },
  ],
};
const PREG: FormComponent = { id: 'c2', type: 'text', label: '妊娠', labelEn: 'Pregnant', variable: 'PREG', required: true, displayCondition: 'SEX == "2"' };
const WEIGHT: FormComponent = { id: 'c3', type: 'number', label: '体重', labelEn: 'Weight', variable: 'WEIGHT', precision: 2, unit: 'kg', min: 1, max: 500 };

function Harness({ definition, initial = {}, errors, onValues }: { definition: RenderableForm; initial?: ItemValues; errors?: FieldErrors; onValues?: (v: ItemValues) => void }) {
  const [values, setValues] = useState<ItemValues>(initial);
  return (
    <I18nextProvider i18n={i18n}>
      <FormRenderer
        definition={definition}
        values={values}
        language="en_US"
        errors={errors ?? validateForm(definition.components, values)}
        onChange={(v) => {
          setValues(v);
          onValues?.(v);
        }}
      />
    </I18nextProvider>
  );
}

describe('renderer rules', () => {
  it('rounds to the precision, half away from zero', () => {
    expect(roundTo(3.14159, 2)).toBe(3.14);
    expect(roundTo(2.675, 2)).toBe(2.68);
    expect(roundTo(-1.005, 2)).toBe(-1.01);
    expect(roundTo(7.5, 0)).toBe(8);
    expect(roundTo(1.23456, undefined)).toBe(1.23456);
  });

  it('shows a conditional item only when its condition holds, and clears it (chains settle)', () => {
    const third: FormComponent = { id: 'c4', type: 'text', label: 'x', variable: 'WEEKS', displayCondition: 'not empty(PREG)' };
    const comps = [SEX, PREG, third];
    expect(shownVariables(comps, { SEX: '1' }).has('PREG')).toBe(false);
    expect(shownVariables(comps, { SEX: '2' }).has('PREG')).toBe(true);
    expect(applyConditions(comps, { SEX: '1', PREG: 'yes', WEEKS: '12' })).toEqual({ SEX: '1' });
    expect(applyConditions(comps, { SEX: '2', PREG: 'yes', WEEKS: '12' })).toEqual({ SEX: '2', PREG: 'yes', WEEKS: '12' });
  });

  it('validates required, number range; skips hidden items', () => {
    const comps = [SEX, PREG, WEIGHT, { ...WEIGHT, id: 'c9', variable: 'H', hidden: true, required: true }];
    expect(validateForm(comps, {})).toEqual({ SEX: { key: 'required' } });
    expect(validateForm(comps, { SEX: '2' })).toEqual({ PREG: { key: 'required' } });
    const range = { key: 'range', params: { min: 1, max: 500, unit: 'kg', range: '1–500 kg' } };
    expect(validateForm(comps, { SEX: '1', WEIGHT: 0.5 })).toEqual({ WEIGHT: range });
    expect(validateForm(comps, { SEX: '1', WEIGHT: 501 })).toEqual({ WEIGHT: range });
    // a soft range: no error, a warning
    const soft = [SEX, { ...WEIGHT, softRange: true }];
    expect(validateForm(soft, { SEX: '1', WEIGHT: 501 })).toEqual({});
    expect(formWarnings(soft, { SEX: '1', WEIGHT: 501 })).toEqual({ WEIGHT: range });
  });

  it('dates: real calendar days only, no future unless allowed, a datetime needs its time', () => {
    const clock = { today: '2026-03-10', now: '2026-03-10 09:30' };
    const D: FormComponent = { id: 'd', type: 'date', label: 'd', variable: 'BRTHDTC' };
    const T: FormComponent = { id: 't', type: 'datetime', label: 't', variable: 'VSDTC' };
    expect(validateForm([D], { BRTHDTC: '1980-02-31' }, clock)).toEqual({ BRTHDTC: { key: 'date', params: { range: '' } } });
    expect(validateForm([D], { BRTHDTC: '2030-01-01' }, clock).BRTHDTC?.key).toBe('future');
    expect(validateForm([T], { VSDTC: '2026-03-01' }, clock).VSDTC?.key).toBe('timeMissing');
    expect(validateForm([T], { VSDTC: '2026-03-01 08:00' }, clock)).toEqual({});
  });
});

describe('FormRenderer', () => {
  it('reveals a field when its condition holds and hides (and clears) it again', () => {
    let last: ItemValues = {};
    render(<Harness definition={{ components: [SEX, PREG] }} onValues={(v) => (last = v)} />);
    expect(screen.queryByTestId('crf-item-PREG')).toBeNull();
    fireEvent.click(screen.getByLabelText('Female'));
    expect(screen.getByTestId('crf-item-PREG')).toBeTruthy();
    fireEvent.change(screen.getByTestId('crf-input-PREG'), { target: { value: 'no' } });
    expect(last).toEqual({ SEX: '2', PREG: 'no' });
    fireEvent.click(screen.getByLabelText('Male'));
    expect(screen.queryByTestId('crf-item-PREG')).toBeNull();
    expect(last).toEqual({ SEX: '1' });
  });

  it('shows the required message in the reader language', () => {
    render(<Harness definition={{ components: [SEX, PREG] }} />);
    expect(screen.getByTestId('crf-item-SEX').textContent).toContain('This item is required');
    expect(screen.getByText('Sex')).toBeTruthy();
  });

  it('rounds a number to its precision and shows the unit', () => {
    let last: ItemValues = {};
    render(<Harness definition={{ components: [WEIGHT] }} onValues={(v) => (last = v)} />);
    const input = screen.getByTestId('crf-input-WEIGHT');
    fireEvent.change(input, { target: { value: '3.14159' } });
    fireEvent.blur(input);
    expect(last.WEIGHT).toBe(3.14);
    expect(screen.getByText('kg')).toBeTruthy();
  });

  it('draws a table with rowSpan / colSpan, text cells and fields', () => {
    let cells = emptyTableCells(3, 3);
    const t0 = { rows: 3, cols: 3, cells };
    cells = mergeDown(t0, 0, 0) as typeof cells;
    cells = mergeRight({ ...t0, cells }, 0, 1) as typeof cells;
    cells = cells.map((c) =>
      c.row === 0 && c.col === 0
        ? { ...c, text: 'Vitals' }
        : c.row === 1 && c.col === 1
          ? { ...c, component: { id: 'f1', type: 'number' as const, label: 'Pulse', variable: 'PULSE', unit: 'bpm' } }
          : c,
    );
    render(<Harness definition={{ components: [{ id: 't1', type: 'table', label: 'VS', rows: 3, cols: 3, cells }] }} />);
    const a = screen.getByTestId('crf-cell-t1-0-0');
    expect(a.getAttribute('rowspan')).toBe('2');
    expect(a.textContent).toBe('Vitals');
    expect(screen.getByTestId('crf-cell-t1-0-1').getAttribute('colspan')).toBe('2');
    expect(screen.queryByTestId('crf-cell-t1-1-0')).toBeNull();
    expect(screen.queryByTestId('crf-cell-t1-0-2')).toBeNull();
    expect(screen.getByTestId('crf-cell-t1-1-1').querySelector('input')).toBeTruthy();
    const rows = document.querySelectorAll('table.crf-table tr');
    expect([...rows].map((r) => r.children.length)).toEqual([2, 2, 3]);
  });

  it("shows a cell's English text to an English reader and the Chinese text to a Chinese one", () => {
    const table: FormComponent = {
      id: 't2',
      type: 'table',
      label: '血压',
      labelEn: 'Blood pressure',
      rows: 2,
      cols: 1,
      cells: [
        { row: 0, col: 0, rowSpan: 1, colSpan: 1, text: '坐位测量', textEn: 'Seated' },
        { row: 1, col: 0, rowSpan: 1, colSpan: 1, text: '收缩压', textEn: 'Systolic', component: { id: 'f2', type: 'number', label: '收缩压', variable: 'SYSBP' } },
      ],
    };
    const { rerender } = render(<FormRenderer definition={{ components: [table] }} values={{}} language="en_US" />);
    expect(screen.getByTestId('crf-cell-t2-0-0').textContent).toBe('Seated');
    expect(screen.getByTestId('crf-cell-t2-1-0').textContent).toContain('Systolic');
    rerender(<FormRenderer definition={{ components: [table] }} values={{}} language="zh_CN" />);
    expect(screen.getByTestId('crf-cell-t2-0-0').textContent).toBe('坐位测量');
    expect(screen.getByTestId('crf-cell-t2-1-0').textContent).toContain('收缩压');
    expect(screen.getByTestId('crf-cell-t2-1-0').textContent).not.toContain('Systolic');
  });

  it('honours disabled and read-only', () => {
    render(
      <Harness
        definition={{ components: [{ id: 'a', type: 'text', label: 'A', variable: 'A', disabled: true }, { id: 'b', type: 'text', label: 'B', variable: 'B', readOnly: true }] }}
      />,
    );
    expect((screen.getByTestId<HTMLInputElement>('crf-input-A')).disabled).toBe(true);
    expect((screen.getByTestId<HTMLInputElement>('crf-input-B')).readOnly).toBe(true);
  });
});

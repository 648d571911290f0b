import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { cleanup, fireEvent, render, screen } from '@testing-library/react';
import { I18nextProvider } from 'react-i18next';
import { initI18n, i18n } from '../../../i18n/i18n';
import { loadSharedValidation } from '../designer-i18n';
import { ConditionCheck, OptionsEditor } from './property-panel';

beforeAll(() => {
  initI18n('en_US');
  loadSharedValidation();
});
afterEach(cleanup);

const wrap = (node: React.ReactNode) => render(<I18nextProvider i18n={i18n}>{node}</I18nextProvider>);

describe('property panel', () => {
  it('marks a duplicate option value or mapping inline, with the shared messages', () => {
    wrap(
      <OptionsEditor
        options={[
          { value: '1', label: 'Yes', mapping: 'Y' },
          { value: '1', label: 'No', mapping: 'Y' },
        ]}
        onChange={vi.fn()}
      />,
    );
    expect(screen.getByTestId('opt-error-1').textContent).toBe('duplicate option value; duplicate option mapping');
    expect(screen.queryByTestId('opt-error-0')).toBeNull();
  });

  it('adds an option with a free value', () => {
    const onChange = vi.fn();
    wrap(<OptionsEditor options={[{ value: '2', label: 'A' }]} onChange={onChange} />);
    fireEvent.click(screen.getByTestId('opt-add'));
    expect(onChange).toHaveBeenCalledWith([
      { value: '2', label: 'A' },
      { value: '3', label: 'Option 2' },
    ]);
  });

  it('checks a display condition as it is typed', () => {
    const vars = new Set(['SEX', 'AGE']);
    const { rerender } = wrap(<ConditionCheck expression={'SEX == "2" and AGE >= 18'} variables={vars} self="PREG" />);
    expect(screen.getByTestId('condition-status').dataset.valid).toBe('true');
    expect(screen.getByTestId('condition-status').textContent).toContain('SEX, AGE');
    rerender(
      <I18nextProvider i18n={i18n}>
        <ConditionCheck expression="SEX ==" variables={vars} self="PREG" />
      </I18nextProvider>,
    );
    expect(screen.getByTestId('condition-status').dataset.valid).toBe('false');
    rerender(
      <I18nextProvider i18n={i18n}>
        <ConditionCheck expression="PREG == 1" variables={vars} self="PREG" />
      </I18nextProvider>,
    );
    expect(screen.getByTestId('condition-status').textContent).toContain('not in this form');
  });
});

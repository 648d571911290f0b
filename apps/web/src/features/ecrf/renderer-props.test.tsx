import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { cleanup, render, screen } from '@testing-library/react';
import { I18nextProvider } from 'react-i18next';
import type { FormComponent } from '@esource/shared';
import { initI18n, i18n } from '../../i18n/i18n';
import { FormRenderer } from '../crf-renderer';

beforeAll(() => {
  initI18n('en_US');
});
afterEach(cleanup);

const BRTH: FormComponent = {
  id: 'b',
  type: 'date',
  label: '出生日期',
  labelEn: 'Date of birth',
  variable: 'BRTHDTC',
  required: true,
};
const TABLE: FormComponent = {
  id: 't',
  type: 'table',
  label: '血压',
  labelEn: 'Blood pressure',
  rows: 1,
  cols: 1,
  cells: [
    {
      row: 0,
      col: 0,
      rowSpan: 1,
      colSpan: 1,
      component: { id: 's', type: 'number', label: '收缩压', labelEn: 'Systolic', variable: 'SYSBP' },
    },
  ],
};

describe('renderer props used by eCRF entry', () => {
  it('shows server messages on items and draws an extra next to each label', () => {
    render(
      <I18nextProvider i18n={i18n}>
        <FormRenderer
          definition={{ components: [BRTH, TABLE] }}
          values={{ BRTHDTC: '1980-01-01', SYSBP: 120 }}
          language="en_US"
          errorTexts={{ BRTHDTC: 'changing a saved value needs a reason', SYSBP: 'value out of range' }}
          itemExtra={(f) => <span data-testid={`extra-${f.variable}`}>h</span>}
        />
      </I18nextProvider>,
    );
    expect(screen.getByTestId('crf-item-BRTHDTC').textContent).toContain(
      'changing a saved value needs a reason',
    );
    expect(screen.getByTestId('crf-item-SYSBP').textContent).toContain('value out of range');
    expect(screen.getByTestId('extra-BRTHDTC')).toBeTruthy();
    expect(screen.getByTestId('extra-SYSBP')).toBeTruthy();
  });
  it('renders as before without them', () => {
    render(
      <I18nextProvider i18n={i18n}>
        <FormRenderer definition={{ components: [BRTH] }} values={{}} language="en_US" />
      </I18nextProvider>,
    );
    expect(screen.getByTestId('crf-item-BRTHDTC').textContent).toContain('Date of birth');
    expect(screen.queryByTestId('extra-BRTHDTC')).toBeNull();
  });
});

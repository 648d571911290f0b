import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { cleanup, fireEvent, render, screen, waitFor } from '@testing-library/react';
import { App as AntApp } from 'antd';
import { QueryClient, QueryClientProvider, queryOptions } from '@tanstack/react-query';
import { I18nextProvider } from 'react-i18next';
import type { PrefillCandidate, PrefillExecuteResult } from '@esource/shared';
import { initI18n, i18n } from '../../../i18n/i18n';
import { ApiError } from '../../../lib/api-client';
import { sessionStore } from '../../session';

const confirm = vi.fn();
let result: PrefillExecuteResult;
let run = 0;

vi.mock('../../session', async (orig) => ({ ...(await orig<object>()), usePms: () => () => true }));
vi.mock('../api/prefill-api', () => ({
  candidatesQuery: () => queryOptions({ queryKey: ['prefill-test', run], queryFn: () => Promise.resolve(result) }),
  prefillVisitsQuery: () => queryOptions({ queryKey: ['v'], queryFn: () => Promise.resolve([]) }),
  sourceRecordQuery: () => queryOptions({ queryKey: ['r'], queryFn: () => new Promise(() => undefined) }),
  prefillApi: { confirm: (...a: unknown[]) => confirm(...a), clean: vi.fn() },
}));

const { PrefillPanel } = await import('./prefill-panel');

const cand = (variable: string, state: PrefillCandidate['state'], value: unknown, current: unknown = null): PrefillCandidate => ({
  variable,
  label: variable,
  labelEn: variable,
  type: 'number',
  unit: 'g/L',
  options: [],
  state,
  problem: null,
  problemMessage: null,
  problemDetail: null,
  candidateValue: value,
  currentValue: current,
  currentEntryMode: current === null ? null : 2,
  currentSourceRef: null,
  source: { id: 7, version: 1, docType: 3, resourceType: 'Observation', codeSystem: null, code: '718-7', display: null, valueNum: 13.8, valueText: null, unit: 'g/dL', effectiveDate: '2026-01-01', effectiveAt: null },
  conversion: null,
});

beforeAll(() => {
  initI18n('en_US');
  sessionStore.set({ project: { id: 1, no: 'P', name: 'P' } as never, env: 'PRO' });
});
afterEach(() => {
  cleanup();
  confirm.mockReset();
});

function renderPanel(onApplied = vi.fn()) {
  run += 1;
  render(
    <QueryClientProvider client={new QueryClient({ defaultOptions: { queries: { retry: false } } })}>
      <I18nextProvider i18n={i18n}>
        <AntApp>
          <PrefillPanel
            crfKey={{ ptsId: 1, visitId: 2, formId: 3, unscheduledId: 0, repeatNo: 1 }}
            dirty={false}
            readOnly={false}
            onApplied={onApplied}
            onClose={vi.fn()}
          />
        </AntApp>
      </I18nextProvider>
    </QueryClientProvider>,
  );
  return onApplied;
}

describe('PrefillPanel', { timeout: 60_000 }, () => {
  it('sends nothing undecided; a merge waits for its reason; confirm sends the instance version it was shown', async () => {
    result = { formId: 3, formName: 'LB', window: null, instance: { id: 9, version: 4, status: 1 }, candidates: [cand('HGB', 'new', 138), cand('PLT', 'conflict', 190, 200)], ignored: 0 };
    confirm.mockResolvedValue({ instance: null, saved: 1, ignored: 0 });
    const applied = renderPanel();
    await screen.findByTestId('prefill-item-HGB');
    expect(screen.getByTestId<HTMLButtonElement>('prefill-confirm').disabled).toBe(true);
    fireEvent.click(screen.getByTestId('prefill-accept-all'));
    fireEvent.click(screen.getByTestId('prefill-choose-merge-PLT'));
    fireEvent.click(screen.getByTestId('prefill-confirm'));
    expect((await screen.findByTestId('prefill-error-PLT')).textContent).toContain('Give a reason to replace the current value');
    expect(confirm).not.toHaveBeenCalled();
    fireEvent.change(screen.getByTestId('prefill-reason-PLT'), { target: { value: 'lab corrected' } });
    fireEvent.click(screen.getByTestId('prefill-confirm'));
    await waitFor(() => expect(confirm).toHaveBeenCalledTimes(1));
    expect(confirm.mock.calls[0]![1]).toBe(4);
    expect(confirm.mock.calls[0]![2]).toEqual([
      { variable: 'HGB', sourceRecordId: 7, sourceVersion: 1, decision: 'new' },
      { variable: 'PLT', sourceRecordId: 7, sourceVersion: 1, decision: 'merge', reason: 'lab corrected' },
    ]);
    await waitFor(() => expect(applied).toHaveBeenCalled());
  });

  it('a stale form version shows the server’s message and offers a reload that refreshes the form', async () => {
    result = { formId: 3, formName: 'LB', window: null, instance: { id: 9, version: 4, status: 1 }, candidates: [cand('HGB', 'new', 138)], ignored: 0 };
    confirm.mockRejectedValue(new ApiError('Amy changed this data at 10:02; please reload and try again', 409, 'STALE_WRITE'));
    const applied = renderPanel();
    await screen.findByTestId('prefill-item-HGB');
    fireEvent.click(screen.getByTestId('prefill-choose-new-HGB'));
    fireEvent.click(screen.getByTestId('prefill-confirm'));
    expect((await screen.findByTestId('prefill-stale')).textContent).toContain('Amy changed this data at 10:02');
    expect(screen.getByTestId<HTMLButtonElement>('prefill-confirm').disabled).toBe(true);
    expect(applied).not.toHaveBeenCalled();
    fireEvent.click(screen.getByTestId('prefill-reload'));
    await waitFor(() => expect(applied).toHaveBeenCalledTimes(1));
    await waitFor(() => expect(screen.queryByTestId('prefill-stale')).toBeNull());
  });
});
